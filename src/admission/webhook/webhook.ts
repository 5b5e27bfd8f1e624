// One webhook as the dispatcher uses it: the fields of a MutatingWebhook or ValidatingWebhook (v1 defaults
// applied), its compiled matchConditions, and how it is called (HTTPS, or a function for in-process admission).

import type { CompiledExpression } from '../../cel/environment.ts';
import { admissionDeclarations } from '../cel-context.ts';
import { compileAdmissionExpression } from '../policy/compile.ts';
import type { RuleWithOperations } from './rules.ts';

/** Sends one AdmissionReview and answers the decoded response body (or throws a WebhookCallError). */
export type WebhookTransport = (review: Record<string, unknown>, timeoutSeconds: number, signal?: AbortSignal) => Promise<unknown>;

export interface CompiledCondition {
  readonly name: string;
  readonly expression: string;
  readonly compiled: CompiledExpression | undefined;
  readonly error?: string;
}

export interface Webhook {
  readonly name: string;
  /** The configuration it belongs to ('' for in-process hooks). */
  readonly configurationName: string;
  readonly rules: readonly RuleWithOperations[];
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly matchPolicy: 'Exact' | 'Equivalent';
  readonly namespaceSelector: unknown;
  readonly objectSelector: unknown;
  readonly sideEffects: string;
  readonly timeoutSeconds: number;
  readonly admissionReviewVersions: readonly string[];
  readonly reinvocationPolicy: 'Never' | 'IfNeeded';
  readonly matchConditions: readonly CompiledCondition[];
  /** What the request URL is shown as in errors ("https://svc.ns.svc:443/path"). */
  readonly displayUrl: string;
  readonly transport: WebhookTransport;
}

/** A webhook's matchConditions see no params (kube's stateless compiler; namespaceObject is declared and null). */
const CONDITION_VARS = admissionDeclarations();

export function compileConditions(conditions: unknown): CompiledCondition[] {
  if (!Array.isArray(conditions)) return [];
  return conditions.map((c: { name?: unknown; expression?: unknown }) => {
    const name = typeof c?.name === 'string' ? c.name : '';
    const expression = typeof c?.expression === 'string' ? c.expression : '';
    const r = compileAdmissionExpression(expression, CONDITION_VARS, 'bool');
    return r.expr ? { name, expression, compiled: r.expr } : { name, expression, compiled: undefined, error: r.error };
  });
}

const str = (v: unknown, d: string): string => (typeof v === 'string' && v ? v : d);

/** A webhook of a stored configuration, with the v1 defaults for fields a stored object may lack. */
export function webhookFrom(raw: Record<string, unknown>, configurationName: string, mutating: boolean, transport: WebhookTransport, displayUrl: string): Webhook {
  return {
    name: str(raw.name, ''),
    configurationName,
    rules: Array.isArray(raw.rules) ? (raw.rules as RuleWithOperations[]) : [],
    failurePolicy: raw.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    matchPolicy: raw.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
    namespaceSelector: raw.namespaceSelector ?? {},
    objectSelector: raw.objectSelector ?? {},
    sideEffects: str(raw.sideEffects, 'Unknown'),
    timeoutSeconds: typeof raw.timeoutSeconds === 'number' ? raw.timeoutSeconds : 10,
    admissionReviewVersions: Array.isArray(raw.admissionReviewVersions) ? (raw.admissionReviewVersions as string[]) : ['v1'],
    reinvocationPolicy: mutating && raw.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
    matchConditions: compileConditions(raw.matchConditions),
    displayUrl,
    transport,
  };
}
