// Conversion strategy Webhook (apiextensions-apiserver pkg/apiserver/conversion/webhook_converter.go): objects
// go to the CRD's webhook in one ConversionReview (v1, or v1beta1 when that is all it accepts); the answer must
// carry the request's uid, Success, one object per object sent in the desired version and kind, and may change
// only labels and annotations of the metadata. Failures read as kube words them, as 500s.

import { randomUUID } from 'node:crypto';
import { internalError } from '../../apis/errors.ts';
import { jsonEqual } from '../store-codec.ts';
import type { KubeObject, Registry } from '../types.ts';
import { postJson, webhookTarget } from '../../webhook/client.ts';
import type { CustomResourceDefinition } from './crd-types.ts';

/** Converts objects (any served version) to one apiVersion. */
export type AsyncConverter = (objects: readonly KubeObject[], apiVersion: string) => Promise<KubeObject[]>;

/** kube's default timeout for conversion webhook calls. */
const CONVERSION_TIMEOUT_MS = 30_000;

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** schema.GroupVersionKind's %v: "group/version, Kind=Kind". */
function gvkText(obj: KubeObject): string {
  return `${obj.apiVersion ?? ''}, Kind=${obj.kind ?? ''}`;
}

/** restoreObjectMeta: everything but labels and annotations comes from the original. */
function restoreMeta(original: KubeObject, converted: KubeObject): KubeObject {
  const meta = { ...original.metadata };
  const cm = asObj(converted.metadata);
  if (cm.labels === undefined) delete meta.labels;
  else meta.labels = cm.labels as Record<string, string>;
  if (cm.annotations === undefined) delete meta.annotations;
  else meta.annotations = cm.annotations as Record<string, string>;
  return { ...converted, metadata: meta };
}

/** validateConvertedObject: only labels and annotations may differ. */
function metadataError(original: KubeObject, converted: KubeObject): string | undefined {
  const strip = (m: unknown) => {
    const { labels: _l, annotations: _a, ...rest } = asObj(m);
    return rest;
  };
  return jsonEqual(strip(original.metadata), strip(converted.metadata)) ? undefined : 'only labels and annotations may be changed by the conversion webhook';
}

export function webhookConverter(crd: CustomResourceDefinition, registry: Registry): AsyncConverter {
  const webhook = crd.spec.conversion?.webhook ?? {};
  const reviewVersion = (webhook.conversionReviewVersions ?? []).includes('v1') ? 'v1' : 'v1beta1';
  return async (objects, apiVersion) => {
    const pending = objects.filter((o) => o.apiVersion !== apiVersion);
    if (pending.length === 0) return [...objects];
    const first = pending[0];
    const fail = (text: string) => internalError(new Error(`conversion webhook for ${gvkText(first)} ${text}`));
    const uid = randomUUID();
    let answer: unknown;
    try {
      const target = await webhookTarget(webhook.clientConfig ?? {}, registry);
      answer = await postJson(target, { kind: 'ConversionReview', apiVersion: `apiextensions.k8s.io/${reviewVersion}`, request: { uid, desiredAPIVersion: apiVersion, objects: pending } }, CONVERSION_TIMEOUT_MS);
    } catch (e) {
      throw fail(`failed: ${(e as Error).message}`);
    }
    const response = asObj(asObj(answer).response);
    if (Object.keys(response).length === 0) throw fail('failed: no response provided');
    if (response.uid !== uid) throw fail(`failed: expected response uid "${uid}", got "${String(response.uid ?? '')}"`);
    const result = asObj(response.result);
    if (result.status !== 'Success') throw fail(`returned failure: ${String(result.message ?? '')}`);
    const converted = Array.isArray(response.convertedObjects) ? (response.convertedObjects as KubeObject[]) : [];
    if (converted.length !== pending.length) throw fail(`returned ${converted.length} objects, expected ${pending.length}`);
    const kind = first.kind;
    const out = converted.map((c, i) => {
      const obj = asObj(c) as KubeObject;
      if (obj.apiVersion !== apiVersion) throw fail(`returned invalid converted object at index ${i}: invalid groupVersion (expected ${apiVersion}, received ${String(obj.apiVersion ?? '')})`);
      if (obj.kind !== kind) throw fail(`returned invalid converted object at index ${i}: invalid kind (expected ${kind}, received ${String(obj.kind ?? '')})`);
      const metaErr = metadataError(pending[i], obj);
      if (metaErr) throw fail(`returned invalid metadata in object at index ${i}: ${metaErr}`);
      return restoreMeta(pending[i], obj);
    });
    let next = 0;
    return objects.map((o) => (o.apiVersion === apiVersion ? o : out[next++]));
  };
}
