// What a pod update may change (pkg/apis/core/validation ValidatePodUpdate of kube 1.31, past the checks of the new
// pod): container images, a lower activeDeadlineSeconds, added tolerations, removed scheduling gates, a negative grace
// period raised to 1, and, while the pod is still gated, additions to its node selector and required node affinity.
// With InPlacePodVerticalScaling on, containers' cpu and memory as well, as long as the QoS class stays.

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goStringMap } from '../../../apis/go-bad-values.ts';
import { inclusiveRangeError } from '../../validation/names.ts';
import { clone, isObj, objsAt, semanticEqual, strAt, type Obj } from '../object.ts';
import { goNodeSelectorTerm, goNodeSelectorTerms } from './node-selector-validation.ts';
import { validateTolerations } from './pod-validation.ts';
import { podQOSClass } from './qos.ts';

const MAX_INT32 = 2147483647;

const UPDATABLE_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];
const RESIZABLE_FIELD = '`spec.containers[*].resources` (for CPU/memory only)';

/** The text kube puts before its diff in the Forbidden error of an update that changes anything else. */
export function podUpdateForbiddenText(inPlaceResize: boolean): string {
  return `pod updates may not change fields other than ${[...UPDATABLE_FIELDS, ...(inPlaceResize ? [RESIZABLE_FIELD] : [])].join(',')}`;
}

const specOf = (pod: Obj): Obj => (isObj(pod.spec) ? pod.spec : {});
const objOrUndefined = (v: unknown): Obj | undefined => (isObj(v) ? v : undefined);

/** ValidateContainerUpdates: the same number of containers, each with an image without surrounding whitespace. */
function containerUpdateErrors(newContainers: Obj[], oldContainers: Obj[], path: string): { errs: FieldError[]; stop: boolean } {
  if (newContainers.length !== oldContainers.length) return { errs: [fieldErrors.forbidden(path, 'pod updates may not add or remove containers')], stop: true };
  const errs: FieldError[] = [];
  newContainers.forEach((c, i) => {
    const image = strAt(c, 'image');
    if (image === '') errs.push(fieldErrors.required(`${path}[${i}].image`));
    if (image.trim().length !== image.length) errs.push(fieldErrors.invalid(`${path}[${i}].image`, image, 'must not have leading or trailing whitespace'));
  });
  return { errs, stop: false };
}

/** activeDeadlineSeconds may be set, or lowered, never raised or unset; a bad value ends the update's checks. */
function activeDeadlineErrors(newSpec: Obj, oldSpec: Obj): { errs: FieldError[]; stop: boolean } {
  const now = newSpec.activeDeadlineSeconds;
  const before = oldSpec.activeDeadlineSeconds;
  const path = 'spec.activeDeadlineSeconds';
  if (typeof now === 'number') {
    if (now < 0 || now > MAX_INT32) return { errs: [fieldErrors.invalid(path, now, inclusiveRangeError(0, MAX_INT32))], stop: true };
    if (typeof before === 'number' && before < now) return { errs: [fieldErrors.invalid(path, now, 'must be less than or equal to previous value')], stop: true };
    return { errs: [], stop: false };
  }
  return { errs: typeof before === 'number' ? [fieldErrors.invalid(path, null, 'must not update from a positive integer to nil value')] : [], stop: false };
}

/** validateOnlyAddedTolerations: every old toleration kept (its tolerationSeconds may change), then the new list validated. */
function onlyAddedTolerationErrors(newTolerations: Obj[], oldTolerations: Obj[]): FieldError[] {
  const path = 'spec.tolerations';
  const kept = (old: Obj) => newTolerations.some((t) => semanticEqual({ ...old, tolerationSeconds: t.tolerationSeconds }, t));
  if (!oldTolerations.every(kept)) return [fieldErrors.forbidden(path, 'existing toleration can not be modified except its tolerationSeconds')];
  return validateTolerations(newTolerations, path);
}

/** validateOnlyDeletedSchedulingGates: each new gate name once, at the last index it holds. */
function onlyDeletedGateErrors(newGates: Obj[], oldGates: Obj[]): FieldError[] {
  const added = new Map<string, number>();
  newGates.forEach((g, i) => added.set(strAt(g, 'name'), i));
  for (const g of oldGates) added.delete(strAt(g, 'name'));
  return [...added]
    .sort((a, b) => a[1] - b[1])
    .map(([name, i]) => fieldErrors.forbidden(`spec.schedulingGates[${i}].name`, `only deletion is allowed, but found new scheduling gate '${name}'`));
}

