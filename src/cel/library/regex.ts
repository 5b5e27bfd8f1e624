// Kubernetes regex library (k8s.io/apiserver/pkg/cel/library/regex.go): find, findAll; plus the compiled-pattern
// cache the standard `matches` uses. Patterns are RE2 syntax; they run on JavaScript's engine, with RE2's leading
// inline flags ((?i), (?s), (?m)) translated.

import { CelScalar, listType } from '@bufbuild/cel';
import { charge, traversalCost } from '../cost.ts';
import { method } from '../opaque.ts';

const { STRING, INT } = CelScalar;
const cache = new Map<string, RegExp>();
const CACHE_MAX = 1000;

/** A global-flagged RegExp for an RE2 pattern, cached; throws kube's error for an invalid pattern. */
export function compileRegex(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (re) return re;
  let source = pattern;
  let flags = 'gu';
  const lead = /^\(\?([ims]+)\)/.exec(source);
  if (lead) {
    source = source.slice(lead[0].length);
    for (const f of lead[1]) if (!flags.includes(f)) flags += f;
  }
  try {
    re = new RegExp(source, flags);
  } catch (e) {
    throw new Error(`Illegal regex: ${(e as Error).message}`);
  }
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(pattern, re);
  return re;
}

export function regexTest(pattern: string, text: string): boolean {
  const re = compileRegex(pattern);
  re.lastIndex = 0;
  charge(traversalCost(text.length));
  return re.test(text);
}

function findAll(text: string, pattern: string, limit: bigint): string[] {
  const re = compileRegex(pattern);
  charge(traversalCost(text.length));
  const out: string[] = [];
  if (limit === 0n) return out;
  re.lastIndex = 0;
  for (const m of text.matchAll(re)) {
    out.push(m[0]);
    if (limit > 0n && BigInt(out.length) >= limit) break;
  }
  return out;
}

export const regexFuncs = [
  method('find', STRING, [STRING], STRING, (self, pattern) => findAll(self as string, pattern as string, 1n)[0] ?? ''),
  method('findAll', STRING, [STRING], listType(STRING), (self, pattern) => findAll(self as string, pattern as string, -1n)),
  method('findAll', STRING, [STRING, INT], listType(STRING), (self, pattern, limit) => findAll(self as string, pattern as string, limit as bigint)),
];
