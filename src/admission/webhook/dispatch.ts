// Calling the webhooks that match a request (k8s.io/apiserver/pkg/admission/plugin/webhook/{mutating,validating}):
// rules (with matchPolicy), namespaceSelector, objectSelector, matchConditions, the dry-run rule, then the call
// with its timeout and failurePolicy. Mutating webhooks run one after another, their JSON patches applied (and the
// result checked against the schema); IfNeeded webhooks run once more when a later one changed the object.
// Validating webhooks run in parallel; the first refusal (in configuration order) is the answer.

import { randomUUID } from 'node:crypto';
import { badRequest, internalError, isStatusError, StatusError } from '../../apis/errors.ts';
import { cel } from '../../cel/lazy.ts';
import { PER_CALL_LIMIT } from '../../cel/cost.ts';
import { jsonEqual, jsonPatch } from '../../patch/json-patch.ts';
import { jsonKind, type JsonValue } from '../../encoding/json-value.ts';
import { goEscape, parseJson } from '../../encoding/json.ts';
import { applySchemaCheck } from '../../registry/validation/prune-fields.ts';
import { checkAgainstSchema } from '../../registry/validation/schema-check.ts';
import { selectorMatches } from '../../registry/validation/label-selector.ts';
import type { Authorizer } from '../../auth/authz/types.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import { celAuthorizer, requestOf, toCel } from '../cel-context.ts';
import type { AdmissionAttributes } from '../types.ts';
import { WebhookCallError } from './client.ts';
import { matchInvocation, type Invocation } from './equivalent.ts';
import { buildReview, deniedError, reviewVersion, verifyResponse, type AdmissionResponse } from './review.ts';
import type { Webhook } from './webhook.ts';

export interface DispatchDeps {
  readonly registry: Registry;
  readonly authorizer?: Authorizer;
  readonly getNamespace: (name: string) => Promise<KubeObject | undefined>;
}

/** ErrCallingWebhook as the client sees it when the failure policy is Fail. */
function callingError(w: Webhook, reason: string): StatusError {
  return internalError(new Error(`failed calling webhook ${JSON.stringify(w.name)}: ${reason}`));
}

const labelsOf = (o: KubeObject | undefined) => o?.metadata?.labels;

async function namespaceLabels(a: AdmissionAttributes, deps: DispatchDeps): Promise<Record<string, string> | undefined | 'cluster'> {
  if (a.resource.group === '' && a.resource.resource === 'namespaces') return labelsOf(a.object ?? a.oldObject) ?? {};
  if (!a.namespace) return 'cluster';
  return labelsOf(await deps.getNamespace(a.namespace)) ?? {};
}

function isEmptySelector(sel: unknown): boolean {
  if (!sel || typeof sel !== 'object') return true;
  const s = sel as { matchLabels?: object; matchExpressions?: unknown[] };
  return Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0;
}

