// Dropping fields the schema does not know, as decoding into kube's typed structs (or CRD pruning) does, and
// the null and zero fields their encoding leaves out, and setting the values that decoding writes back
// differently (timestamps, nulls). Each field comes as the steps from the
// root that the schema check reports (keys as they are, indices as numbers).

import { cloneJson } from '../../apis/json-clone.ts';
import type { KubeObject, ResourceDefinition } from '../types.ts';
import { checkAgainstSchema, type FieldSteps, type SchemaCheckResult } from './schema-check.ts';

/** The object or array holding the field at steps, or undefined when a step does not resolve. */
function parentOf(obj: unknown, steps: FieldSteps): unknown {
  let node: unknown = obj;
  for (let i = 0; i < steps.length - 1 && node !== undefined && node !== null; i++) {
    const step = steps[i]!;
    node = typeof step === 'number' ? (Array.isArray(node) ? node[step] : undefined) : typeof node === 'object' && !Array.isArray(node) ? (node as Record<string, unknown>)[step] : undefined;
  }
  return node;
}

/** Removes each field (in place); fields whose parent does not resolve are ignored. */
export function pruneFields(obj: unknown, fields: readonly FieldSteps[]): void {
  for (const steps of fields) {
    if (steps.length === 0) continue;
    const node = parentOf(obj, steps);
    const last = steps[steps.length - 1];
    if (node && typeof node === 'object' && !Array.isArray(node) && typeof last === 'string') delete (node as Record<string, unknown>)[last];
  }
}

/** What a schema check asks of the decoded object (in place): unknown and omitted fields dropped, re-encoded values set. */
export function applySchemaCheck(obj: unknown, check: Pick<SchemaCheckResult, 'unknownFieldSteps' | 'reencoded' | 'omitted'>): void {
  if (check.unknownFieldSteps.length > 0) pruneFields(obj, check.unknownFieldSteps);
  if (check.omitted.length > 0) pruneFields(obj, check.omitted);
  for (const { steps, value } of check.reencoded) {
    const node = parentOf(obj, steps);
    const last = steps[steps.length - 1];
    if (Array.isArray(node) && typeof last === 'number') node[last] = value;
    else if (node && typeof node === 'object' && typeof last === 'string') (node as Record<string, unknown>)[last] = value;
  }
}

/**
 * A built-in object as kube's typed object writes it back: the null and zero fields Go's encoding leaves out
 * dropped, times re-encoded; a copy when anything changes. For a value Go could not decode, what runtime's
 * unstructured converter says of it; custom resources are returned as they are.
 */
export function encodedAsTyped(obj: KubeObject, def: ResourceDefinition): { object: KubeObject } | { unconvertible: string } {
  if (def.custom) return { object: obj };
  const check = checkAgainstSchema(obj, def);
  if (check.fatal) return { unconvertible: check.unconvertible ?? check.fatal.message };
  if (check.omitted.length === 0 && check.reencoded.length === 0) return { object: obj };
  const copy = cloneJson(obj);
  applySchemaCheck(copy, { unknownFieldSteps: [], reencoded: check.reencoded, omitted: check.omitted });
  return { object: copy };
}
