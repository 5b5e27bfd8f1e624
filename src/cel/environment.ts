// The one CEL environment of the server: @bufbuild/cel's standard library and strings extension plus the Kubernetes
// libraries kube 1.31 enables (lists, sets, regex, URLs, quantity, optionals, IP/CIDR, format, authorizer), every function wrapped to
// charge the cost meter. compileExpression parses, checks against declared variable types and plans once per
// (expression, declarations); evaluate runs a program under a cost limit.

import { celEnv, celFunc, celMethod, parse, plan, isCelError, CelScalar } from '@bufbuild/cel';
import type { CelEnv, CelFunc, CelValue } from '@bufbuild/cel';
import { charge, meter, CostLimitExceeded } from './cost.ts';
import { checkExpression } from './check.ts';
import type { CheckedInfo } from './check.ts';
import { estimateCost } from './estimate.ts';
import type { DeclType } from './values.ts';
import { celEquals, lastOutOfRange } from './values.ts';
import { typeKey } from './type-key.ts';
import { listFuncs } from './library/lists.ts';
import { stringFuncs } from './library/strings.ts';
import { regexFuncs, regexTest } from './library/regex.ts';
import { urlFuncs } from './library/urls.ts';
import { quantityFuncs } from './library/quantity.ts';
import { optionalFuncs, rewriteOptionalSyntax } from './library/optionals.ts';
import { authorizerFuncs } from './library/authorizer.ts';
import { ipFuncs } from './library/ip.ts';
import { formatFuncs } from './library/format.ts';
import { formatIssue, formatSyntaxError } from './issues.ts';
import type { EnvironmentType } from './environment-type.ts';
import { dispatchingEnv } from './dispatch.ts';

const FUNC_BRAND = Symbol.for('@bufbuild/cel/func');

/** Equality with kube's list semantics (same ids as the standard ones, which they replace). */
const equalityFuncs: CelFunc[] = [
  celFunc('_==_', [CelScalar.DYN, CelScalar.DYN], CelScalar.BOOL, (a, b) => celEquals(a, b)),
  celFunc('_!=_', [CelScalar.DYN, CelScalar.DYN], CelScalar.BOOL, (a, b) => !celEquals(a, b)),
];

/** A string's length in code points, as cel-go's size counts runes (the standard overloads spread the string into an
 * array to count them). */
function codePoints(s: string): bigint {
  if (!SURROGATE.test(s)) return BigInt(s.length);
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return BigInt(n);
}
const SURROGATE = /[\ud800-\udfff]/;

const stringSizeFuncs: CelFunc[] = [
  celFunc('size', [CelScalar.STRING], CelScalar.INT, (s: string) => codePoints(s)),
  celMethod('size', CelScalar.STRING, [], CelScalar.INT, function (this: string) {
    return codePoints(this);
  }),
];

const libraryFuncs: CelFunc[] = [...equalityFuncs, ...stringSizeFuncs, ...stringFuncs, ...listFuncs, ...regexFuncs, ...urlFuncs, ...quantityFuncs, ...optionalFuncs, ...ipFuncs, ...formatFuncs, ...authorizerFuncs];

/** Size-proportional charges (cel-go charges 0.1 per traversed byte or element for these); the Kubernetes library
 * functions (and `matches`, through the regex cache) charge their own. */
const traversing = new Set(['contains', 'startsWith', 'endsWith', '_+_', 'lowerAscii', 'upperAscii', 'replace', 'split', 'join', 'trim', 'indexOf', 'lastIndexOf', 'substring', 'format', 'strings.quote', '@in']);

function sizeOf(v: CelValue | undefined): number {
  if (typeof v === 'string') return v.length;
  if (typeof v === 'object' && v !== null && 'size' in v && typeof (v as { size: unknown }).size === 'number') return (v as { size: number }).size;
  return 0;
}

/** The same function, charging the meter on each call. */
function costed(f: CelFunc): CelFunc {
  const traverses = traversing.has(f.name);
  return {
    [FUNC_BRAND]: {},
    id: f.id,
    name: f.name,
    target: f.target,
    arguments: f.arguments,
    result: f.result,
    call(id: number, target: CelValue | undefined, args: CelValue[]) {
      const r = f.call(id, target, args);
      // only the overload that accepted the arguments is charged
      if (r === undefined) return r;
      let units = 1;
      if (traverses) {
        let size = sizeOf(target);
        for (const a of args) size += sizeOf(a);
        units += Math.ceil(size * 0.1);
      }
      charge(units);
      return r;
    },
  } as unknown as CelFunc;
}

function buildEnv(): CelEnv {
  const re2 = { compile: (pattern: string) => ({ test: (text: string) => regexTest(pattern, text) }) };
  const base = celEnv({ funcs: libraryFuncs, re2 });
  // Every function (standard ones included) re-registered with the same id, so the costed one replaces it.
  return celEnv({ funcs: [...base.funcs].map(costed) });
}

export const env: CelEnv = buildEnv();
/** env as programs are planned with it: each call goes straight to the overload that takes its arguments. */
const planningEnv = dispatchingEnv(env);

/** Whether a function (or qualified function such as optional.none) of that name exists in the environment. */
export function hasFunction(name: string): boolean {
  return env.funcs.find(name) !== undefined;
}

// New expressions (./environment-type.ts) compile without the libraries 1.31 added: the format library.
const SINCE_1_31 = new Set(formatFuncs.map((f) => f.name));
const hasFunctionIn130 = (name: string): boolean => !SINCE_1_31.has(name) && hasFunction(name);

