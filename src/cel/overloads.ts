// The overloads cel-go's checker resolves calls against (the standard library, kube's extended strings, lists,
// regex, URL, quantity and IP libraries), enough to refuse at compile time what cel-go refuses: a call none of a
// function's overloads takes, e.g. `false.size()` or `1 + 'a'`. Only calls whose operands all have types this
// checker knows are judged; a dyn operand matches every overload, and a type it could not infer passes.

import { DYN, type DeclType } from './decl.ts';

/** A parameter: a kind, a type parameter (A, B), or a list or map of them. */
type Param =
  | { kind: 'param'; name: string }
  | { kind: 'list'; elem: Param | undefined }
  | { kind: 'map'; key: Param | undefined; value: Param | undefined }
  | { kind: Exclude<DeclType['kind'], 'list' | 'map'> };

interface Overload {
  readonly receiver?: Param;
  readonly params: readonly Param[];
}

function parseParam(text: string): Param {
  if (text === 'A' || text === 'B') return { kind: 'param', name: text };
  const list = /^list<(.+)>$/.exec(text);
  if (list) return { kind: 'list', elem: parseParam(list[1]) };
  const map = /^map<(.+),(.+)>$/.exec(text);
  if (map) return { kind: 'map', key: parseParam(map[1]), value: parseParam(map[2]) };
  if (text === 'list') return { kind: 'list', elem: undefined };
  if (text === 'map') return { kind: 'map', key: undefined, value: undefined };
  return { kind: text as Exclude<DeclType['kind'], 'list' | 'map'> };
}

/** "a,b" is a global overload; "r.a,b" one called on a receiver of type r ("r." takes no arguments). */
function parseOverload(text: string): Overload {
  const dot = text.indexOf('.');
  const params = (dot < 0 ? text : text.slice(dot + 1)).split(/,(?![^<]*>)/).filter((p) => p !== '');
  return { receiver: dot < 0 ? undefined : parseParam(text.slice(0, dot)), params: params.map(parseParam) };
}

const NUMERIC = ['int', 'uint', 'double'];
const ORDERED = [...NUMERIC.flatMap((a) => NUMERIC.map((b) => `${a},${b}`)), 'string,string', 'bytes,bytes', 'bool,bool', 'timestamp,timestamp', 'duration,duration'];
const ARITHMETIC = ['int,int', 'uint,uint', 'double,double'];
const TIMESTAMP_PARTS = ['timestamp.', 'timestamp.string'];
const TIME_PARTS = [...TIMESTAMP_PARTS, 'duration.'];
const STRING_ONLY = ['string'];

const TABLE: Record<string, readonly string[]> = {
  '_+_': [...ARITHMETIC, 'string,string', 'bytes,bytes', 'list<A>,list<A>', 'timestamp,duration', 'duration,timestamp', 'duration,duration'],
  '_-_': [...ARITHMETIC, 'timestamp,timestamp', 'timestamp,duration', 'duration,duration'],
  '_*_': ARITHMETIC,
  '_/_': ARITHMETIC,
  '_%_': ['int,int', 'uint,uint'],
  '-_': ['int', 'double'],
  '!_': ['bool'],
  '_<_': ORDERED,
  '_<=_': ORDERED,
  '_>_': ORDERED,
  '_>=_': ORDERED,
  '_==_': ['A,A'],
  '_!=_': ['A,A'],
  '_?_:_': ['bool,A,A'],
  '@in': ['A,list<A>', 'A,map<A,B>'],
  '_[_]': ['list<A>,int', 'map<A,B>,A'],
  size: ['string', 'bytes', 'list', 'map', 'string.', 'bytes.', 'list.', 'map.'],
  int: ['int', 'uint', 'double', 'string', 'timestamp'],
  uint: ['int', 'uint', 'double', 'string'],
  double: ['int', 'uint', 'double', 'string'],
  string: ['int', 'uint', 'double', 'bool', 'bytes', 'string', 'timestamp', 'duration'],
  bytes: ['bytes', 'string'],
  bool: ['bool', 'string'],
  timestamp: ['string', 'timestamp', 'int'],
  duration: ['string', 'duration', 'int'],
  contains: ['string.string'],
  startsWith: ['string.string'],
  endsWith: ['string.string'],
  matches: ['string,string', 'string.string'],
  charAt: ['string.int'],
  indexOf: ['string.string', 'string.string,int', 'list<A>.A'],
  lastIndexOf: ['string.string', 'string.string,int', 'list<A>.A'],
  lowerAscii: ['string.'],
  upperAscii: ['string.'],
  trim: ['string.'],
  replace: ['string.string,string', 'string.string,string,int'],
  split: ['string.string', 'string.string,int'],
  substring: ['string.int', 'string.int,int'],
  join: ['list<string>.', 'list<string>.string'],
  find: ['string.string'],
  findAll: ['string.string', 'string.string,int'],
  isSorted: ['list.'],
  sum: ['list.'],
  min: ['list.'],
  max: ['list.'],
  getFullYear: TIMESTAMP_PARTS,
  getMonth: TIMESTAMP_PARTS,
  getDayOfYear: TIMESTAMP_PARTS,
  getDayOfMonth: TIMESTAMP_PARTS,
  getDate: TIMESTAMP_PARTS,
  getDayOfWeek: TIMESTAMP_PARTS,
  getHours: TIME_PARTS,
  getMinutes: TIME_PARTS,
  getSeconds: TIME_PARTS,
  getMilliseconds: TIME_PARTS,
  url: STRING_ONLY,
  isURL: STRING_ONLY,
  quantity: STRING_ONLY,
  isQuantity: STRING_ONLY,
  ip: STRING_ONLY,
  isIP: STRING_ONLY,
  cidr: STRING_ONLY,
  isCIDR: STRING_ONLY,
};

