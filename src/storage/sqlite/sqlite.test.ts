import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { runStorageConformance } from '../conformance.ts';
import { StorageError } from '../types.ts';
import { openSqliteStorage } from './sqlite-storage.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'capstan-sqlite-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshFile = () => path.join(fs.mkdtempSync(path.join(root, `s${n++}-`)), 'capstan.db');

runStorageConformance('sqlite', async () => openSqliteStorage(freshFile()));
runStorageConformance('sqlite (replay page 7)', async () => openSqliteStorage(freshFile(), { replayPageSize: 7 }));

test('sqlite: reopening keeps data, history, the revision and the compacted revision', async () => {
  const file = freshFile();
  let s = openSqliteStorage(file);
  const a = await s.create('/r/a', 'a1');
  const a2 = await s.update('/r/a', 'a2', a.modRevision);
  await s.create('/r/b', 'b1');
  await s.delete('/r/b'); // 4: the newest row is a tombstone
  await s.compact(2);
  await s.compact(4); // removes the tombstone row of revision 4 itself
  await s.close();

  s = openSqliteStorage(file);
  assert.equal(await s.currentRevision(), 4, 'the revision survives even though its row was compacted away');
  assert.equal(s.compactedRevision(), 4);
  assert.deepEqual((await s.get('/r/a')).kv, a2);
  assert.equal((await s.get('/r/b')).kv, undefined);
  assert.equal(await s.count('/r/'), 1);
  const c = await s.create('/r/c', 'c1');
  assert.equal(c.modRevision, 5, 'new writes continue above the old revision');
  await s.close();

  s = openSqliteStorage(file);
  assert.deepEqual((await s.range('/r/')).kvs.map((k) => [k.key, k.value, k.modRevision]), [['/r/a', 'a2', 2], ['/r/c', 'c1', 5]]);
  assert.deepEqual((await s.get('/r/a', 4)).kv, a2);
  await assert.rejects(s.get('/r/a', 3), (err: StorageError) => err.code === 'Compacted');
  await s.close();
});

test('sqlite: the table is a log of one row per revision; compaction deletes superseded rows and tombstones', async () => {
  const file = freshFile();
  const s = openSqliteStorage(file);
  const a = await s.create('/l/a', 'a1'); // 1
  await s.update('/l/a', 'a2', a.modRevision); // 2
  await s.create('/l/b', 'b1'); // 3
  await s.delete('/l/b'); // 4
  await s.update('/l/a', 'a3', 2); // 5
  await s.close();
  const rows = () => {
    const db = new DatabaseSync(file);
    try {
      return db.prepare('SELECT id, name, created, deleted, create_revision, prev_revision, value FROM kv ORDER BY id').all().map((r) => ({ ...r }));
    } finally {
      db.close();
    }
  };
  assert.deepEqual(rows(), [
    { id: 1, name: '/l/a', created: 1, deleted: 0, create_revision: 1, prev_revision: 0, value: 'a1' },
    { id: 2, name: '/l/a', created: 0, deleted: 0, create_revision: 1, prev_revision: 1, value: 'a2' },
    { id: 3, name: '/l/b', created: 1, deleted: 0, create_revision: 3, prev_revision: 0, value: 'b1' },
    { id: 4, name: '/l/b', created: 0, deleted: 1, create_revision: 3, prev_revision: 3, value: 'b1' },
    { id: 5, name: '/l/a', created: 0, deleted: 0, create_revision: 1, prev_revision: 2, value: 'a3' },
  ]);
  const s2 = openSqliteStorage(file);
  await s2.compact(4);
  await s2.close();
  assert.deepEqual(rows().map((r) => r.id), [2, 5], 'row 1 superseded, rows 3 and 4 a deleted key');
});

test('sqlite: a write that fails inside its transaction leaves nothing behind', async () => {
  const s = openSqliteStorage(freshFile());
  await s.create('/x/a', 'a');
  // A value sqlite cannot bind fails after the transaction began.
  await assert.rejects(s.create('/x/b', Symbol('bad') as unknown as string));
  await assert.rejects(s.update('/x/a', {} as unknown as string, 1));
  assert.equal(await s.currentRevision(), 1);
  assert.equal((await s.get('/x/b')).kv, undefined);
  assert.equal(await s.count('/x/'), 1);
  const b = await s.create('/x/b', 'b');
  assert.equal(b.modRevision, 2);
  await s.close();
});

test('sqlite: a second open of the same file fails while the first holds it', async () => {
  const file = freshFile();
  const s = openSqliteStorage(file);
  await s.create('/k', 'v');
  assert.throws(() => openSqliteStorage(file), (err: StorageError) => err.code === 'Unavailable' && /another process/.test(err.message));
  await s.close();
  const again = openSqliteStorage(file);
  assert.equal((await again.get('/k')).kv?.value, 'v');
  await again.close();
});

test('sqlite: the database and its WAL files are readable by the owner only', async () => {
  const file = freshFile();
  const s = openSqliteStorage(file);
  await s.create('/r/secret', 'value');
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    if (fs.existsSync(f)) assert.equal(fs.statSync(f).mode & 0o777, 0o600, f);
  }
  await s.close();
});
