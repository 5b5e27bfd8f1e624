// cel-go's extended strings library as kube 1.31 enables it (ext.Strings version 2): @bufbuild/cel's `strings`
// extension, with split(separator, limit) corrected to Go's strings.SplitN semantics.

import { CelScalar, listType } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { method } from '../opaque.ts';

const { STRING, INT } = CelScalar;

function splitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (n < 0) return sep === '' ? [...s] : s.split(sep);
  if (sep === '') {
    const chars = [...s];
    return chars.length <= n ? chars : [...chars.slice(0, n - 1), chars.slice(n - 1).join('')];
  }
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

export const stringFuncs = [...strings, method('split', STRING, [STRING, INT], listType(STRING), (self, sep, n) => splitN(self as string, sep as string, Number(n)))];
