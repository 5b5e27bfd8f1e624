// A static check of a parsed expression against declared variable types. @bufbuild/cel plans without checking, so
// this pass gives the compile-time errors cel-go's checker gives for the common mistakes (undeclared references,
// undefined fields of known objects, field selection on scalars) and infers types far enough to know a rule's
// result type and the sizes the cost estimate needs. Unknown types are `dyn`, as cel-go treats them.

import type { Expr, ParsedExpr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import type { DeclType } from './decl.ts';
import { DYN } from './decl.ts';
import { celTypeName, noMatchingOverload } from './overloads.ts';

export interface CheckedInfo {
  /** Declared variables the expression references. */
  readonly usedVariables: ReadonlySet<string>;
  /** Inferred type of each sub-expression, by expression id. */
  readonly types: ReadonlyMap<bigint, DeclType>;
  readonly resultType: DeclType;
  readonly parsed: ParsedExpr;
}

export interface CheckIssue {
  offset: number;
  message: string;
}

const BOOL: DeclType = { kind: 'bool' };
const INT: DeclType = { kind: 'int' };
const UINT: DeclType = { kind: 'uint' };
const DOUBLE: DeclType = { kind: 'double' };
const STRING: DeclType = { kind: 'string' };
const BYTES: DeclType = { kind: 'bytes' };
/** A type the checker could not infer: `dyn` to every check, but not the declared `dyn` of int-or-string values. */
const UNKNOWN: DeclType = { kind: 'dyn' };
const LIST_DYN: DeclType = { kind: 'list', elem: UNKNOWN };
const MAP_KEY: DeclType = { kind: 'string', maxLength: 0 };

/** Type denotations usable as values (`type(x) == int`). */
const TYPE_NAMES = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'dyn', 'optional_type']);

const boolFunctions = new Set([
  '_==_', '_!=_', '_<_', '_<=_', '_>_', '_>=_', '!_', '@in', '_&&_', '_||_', '@not_strictly_false', 'has',
  'contains', 'startsWith', 'endsWith', 'matches', 'isSorted', 'isURL', 'isQuantity', 'hasValue', 'isGreaterThan',
  'isLessThan', 'isInteger', 'allowed', 'errored', 'sets.contains', 'sets.equivalent', 'sets.intersects', 'bool',
]);
const intFunctions = new Set(['size', 'int', 'indexOf', 'lastIndexOf', 'sign', 'compareTo', 'asInteger']);
const stringFunctions = new Set([
  'string', 'lowerAscii', 'upperAscii', 'replace', 'substring', 'trim', 'charAt', 'join', 'format', 'strings.quote',
  'find', 'getScheme', 'getHost', 'getHostname', 'getPort', 'getEscapedPath', 'reason', 'error',
]);

export function typeName(t: DeclType): string {
  switch (t.kind) {
    case 'object':
      return 'object';
    case 'map':
      return `map(string, ${typeName(t.value)})`;
    case 'list':
      return `list(${typeName(t.elem)})`;
    default:
      return t.kind;
  }
}

/** Qualified name of an ident/select chain (`optional`, `sets`), for namespaced function calls. */
function qualifiedName(e: Expr | undefined): string | undefined {
  if (!e) return undefined;
  if (e.exprKind.case === 'identExpr') return e.exprKind.value.name;
  if (e.exprKind.case === 'selectExpr' && !e.exprKind.value.testOnly) {
    const q = qualifiedName(e.exprKind.value.operand);
    return q === undefined ? undefined : `${q}.${e.exprKind.value.field}`;
  }
  return undefined;
}

class Issue extends Error {
  readonly offset: number;
  constructor(offset: number, message: string) {
    super(message);
    this.offset = offset;
  }
}

/** Kinds whose mismatch in one list or map literal cel-go's HomogeneousAggregateLiterals reports. */
const SCALAR_KINDS = new Set(['int', 'uint', 'double', 'string', 'bool', 'bytes', 'timestamp', 'duration']);