const overloads = new Map<string, Overload[]>();
function overloadsOf(fn: string): Overload[] | undefined {
  let o = overloads.get(fn);
  if (!o && Object.hasOwn(TABLE, fn)) overloads.set(fn, (o = TABLE[fn].map(parseOverload)));
  return o;
}

/** A type that matches every parameter: a declared dyn, or one the checker could not infer. */
const isOpen = (t: DeclType | undefined): boolean => t === undefined || t.kind === 'dyn';

function compatible(a: DeclType, b: DeclType): boolean {
  if (isOpen(a) || isOpen(b)) return true;
  if (a.kind !== b.kind) return false;
  if (a.kind === 'list' && b.kind === 'list') return compatible(a.elem, b.elem);
  if (a.kind === 'map' && b.kind === 'map') return compatible(a.key ?? MAP_KEY, b.key ?? MAP_KEY) && compatible(a.value, b.value);
  return true;
}

const MAP_KEY: DeclType = { kind: 'string' };

function matches(p: Param | undefined, t: DeclType, bound: Map<string, DeclType>): boolean {
  if (p === undefined || isOpen(t)) return true;
  if (p.kind === 'param') {
    const b = bound.get(p.name);
    if (b === undefined) {
      bound.set(p.name, t);
      return true;
    }
    return compatible(b, t);
  }
  if (p.kind !== t.kind) return false;
  if (p.kind === 'list' && t.kind === 'list') return matches(p.elem, t.elem, bound);
  if (p.kind === 'map' && t.kind === 'map') return matches(p.key, t.key ?? MAP_KEY, bound) && matches(p.value, t.value, bound);
  return true;
}

function takes(o: Overload, receiver: DeclType | undefined, args: readonly DeclType[]): boolean {
  if ((o.receiver === undefined) !== (receiver === undefined) || o.params.length !== args.length) return false;
  const bound = new Map<string, DeclType>();
  if (o.receiver && receiver && !matches(o.receiver, receiver, bound)) return false;
  return o.params.every((p, i) => matches(p, args[i], bound));
}

/** cel-go's name of a type, or undefined for one this checker cannot name as cel-go would (objects, uninferred). */
export function celTypeName(t: DeclType): string | undefined {
  if (t === DYN) return 'dyn';
  switch (t.kind) {
    case 'int':
    case 'uint':
    case 'double':
    case 'string':
    case 'bool':
    case 'bytes':
      return t.kind;
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'duration':
      return 'google.protobuf.Duration';
    case 'list': {
      const e = celTypeName(t.elem);
      return e === undefined ? undefined : `list(${e})`;
    }
    case 'map': {
      const k = celTypeName(t.key ?? MAP_KEY);
      const v = celTypeName(t.value);
      return k === undefined || v === undefined ? undefined : `map(${k}, ${v})`;
    }
    default:
      return undefined;
  }
}

/**
 * cel-go's "found no matching overload" text for a call no overload of a known function takes, with the operand
 * types as cel-go prints them (`bool.()`, `(int, string)`); undefined when one takes it or the call is not judged.
 */
export function noMatchingOverload(fn: string, receiver: DeclType | undefined, args: readonly DeclType[]): string | undefined {
  const candidates = overloadsOf(fn);
  if (!candidates || candidates.some((o) => takes(o, receiver, args))) return undefined;
  const names = args.map(celTypeName);
  const target = receiver === undefined ? '' : celTypeName(receiver);
  if (target === undefined || names.some((n) => n === undefined)) return undefined;
  return `found no matching overload for '${fn}' applied to '${receiver === undefined ? '' : `${target}.`}(${names.join(', ')})'`;
}