/** Does the webhook apply, and as which invocation? Match condition errors are ErrCallingWebhook (failure policy). */
async function shouldCall(w: Webhook, a: AdmissionAttributes, deps: DispatchDeps): Promise<Invocation | undefined> {
  const inv = matchInvocation(deps.registry, w.rules, w.matchPolicy, a);
  if (!inv) return undefined;
  if (!isEmptySelector(w.namespaceSelector)) {
    const labels = await namespaceLabels(a, deps);
    if (labels !== 'cluster' && !selectorMatches(w.namespaceSelector, labels)) return undefined;
  }
  if (!isEmptySelector(w.objectSelector)) {
    const matches = (o: KubeObject | undefined) => o !== undefined && selectorMatches(w.objectSelector, labelsOf(o) ?? {});
    if (!matches(a.object) && !matches(a.oldObject)) return undefined;
  }
  if (w.matchConditions.length > 0) {
    const vars = {
      object: toCel(a.object ? inv.convert(a.object) : null),
      oldObject: toCel(a.oldObject ? inv.convert(a.oldObject) : null),
      request: toCel(requestOf(a, inv)),
      namespaceObject: toCel(null),
      authorizer: celAuthorizer(deps.authorizer, a.userInfo),
    };
    const errors: string[] = [];
    for (const c of w.matchConditions) {
      if (!c.compiled) {
        errors.push(`matchCondition '${c.name}': ${c.error ?? ''}`);
        continue;
      }
      const r = cel().evaluate(c.compiled, vars, PER_CALL_LIMIT);
      if (!r.ok) errors.push(`matchCondition '${c.name}' failed to evaluate: ${r.error}`);
      else if (r.value === false) return undefined;
      else if (r.value !== true) errors.push(`matchCondition '${c.name}' does not evaluate to a bool: ${String(r.value)}`);
    }
    if (errors.length > 0) throw new WebhookCallError(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  }
  return inv;
}

/** The dry-run rule: a dry-run request may only reach webhooks without side effects. */
function checkDryRun(w: Webhook, a: AdmissionAttributes): void {
  if (a.dryRun && w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun') {
    throw badRequest(`admission webhook ${JSON.stringify(w.name)} does not support dry run`);
  }
}

async function call(w: Webhook, a: AdmissionAttributes, inv: Invocation, mutating: boolean): Promise<AdmissionResponse> {
  const version = reviewVersion(w.admissionReviewVersions);
  if (!version) throw new WebhookCallError('webhook does not accept v1 or v1beta1 AdmissionReview');
  const uid = randomUUID();
  const review = buildReview(version, uid, a, inv, a.object ? inv.convert(a.object) : undefined, a.oldObject ? inv.convert(a.oldObject) : undefined);
  const timeout = Math.min(Math.max(w.timeoutSeconds, 1), 30);
  const body = await w.transport(review, timeout, a.signal);
  return verifyResponse(body, version, uid, mutating);
}

function recordResponse(w: Webhook, a: AdmissionAttributes, r: AdmissionResponse): void {
  for (const warning of r.warnings ?? []) a.warnings.push(warning);
  for (const [k, v] of Object.entries(r.auditAnnotations ?? {})) a.auditAnnotations[`${w.name}/${k}`] = v;
}

/** A webhook's call: its answer, or why there is none (not called; called, failed and failed open). */
type CallResult = { inv: Invocation; response: AdmissionResponse } | 'not called' | 'failed open';

/** One webhook's answer with the failure policy applied; `called` is told once the webhook applies to the request. */
async function callWithPolicy(w: Webhook, a: AdmissionAttributes, deps: DispatchDeps, mutating: boolean, called?: () => void): Promise<CallResult> {
  try {
    const inv = await shouldCall(w, a, deps);
    if (!inv) return 'not called';
    called?.();
    checkDryRun(w, a);
    return { inv, response: await call(w, a, inv, mutating) };
  } catch (e) {
    if (e instanceof WebhookCallError) {
      if (w.failurePolicy === 'Ignore') return 'failed open';
      throw callingError(w, e.message);
    }
    throw e;
  }
}

/** The audit annotation of a webhook that failed open (kube's failed-open.<kind>.webhook.admission.k8s.io/round_<r>_index_<i>). */
function failedOpen(a: AdmissionAttributes, w: Webhook, mutating: boolean, round: number, index: number): void {
  a.auditAnnotations[`failed-open.${mutating ? 'mutating' : 'validating'}.webhook.admission.k8s.io/round_${round}_index_${index}`] ??= w.name;
}

/** jsonpatch.DecodePatch of the response's (already base64-checked) patch, with encoding/json's errors. */
function decodePatch(patch: string): unknown[] {
  try {
    const ops = parseJson(Buffer.from(patch, 'base64').toString('utf8')).value;
    if (ops === null) return [];
    if (!Array.isArray(ops)) throw new Error(`json: cannot unmarshal ${jsonKind(ops)} into Go value of type jsonpatch.Patch`);
    const notObject = ops.find((op) => op !== null && (typeof op !== 'object' || Array.isArray(op)));
    if (notObject !== undefined) throw new Error(`json: cannot unmarshal ${jsonKind(notObject)} into Go value of type jsonpatch.Operation`);
    return ops;
  } catch (e) {
    throw internalError(e);
  }
}

/** kube's PatchAuditAnnotation: the patch as Go marshals a jsonpatch.Patch (each operation's keys sorted). */
function patchAnnotation(w: Webhook, ops: readonly unknown[]): string {
  const op = (o: unknown) => (o && typeof o === 'object' ? `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify((o as Record<string, unknown>)[k])}`).join(',')}}` : 'null');
  return goEscape(`{"configuration":${JSON.stringify(w.configurationName)},"webhook":${JSON.stringify(w.name)},"patch":[${ops.map(op).join(',')}],"patchType":"JSONPatch"}`);
}

/** Applies a mutating webhook's patch to the object; true when it changed. */
function applyPatch(w: Webhook, a: AdmissionAttributes, inv: Invocation, patch: string, deps: DispatchDeps, annotationKey: string): boolean {
  const ops = decodePatch(patch);
  if (ops.length === 0) return false;
  if (!a.object) throw internalError(new Error(`admission webhook ${JSON.stringify(w.name)} attempted to modify the object, which is not supported for this operation`));
  const versioned = inv.convert(a.object);
  let patched: KubeObject;
  try {
    patched = jsonPatch(versioned as unknown as JsonValue, ops) as unknown as KubeObject;
  } catch (e) {
    throw internalError(e);
  }
  const def = deps.registry.lookup(inv.resource.group, inv.resource.version, inv.resource.resource);
  if (def && a.subResource !== 'scale') {
    const check = checkAgainstSchema(patched, def);
    // The serializer's own error, without the REST handler's "<Kind> in version ... cannot be handled as" prefix.
    if (check.fatal) throw internalError(new Error(check.fatal.message.replace(/^.*? cannot be handled as a [^:]+: /, '')));
    applySchemaCheck(patched, check);
  }
  if (!patched || typeof patched !== 'object' || !patched.metadata) throw internalError(new Error('Object \'metadata\' is missing'));
  // recorded once the patch applies, changed or not, at audit level Request and above
  if (a.auditedAtRequestLevel) a.auditAnnotations[annotationKey] ??= patchAnnotation(w, ops);
  if (jsonEqual(versioned as unknown as JsonValue, patched as unknown as JsonValue)) return false;
  a.object = inv.convertBack(patched);
  return true;
}

export async function dispatchMutating(webhooks: readonly Webhook[], a: AdmissionAttributes, deps: DispatchDeps): Promise<void> {
  if (webhooks.length === 0) return;
  // The object after each IfNeeded webhook ran: a later change means it is called again (once), in round 1.
  const seenBy = new Map<Webhook, KubeObject | undefined>();
  const runOne = async (w: Webhook, index: number, round: number): Promise<void> => {
    // kube records every mutating webhook it calls, changed or not, failed or not (mutation.webhook.admission.k8s.io)
    let called = false;
    let changed = false;
    try {
      const result = await callWithPolicy(w, a, deps, true, () => (called = true));
      if (result === 'failed open') failedOpen(a, w, true, round, index);
      if (typeof result === 'string') return;
      const { inv, response } = result;
      if (!response.allowed) throw deniedError(w.name, response.status);
      recordResponse(w, a, response);
      if (response.patch) changed = applyPatch(w, a, inv, response.patch, deps, `patch.webhook.admission.k8s.io/round_${round}_index_${index}`);
      if (w.reinvocationPolicy === 'IfNeeded') seenBy.set(w, a.object);
    } finally {
      if (called) a.auditAnnotations[`mutation.webhook.admission.k8s.io/round_${round}_index_${index}`] ??= JSON.stringify({ configuration: w.configurationName, webhook: w.name, mutated: changed });
    }
  };
  for (let i = 0; i < webhooks.length; i++) await runOne(webhooks[i], i, 0);
  for (let i = 0; i < webhooks.length; i++) if (seenBy.has(webhooks[i]) && seenBy.get(webhooks[i]) !== a.object) await runOne(webhooks[i], i, 1);
}

export async function dispatchValidating(webhooks: readonly Webhook[], a: AdmissionAttributes, deps: DispatchDeps): Promise<void> {
  if (webhooks.length === 0) return;
  const results = await Promise.allSettled(webhooks.map((w) => callWithPolicy(w, a, deps, false)));
  // kube numbers the webhooks that apply to the request (its relevant hooks), in configuration order
  let relevant = 0;
  for (let i = 0; i < results.length; i++) {
    const r = results[i];
    if (r.status === 'rejected') throw isStatusError(r.reason) ? r.reason : internalError(r.reason);
    if (r.value === 'not called') continue;
    const index = relevant++;
    if (r.value === 'failed open') {
      failedOpen(a, webhooks[i], false, 0, index);
      continue;
    }
    if (!r.value.response.allowed) throw deniedError(webhooks[i].name, r.value.response.status);
    recordResponse(webhooks[i], a, r.value.response);
  }
}
