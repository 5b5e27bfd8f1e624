import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openSqliteStorage } from './sqlite-storage.ts';

const writer = path.join(import.meta.dirname, 'crash-writer.ts');
const valueOf = (i: number): string => JSON.stringify({ i, padding: 'x'.repeat(2000) }); // as crash-writer.ts writes

test('sqlite: every write acknowledged before kill -9 survives, whole, and the store goes on', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capstan-crash-'));
  try {
    const file = path.join(dir, 'capstan.db');
    const child = spawn(process.execPath, [writer, file, '1000000'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    let lines = 0;
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      lines += chunk.split('\n').length - 1;
      if (lines >= 400 && !child.killed) child.kill('SIGKILL');
    });
    const watchdog = setTimeout(() => child.kill('SIGKILL'), 5000); // a slow machine: kill it anyway, still mid-burst
    const signal = await exited;
    clearTimeout(watchdog);
    assert.equal(signal, 'SIGKILL', 'the writer died mid-burst');

    const acked = output.split('\n').slice(0, -1).map((line) => {
      const [key, rev, i] = line.split('\t');
      return { key, revision: Number(rev), value: valueOf(Number(i)) };
    });
    assert.ok(acked.length > 0);
    assert.deepEqual(acked.map((a) => a.revision), acked.map((_, i) => i + 1), 'acknowledged revisions are 1..n');

    const db = new DatabaseSync(file);
    assert.equal((db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check, 'ok');
    const stats = db.prepare('SELECT COUNT(*) AS n, MAX(id) AS top FROM kv').get() as { n: number; top: number };
    // Every row, acknowledged or not, holds a whole value.
    for (const row of db.prepare('SELECT value FROM kv').iterate()) {
      const value = (row as { value: string }).value;
      assert.equal(value, valueOf(JSON.parse(value).i));
    }
    db.close();
    assert.equal(stats.n, stats.top, 'rows are exactly revisions 1..top');
    assert.ok(stats.top >= acked.length);

    const s = openSqliteStorage(file);
    assert.equal(await s.currentRevision(), stats.top);
    for (const a of acked) {
      const { kv } = await s.get(a.key, a.revision);
      assert.equal(kv?.modRevision, a.revision, `${a.key}@${a.revision}`);
      assert.equal(kv?.value, a.value);
    }
    const next = await s.create('/after/crash', 'ok');
    assert.equal(next.modRevision, stats.top + 1);
    await s.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
