import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStorage } from './open.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'capstan-open-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('openStorage opens memory and sqlite backends; sqlite lives in <dataDir>/capstan.db', async () => {
  const mem = await openStorage({ backend: 'memory', dataDir: root });
  assert.equal(mem.name, 'memory');
  await mem.create('/k', 'v');
  await mem.close();

  const dataDir = path.join(root, 'nested', 'data');
  const sq = await openStorage({ backend: 'sqlite', dataDir });
  assert.equal(sq.name, 'sqlite');
  await sq.create('/k', 'v');
  await sq.close();
  assert.ok(fs.existsSync(path.join(dataDir, 'capstan.db')));
  const again = await openStorage({ backend: 'sqlite', dataDir });
  assert.equal((await again.get('/k')).kv?.value, 'v');
  await again.close();
});

test('openStorage rejects unavailable and unknown backends', async () => {
  await assert.rejects(openStorage({ backend: 'etcd', dataDir: root }), /etcd/);
  await assert.rejects(openStorage({ backend: 'nope' as 'memory', dataDir: root }), /unknown storage backend "nope"/);
});

test('with a history window, openStorage compacts in the background and close() stops it', async () => {
  const s = await openStorage({ backend: 'memory', dataDir: root, historyWindowSeconds: 0.05 });
  await s.create('/a', '1');
  await s.create('/b', '1');
  const deadline = Date.now() + 3000;
  while (s.compactedRevision() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.equal(s.compactedRevision(), 2);
  await s.create('/c', '1'); // a revision a running compactor would try to compact after close, and fail
  const warnings: string[] = [];
  const originalEmit = process.emitWarning;
  process.emitWarning = ((w: string | Error) => void warnings.push(String(w))) as typeof process.emitWarning;
  try {
    await s.close();
    assert.equal(await s.ready(), false);
    await new Promise((r) => setTimeout(r, 400));
  } finally {
    process.emitWarning = originalEmit;
  }
  assert.deepEqual(warnings, []);
});
