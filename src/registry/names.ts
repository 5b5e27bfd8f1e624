// metadata.generateName (k8s.io/apiserver/pkg/storage/names): base + 5 random characters from kube's alphabet,
// the base cut so the result fits a 63-character name.

import { randomInt } from 'node:crypto';

/** utilrand's alphabet: no vowels (no accidental words) and no look-alike characters. */
export const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const randomLength = 5;
const maxNameLength = 63;
const maxGeneratedNameLength = maxNameLength - randomLength;

export function randomSuffix(length = randomLength): string {
  let s = '';
  for (let i = 0; i < length; i++) s += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return s;
}

export function generateName(base: string): string {
  const prefix = base.length > maxGeneratedNameLength ? base.slice(0, maxGeneratedNameLength) : base;
  return prefix + randomSuffix();
}
