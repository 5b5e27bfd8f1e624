// A stable text key of a declared type, for caching compiled programs per (expression, declared types).

import { createHash } from 'node:crypto';
import { DYN, type DeclType } from './decl.ts';

/** Keys longer than this are replaced by their digest: a resource's whole schema would otherwise sit in every cache key. */
const MAX_KEY_LENGTH = 256;

const keys = new WeakMap<DeclType, string>();

export function typeKey(t: DeclType): string {
  let k = keys.get(t);
  if (k !== undefined) return k;
  switch (t.kind) {
    case 'object':
      k = `{${[...t.fields].map(([n, f]) => `${n}=${f.name}:${typeKey(f.type)}`).join(',')}}${t.maxProperties ?? ''}/${t.minSize ?? ''}`;
      break;
    case 'map':
      k = `map<${typeKey(t.value)}>${t.maxProperties ?? ''}`;
      break;
    case 'list':
      k = `list<${typeKey(t.elem)}>${t.maxItems ?? ''}/${t.listType ?? ''}/${t.mapKeys?.join(',') ?? ''}`;
      break;
    case 'string':
    case 'bytes':
      k = `${t.kind}${t.maxLength ?? ''}`;
      break;
    case 'timestamp':
      k = t.dateOnly ? 'date' : 'timestamp';
      break;
    default:
      // a declared dyn and a type the checker could not infer check differently (the first is no bool)
      k = t.kind === 'dyn' && t !== DYN ? 'dyn?' : t.kind;
  }
  if (k.length > MAX_KEY_LENGTH) k = `#${createHash('sha256').update(k).digest('base64')}`;
  keys.set(t, k);
  return k;
}
