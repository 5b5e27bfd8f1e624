// Evaluating one policy under one binding for one request and one param (k8s.io/apiserver/pkg/admission/plugin/
// policy/validating): matchConditions, lazily evaluated variables, validations with their messages and reasons,
// audit annotations. Errors follow the policy's failurePolicy.

import { PER_CALL_LIMIT } from '../../cel/cost.ts';
import { DYN } from '../../cel/decl.ts';
import { cel } from '../../cel/lazy.ts';
import type { Compiled, CompiledPolicy } from './compile.ts';

export interface PolicyDecision {
  readonly action: 'admit' | 'deny';
  readonly message: string;
  readonly reason: string;
  /** A failure to evaluate (failurePolicy applied by the caller). */
  readonly error: boolean;
}

/** An audit annotation's outcome: a value to publish, or an error (a denial under failurePolicy Fail). */
export type AuditAnnotationOutcome = { readonly key: string; readonly value: string } | { readonly key: string; readonly error: string };

export interface PolicyOutcome {
  /** False when a match condition excluded the request. */
  readonly matched: boolean;
  /** One per validation, in the policy's order (the index is the audit annotation's expressionIndex). */
  readonly decisions: readonly PolicyDecision[];
  /** Keys are `<policy>/<key>`; empty and null values are left out, as kube excludes them. */
  readonly auditAnnotations: readonly AuditAnnotationOutcome[];
}

/** A lazily evaluated `variables` map: each variable is computed on first use, once. */
class LazyVariables {
  readonly values = new Map<string, unknown>();
  private readonly defs: CompiledPolicy['variables'];
  private readonly activation: Record<string, unknown>;
  constructor(defs: CompiledPolicy['variables'], activation: Record<string, unknown>) {
    this.defs = defs;
    this.activation = activation;
  }
  get(name: string): unknown {
    if (this.values.has(name)) return this.values.get(name);
    const def = this.defs.find((d) => d.name === name);
    if (!def) return undefined;
    let value: unknown = null;
    if (def.compiled.expr) {
      const r = cel().evaluate(def.compiled.expr, this.activation, PER_CALL_LIMIT);
      value = r.ok ? r.value : null;
    }
    this.values.set(name, value);
    return value;
  }
}

function run(c: Compiled, activation: Record<string, unknown>): { ok: true; value: unknown } | { ok: false; error: string; compile: boolean } {
  if (!c.expr) return { ok: false, error: c.error ?? 'compilation failed', compile: true };
  const r = cel().evaluate(c.expr, activation, PER_CALL_LIMIT);
  return r.ok ? { ok: true, value: r.value } : { ok: false, error: r.error, compile: false };
}

let noVariables: unknown;

export function evaluatePolicy(policy: CompiledPolicy, vars: Record<string, unknown>): PolicyOutcome {
  // Without variables the caller's activation serves as it is (no copy per policy on the hot path).
  const activation: Record<string, unknown> = policy.variables.length > 0 ? { ...vars } : vars;
  if (policy.variables.length > 0) {
    // Variables become a CEL map whose entries are computed on demand.
    const lazy = new LazyVariables(policy.variables, activation);
    activation.variables = new Proxy(cel().jsonToCel({}, DYN) as object, {
      get(target, prop, receiver) {
        if (prop === 'get') return (key: unknown) => (typeof key === 'string' && policy.variables.some((v) => v.name === key) ? lazy.get(key) : undefined);
        if (prop === 'has') return (key: unknown) => typeof key === 'string' && policy.variables.some((v) => v.name === key);
        if (prop === 'size') return policy.variables.length;
        if (prop === 'keys') return function* () { for (const v of policy.variables) yield v.name; };
        return Reflect.get(target, prop, receiver);
      },
    });
  } else {
    noVariables ??= cel().jsonToCel({}, DYN);
    if (activation.variables !== noVariables) activation.variables = noVariables;
  }

  for (const mc of policy.matchConditions) {
    const r = run(mc.compiled, activation);
    if (!r.ok) {
      return { matched: true, decisions: [{ action: 'deny', error: true, reason: 'Invalid', message: r.compile ? `compilation error: ${r.error}` : `expression '${mc.compiled.source}' resulted in error: ${r.error}` }], auditAnnotations: [] };
    }
    if (r.value === false) return { matched: false, decisions: [], auditAnnotations: [] };
  }

  const decisions: PolicyDecision[] = [];
  for (const v of policy.validations) {
    const r = run(v.expression, activation);
    if (!r.ok) {
      decisions.push({ action: 'deny', error: true, reason: v.reason ?? 'Invalid', message: r.compile ? `compilation error: ${r.error}` : `expression '${v.expression.source}' resulted in error: ${r.error}` });
      continue;
    }
    if (r.value === true) {
      decisions.push({ action: 'admit', error: false, reason: '', message: '' });
      continue;
    }
    if (r.value !== false) {
      decisions.push({ action: 'deny', error: true, reason: v.reason ?? 'Invalid', message: `expression '${v.expression.source}' resulted in error: expected bool, got ${typeof r.value}` });
      continue;
    }
    let message = v.message ?? '';
    if (v.messageExpression) {
      const m = run(v.messageExpression, activation);
      if (m.ok && typeof m.value === 'string' && m.value.trim() !== '' && !m.value.includes('\n')) message = m.value;
    }
    if (!message) message = `failed expression: ${v.expression.source.trim()}`;
    decisions.push({ action: 'deny', error: false, reason: v.reason ?? 'Invalid', message });
  }

  const auditAnnotations: AuditAnnotationOutcome[] = [];
  for (const a of policy.auditAnnotations) {
    const key = `${policy.name}/${a.key}`;
    const r = run(a.compiled, activation);
    // kube's validator: an error, or a value neither string nor null, is the annotation's error (failurePolicy
    // Ignore drops it); a string is trimmed and published unless empty
    if (!r.ok) {
      if (policy.failurePolicy === 'Fail') auditAnnotations.push({ key, error: r.compile ? `compilation error: ${r.error}` : `expression '${a.compiled.source}' resulted in error: ${r.error}` });
    } else if (typeof r.value === 'string') {
      const value = r.value.trim();
      if (value !== '') auditAnnotations.push({ key, value });
    } else if (r.value !== null && policy.failurePolicy === 'Fail') {
      auditAnnotations.push({ key, error: `valueExpression '${a.compiled.source}' resulted in unsupported return type: ${cel().typeNameOf(r.value as never) || 'object'}. Return type must be either string or null.` });
    }
  }
  return { matched: true, decisions, auditAnnotations };
}