/** validateNodeSelectorMutation: a gated pod's node selector may only grow. */
function nodeSelectorMutationErrors(newSelector: unknown, oldSelector: unknown): FieldError[] {
  const now = isObj(newSelector) ? newSelector : {};
  const before = isObj(oldSelector) ? oldSelector : {};
  const changed = Object.entries(before).some(([k, v]) => !Object.hasOwn(now, k) || now[k] !== v);
  return changed ? [fieldErrors.invalid('spec.nodeSelector', goStringMap(newSelector), 'only additions to spec.nodeSelector are allowed (no mutations or deletions)')] : [];
}

/** validateNodeSelectorTermHasOnlyAdditions. */
function termHasOnlyAdditions(newTerm: Obj, oldTerm: Obj): boolean {
  const oldExpressions = objsAt(oldTerm, 'matchExpressions');
  const oldFields = objsAt(oldTerm, 'matchFields');
  if (oldExpressions.length === 0 && oldFields.length === 0 && (objsAt(newTerm, 'matchExpressions').length > 0 || objsAt(newTerm, 'matchFields').length > 0)) return false;
  const keepsPrefix = (now: Obj[], before: Obj[]) => before.length === 0 || (now.length >= before.length && semanticEqual(now.slice(0, before.length), before));
  return keepsPrefix(objsAt(newTerm, 'matchExpressions'), oldExpressions) && keepsPrefix(objsAt(newTerm, 'matchFields'), oldFields);
}

