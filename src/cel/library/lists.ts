// Kubernetes list library (k8s.io/apiserver/pkg/cel/library/lists.go) and sets library (sets.go):
// isSorted, sum, min, max, indexOf, lastIndexOf on lists; sets.contains, sets.equivalent, sets.intersects.

import { CelScalar, isCelList, listType, run } from '@bufbuild/cel';
import type { CelList, CelValue } from '@bufbuild/cel';
import { charge, traversalCost } from '../cost.ts';
import { func, method } from '../opaque.ts';
import { celEquals, compareValues } from '../values.ts';

const { DYN, INT, BOOL } = CelScalar;
const LIST = listType(DYN);

function items(v: CelValue): CelValue[] {
  if (!isCelList(v)) throw new Error('no such overload');
  const list = v as CelList;
  charge(traversalCost(list.size));
  return [...list];
}

function add(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    const r = a + b;
    if (r > 9223372036854775807n || r < -9223372036854775808n) throw new Error('integer overflow');
    return r;
  }
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  // uint and duration sums go through CEL's own addition
  const r = run('a + b', { a, b } as never);
  if (r instanceof Error) throw r;
  return r as CelValue;
}

export const listFuncs = [
  method('isSorted', LIST, [], BOOL, (self) => {
    const xs = items(self);
    for (let i = 1; i < xs.length; i++) if (compareValues(xs[i - 1], xs[i]) > 0) return false;
    return true;
  }),
  method('sum', LIST, [], DYN, (self) => {
    const xs = items(self);
    if (xs.length === 0) return 0n;
    return xs.reduce((acc, x) => add(acc, x));
  }),
  method('min', LIST, [], DYN, (self) => {
    const xs = items(self);
    if (xs.length === 0) throw new Error('min called on empty list');
    return xs.reduce((m, x) => (compareValues(x, m) < 0 ? x : m));
  }),
  method('max', LIST, [], DYN, (self) => {
    const xs = items(self);
    if (xs.length === 0) throw new Error('max called on empty list');
    return xs.reduce((m, x) => (compareValues(x, m) > 0 ? x : m));
  }),
  method('indexOf', LIST, [DYN], INT, (self, x) => BigInt(items(self).findIndex((e) => celEquals(e, x)))),
  method('lastIndexOf', LIST, [DYN], INT, (self, x) => {
    const xs = items(self);
    for (let i = xs.length - 1; i >= 0; i--) if (celEquals(xs[i], x)) return BigInt(i);
    return -1n;
  }),
  func('sets.contains', [LIST, LIST], BOOL, (a, b) => {
    const xs = items(a);
    return items(b).every((y) => xs.some((x) => celEquals(x, y)));
  }),
  func('sets.equivalent', [LIST, LIST], BOOL, (a, b) => {
    const xs = items(a);
    const ys = items(b);
    return ys.every((y) => xs.some((x) => celEquals(x, y))) && xs.every((x) => ys.some((y) => celEquals(x, y)));
  }),
  func('sets.intersects', [LIST, LIST], BOOL, (a, b) => {
    const xs = items(a);
    return items(b).some((y) => xs.some((x) => celEquals(x, y)));
  }),
];
