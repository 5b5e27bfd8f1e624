// Path elements of field paths (sigs.k8s.io/structured-merge-diff fieldpath): a struct field or map key
// ("f:"), an associative-list key ("k:"), a set value ("v:") or a list index ("i:"), with SMD's total order,
// its FieldsV1 serialization and its human-readable form used in conflict messages.

import { goQuote, goValue } from '../encoding/go-format.ts';
import { compareGoStrings, goJsonMarshal } from './go-format.ts';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  /** Key fields sorted by name. */
  | { readonly kind: 'key'; readonly fields: readonly (readonly [string, JsonValue])[]; serialized?: string }
  | { readonly kind: 'value'; readonly value: JsonValue; serialized?: string }
  | { readonly kind: 'index'; readonly index: number };

export type Path = readonly PathElement[];

export function fieldElement(name: string): PathElement {
  return { kind: 'field', name };
}

export function keyElement(fields: [string, JsonValue][]): PathElement {
  const sorted = [...fields].sort((a, b) => compareGoStrings(a[0], b[0]));
  return { kind: 'key', fields: sorted };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typeRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (isPlainObject(v)) return 4;
  return 5; // null
}

/** value.Compare: numbers < strings < booleans < lists < maps < null. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0: return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1: return compareGoStrings(a as string, b as string);
    case 2: return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const la = a as unknown[];
      const lb = b as unknown[];
      for (let i = 0; ; i++) {
        if (i >= la.length && i >= lb.length) return 0;
        if (i >= la.length) return -1;
        if (i >= lb.length) return 1;
        const c = compareValues(la[i], lb[i]);
        if (c !== 0) return c;
      }
    }
    case 4: {
      const oa = a as Record<string, unknown>;
      const ob = b as Record<string, unknown>;
      const ka = Object.keys(oa).sort(compareGoStrings);
      const kb = Object.keys(ob).sort(compareGoStrings);
      for (let i = 0; ; i++) {
        if (i >= ka.length && i >= kb.length) return 0;
        if (i >= ka.length) return -1;
        if (i >= kb.length) return 1;
        const kc = compareGoStrings(ka[i]!, kb[i]!);
        if (kc !== 0) return kc;
        const vc = compareValues(oa[ka[i]!], ob[kb[i]!]);
        if (vc !== 0) return vc;
      }
    }
    default: return 0;
  }
}

/** value.Equals: deep equality, numbers compared numerically, map key order irrelevant. */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' || typeof b === 'number') return typeof a === 'number' && typeof b === 'number' && a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valuesEqual(a[i], b[i])) return false;
    return true;
  }
  if (isPlainObject(a) || isPlainObject(b)) {
    if (!isPlainObject(a) || !isPlainObject(b)) return false;
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    if (ka.length !== kb.length) return false;
    for (const k of ka) {
      if (!Object.hasOwn(b, k) || !valuesEqual(a[k], b[k])) return false;
    }
    return true;
  }
  return false;
}

const KIND_RANK = { field: 0, key: 1, value: 2, index: 3 } as const;