/** validateNodeAffinityMutation: a gated pod's required node selector terms may only gain requirements. */
function nodeAffinityMutationErrors(newAffinity: Obj | undefined, oldAffinity: Obj | undefined): FieldError[] {
  const oldRequired = objOrUndefined(oldAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
  if (!oldRequired) return [];
  const path = 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms';
  const oldTerms = objsAt(oldRequired, 'nodeSelectorTerms');
  const newRequired = objOrUndefined(newAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
  const newTermsValue = newRequired?.nodeSelectorTerms;
  const newTerms = objsAt(newRequired, 'nodeSelectorTerms');
  if (oldTerms.length > 0 && oldTerms.length !== newTerms.length) {
    return [fieldErrors.invalid(path, renderedBadValue(goNodeSelectorTerms(newTermsValue)), 'no additions/deletions to non-empty NodeSelectorTerms list are allowed')];
  }
  return oldTerms.flatMap((old, i) =>
    termHasOnlyAdditions(newTerms[i], old) ? [] : [fieldErrors.invalid(`${path}[${i}]`, renderedBadValue(goNodeSelectorTerm(newTerms[i])), 'only additions are allowed (no mutations or deletions)')],
  );
}

/** A gated pod's node selector and node affinity: what changed is checked, then put back before the final comparison. */
function gatedPodMutationErrors(munged: Obj, oldSpec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (!semanticEqual(munged.nodeSelector, oldSpec.nodeSelector)) {
    errs.push(...nodeSelectorMutationErrors(munged.nodeSelector, oldSpec.nodeSelector));
    restore(munged, 'nodeSelector', oldSpec.nodeSelector);
  }
  const oldAffinity = objOrUndefined(oldSpec.affinity);
  const oldNodeAffinity = objOrUndefined(oldAffinity?.nodeAffinity);
  const mungedAffinity = objOrUndefined(munged.affinity);
  const mungedNodeAffinity = objOrUndefined(mungedAffinity?.nodeAffinity);
  if (semanticEqual(oldNodeAffinity, mungedNodeAffinity)) return errs;
  errs.push(...nodeAffinityMutationErrors(mungedNodeAffinity, oldNodeAffinity));
  if (!mungedAffinity) {
    if (oldNodeAffinity) munged.affinity = { nodeAffinity: oldNodeAffinity };
  } else if (!oldAffinity && mungedAffinity.podAntiAffinity == null && mungedAffinity.podAffinity == null) {
    delete munged.affinity;
  } else {
    restore(mungedAffinity, 'nodeAffinity', oldNodeAffinity);
  }
  return errs;
}

function restore(into: Obj, key: string, value: unknown): void {
  if (value === undefined) delete into[key];
  else into[key] = clone(value);
}

/** mungeCpuMemResources: a container's cpu and memory taken from the old one, other resources as written. */
function mungeCpuMemory(list: unknown, oldList: unknown): Obj | undefined {
  if (!isObj(oldList)) return undefined;
  const munged: Obj = isObj(list) ? { ...list } : {};
  for (const name of ['cpu', 'memory']) restore(munged, name, oldList[name]);
  return munged;
}

/** The new spec with everything an update may change put back as it was (kube's mungedPodSpec). */
function mungedSpec(newSpec: Obj, oldSpec: Obj, inPlaceResize: boolean): Obj {
  const munged = clone(newSpec);
  const oldContainers = objsAt(oldSpec, 'containers');
  objsAt(munged, 'containers').forEach((c, i) => {
    restore(c, 'image', oldContainers[i]?.image);
    if (!inPlaceResize) return;
    const resources = isObj(c.resources) ? c.resources : {};
    const oldResources = isObj(oldContainers[i]?.resources) ? (oldContainers[i].resources as Obj) : {};
    const next: Obj = {};
    const limits = mungeCpuMemory(resources.limits, oldResources.limits);
    const requests = mungeCpuMemory(resources.requests, oldResources.requests);
    if (limits) next.limits = limits;
    if (requests) next.requests = requests;
    c.resources = next;
  });
  const oldInit = objsAt(oldSpec, 'initContainers');
  objsAt(munged, 'initContainers').forEach((c, i) => restore(c, 'image', oldInit[i]?.image));
  for (const key of ['activeDeadlineSeconds', 'schedulingGates', 'tolerations']) restore(munged, key, oldSpec[key]);
  const oldGrace = oldSpec.terminationGracePeriodSeconds;
  if (typeof oldGrace === 'number' && oldGrace < 0 && munged.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = oldGrace;
  return munged;
}

/** GetPodQOS: the class the status records, else the one the spec gives. */
function recordedQOSClass(pod: Obj): string {
  return strAt(pod, 'status', 'qosClass') || podQOSClass(pod.spec);
}

/**
 * ValidatePodUpdate past the checks of the new pod. `describeDiff` renders what changed after the Forbidden text
 * (kube appends cmp.Diff there).
 */
export function podSpecUpdateErrors(pod: Obj, old: Obj, inPlaceResize: boolean, describeDiff: (oldSpec: Obj, mungedSpec: Obj) => string): FieldError[] {
  const newSpec = specOf(pod);
  const oldSpec = specOf(old);
  const errs: FieldError[] = [];
  for (const key of ['containers', 'initContainers']) {
    const r = containerUpdateErrors(objsAt(newSpec, key), objsAt(oldSpec, key), `spec.${key}`);
    errs.push(...r.errs);
    if (r.stop) return errs;
  }
  const deadline = activeDeadlineErrors(newSpec, oldSpec);
  errs.push(...deadline.errs);
  if (deadline.stop) return errs;
  errs.push(...onlyAddedTolerationErrors(objsAt(newSpec, 'tolerations'), objsAt(oldSpec, 'tolerations')));
  errs.push(...onlyDeletedGateErrors(objsAt(newSpec, 'schedulingGates'), objsAt(oldSpec, 'schedulingGates')));
  if (semanticEqual(newSpec, oldSpec)) return errs;
  // The status is the stored one here (PrepareForUpdate): kube reports the class it records.
  if (recordedQOSClass(old) !== podQOSClass(newSpec)) errs.push(fieldErrors.invalid('metadata', strAt(pod, 'status', 'qosClass'), 'Pod QoS is immutable'));
  const munged = mungedSpec(newSpec, oldSpec, inPlaceResize);
  if (objsAt(oldSpec, 'schedulingGates').length > 0) errs.push(...gatedPodMutationErrors(munged, oldSpec));
  if (!semanticEqual(munged, oldSpec)) errs.push(fieldErrors.forbidden('spec', `${podUpdateForbiddenText(inPlaceResize)}\n${describeDiff(oldSpec, munged)}`));
  return errs;
}