export interface CompiledExpression {
  readonly source: string;
  readonly program: (vars: Record<string, unknown>) => unknown;
  readonly info: CheckedInfo;
  /** Estimated worst-case cost (cel-go's units, approximated). */
  readonly maxCost: number;
}

export interface CompileOptions {
  /** Reject list and map literals mixing element types, as kube's environment does (cel-go's
   * HomogeneousAggregateLiterals); on unless turned off (the CEL conformance data mixes them). */
  homogeneousLiterals?: boolean;
  /** 'stored' unless the expression is new to the object being written (see EnvironmentType). */
  environment?: EnvironmentType;
}

export type CompileResult = { ok: true; expression: CompiledExpression } | { ok: false; error: string };

const cache = new Map<string, CompileResult>();
const CACHE_MAX = 5000;

/**
 * Compile (parse, check, estimate, plan) an expression against variable declarations; cached per (expression,
 * declarations). A failure carries cel-go's issue rendering ("ERROR: <input>:1:6: ...\n | src\n | .....^").
 */
export function compileExpression(source: string, variables: Readonly<Record<string, DeclType>>, options: CompileOptions = {}): CompileResult {
  const homogeneous = options.homogeneousLiterals ?? true;
  const newExpression = options.environment === 'new';
  let key = (homogeneous ? '' : '\u0001') + (newExpression ? '\u0002' : '') + source;
  for (const name of Object.keys(variables).sort()) key += `\u0000${name}:${typeKey(variables[name])}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const result = compileUncached(source, variables, homogeneous, newExpression ? hasFunctionIn130 : hasFunction);
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(key, result);
  return result;
}

type FunctionLookup = (name: string) => boolean;

function compileUncached(source: string, variables: Readonly<Record<string, DeclType>>, homogeneous: boolean, functions: FunctionLookup): CompileResult {
  try {
    return compileChecked(source, variables, homogeneous, functions);
  } catch (e) {
    // e.g. an expression nested deep enough to exhaust the stack
    return { ok: false, error: `ERROR: <input>:1:1: ${(e as Error).message}` };
  }
}

function compileChecked(source: string, variables: Readonly<Record<string, DeclType>>, homogeneous: boolean, functions: FunctionLookup): CompileResult {
  const rewritten = rewriteOptionalSyntax(source);
  let parsed;
  try {
    parsed = parse(rewritten);
  } catch (e) {
    return { ok: false, error: formatSyntaxError(source, e as Error) };
  }
  const checked = checkExpression(parsed, variables, functions, homogeneous, rewritten);
  if ('issues' in checked) return { ok: false, error: checked.issues.map((i) => formatIssue(rewritten, i.offset, i.message)).join('\n') };
  let program;
  try {
    program = plan(planningEnv, parsed);
  } catch (e) {
    return { ok: false, error: `ERROR: <input>:1:1: ${(e as Error).message}` };
  }
  const maxCost = estimateCost(checked);
  return { ok: true, expression: { source, program: program as (vars: Record<string, unknown>) => unknown, info: checked, maxCost } };
}

export type EvalResult =
  | { ok: true; value: CelValue; cost: number }
  | { ok: false; error: string; costExceeded: boolean; cost: number };

/** Cel-go's wording for the runtime errors whose text @bufbuild/cel words differently. */
function kubeErrorText(message: string): string {
  const field = /^field not found: (.*)$/.exec(message);
  if (field) return `no such key: ${field[1]}`;
  const index = /^index (-?\d+) out of bounds \[0, (?:(\d+)|-1)\)/.exec(message);
  if (index) {
    const size = index[2] !== undefined ? Number(index[2]) : lastOutOfRange.size;
    return size < 0 ? `index out of bounds: ${index[1]}` : `index '${index[1]}' out of range in list size '${size}'`;
  }
  if (message.startsWith('found no matching overload')) return `no such overload`;
  if (/^u?int divide by zero$/.test(message)) return 'division by zero';
  if (/^u?int modulus by zero$/.test(message)) return 'modulus by zero';
  if (message.startsWith('int overflow')) return 'integer overflow';
  if (message.startsWith('uint overflow')) return 'unsigned integer overflow';
  return message;
}

/** Evaluate a compiled expression with variable values, under a cost limit. */
export function evaluate(expr: CompiledExpression, vars: Record<string, unknown>, costLimit: number): EvalResult {
  const savedCost = meter.cost;
  const savedLimit = meter.limit;
  meter.cost = 0;
  meter.limit = costLimit;
  lastOutOfRange.size = -1;
  try {
    const r = expr.program(vars) as CelValue;
    const cost = meter.cost;
    if (isCelError(r)) {
      let cause: unknown = r;
      while (cause instanceof Error && !(cause instanceof CostLimitExceeded) && cause.cause !== undefined) cause = cause.cause;
      if (cause instanceof CostLimitExceeded || r.message === new CostLimitExceeded().message) {
        return { ok: false, error: 'operation cancelled: actual cost limit exceeded', costExceeded: true, cost };
      }
      return { ok: false, error: kubeErrorText(r.message), costExceeded: false, cost };
    }
    return { ok: true, value: r, cost };
  } catch (e) {
    const cost = meter.cost;
    if (e instanceof CostLimitExceeded) return { ok: false, error: e.message, costExceeded: true, cost };
    return { ok: false, error: kubeErrorText((e as Error).message), costExceeded: false, cost };
  } finally {
    meter.cost = savedCost;
    meter.limit = savedLimit;
  }
}
