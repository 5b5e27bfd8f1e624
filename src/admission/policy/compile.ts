// A ValidatingAdmissionPolicy compiled for evaluation: its matchConditions, variables, validations (expression,
// messageExpression) and auditAnnotations against the admission variables, each with its compile error if any.

import type { CompiledExpression } from '../../cel/environment.ts';
import { environmentIn, type EnvironmentType } from '../../cel/environment-type.ts';
import { cel } from '../../cel/lazy.ts';
import { DYN, surelyNotOf, type DeclType } from '../../cel/decl.ts';
import { admissionDeclarations } from '../cel-context.ts';

export interface Compiled {
  readonly source: string;
  readonly expr: CompiledExpression | undefined;
  /** kube's compilation error detail: "compilation failed: ERROR: ..." or "must evaluate to bool". */
  readonly error?: string;
}

export interface CompiledValidation {
  readonly expression: Compiled;
  readonly message?: string;
  readonly messageExpression?: Compiled;
  readonly reason?: string;
}

export interface CompiledPolicy {
  readonly name: string;
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly paramKind?: { apiVersion: string; kind: string };
  readonly matchConditions: readonly { name: string; compiled: Compiled }[];
  readonly variables: readonly { name: string; compiled: Compiled }[];
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly { key: string; compiled: Compiled }[];
  readonly matchConstraints: Record<string, unknown>;
}

/** What an expression must evaluate to (kube's ExpressionAccessor.ReturnTypes); variables may be anything. */
export type ReturnType = 'bool' | 'string' | 'string or null' | 'any';

const RETURN_KINDS: Record<Exclude<ReturnType, 'any'>, { kinds: DeclType['kind'][]; reason: string }> = {
  bool: { kinds: ['bool'], reason: 'must evaluate to bool' },
  string: { kinds: ['string'], reason: 'must evaluate to string' },
  'string or null': { kinds: ['string'], reason: 'must evaluate to one of [string null_type]' },
};

/**
 * Compiles one admission expression against the declared variables and checks what it evaluates to; `environment`
 * is 'new' for an expression a write brings in (see EnvironmentType).
 */
export function compileAdmissionExpression(source: unknown, declarations: Readonly<Record<string, DeclType>>, returns: ReturnType, environment: EnvironmentType = 'stored'): Compiled {
  const text = typeof source === 'string' ? source : '';
  const r = cel().compileExpression(text, declarations, { environment });
  if (!r.ok) return { source: text, expr: undefined, error: `compilation failed: ${r.error}` };
  if (returns !== 'any' && surelyNotOf(r.expression.info.resultType, RETURN_KINDS[returns].kinds)) return { source: text, expr: undefined, error: RETURN_KINDS[returns].reason };
  return { source: text, expr: r.expression };
}

/** A variable's type as later expressions see it (kube's convertCelTypeToDeclType: objects become dyn). */
function variableType(t: DeclType | undefined): DeclType {
  if (!t || t.kind === 'object') return DYN;
  if (t.kind === 'list') return { kind: 'list', elem: variableType(t.elem) };
  if (t.kind === 'map') return { kind: 'map', value: variableType(t.value) };
  return t;
}

type Obj = Record<string, unknown>;

/** The expressions a policy held before an update, by where they stand (kube's preexistingExpressions). */
export interface PolicyExpressions {
  readonly matchConditions: ReadonlySet<string>;
  readonly validations: ReadonlySet<string>;
  readonly messageExpressions: ReadonlySet<string>;
  readonly auditAnnotations: ReadonlySet<string>;
}

// entries that are not objects compile as empty ones, so that each result stands at its entry's index
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map((x) => (x && typeof x === 'object' && !Array.isArray(x) ? (x as Obj) : {})) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * kube's composited compiler: each variable sees the ones before it, typed by their results; the declarations the
 * policy's other expressions are compiled against come with them.
 */
export function composeVariables(
  spec: Obj,
  base: { params: boolean | DeclType; object?: DeclType },
  preexisting?: PolicyExpressions,
): { variables: { name: string; compiled: Compiled }[]; declarations: Record<string, DeclType> } {
  const variableTypes = new Map<string, DeclType>();
  const variables = list(spec.variables).map((v) => {
    // kube looks a variable up among the old validations' expressions, where it is found only if one reads the same
    const environment = environmentIn(preexisting?.validations, v.expression);
    const compiled = compileAdmissionExpression(v.expression, admissionDeclarations({ ...base, variables: variableTypes }), 'any', environment);
    variableTypes.set(str(v.name), variableType(compiled.expr?.info.resultType));
    return { name: str(v.name), compiled };
  });
  return { variables, declarations: admissionDeclarations({ ...base, variables: variableTypes }) };
}

/** A policy compiled for evaluation, or, with the old policy's expressions (none on create), for a write's validation. */
export function compilePolicy(policy: { metadata: { name?: string }; spec?: unknown }, preexisting?: PolicyExpressions): CompiledPolicy {
  const spec = (policy.spec ?? {}) as Obj;
  const pk = spec.paramKind as Obj | undefined;
  const { variables, declarations } = composeVariables(spec, { params: !!pk }, preexisting);
  // matchConditions are compiled without variables, and with params whether or not there is a paramKind
  const conditionDeclarations = admissionDeclarations({ params: true });
  return {
    name: policy.metadata.name ?? '',
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    paramKind: pk ? { apiVersion: str(pk.apiVersion), kind: str(pk.kind) } : undefined,
    matchConstraints: (spec.matchConstraints as Obj) ?? {},
    matchConditions: list(spec.matchConditions).map((c) => ({
      name: str(c.name),
      compiled: compileAdmissionExpression(c.expression, conditionDeclarations, 'bool', environmentIn(preexisting?.matchConditions, c.expression)),
    })),
    variables,
    validations: list(spec.validations).map((v) => ({
      expression: compileAdmissionExpression(v.expression, declarations, 'bool', environmentIn(preexisting?.validations, v.expression)),
      message: str(v.message) || undefined,
      messageExpression: v.messageExpression
        ? compileAdmissionExpression(v.messageExpression, declarations, 'string', environmentIn(preexisting?.messageExpressions, v.messageExpression))
        : undefined,
      reason: str(v.reason) || undefined,
    })),
    auditAnnotations: list(spec.auditAnnotations).map((a) => ({
      key: str(a.key),
      compiled: compileAdmissionExpression(a.valueExpression, declarations, 'string or null', environmentIn(preexisting?.auditAnnotations, a.valueExpression)),
    })),
  };
}

/** The expressions of a stored policy, for the validation of its update (kube's findValidatingPolicyPreexistingExpressions). */
export function policyExpressions(spec: unknown): PolicyExpressions {
  const s = (spec && typeof spec === 'object' ? spec : {}) as Obj;
  const strings = (entries: Obj[], key: string) => new Set(entries.map((e) => e[key]).filter((x): x is string => typeof x === 'string'));
  const validations = list(s.validations);
  return {
    matchConditions: strings(list(s.matchConditions), 'expression'),
    validations: strings(validations, 'expression'),
    messageExpressions: new Set([...strings(validations, 'messageExpression')].filter((m) => m !== '')),
    auditAnnotations: strings(list(s.auditAnnotations), 'valueExpression'),
  };
}

/** No expression is stored yet: what a create compiles against. */
export const NO_EXPRESSIONS: PolicyExpressions = { matchConditions: new Set(), validations: new Set(), messageExpressions: new Set(), auditAnnotations: new Set() };
