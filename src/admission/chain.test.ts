import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createChain } from './chain.ts';
import type { AdmissionAttributes, AdmissionPlugin } from './types.ts';

const attrs = { operation: 'CREATE' } as AdmissionAttributes;

test('plugins with nothing to wait for run synchronously, in order', () => {
  const seen: string[] = [];
  const chain = createChain([
    { name: 'a', admit: () => void seen.push('a') },
    { name: 'b', handles: (op) => op === 'UPDATE', admit: () => void seen.push('b') },
    { name: 'c', admit: () => void seen.push('c'), validate: () => void seen.push('c.validate') },
  ]);
  assert.equal(chain.admit(attrs), undefined);
  assert.deepEqual(seen, ['a', 'c']);
  assert.equal(chain.validate(attrs), undefined);
  assert.deepEqual(seen, ['a', 'c', 'c.validate']);
});

test('from the first plugin that waits, the rest run after it, still in order', async () => {
  const seen: string[] = [];
  const later = (name: string): AdmissionPlugin => ({ name, admit: () => new Promise<void>((r) => setTimeout(() => r(void seen.push(name)), 5)) });
  const chain = createChain([{ name: 'a', admit: () => void seen.push('a') }, later('b'), { name: 'c', admit: () => void seen.push('c') }, later('d')]);
  const pending = chain.admit(attrs);
  assert.ok(pending instanceof Promise);
  assert.deepEqual(seen, ['a']);
  await pending;
  assert.deepEqual(seen, ['a', 'b', 'c', 'd']);
});

test('a refusal ends the chain, whether thrown or rejected', async () => {
  const seen: string[] = [];
  const refuse = new Error('refused');
  const thrown = createChain([{ name: 'a', admit: () => { throw refuse; } }, { name: 'b', admit: () => void seen.push('b') }]);
  assert.throws(() => thrown.admit(attrs), refuse);
  const rejected = createChain([{ name: 'a', admit: () => Promise.reject(refuse) }, { name: 'b', admit: () => void seen.push('b') }]);
  await assert.rejects(async () => rejected.admit(attrs), refuse);
  assert.deepEqual(seen, []);
});
