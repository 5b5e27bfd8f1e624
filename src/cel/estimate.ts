// Worst-case cost estimate of a checked expression, the way kube bounds rules at CRD write time: comprehensions cost
// their body once per element of the largest list or map the schema allows (maxItems, maxProperties, maxLength; an
// unbounded one counts as many elements as fit in the largest request), string work costs 0.1 per byte. The units
// approximate cel-go's estimator; the limits and the shape of the reasoning are kube's.

import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import type { CheckedInfo } from './check.ts';
import type { DeclType } from './decl.ts';

/** The largest request body the server accepts, which bounds every unbounded collection (3 MiB). */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

/** Smallest JSON encoding of a value of the type (bytes), as kube's SchemaDeclType sets MinSerializedSize. */
function minJsonSize(t: DeclType): number {
  switch (t.kind) {
    case 'object':
      return t.minSize ?? 2;
    case 'string':
    case 'bytes':
    case 'map':
    case 'list':
      return 2;
    case 'bool':
      return 4;
    case 'duration':
      return 4;
    case 'timestamp':
      return t.dateOnly ? 12 : 22;
    default:
      return 1;
  }
}

/** The most elements (list items, map entries, string bytes) a value of the type can have in one request. */
export function maxElements(t: DeclType): number {
  switch (t.kind) {
    case 'list':
      return t.maxItems ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minJsonSize(t.elem) + 1));
    case 'map':
      return t.maxProperties ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minJsonSize(t.value) + 6));
    case 'object':
      return t.maxProperties ?? t.fields.size;
    case 'string':
    case 'bytes':
      return t.maxLength ?? MAX_REQUEST_SIZE_BYTES - 2;
    case 'dyn':
      return MAX_REQUEST_SIZE_BYTES - 2;
    default:
      return 1;
  }
}

// cel-go's shapes: comparisons traverse the smaller operand, contains the product of both sizes, prefix checks the
// prefix, regexes the text times a quarter of the pattern, the other string and list functions their operands.
const comparing = new Set(['_==_', '_!=_', '_<_', '_<=_', '_>_', '_>=_']);
const regexMatching = new Set(['matches', 'find', 'findAll']);
const traversing = new Set(['lowerAscii', 'upperAscii', 'replace', 'split', 'join', 'trim', 'indexOf', 'lastIndexOf', 'substring', 'format', 'strings.quote', '_+_', '@in', 'isSorted', 'sum', 'min', 'max', 'url', 'isURL', 'quantity', 'isQuantity']);

export function estimateCost(info: CheckedInfo): number {
  const size = (e: Expr | undefined): number => {
    if (!e) return 0;
    if (e.exprKind.case === 'listExpr') return e.exprKind.value.elements.length;
    if (e.exprKind.case === 'constExpr' && e.exprKind.value.constantKind.case === 'stringValue') return e.exprKind.value.constantKind.value.length;
    const t = info.types.get(e.id);
    if (!t) return 0;
    // scalars count as size 1, as cel-go's size estimate does
    if (t.kind === 'int' || t.kind === 'double' || t.kind === 'bool' || t.kind === 'timestamp' || t.kind === 'duration') return 1;
    return maxElements(t);
  };
  const cost = (e: Expr | undefined): number => {
    if (!e) return 0;
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        return 0;
      case 'identExpr':
        return 1;
      case 'selectExpr':
        return 1 + cost(k.value.operand);
      case 'listExpr':
        return 10 + k.value.elements.reduce((s, x) => s + cost(x), 0);
      case 'structExpr':
        return 30 + k.value.entries.reduce((s, x) => s + cost(x.value) + (x.keyKind.case === 'mapKey' ? cost(x.keyKind.value) : 0), 0);
      case 'callExpr': {
        const c = k.value;
        const parts = (c.target ? [c.target] : []).concat(c.args);
        if (c.function === '_?_:_') return cost(c.args[0]) + Math.max(cost(c.args[1]), cost(c.args[2]));
        let s = parts.reduce((acc, x) => acc + cost(x), 0);
        if (c.function === '_&&_' || c.function === '_||_') return s;
        s += 1;
        const sizes = parts.map(size);
        if (comparing.has(c.function)) s += Math.ceil(Math.min(...sizes) * 0.1);
        else if (c.function === 'contains') s += Math.ceil(sizes[0] * 0.1) * Math.ceil((sizes[1] ?? 0) * 0.1);
        else if (c.function === 'startsWith' || c.function === 'endsWith') s += Math.ceil((sizes[1] ?? 0) * 0.1);
        else if (regexMatching.has(c.function)) s += Math.ceil((sizes[0] + 1) * 0.1) * Math.ceil((sizes[1] ?? 0) * 0.25);
        else if (traversing.has(c.function)) s += Math.ceil(sizes.reduce((acc, x) => acc + x, 0) * 0.1);
        return s;
      }
      case 'comprehensionExpr': {
        const c = k.value;
        const n = size(c.iterRange);
        return cost(c.iterRange) + cost(c.accuInit) + n * (cost(c.loopCondition) + cost(c.loopStep)) + cost(c.result);
      }
      default:
        return 0;
    }
  };
  return cost(info.parsed.expr);
}
