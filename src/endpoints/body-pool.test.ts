import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { bodyBuffer, pooledBytes } from './body-pool.ts';

test('a large body buffer goes back to the pool when its response closes, and is reused', () => {
  const first = new EventEmitter();
  const a = bodyBuffer(3 << 20, first);
  assert.equal(a.length, 3 << 20);
  const before = pooledBytes();
  first.emit('close');
  assert.ok(pooledBytes() > before);
  const b = bodyBuffer((3 << 20) - 100, new EventEmitter());
  assert.equal(b.length, (3 << 20) - 100);
  assert.equal(b.buffer, a.buffer, 'the same memory');
  assert.equal(pooledBytes(), before);
});

test('small bodies are not pooled; a buffer is not reused before its response closes', () => {
  const small = new EventEmitter();
  bodyBuffer(1000, small);
  assert.equal(small.listenerCount('close'), 0);
  const open = bodyBuffer(2 << 20, new EventEmitter());
  const other = bodyBuffer(2 << 20, new EventEmitter());
  assert.notEqual(open.buffer, other.buffer);
});

test('a page of 100 list items (about 100 KiB) is pooled: its memory is reused, not fresh from the system each time', () => {
  const holder = new EventEmitter();
  const a = bodyBuffer(100 << 10, holder);
  assert.equal(holder.listenerCount('close'), 1);
  holder.emit('close');
  const b = bodyBuffer((100 << 10) - 64, new EventEmitter());
  assert.equal(b.buffer, a.buffer);
});
