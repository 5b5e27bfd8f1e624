// kubectl's client-side apply annotation and server-side apply (managedfields lastappliedmanager.go,
// lastappliedupdater.go, lastapplied.go). Only for the field manager "kubectl": an apply conflicting with
// fields that the annotation shows were client-side applied with the live values is forced, and after an
// apply the annotation (when present) is rewritten to the applied configuration.

import { goJsonMarshal } from './go-format.ts';
import type { FieldSet } from './field-set.ts';
import type { TypeRef } from './schema.ts';
import { compareTyped } from './typed-compare.ts';
import { toFieldSet } from './typed-fieldset.ts';
import { validateTyped } from './typed-validate.ts';
import { isValueMap, type Value, type ValueMap } from './typed-values.ts';
import { cloneJson } from '../apis/json-clone.ts';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** The manager name for which kube-apiserver honours the client-side apply annotation. */
export const KUBECTL_MANAGER = 'kubectl';

/** apimachinery validation.TotalAnnotationSizeLimitB. */
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

function annotationsOf(obj: Value): ValueMap | undefined {
  if (!isValueMap(obj) || !isValueMap(obj.metadata)) return undefined;
  const a = obj.metadata.annotations;
  return isValueMap(a) ? a : undefined;
}

export function hasLastApplied(obj: Value): boolean {
  const v = annotationsOf(obj)?.[LAST_APPLIED_ANNOTATION];
  return typeof v === 'string' && v.length > 0;
}

/** Fields that the annotation shows were applied with the values they still have: taking them is allowed. */
export function allowedConflictsFromLastApplied(live: Value, liveView: Value, type: TypeRef, groupVersion: string): FieldSet | undefined {
  const text = annotationsOf(live)?.[LAST_APPLIED_ANNOTATION];
  if (typeof text !== 'string' || text === '') return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isValueMap(lastApplied) || typeof lastApplied.kind !== 'string' || lastApplied.kind === '') return undefined;
  if (lastApplied.apiVersion !== groupVersion) return undefined;
  if (validateTyped(lastApplied, type).length > 0) return undefined;
  const comparison = compareTyped(lastApplied, liveView, type);
  return toFieldSet(lastApplied, type).difference(comparison.modified).difference(comparison.added).difference(comparison.removed);
}

/** The annotation value for an applied configuration: Go's JSON of it without the annotation, plus "\n". */
export function buildLastApplied(applied: ValueMap): string {
  const copy = cloneJson(applied);
  if (isValueMap(copy.metadata) && copy.metadata.annotations !== undefined) {
    const a = copy.metadata.annotations;
    if (isValueMap(a) && Object.values(a).every((v) => typeof v === 'string')) {
      delete a[LAST_APPLIED_ANNOTATION];
    } else {
      delete copy.metadata.annotations;
    }
  }
  return `${goJsonMarshal(copy)}\n`;
}

/** SetLastApplied: sets the annotation unless that makes the annotations too large (then drops it). */
export function setLastApplied(obj: ValueMap, value: string): void {
  if (!isValueMap(obj.metadata)) obj.metadata = {};
  const meta = obj.metadata as ValueMap;
  const annotations: ValueMap = isValueMap(meta.annotations) ? { ...meta.annotations } : {};
  annotations[LAST_APPLIED_ANNOTATION] = value;
  let size = 0;
  for (const k of Object.keys(annotations)) {
    size += Buffer.byteLength(k) + Buffer.byteLength(String(annotations[k]));
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) delete annotations[LAST_APPLIED_ANNOTATION];
  meta.annotations = annotations;
}
