// Dropping fields the schema does not know, as decoding into kube's typed structs (or CRD pruning) does. Each field
// comes as the steps from the root that the schema check reports (keys as they are, indices as numbers).

import type { FieldSteps } from '../registry/validation/schema-check.ts';

/** Removes each field (in place); fields whose parent does not resolve are ignored. */
export function pruneFields(obj: unknown, fields: readonly FieldSteps[]): void {
  for (const steps of fields) {
    if (steps.length === 0) continue;
    let node: unknown = obj;
    for (let i = 0; i < steps.length - 1 && node !== undefined && node !== null; i++) {
      const step = steps[i]!;
      node = typeof step === 'number' ? (Array.isArray(node) ? node[step] : undefined) : typeof node === 'object' && !Array.isArray(node) ? (node as Record<string, unknown>)[step] : undefined;
    }
    const last = steps[steps.length - 1];
    if (node && typeof node === 'object' && !Array.isArray(node) && typeof last === 'string') delete (node as Record<string, unknown>)[last];
  }
}
