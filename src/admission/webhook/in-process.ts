// In-process admission for tests (Capstan's own, not kube's): functions that get the AdmissionRequest a webhook
// would get and answer as a webhook would. They are webhooks without TLS or a port: every resource and operation,
// sideEffects None, failurePolicy Fail, called after the configured webhooks of their phase, with the same
// response checks, patch handling, errors and dry-run rule.

import type { KubeObject } from '../../registry/types.ts';
import { WebhookCallError } from './client.ts';
import type { Webhook, WebhookTransport } from './webhook.ts';
import { cloneJson } from '../../apis/json-clone.ts';

/** What an in-process hook answers: an AdmissionResponse (uid optional) whose patch may be a JSON Patch array, or the patched object. */
export interface InProcessResponse {
  allowed: boolean;
  status?: { code?: number; reason?: string; message?: string };
  /** A JSON Patch: the operations, or their base64 JSON as a webhook sends them. */
  patch?: unknown[] | string;
  patchType?: 'JSONPatch';
  /** The whole object as it should be (instead of a patch). */
  object?: KubeObject;
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
  uid?: string;
}

export type InProcessHook = (request: Record<string, unknown>) => InProcessResponse | Promise<InProcessResponse>;

export interface InProcessAdmission {
  mutate?: InProcessHook;
  validate?: InProcessHook;
  /**
   * The hooks' sideEffects (default None). With anything but None or NoneOnDryRun, a dry-run request that would
   * reach them fails, as it would for such a webhook.
   */
  sideEffects?: 'None' | 'NoneOnDryRun' | 'Some' | 'Unknown';
}

const escape = (k: string): string => k.replace(/~/g, '~0').replace(/\//g, '~1');

/** The JSON Patch that turns `from` into `to` at the top level (add replaces; remove drops). */
function patchBetween(from: Record<string, unknown> | null, to: KubeObject): unknown[] {
  const ops: unknown[] = [];
  for (const k of Object.keys(from ?? {})) if (!(k in to)) ops.push({ op: 'remove', path: `/${escape(k)}` });
  for (const [k, v] of Object.entries(to)) ops.push({ op: 'add', path: `/${escape(k)}`, value: v });
  return ops;
}

function transportOf(hook: InProcessHook): WebhookTransport {
  return async (review) => {
    const request = review.request as Record<string, unknown>;
    let answer: InProcessResponse;
    try {
      answer = await hook(cloneJson(request));
    } catch (e) {
      throw new WebhookCallError(`failed to call webhook: ${(e as Error).message}`);
    }
    if (!answer || typeof answer !== 'object') return { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: null };
    const { object, patch, ...rest } = answer;
    const response: Record<string, unknown> = { uid: request.uid, ...rest };
    let ops: unknown[] | undefined;
    if (object !== undefined) ops = patchBetween(request.object as Record<string, unknown> | null, object);
    else if (Array.isArray(patch)) ops = patch;
    if (ops) {
      response.patch = Buffer.from(JSON.stringify(ops)).toString('base64');
      response.patchType = 'JSONPatch';
    } else if (typeof patch === 'string') {
      response.patch = patch;
    }
    return { apiVersion: review.apiVersion, kind: 'AdmissionReview', response };
  };
}

export function inProcessWebhook(name: string, hook: InProcessHook, sideEffects = 'None'): Webhook {
  return {
    name,
    configurationName: '',
    rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }],
    failurePolicy: 'Fail',
    matchPolicy: 'Exact',
    namespaceSelector: {},
    objectSelector: {},
    sideEffects,
    timeoutSeconds: 30,
    admissionReviewVersions: ['v1'],
    reinvocationPolicy: 'Never',
    matchConditions: [],
    displayUrl: `in-process://${name}`,
    transport: transportOf(hook),
  };
}
