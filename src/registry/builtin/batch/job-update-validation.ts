// What kube 1.31's ValidateJobSpecUpdate keeps fixed once a Job exists: the selector, the completion mode, the pod
// failure policy, backoffLimitPerIndex, managedBy and the success policy; completions too, except that an Indexed
// Job may change them together with parallelism (ElasticIndexedJob, GA); the pod template, except the scheduling
// directives (node affinity, node selector, tolerations, scheduling gates, labels and annotations) of a Job
// suspended that never started. maxFailedIndexes, parallelism, suspend and the other counts stay mutable.

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { FIELD_IMMUTABLE } from '../../validation/meta.ts';
import { clone, ensureObj, isObj, objAt, semanticEqual, type Obj } from '../object.ts';
import { goLabelSelector } from '../../../apis/go-bad-values.ts';
import { goPodFailurePolicy, goSuccessPolicy } from './go-batch-values.ts';

const isSet = (v: unknown): boolean => v !== undefined && v !== null;

/** apiequality.Semantic.DeepEqual of two pointers: nil equals only nil. */
const samePointee = (a: unknown, b: unknown): boolean => (isSet(a) && isSet(b) ? semanticEqual(a, b) : isSet(a) === isSet(b));

/** ValidateImmutableField of a pointer field: the new value as field.Error prints it ("null" when unset). */
function immutable(path: string, n: unknown, o: unknown, render: (v: unknown) => unknown = (v) => v): FieldError[] {
  return samePointee(n, o) ? [] : [fieldErrors.invalid(path, isSet(n) ? render(n) : 'null', FIELD_IMMUTABLE)];
}

/** validateCompletions with elastic Indexed Jobs. */
function completionsErrors(spec: Obj, old: Obj, path: string): FieldError[] {
  if (spec.completionMode !== 'Indexed') return immutable(`${path}.completions`, spec.completions, old.completions);
  if (samePointee(spec.completions, old.completions) || !isSet(spec.completions)) return [];
  return spec.completions === spec.parallelism ? [] : [fieldErrors.invalid(`${path}.completions`, spec.completions, `can only be modified in tandem with ${path}.parallelism`)];
}

/** The old template with the new one's scheduling directives: what a suspended Job that never started may change. */
function withNewSchedulingDirectives(oldTemplate: Obj, template: Obj): Obj {
  const out = clone(oldTemplate);
  const oldSpec = ensureObj(out, 'spec');
  const spec = objAt(template, 'spec') ?? {};
  const newAffinity = objAt(spec, 'affinity');
  const oldAffinity = objAt(oldSpec, 'affinity');
  // Only the node affinity of the affinity may change.
  if (!newAffinity && oldAffinity) {
    delete oldAffinity.nodeAffinity;
    if (!isSet(oldAffinity.podAffinity) && !isSet(oldAffinity.podAntiAffinity)) delete oldSpec.affinity;
  } else if (newAffinity && !oldAffinity) {
    oldSpec.affinity = isSet(newAffinity.nodeAffinity) ? { nodeAffinity: clone(newAffinity.nodeAffinity) } : {};
  } else if (newAffinity && oldAffinity) {
    if (isSet(newAffinity.nodeAffinity)) oldAffinity.nodeAffinity = clone(newAffinity.nodeAffinity);
    else delete oldAffinity.nodeAffinity;
  }
  const copy = (to: Obj, from: Obj, key: string) => {
    if (from[key] === undefined) delete to[key];
    else to[key] = clone(from[key]);
  };
  for (const key of ['nodeSelector', 'tolerations', 'schedulingGates']) copy(oldSpec, spec, key);
  const oldMeta = ensureObj(out, 'metadata');
  for (const key of ['annotations', 'labels']) copy(oldMeta, objAt(template, 'metadata') ?? {}, key);
  return out;
}

function templateErrors(spec: Obj, old: Obj, path: string, allowSchedulingDirectives: boolean): FieldError[] {
  const template = isObj(spec.template) ? spec.template : {};
  const oldTemplate = isObj(old.template) ? old.template : {};
  const compared = allowSchedulingDirectives ? withNewSchedulingDirectives(oldTemplate, template) : oldTemplate;
  return semanticEqual(template, compared) ? [] : [fieldErrors.invalid(`${path}.template`, template, FIELD_IMMUTABLE)];
}

/**
 * ValidateJobSpecUpdate past its ValidateJobSpec of the new spec. allowSchedulingDirectives: the old Job was suspended
 * and never started.
 */
export function jobSpecUpdateErrors(spec: Obj, old: Obj, path: string, allowSchedulingDirectives: boolean): FieldError[] {
  return [
    ...completionsErrors(spec, old, path),
    ...immutable(`${path}.selector`, spec.selector, old.selector, goLabelSelector),
    ...templateErrors(spec, old, path, allowSchedulingDirectives),
    ...immutable(`${path}.completionMode`, spec.completionMode, old.completionMode),
    ...immutable(`${path}.podFailurePolicy`, spec.podFailurePolicy, old.podFailurePolicy, goPodFailurePolicy),
    ...immutable(`${path}.backoffLimitPerIndex`, spec.backoffLimitPerIndex, old.backoffLimitPerIndex),
    ...immutable(`${path}.managedBy`, spec.managedBy, old.managedBy),
    ...immutable(`${path}.successPolicy`, spec.successPolicy, old.successPolicy, goSuccessPolicy),
  ];
}
