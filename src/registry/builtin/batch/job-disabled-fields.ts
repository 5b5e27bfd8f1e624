// The Job strategy's PrepareForCreate and PrepareForUpdate of kube 1.31: the spec fields of Job features turned off
// by --feature-gates are dropped from a written Job; an update keeps one the stored Job already had. spec.managedBy
// (JobManagedBy, alpha, off by default) is dropped on create only: an update that adds it is refused as a change of
// an immutable field. JobPodFailurePolicy and ElasticIndexedJob are GA and cannot be turned off.

import { isObj, objsAt, type Obj } from '../object.ts';

type Gates = Readonly<Record<string, boolean>>;

const isSet = (v: unknown): boolean => v !== undefined && v !== null;
/** A beta gate (on by default) turned off. */
const off = (gates: Gates, gate: string): boolean => gates[gate] === false;

function dropUnlessKept(spec: Obj, old: Obj | undefined, field: string): void {
  if (!old || !isSet(old[field])) delete spec[field];
}

export function dropDisabledJobFields(spec: Obj, old: Obj | undefined, gates: Gates): void {
  if (!old && gates.JobManagedBy !== true) delete spec.managedBy;
  if (off(gates, 'JobSuccessPolicy')) dropUnlessKept(spec, old, 'successPolicy');
  if (off(gates, 'JobBackoffLimitPerIndex')) {
    dropUnlessKept(spec, old, 'backoffLimitPerIndex');
    dropUnlessKept(spec, old, 'maxFailedIndexes');
    // On create the FailIndex rules go with the feature; an update keeps them (the policy is immutable).
    if (!old && isObj(spec.podFailurePolicy) && Array.isArray(spec.podFailurePolicy.rules)) {
      spec.podFailurePolicy.rules = objsAt(spec.podFailurePolicy, 'rules').filter((rule) => rule.action !== 'FailIndex');
    }
  }
  if (off(gates, 'JobPodReplacementPolicy')) dropUnlessKept(spec, old, 'podReplacementPolicy');
}
