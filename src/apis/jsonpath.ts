// The JSONPath subset kube's CRD printer columns evaluate (k8s.io/client-go/util/jsonpath, with missing keys
// allowed): fields (.a, ['a']), indexes and slices ([0], [-1], [1:3]), wildcards ([*], .*), recursive descent
// (..a) and filters ([?(@.type=="Ready")], comparisons ==, !=, <, <=, >, >= and existence). Evaluation returns
// every match in document order; a path that does not parse is reported once, when compiled.

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'slice'; start?: number; end?: number }
  | { kind: 'wildcard' }
  | { kind: 'recursive'; name: string | undefined }
  | { kind: 'filter'; path: Step[]; op?: string; value?: unknown };

export interface JsonPath {
  readonly source: string;
  /** Every match, in document order (empty when nothing matches). */
  find(value: unknown): unknown[];
}

export class JsonPathError extends Error {}

function parseLiteral(text: string): unknown {
  const t = text.trim();
  if ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'"))) return t.slice(1, -1);
  if (t === 'true' || t === 'false') return t === 'true';
  if (t === 'null' || t === 'nil') return null;
  const n = Number(t);
  if (t !== '' && Number.isFinite(n)) return n;
  throw new JsonPathError(`unrecognized filter value ${t}`);
}

function parseSteps(src: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  const readName = (): string => {
    const start = i;
    while (i < src.length && src[i] !== '.' && src[i] !== '[') i++;
    return src.slice(start, i);
  };
  while (i < src.length) {
    const c = src[i];
    if (c === '.') {
      if (src[i + 1] === '.') {
        i += 2;
        const name = src[i] === '*' ? (i++, undefined) : readName();
        steps.push({ kind: 'recursive', name: name || undefined });
        continue;
      }
      i++;
      if (src[i] === '*') {
        i++;
        steps.push({ kind: 'wildcard' });
        continue;
      }
      const name = readName();
      if (name !== '') steps.push({ kind: 'field', name });
      continue;
    }
    if (c === '[') {
      const close = findClose(src, i);
      const inner = src.slice(i + 1, close).trim();
      i = close + 1;
      if (inner === '*') steps.push({ kind: 'wildcard' });
      else if (inner.startsWith('?(') && inner.endsWith(')')) steps.push(parseFilter(inner.slice(2, -1)));
      else if ((inner.startsWith("'") && inner.endsWith("'")) || (inner.startsWith('"') && inner.endsWith('"'))) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else if (inner.includes(':')) {
        const [a, b] = inner.split(':');
        steps.push({ kind: 'slice', start: a.trim() === '' ? undefined : parseInteger(a), end: b.trim() === '' ? undefined : parseInteger(b) });
      } else steps.push({ kind: 'index', index: parseInteger(inner) });
      continue;
    }
    throw new JsonPathError(`unrecognized character in action: ${JSON.stringify(c)}`);
  }
  return steps;
}

function parseInteger(text: string): number {
  const t = text.trim();
  if (!/^-?\d+$/.test(t)) throw new JsonPathError(`invalid array index ${t}`);
  return Number(t);
}

function findClose(src: string, open: number): number {
  let depth = 0;
  let quote = '';
  for (let j = open; j < src.length; j++) {
    const c = src[j];
    if (quote) {
      if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return j;
  }
  throw new JsonPathError('unterminated array');
}

function parseFilter(expr: string): Step {
  const m = /^\s*@(\S*?)\s*(==|!=|<=|>=|<|>)\s*(.+?)\s*$/.exec(expr);
  if (m) return { kind: 'filter', path: parseSteps(m[1]), op: m[2], value: parseLiteral(m[3]) };
  const exists = /^\s*@(\S*)\s*$/.exec(expr);
  if (exists) return { kind: 'filter', path: parseSteps(exists[1]) };
  throw new JsonPathError(`unrecognized filter ${expr}`);
}

function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (v !== null && typeof v === 'object') return Object.keys(v as object).sort().map((k) => (v as Record<string, unknown>)[k]);
  return [];
}

function compare(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
  }
  if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) return false;
  const x = a as number | string;
  const y = b as number | string;
  return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
}

function apply(steps: readonly Step[], values: unknown[]): unknown[] {
  let current = values;
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      switch (step.kind) {
        case 'field':
          if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, step.name)) next.push((v as Record<string, unknown>)[step.name]);
          break;
        case 'index':
          if (Array.isArray(v)) {
            const idx = step.index < 0 ? v.length + step.index : step.index;
            if (idx >= 0 && idx < v.length) next.push(v[idx]);
          }
          break;
        case 'slice':
          if (Array.isArray(v)) next.push(...v.slice(step.start, step.end));
          break;
        case 'wildcard':
          next.push(...children(v));
          break;
        case 'recursive': {
          const walk = (x: unknown) => {
            if (step.name === undefined) next.push(x);
            else if (x !== null && typeof x === 'object' && !Array.isArray(x) && Object.hasOwn(x, step.name)) next.push((x as Record<string, unknown>)[step.name]);
            for (const c of children(x)) if (c !== null && typeof c === 'object') walk(c);
          };
          walk(v);
          break;
        }
        case 'filter':
          for (const item of children(v)) {
            const found = apply(step.path, [item]);
            if (step.op === undefined ? found.length > 0 : found.some((f) => compare(f, step.op as string, step.value))) next.push(item);
          }
          break;
      }
    }
    current = next;
  }
  return current;
}

/** Compiles a path written as kube's printer columns take it (".status.replicas"; braces optional). */
export function compileJsonPath(source: string): JsonPath {
  let text = source.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1);
  const steps = parseSteps(text);
  return { source, find: (value) => apply(steps, [value]) };
}
