// AdmissionReview v1 / v1beta1 on the wire: the request a webhook receives and the checks kube makes of its
// answer (VerifyAdmissionResponse), with kube's messages.

import { StatusError, type StatusDetails } from '../../apis/errors.ts';
import { jsonKind } from '../../encoding/json-value.ts';
import { base64ErrorOffset } from '../../registry/validation/go-decode.ts';
import type { KubeObject } from '../../registry/types.ts';
import { requestOf } from '../cel-context.ts';
import type { AdmissionAttributes } from '../types.ts';
import type { Invocation } from './equivalent.ts';
import { WebhookCallError } from './client.ts';

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code?: number; reason?: string; message?: string; details?: StatusDetails; status?: string };
  patch?: string;
  patchType?: string;
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/** The AdmissionReview version to send: the first listed that kube speaks. */
export function reviewVersion(versions: readonly string[]): string | undefined {
  return versions.find((v) => v === 'v1' || v === 'v1beta1');
}

export function buildReview(version: string, uid: string, a: AdmissionAttributes, inv: Invocation, object: KubeObject | undefined, oldObject: KubeObject | undefined): Record<string, unknown> {
  const request = { uid, ...requestOf(a, inv), object: object ?? null, oldObject: oldObject ?? null };
  return { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request };
}

const gvkString = (apiVersion: unknown, kind: unknown): string => `${typeof apiVersion === 'string' ? apiVersion : ''}, Kind=${typeof kind === 'string' ? kind : ''}`;

function invalid(message: string): WebhookCallError {
  return new WebhookCallError(`received invalid webhook response: ${message}`);
}

/** The Go types an AdmissionReview's response decodes into, for the errors encoding/json gives on a mistyped field. */
type GoType =
  | { readonly go: string; readonly scalar: 'string' | 'bool' | 'int32' | 'int64' | 'bytes' }
  | { readonly go: string; readonly struct: string; readonly fields: Readonly<Record<string, GoType>> }
  | { readonly go: string; readonly elem: GoType; readonly map?: true };

const STRING: GoType = { go: 'string', scalar: 'string' };
const named = (go: string): GoType => ({ go, scalar: 'string' });
const STATUS_DETAILS: GoType = {
  go: 'v1.StatusDetails',
  struct: 'StatusDetails',
  fields: {
    name: STRING,
    group: STRING,
    kind: STRING,
    uid: named('types.UID'),
    causes: { go: '[]v1.StatusCause', elem: { go: 'v1.StatusCause', struct: 'StatusCause', fields: { reason: named('v1.CauseType'), message: STRING, field: STRING } } },
    retryAfterSeconds: { go: 'int32', scalar: 'int32' },
  },
};
const STATUS: GoType = {
  go: 'v1.Status',
  struct: 'Status',
  fields: {
    kind: STRING,
    apiVersion: STRING,
    metadata: { go: 'v1.ListMeta', struct: 'ListMeta', fields: { selfLink: STRING, resourceVersion: STRING, continue: STRING, remainingItemCount: { go: 'int64', scalar: 'int64' } } },
    status: STRING,
    message: STRING,
    reason: named('v1.StatusReason'),
    details: STATUS_DETAILS,
    code: { go: 'int32', scalar: 'int32' },
  },
};
const ADMISSION_RESPONSE: GoType = {
  go: 'v1.AdmissionResponse',
  struct: 'AdmissionResponse',
  fields: {
    uid: named('types.UID'),
    allowed: { go: 'bool', scalar: 'bool' },
    status: STATUS,
    patch: { go: '[]uint8', scalar: 'bytes' },
    patchType: named('v1.PatchType'),
    auditAnnotations: { go: 'map[string]string', elem: STRING, map: true },
    warnings: { go: '[]string', elem: STRING },
  },
};

const INT_RANGE = { int32: [-(2 ** 31), 2 ** 31 - 1], int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] } as const;

/**
 * The first error encoding/json reports decoding the review's response (it goes on past a mistyped field and
 * returns the first error at the end): a type mismatch, an integer out of range or malformed base64.
 */
