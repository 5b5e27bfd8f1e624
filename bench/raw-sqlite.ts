// The raw limit of a sqlite create: plain INSERTs into a table of the same shape (Capstan's schema and pragmas,
// WAL with synchronous=NORMAL), one transaction each with the newest-row lookup a create makes, straight through
// node:sqlite with no storage layer around it.
import { mkdtemp, rm } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as sql from '../src/storage/sqlite/schema.ts';

/** Inserts per second of `values` (one row per value, its own transaction each). */
export async function rawSqliteInsertRate(values: readonly string[]): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'capstan-bench-rawsql-'));
  const db = new DatabaseSync(join(dir, 'raw.db'));
  try {
    db.exec(sql.PRAGMAS);
    db.exec(sql.SCHEMA);
    const begin = db.prepare('BEGIN IMMEDIATE');
    const commit = db.prepare('COMMIT');
    const newest = db.prepare(sql.SELECT_NEWEST);
    const insert = db.prepare(sql.INSERT_ROW);
    const t0 = performance.now();
    for (let i = 0; i < values.length; i++) {
      const key = `/registry/configmaps/bench/cm-${i}`;
      begin.run();
      newest.get(key);
      insert.run(i + 1, key, 1, 0, i + 1, 0, values[i]!);
      commit.run();
    }
    return values.length / ((performance.now() - t0) / 1000);
  } finally {
    db.close();
    await rm(dir, { recursive: true, force: true });
  }
}
