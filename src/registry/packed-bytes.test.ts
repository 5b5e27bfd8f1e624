import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keptBuffer, keptConcat, keptUtf8 } from './packed-bytes.ts';

test('kept buffers pack side by side in one slab, each of its exact size, none overlapping', () => {
  const a = keptUtf8('x'.repeat(1000));
  const b = keptUtf8('\u00e9'.repeat(500));
  const c = keptConcat([Buffer.from('ab'), Buffer.from('cde')]);
  assert.equal(a.length, 1000);
  assert.equal(b.length, 1000);
  assert.equal(c.toString(), 'abcde');
  assert.equal(a.toString(), 'x'.repeat(1000));
  assert.equal(b.toString(), '\u00e9'.repeat(500));
  if (a.buffer === b.buffer) {
    // One slab: b starts after a, 8-byte aligned, and no other allocation came between them.
    assert.equal(b.byteOffset, a.byteOffset + 1000);
    assert.equal(b.byteOffset % 8, 0);
  }
  assert.equal(a.buffer.byteLength, 8192);
  // Node's pool is not used: a transient Buffer between two kept ones does not land in their slab.
  const transient = Buffer.from('y'.repeat(100));
  const d = keptBuffer(100);
  assert.notEqual(transient.buffer, d.buffer);
});

test('a slab that cannot hold the next buffer is replaced; large buffers get their own memory', () => {
  const kept = [3000, 3000, 3000, 2000, 8, 1, 4095].map((size, i) => keptBuffer(size).fill(i + 1));
  for (const [i, b] of kept.entries()) {
    assert.ok(b.every((x) => x === i + 1), `buffer ${i} was overwritten`);
    for (const other of kept.slice(i + 1)) {
      if (other.buffer !== b.buffer) continue;
      assert.ok(other.byteOffset >= b.byteOffset + b.length || b.byteOffset >= other.byteOffset + other.length, 'ranges overlap');
    }
  }
  // Three 3000-byte buffers cannot share an 8 KiB slab.
  assert.ok(new Set(kept.slice(0, 3).map((b) => b.buffer)).size >= 2);
  const big = keptBuffer(5000);
  assert.equal(big.byteOffset, 0);
  assert.equal(big.buffer.byteLength, 5000);
});
