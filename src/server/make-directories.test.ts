import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDirectories } from './make-directories.ts';

test('makeDirectories makes the missing levels with the mode, keeps what exists', async () => {
  const root = await mkdtemp(join(tmpdir(), 'capstan-mkdirs-'));
  try {
    makeDirectories(join(root, 'a', 'b', 'c'), 0o700);
    for (const dir of ['a', 'a/b', 'a/b/c']) assert.equal((await stat(join(root, dir))).mode & 0o777, 0o700, dir);
    makeDirectories(join(root, 'a', 'b'), 0o700);
    await writeFile(join(root, 'file'), '');
    assert.throws(() => makeDirectories(join(root, 'file', 'd'), 0o700), { code: 'ENOTDIR' });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('makeDirectories ends with mkdir\'s own error where Node\'s recursive mkdir never returns (under /proc)', () => {
  assert.throws(() => makeDirectories('/proc/capstan-no-such-dir/data', 0o700), { code: 'ENOENT', message: "ENOENT: no such file or directory, mkdir '/proc/capstan-no-such-dir'" });
});