export function checkExpression(
  parsed: ParsedExpr,
  variables: Readonly<Record<string, DeclType>>,
  hasFunction: (name: string) => boolean,
  homogeneous = true,
  source?: string,
): CheckedInfo | { issues: CheckIssue[] } {
  const positions = parsed.sourceInfo?.positions ?? {};
  const requireSame = (e: Expr, first: DeclType, t: DeclType): void => {
    if (SCALAR_KINDS.has(first.kind) && SCALAR_KINDS.has(t.kind) && first.kind !== t.kind) {
      throw new Issue(pos(e), `expected type '${typeName(first)}' but found '${typeName(t)}'`);
    }
  };
  const types = new Map<bigint, DeclType>();
  const used = new Set<string>();
  // cel-go goes on past an undeclared reference (its type is an error, which every check accepts) and reports them all
  const undeclared: CheckIssue[] = [];
  const undeclaredReference = (offset: number, name: string): DeclType => {
    undeclared.push({ offset, message: `undeclared reference to '${name}' (in container '')` });
    return UNKNOWN;
  };
  const pos = (e: Expr): number => positions[String(e.id)] ?? 0;
  // cel-go places a named function's call at its opening parenthesis, an operator at its first character and a
  // conditional at its `?`; the parser here places them at the name or dot, the space before, the condition
  const callPos = (e: Expr, fn: string): number => {
    const at = pos(e);
    if (source === undefined) return at;
    if (/^[A-Za-z]/.test(fn)) {
      const open = source.indexOf('(', at);
      return open < 0 ? at : open;
    }
    if (fn === '_?_:_') {
      const q = source.indexOf('?', at);
      return q < 0 ? at : q;
    }
    let i = at;
    while (i < source.length && /\s/.test(source[i])) i++;
    return i;
  };

  function visit(e: Expr, scope: ReadonlyMap<string, DeclType>): DeclType {
    const t = infer(e, scope);
    types.set(e.id, t);
    return t;
  }

  function select(e: Expr, operandType: DeclType, field: string): DeclType {
    switch (operandType.kind) {
      case 'object': {
        const f = operandType.fields.get(field);
        if (!f) throw new Issue(pos(e), `undefined field '${field}'`);
        return f.type;
      }
      case 'map':
        return operandType.value;
      case 'dyn':
        return DYN;
      default:
        throw new Issue(pos(e), `type '${typeName(operandType)}' does not support field selection`);
    }
  }

  function infer(e: Expr, scope: ReadonlyMap<string, DeclType>): DeclType {
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        switch (k.value.constantKind.case) {
          case 'boolValue':
            return BOOL;
          case 'int64Value':
            return INT;
          case 'uint64Value':
            return UINT;
          case 'doubleValue':
            return DOUBLE;
          case 'stringValue':
            return STRING;
          case 'bytesValue':
            return BYTES;
          default:
            return UNKNOWN;
        }
      case 'identExpr': {
        const name = k.value.name;
        const local = scope.get(name);
        if (local) return local;
        if (Object.hasOwn(variables, name)) {
          used.add(name);
          return variables[name];
        }
        if (TYPE_NAMES.has(name)) return UNKNOWN;
        // the first part of a qualified variable (`a` of a declared `a.b.c`) or type name (`google.protobuf.Duration`)
        if (name === 'google' || Object.keys(variables).some((v) => v.startsWith(`${name}.`))) return UNKNOWN;
        return undeclaredReference(pos(e), name);
      }
      case 'selectExpr': {
        const operand = k.value.operand;
        if (!operand) return UNKNOWN;
        // a namespaced function name used as a value is not valid, but `a.b` where `a` is declared is selection
        const t = visit(operand, scope);
        const r = select(e, t, k.value.field);
        return k.value.testOnly ? BOOL : r;
      }
      case 'callExpr': {
        const call = k.value;
        const fn = call.function;
        const qualified = qualifiedName(call.target);
        let targetType: DeclType | undefined;
        if (call.target && !(qualified !== undefined && !scope.has(qualified.split('.')[0]) && !Object.hasOwn(variables, qualified.split('.')[0]) && hasFunction(`${qualified}.${fn}`))) {
          targetType = visit(call.target, scope);
        } else if (call.target) {
          return resultOf(`${qualified}.${fn}`, undefined, call.args.map((a) => visit(a, scope)));
        }
        if (fn === 'has' && !call.target) throw new Issue(call.args[0] ? pos(call.args[0]) : pos(e), 'invalid argument to has() macro');
        const argTypes = call.args.map((a) => visit(a, scope));
        if (!fn.startsWith('_') && !fn.startsWith('@') && !hasFunction(fn)) return undeclaredReference(callPos(e, fn), fn);
        if (fn === '_&&_' || fn === '_||_') {
          argTypes.forEach((t, i) => {
            const name = t.kind === 'bool' ? undefined : celTypeName(t);
            if (name !== undefined && name !== 'dyn') throw new Issue(pos(call.args[i]), `expected type 'bool' but found '${name}'`);
          });
        } else {
          const mismatch = noMatchingOverload(fn, targetType, argTypes);
          if (mismatch) throw new Issue(callPos(e, fn), mismatch);
        }
        if (fn === '_[_]' && argTypes.length === 2) {
          const [c] = argTypes;
          // indexing a declared dyn is dyn, as in cel-go
          if (c === DYN) return DYN;
          if (c.kind === 'list') return c.elem;
          if (c.kind === 'map') return c.value;
          if (c.kind === 'object') {
            const key = call.args[1].exprKind;
            if (key.case === 'constExpr' && key.value.constantKind.case === 'stringValue') return select(e, c, key.value.constantKind.value);
          }
          return UNKNOWN;
        }
        return resultOf(fn, targetType, argTypes);
      }
      case 'listExpr': {
        const elems = k.value.elements.map((x) => visit(x, scope));
        if (homogeneous) elems.forEach((t, i) => requireSame(k.value.elements[i], elems[0], t));
        const first = elems[0];
        return { kind: 'list', elem: first && elems.every((x) => x.kind === first.kind) ? first : UNKNOWN };
      }
      case 'structExpr': {
        const entries = k.value.entries;
        let value: DeclType | undefined;
        let firstKey: DeclType | undefined;
        let firstValue: DeclType | undefined;
        for (const entry of entries) {
          if (entry.keyKind.case === 'mapKey') {
            const kt = visit(entry.keyKind.value, scope);
            firstKey ??= kt;
            if (homogeneous && !k.value.messageName) requireSame(entry.keyKind.value, firstKey, kt);
          }
          const v = entry.value ? visit(entry.value, scope) : UNKNOWN;
          firstValue ??= v;
          if (homogeneous && !k.value.messageName && entry.value) requireSame(entry.value, firstValue, v);
          value = value === undefined || value.kind === v.kind ? v : UNKNOWN;
        }
        if (k.value.messageName) return UNKNOWN;
        const keyKinds = new Set(entries.map((entry) => (entry.keyKind.case === 'mapKey' ? types.get(entry.keyKind.value.id)?.kind : undefined)));
        // keys of one kind type the map's keys; mixed ones leave them open, as cel-go's map(dyn, ...)
        const key = firstKey && keyKinds.size === 1 ? firstKey : UNKNOWN;
        return { kind: 'map', value: value ?? UNKNOWN, key };
      }
      case 'comprehensionExpr': {
        const c = k.value;
        const range = c.iterRange ? visit(c.iterRange, scope) : UNKNOWN;
        // map keys carry no size bound in kube's declared types, so their size estimate is 0
        const iterType = range.kind === 'list' ? range.elem : range.kind === 'map' ? (range.key ?? MAP_KEY) : range.kind === 'object' ? MAP_KEY : UNKNOWN;
        const accuType = c.accuInit ? visit(c.accuInit, scope) : UNKNOWN;
        const inner = new Map(scope);
        inner.set(c.accuVar, accuType.kind === 'list' ? LIST_DYN : accuType);
        const loopScope = new Map(inner);
        loopScope.set(c.iterVar, iterType);
        if (c.iterVar2) loopScope.set(c.iterVar2, range.kind === 'list' ? INT : UNKNOWN);
        if (c.loopCondition) visit(c.loopCondition, loopScope);
        let stepType: DeclType = UNKNOWN;
        if (c.loopStep) stepType = visit(c.loopStep, loopScope);
        const resultScope = new Map(inner);
        if (stepType.kind === 'list') resultScope.set(c.accuVar, stepType);
        return c.result ? visit(c.result, resultScope) : UNKNOWN;
      }
      default:
        return UNKNOWN;
    }
  }

  function resultOf(fn: string, target: DeclType | undefined, args: DeclType[]): DeclType {
    if (boolFunctions.has(fn)) return BOOL;
    if (intFunctions.has(fn)) return INT;
    if (stringFunctions.has(fn)) return STRING;
    if (fn === 'double' || fn === 'asApproximateFloat') return DOUBLE;
    if (fn === 'uint') return UINT;
    if (fn === 'split' || fn === 'findAll') return { kind: 'list', elem: STRING };
    const all = target ? [target, ...args] : args;
    if (fn === '_?_:_' && args.length === 3) return args[1].kind === args[2].kind && args[1].kind !== 'object' ? args[1] : UNKNOWN;
    if (['_+_', '_-_', '_*_', '_/_', '_%_', '-_'].includes(fn) && all.length > 0 && all.every((t) => t.kind === all[0].kind)) {
      const t = all[0];
      if (t.kind === 'int' || t.kind === 'uint' || t.kind === 'double' || (fn === '_+_' && (t.kind === 'string' || t.kind === 'list'))) return t;
    }
    if ((fn === 'min' || fn === 'max' || fn === 'sum') && target?.kind === 'list') return target.elem;
    return UNKNOWN;
  }

  // cel-go lists its issues by position
  const issues = (thrown?: CheckIssue) => ({ issues: [...undeclared, ...(thrown ? [thrown] : [])].sort((a, b) => a.offset - b.offset) });
  try {
    const expr = parsed.expr;
    if (!expr) return { issues: [{ offset: 0, message: 'empty expression' }] };
    const resultType = visit(expr, new Map());
    return undeclared.length > 0 ? issues() : { usedVariables: used, types, resultType, parsed };
  } catch (e) {
    if (e instanceof Issue) return issues({ offset: e.offset, message: e.message });
    throw e;
  }
}
