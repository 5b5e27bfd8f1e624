// AdmissionReview v1 / v1beta1 on the wire: the request a webhook receives and the checks kube makes of its
// answer (VerifyAdmissionResponse), with kube's messages.

import { StatusError, type StatusDetails } from '../../apis/errors.ts';
import { goNamedString, reviewDecodeError, GO_BOOL, GO_STATUS, GO_STRING, type GoType } from '../../encoding/go-typed.ts';
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

/** The Go types of an AdmissionReview's response (k8s.io/api/admission/v1.AdmissionResponse). */
const ADMISSION_RESPONSE: GoType = {
  go: 'v1.AdmissionResponse',
  struct: 'AdmissionResponse',
  fields: {
    uid: goNamedString('types.UID'),
    allowed: GO_BOOL,
    status: GO_STATUS,
    patch: { go: '[]uint8', scalar: 'bytes' },
    patchType: goNamedString('v1.PatchType'),
    auditAnnotations: { go: 'map[string]string', elem: GO_STRING, map: true },
    warnings: { go: '[]string', elem: GO_STRING },
  },
};

/** VerifyAdmissionResponse: the response of a decoded review, or a WebhookCallError. */
export function verifyResponse(body: unknown, version: string, uid: string, mutating: boolean): AdmissionResponse {
  const decodeError = reviewDecodeError(body, 'AdmissionReview', 'response', ADMISSION_RESPONSE);
  if (decodeError) throw new WebhookCallError(`failed to call webhook: ${decodeError}`);
  const review = (body ?? {}) as Record<string, unknown>;
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
