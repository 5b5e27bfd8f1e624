// A ValidatingAdmissionPolicy compiled for evaluation: its matchConditions, variables, validations (expression,
// messageExpression) and auditAnnotations against the admission variables, each with its compile error if any.

import type { CompiledExpression } from '../../cel/environment.ts';
import { cel } from '../../cel/lazy.ts';
import { admissionDeclarations } from '../cel-context.ts';

export const POLICY_VARIABLES = admissionDeclarations(['object', 'oldObject', 'request', 'params', 'namespaceObject', 'authorizer', 'variables']);

export interface Compiled {
  readonly source: string;
  readonly expr: CompiledExpression | undefined;
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
  readonly matchConstraints: Record<string, unknown>;
  readonly matchConditions: readonly { name: string; compiled: Compiled }[];
  readonly variables: readonly { name: string; compiled: Compiled }[];
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly { key: string; compiled: Compiled }[];
}

export function compileOne(source: unknown): Compiled {
  const text = typeof source === 'string' ? source : '';
  const r = cel().compileExpression(text, POLICY_VARIABLES);
  return r.ok ? { source: text, expr: r.expression } : { source: text, expr: undefined, error: r.error };
}

type Obj = Record<string, unknown>;
const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object') as Obj[]) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function compilePolicy(policy: { metadata: { name?: string }; spec?: unknown }): CompiledPolicy {
  const spec = (policy.spec ?? {}) as Obj;
  const pk = spec.paramKind as Obj | undefined;
  return {
    name: policy.metadata.name ?? '',
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    paramKind: pk ? { apiVersion: str(pk.apiVersion), kind: str(pk.kind) } : undefined,
    matchConstraints: (spec.matchConstraints as Obj) ?? {},
    matchConditions: list(spec.matchConditions).map((c) => ({ name: str(c.name), compiled: compileOne(c.expression) })),
    variables: list(spec.variables).map((v) => ({ name: str(v.name), compiled: compileOne(v.expression) })),
    validations: list(spec.validations).map((v) => ({
      expression: compileOne(v.expression),
      message: str(v.message) || undefined,
      messageExpression: v.messageExpression ? compileOne(v.messageExpression) : undefined,
      reason: str(v.reason) || undefined,
    })),
    auditAnnotations: list(spec.auditAnnotations).map((a) => ({ key: str(a.key), compiled: compileOne(a.valueExpression) })),
  };
}