/** PathElement.Compare: field names < keys < values < indexes, then by content. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_RANK[a.kind] < KIND_RANK[b.kind] ? -1 : 1;
  switch (a.kind) {
    case 'field': return compareGoStrings(a.name, (b as typeof a).name);
    case 'key': {
      const fa = a.fields;
      const fb = (b as typeof a).fields;
      for (let i = 0; ; i++) {
        if (i >= fa.length && i >= fb.length) return 0;
        if (i >= fa.length) return -1;
        if (i >= fb.length) return 1;
        const nc = compareGoStrings(fa[i]![0], fb[i]![0]);
        if (nc !== 0) return nc;
        const vc = compareValues(fa[i]![1], fb[i]![1]);
        if (vc !== 0) return vc;
      }
    }
    case 'value': return compareValues(a.value, (b as typeof a).value);
    case 'index': {
      const ib = (b as typeof a).index;
      return a.index < ib ? -1 : a.index > ib ? 1 : 0;
    }
  }
}

/** The FieldsV1 key of a path element: "f:name", "k:{...}", "v:...", "i:3". Also its identity. */
export function serializePathElement(pe: PathElement): string {
  switch (pe.kind) {
    case 'field': {
      // Field keys recur in every set operation: one string per name (a new one would be hashed and interned as a
      // property key each time).
      let key = fieldKeys.get(pe.name);
      if (key === undefined) {
        if (fieldKeys.size >= MAX_FIELD_KEYS) fieldKeys.clear();
        key = `f:${pe.name}`;
        fieldKeys.set(pe.name, key);
      }
      return key;
    }
    case 'index': return `i:${pe.index}`;
    default:
      // Keys and values marshal their JSON: remembered on the element (immutable otherwise), as one element is
      // serialized at every set operation.
      return (pe.serialized ??= pe.kind === 'key' ? `k:{${pe.fields.map(([n, v]) => `${goJsonMarshal(n)}:${goJsonMarshal(v)}`).join(',')}}` : `v:${goJsonMarshal(pe.value)}`);
  }
}

const fieldKeys = new Map<string, string>();
const MAX_FIELD_KEYS = 10000;

export class UnknownPathElementType extends Error {
  constructor() {
    super('unknown path element type');
  }
}

/** fieldpath.DeserializePathElement; throws UnknownPathElementType for prefixes a newer version may know. */
export function deserializePathElement(s: string): PathElement {
  // managedFields of every object repeat the same keys: each is parsed once (elements are immutable, so shared).
  let pe = parsedElements.get(s);
  if (pe === undefined) {
    pe = parsePathElement(s);
    if (parsedElements.size >= MAX_PARSED_ELEMENTS) parsedElements.clear();
    parsedElements.set(s, pe);
  }
  return pe;
}

const parsedElements = new Map<string, PathElement>();
const MAX_PARSED_ELEMENTS = 10000;

function parsePathElement(s: string): PathElement {
  if (s.length < 2) throw new Error('key must be 2 characters long:');
  if (s[1] !== ':') throw new Error(`missing colon: ${s}`);
  const body = s.slice(2);
  switch (s[0]) {
    case 'f':
      return { kind: 'field', name: body };
    case 'v':
      return { kind: 'value', value: parseJson(body) };
    case 'k': {
      const obj = parseJson(body);
      if (!isPlainObject(obj)) throw new Error(`ReadObjectCB: expect { or n, but found ${body.slice(0, 1)}`);
      return keyElement(Object.entries(obj) as [string, JsonValue][]);
    }
    case 'i': {
      if (!/^[+-]?\d+$/.test(body)) throw new Error(`strconv.Atoi: parsing ${goQuote(body)}: invalid syntax`);
      return { kind: 'index', index: Number(body) };
    }
    default:
      throw new UnknownPathElementType();
  }
}

function parseJson(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (e) {
    throw new Error(`invalid JSON in path element: ${(e as Error).message}`);
  }
}

/** value.ToString: the human-readable form of a value inside a path. */
export function valueToString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return goValue(v);
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(valueToString).join(',')}]`;
  const obj = v as Record<string, unknown>;
  return Object.keys(obj).sort(compareGoStrings).map((k) => `${k}=${valueToString(obj[k])}`).join('');
}

/** PathElement.String: ".name", "[name=\"x\",port=80]", "[=\"a\"]", "[3]". */
export function pathElementString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field': return `.${pe.name}`;
    case 'key': return `[${pe.fields.map(([n, v]) => `${n}=${valueToString(v)}`).join(',')}]`;
    case 'value': return `[=${valueToString(pe.value)}]`;
    case 'index': return `[${pe.index}]`;
  }
}

export function pathString(path: Path): string {
  return path.map(pathElementString).join('');
}
