import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateName, NAME_ALPHABET } from './names.ts';

test('generateName appends 5 characters of the alphabet', () => {
  const n = generateName('web-');
  assert.match(n, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assert.equal(NAME_ALPHABET, 'bcdfghjklmnpqrstvwxz2456789');
});

test('a long base is cut so the name fits 63 characters', () => {
  const n = generateName('x'.repeat(80));
  assert.equal(n.length, 63);
  assert.ok(n.startsWith('x'.repeat(58)));
});

test('names differ', () => {
  const seen = new Set(Array.from({ length: 50 }, () => generateName('a-')));
  assert.ok(seen.size > 45);
});
