// Conversion strategy Webhook (apiextensions-apiserver pkg/apiserver/conversion/webhook_converter.go): objects
// go to the CRD's webhook in one ConversionReview (v1, or v1beta1 when that is all it accepts); the answer must
// carry the request's uid, Success, one object per object sent in the desired version and kind, with the original's
// name, namespace and uid; of its metadata only the labels and annotations are kept (valid ones), the rest restored
// from the original. Failures read as kube words them, as 500s.

import { randomUUID } from 'node:crypto';
import { aggregateFieldErrors, internalError } from '../../apis/errors.ts';
import { validateAnnotations, validateLabels } from '../validation/meta.ts';
import type { KubeObject, Registry } from '../types.ts';
import { postJson, webhookTarget } from '../../webhook/client.ts';
import { goNamedString, reviewDecodeError, GO_RAW, GO_STATUS, type GoType } from '../../encoding/go-typed.ts';
import type { CustomResourceDefinition } from './crd-types.ts';

/** Converts objects (any served version) to one apiVersion. */
export type AsyncConverter = (objects: readonly KubeObject[], apiVersion: string) => Promise<KubeObject[]>;

/** The Go types of a ConversionReview's response (k8s.io/api/apiextensions/v1.ConversionResponse). */
const CONVERSION_RESPONSE: GoType = {
  go: 'v1.ConversionResponse',
  struct: 'ConversionResponse',
  fields: { uid: goNamedString('types.UID'), convertedObjects: { go: '[]runtime.RawExtension', elem: GO_RAW }, result: GO_STATUS },
};

/** kube's default timeout for conversion webhook calls. */
const CONVERSION_TIMEOUT_MS = 30_000;

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** schema.GroupVersionKind's %v: "group/version, Kind=Kind". */
function gvkText(obj: KubeObject): string {
  return `${obj.apiVersion ?? ''}, Kind=${obj.kind ?? ''}`;
}

/** Go's %T of a value decoded into unstructured JSON. */
function goTypeOf(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'object') return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

/** validateConvertedObject: the converted object keeps the original's name, namespace and uid. */
function identityError(original: KubeObject, converted: KubeObject): string | undefined {
  const cm = asObj(converted.metadata);
  for (const [field, label] of [['name', 'name'], ['namespace', 'namespace'], ['uid', 'UID']] as const) {
    const e = original.metadata[field] ?? '';
    const a = typeof cm[field] === 'string' ? (cm[field] as string) : '';
    if (e !== a) return `must have the same ${label}: ${e} != ${a}`;
  }
  return undefined;
}

/**
 * restoreObjectMeta: the original's metadata with the converted object's labels and annotations, which must be maps
 * of strings and, where they changed, valid labels and annotations; an error text, or the restored object.
 */
function restoreMeta(original: KubeObject, converted: KubeObject): KubeObject | string {
  if (converted.metadata === undefined) return 'missing metadata in converted object';
  const cm = converted.metadata as unknown;
  if (!cm || typeof cm !== 'object' || Array.isArray(cm)) return `invalid metadata of type ${goTypeOf(cm)} in converted object`;
  const meta: Obj = { ...original.metadata };
  for (const field of ['labels', 'annotations'] as const) {
    const value = (cm as Obj)[field];
    if (value === undefined || value === null) {
      delete meta[field];
      continue;
    }
    if (typeof value !== 'object' || Array.isArray(value)) return `invalid metadata.${field} of type ${goTypeOf(value)} in converted object`;
    const before = asObj(meta[field]);
    const entries = Object.entries(value as Obj);
    let changed = entries.length !== Object.keys(before).length;
    for (const [k, v] of entries) {
      if (typeof v !== 'string') return `metadata.${field}[${k}] must be a string, but is ${goTypeOf(v)} in converted object`;
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const errs = field === 'labels' ? validateLabels(value, 'metadata.labels') : validateAnnotations(value, 'metadata.annotation');
      if (errs.length > 0) return aggregateFieldErrors(errs);
    }
    meta[field] = value;
  }
  return { ...converted, metadata: meta as KubeObject['metadata'] };
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
    const decodeError = reviewDecodeError(answer, 'ConversionReview', 'response', CONVERSION_RESPONSE);
    if (decodeError) throw fail(`failed: ${decodeError}`);
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
      const identity = identityError(pending[i], obj);
      if (identity) throw fail(`returned invalid converted object at index ${i}: ${identity}`);
      const restored = restoreMeta(pending[i], obj);
      if (typeof restored === 'string') throw fail(`returned invalid metadata in object at index ${i}: ${restored}`);
      return restored;
    });
    let next = 0;
    return objects.map((o) => (o.apiVersion === apiVersion ? o : out[next++]));
  };
}
