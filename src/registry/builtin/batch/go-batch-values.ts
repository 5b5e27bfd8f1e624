// Go's %#v of the batch values kube puts in Invalid errors (field.Error prints a struct, map or slice that way), with
// this project's convention that a non-nil pointer shows its value in place of the address.

import { goStringsText, renderedBadValue } from '../../../apis/errors.ts';
import { goQuote } from '../../../encoding/go-format.ts';
import { isObj, stringMap, type Obj } from '../object.ts';

const isSet = (v: unknown): boolean => v !== undefined && v !== null;
const goText = (v: unknown): string => goQuote(typeof v === 'string' ? v : '');
const goPointer = (type: string, v: unknown, pointee: (x: unknown) => string): string => `(*${type})(${isSet(v) ? pointee(v) : 'nil'})`;

function goSlice(type: string, v: unknown, item: (x: unknown) => string): string {
  return Array.isArray(v) ? `[]${type}{${v.map(item).join(', ')}}` : `[]${type}(nil)`;
}

/** map[string]string, keys sorted as fmt prints them. */
export function goStringMapText(v: unknown): string {
  if (!isObj(v)) return 'map[string]string(nil)';
  const m = stringMap(v);
  return `map[string]string{${Object.keys(m)
    .sort()
    .map((k) => `${goQuote(k)}:${goQuote(m[k]!)}`)
    .join(', ')}}`;
}

export const goStringMap = (v: unknown): unknown => renderedBadValue(goStringMapText(v));

function goSelectorRequirement(r: unknown): string {
  const o = isObj(r) ? r : {};
  return `v1.LabelSelectorRequirement{Key:${goText(o.key)}, Operator:${goText(o.operator)}, Values:${Array.isArray(o.values) ? goStringsText(o.values) : '[]string(nil)'}}`;
}

/** metav1.LabelSelector. */
export function goLabelSelector(v: unknown): unknown {
  const s: Obj = isObj(v) ? v : {};
  return renderedBadValue(`v1.LabelSelector{MatchLabels:${goStringMapText(s.matchLabels)}, MatchExpressions:${goSlice('v1.LabelSelectorRequirement', s.matchExpressions, goSelectorRequirement)}}`);
}

const goInt = (v: unknown): string => String(typeof v === 'number' ? v : 0);

/** []int32 (exit codes). */
export const goInt32s = (v: unknown): unknown => renderedBadValue(goSlice('int32', v, goInt));

function goExitCodes(v: unknown): string {
  const o = isObj(v) ? v : {};
  return `batch.PodFailurePolicyOnExitCodesRequirement{ContainerName:${goPointer('string', o.containerName, goText)}, Operator:${goText(o.operator)}, Values:${goSlice('int32', o.values, goInt)}}`;
}

function goPodConditionsPattern(v: unknown): string {
  const o = isObj(v) ? v : {};
  return `batch.PodFailurePolicyOnPodConditionsPattern{Type:${goText(o.type)}, Status:${goText(o.status)}}`;
}

function goPodFailurePolicyRule(v: unknown): string {
  const o = isObj(v) ? v : {};
  const onExitCodes = goPointer('batch.PodFailurePolicyOnExitCodesRequirement', o.onExitCodes, goExitCodes);
  const onPodConditions = goSlice('batch.PodFailurePolicyOnPodConditionsPattern', o.onPodConditions, goPodConditionsPattern);
  return `batch.PodFailurePolicyRule{Action:${goText(o.action)}, OnExitCodes:${onExitCodes}, OnPodConditions:${onPodConditions}}`;
}

/** batch.PodFailurePolicy. */
export function goPodFailurePolicy(v: unknown): unknown {
  return renderedBadValue(`batch.PodFailurePolicy{Rules:${goSlice('batch.PodFailurePolicyRule', isObj(v) ? v.rules : undefined, goPodFailurePolicyRule)}}`);
}

function goSuccessPolicyRule(v: unknown): string {
  const o = isObj(v) ? v : {};
  return `batch.SuccessPolicyRule{SucceededIndexes:${goPointer('string', o.succeededIndexes, goText)}, SucceededCount:${goPointer('int32', o.succeededCount, goInt)}}`;
}

/** batch.SuccessPolicy. */
export function goSuccessPolicy(v: unknown): unknown {
  return renderedBadValue(`batch.SuccessPolicy{Rules:${goSlice('batch.SuccessPolicyRule', isObj(v) ? v.rules : undefined, goSuccessPolicyRule)}}`);
}

/** batch.UncountedTerminatedPods. */
export function goUncountedTerminatedPods(v: unknown): unknown {
  const o = isObj(v) ? v : {};
  return renderedBadValue(`batch.UncountedTerminatedPods{Succeeded:${goSlice('types.UID', o.succeeded, goText)}, Failed:${goSlice('types.UID', o.failed, goText)}}`);
}
