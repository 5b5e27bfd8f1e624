// kube-apiserver's IgnoreManagedFieldsTimestampsTransformer: a write that changed nothing but managedFields
// timestamps keeps the stored managedFields.

import type { KubeObject } from '../registry/types.ts';
import { valuesEqual } from './path-element.ts';
import { cloneJson } from '../apis/json-clone.ts';

function withoutTimes(entries: unknown): unknown {
  if (!Array.isArray(entries)) return entries;
  return entries.map((e) => {
    if (typeof e !== 'object' || e === null) return e;
    const { time: _, ...rest } = e as Record<string, unknown>;
    return rest;
  });
}

/**
 * When a write changed nothing but managedFields timestamps, keep the old managedFields so that the object is
 * unchanged (no resourceVersion bump). Call after admission, with the object about to be stored.
 */
export function revertManagedFieldsTimestamps(newObj: KubeObject, oldObj: KubeObject | undefined): KubeObject {
  if (!oldObj) return newObj;
  const oldMF = oldObj.metadata?.managedFields;
  const newMF = newObj.metadata?.managedFields;
  if (!Array.isArray(oldMF) || !Array.isArray(newMF) || oldMF.length !== newMF.length) return newObj;
  // The objects first: most writes change them, and the difference shows before the managedFields' sets are walked.
  const strip = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, managedFields: undefined } });
  if (!valuesEqual(strip(oldObj), strip(newObj))) return newObj;
  // Same timestamps too: there is nothing to revert.
  if (valuesEqual(oldMF, newMF)) return newObj;
  if (!valuesEqual(withoutTimes(oldMF), withoutTimes(newMF))) return newObj;
  return { ...newObj, metadata: { ...newObj.metadata, managedFields: cloneJson(oldMF) } };
}