function responseDecodeError(response: unknown): string | undefined {
  let first: string | undefined;
  const walk = (v: unknown, t: GoType, struct: string, fields: readonly string[]): void => {
    if (first !== undefined || v === null || v === undefined) return;
    const mismatch = (value: string) => {
      first = `json: cannot unmarshal ${value} into Go struct field ${struct}.${fields.join('.')} of type ${t.go}`;
    };
    if ('scalar' in t) {
      if (t.scalar === 'bool') {
        if (typeof v !== 'boolean') mismatch(jsonKind(v));
      } else if (t.scalar === 'int32' || t.scalar === 'int64') {
        const [min, max] = INT_RANGE[t.scalar];
        if (typeof v !== 'number') mismatch(jsonKind(v));
        else if (!Number.isInteger(v) || v < min || v > max) mismatch(`number ${String(v)}`);
      } else if (typeof v !== 'string') mismatch(jsonKind(v));
      else if (t.scalar === 'bytes') {
        const at = base64ErrorOffset(v);
        if (at >= 0) first = `illegal base64 data at input byte ${at}`;
      }
      return;
    }
    if ('struct' in t) {
      if (typeof v !== 'object' || Array.isArray(v)) return mismatch(jsonKind(v));
      for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
        const field = t.fields[key];
        if (field && Object.hasOwn(t.fields, key)) walk(value, field, t.struct, [...fields, key]);
      }
      return;
    }
    const isMap = t.map === true;
    if (isMap ? typeof v !== 'object' || Array.isArray(v) : !Array.isArray(v)) return mismatch(jsonKind(v));
    for (const item of Object.values(v as object)) walk(item, t.elem, struct, fields);
  };
  walk(response, ADMISSION_RESPONSE, 'AdmissionReview', ['response']);
  return first;
}

/** VerifyAdmissionResponse: the response of a decoded review, or a WebhookCallError. */
export function verifyResponse(body: unknown, version: string, uid: string, mutating: boolean): AdmissionResponse {
  // a JSON null decodes into the review as nothing at all
  if (body !== null && (typeof body !== 'object' || Array.isArray(body))) {
    throw new WebhookCallError(`failed to call webhook: couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(body)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const review = (body ?? {}) as Record<string, unknown>;
  for (const key of ['apiVersion', 'kind']) {
    const v = review[key];
    if (v !== undefined && v !== null && typeof v !== 'string') {
      throw new WebhookCallError(`failed to call webhook: couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(v)} into Go struct field .${key} of type string`);
    }
  }
  const decodeError = responseDecodeError(review.response);
  if (decodeError) throw new WebhookCallError(`failed to call webhook: ${decodeError}`);
  const r = review.response as Record<string, unknown> | undefined | null;
  if (!r || typeof r !== 'object') throw invalid('webhook response was absent');
  const got = typeof r.uid === 'string' ? r.uid : '';
  if (got !== uid) throw invalid(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(got)}`);
  const expected = `admission.k8s.io/${version}`;
  if (review.apiVersion !== expected || review.kind !== 'AdmissionReview') {
    throw invalid(`expected webhook response of ${expected}, Kind=AdmissionReview, got ${gvkString(review.apiVersion, review.kind)}`);
  }
  const patch = typeof r.patch === 'string' ? r.patch : '';
  const patchType = typeof r.patchType === 'string' ? r.patchType : '';
  if (version === 'v1' && patch.length > 0) {
    if (patchType === '') throw invalid('webhook returned response.patch but not response.patchType');
    if (patchType !== 'JSONPatch') throw invalid(`webhook returned invalid response.patchType of ${JSON.stringify(patchType)}`);
  }
  if (!mutating && patch.length > 0) throw invalid('validating webhooks may not return patches');
  return {
    uid: got,
    allowed: r.allowed === true,
    status: r.status && typeof r.status === 'object' ? (r.status as AdmissionResponse['status']) : undefined,
    patch: patch || undefined,
    patchType: patchType || undefined,
    warnings: Array.isArray(r.warnings) ? r.warnings.filter((w): w is string => typeof w === 'string') : undefined,
    auditAnnotations: r.auditAnnotations && typeof r.auditAnnotations === 'object' ? (r.auditAnnotations as Record<string, string>) : undefined,
  };
}

/** webhookerrors.ToStatusErr: a webhook's refusal as the client sees it. */
export function deniedError(webhookName: string, result: AdmissionResponse['status']): StatusError {
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  const r = result ?? {};
  const code = typeof r.code === 'number' && r.code >= 400 ? r.code : 400;
  const reason = typeof r.reason === 'string' ? r.reason : '';
  const message = r.message ? `${deniedBy}: ${r.message}` : reason ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`;
  return new StatusError(code, reason, message, r.details);
}
