import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTar, TarError, writeTar } from './tar.ts';

const LONG = `deep/${'d'.repeat(120)}/${'f'.repeat(90)}.txt`;
const LONGER = `${'x'.repeat(180)}/${'y'.repeat(120)}.txt`;

test('reads what GNU tar writes: files, directories, a long path in ustar prefix and one past it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-tar-'));
  try {
    mkdirSync(join(dir, 'src/sub'), { recursive: true });
    writeFileSync(join(dir, 'src/a.txt'), 'alpha\n');
    writeFileSync(join(dir, 'src/sub/b.bin'), Buffer.from([0, 1, 2, 255]));
    mkdirSync(join(dir, 'src', LONG, '..'), { recursive: true });
    writeFileSync(join(dir, 'src', LONG), 'long');
    mkdirSync(join(dir, 'src', LONGER, '..'), { recursive: true });
    writeFileSync(join(dir, 'src', LONGER), 'longer');
    const archive = execFileSync('tar', ['cf', '-', '-C', dir, 'src']);
    const entries = readTar(archive);
    const byName = new Map(entries.map((e) => [e.name, e]));
    assert.equal(byName.get('src')?.type, 'dir');
    assert.equal(byName.get('src/a.txt')?.data.toString(), 'alpha\n');
    assert.deepEqual([...byName.get('src/sub/b.bin')!.data], [0, 1, 2, 255]);
    assert.equal(byName.get(`src/${LONG}`)?.data.toString(), 'long');
    assert.equal(byName.get(`src/${LONGER}`)?.data.toString(), 'longer');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('GNU tar extracts what it writes, long paths and modes included', () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-tar-'));
  try {
    const archive = writeTar([
      { name: 'out', type: 'dir', mode: 0o755, mtime: 1_700_000_000, data: Buffer.alloc(0) },
      { name: 'out/run.sh', type: 'file', mode: 0o750, mtime: 1_700_000_000, data: Buffer.from('#!/bin/sh\n') },
      { name: `out/${LONG}`, type: 'file', mode: 0o644, mtime: 1_700_000_000, data: Buffer.from('long') },
      { name: `out/${LONGER}`, type: 'file', mode: 0o644, mtime: 1_700_000_000, data: Buffer.alloc(1000, 7) },
    ]);
    assert.equal(archive.length % 512, 0);
    execFileSync('tar', ['xf', '-', '-C', dir], { input: archive });
    assert.equal(readFileSync(join(dir, 'out/run.sh'), 'utf8'), '#!/bin/sh\n');
    assert.equal(readFileSync(join(dir, 'out', LONG), 'utf8'), 'long');
    assert.deepEqual(readFileSync(join(dir, 'out', LONGER)), Buffer.alloc(1000, 7));
    const listing = execFileSync('tar', ['tvf', '-'], { input: archive }).toString();
    assert.match(listing, /^-rwxr-x--- root\/root\s+10 2023-11-14 \d\d:\d\d out\/run\.sh$/m);
    // And reads it back the same.
    assert.deepEqual(readTar(archive).map((e) => [e.name, e.type, e.mode, e.data.length]), [
      ['out', 'dir', 0o755, 0],
      ['out/run.sh', 'file', 0o750, 10],
      [`out/${LONG}`, 'file', 0o644, 4],
      [`out/${LONGER}`, 'file', 0o644, 1000],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bytes that are not an archive are refused as GNU tar refuses them', () => {
  assert.throws(() => readTar(Buffer.alloc(1024, 0x41)), (e: unknown) => e instanceof TarError && e.message === 'This does not look like a tar archive');
  const cut = writeTar([{ name: 'f', type: 'file', mode: 0o644, mtime: 0, data: Buffer.alloc(2000) }]).subarray(0, 1024);
  assert.throws(() => readTar(cut), (e: unknown) => e instanceof TarError && e.message === 'Unexpected EOF in archive');
  assert.deepEqual(readTar(Buffer.alloc(0)), []);
});
