// Go's %#v of the batch values kube puts in Invalid errors (the shared rendering rules: apis/go-bad-values.ts).

import { renderedBadValue } from '../../../apis/errors.ts';
import { goInt, goPointer, goSlice, goText } from '../../../apis/go-bad-values.ts';
import { isObj } from '../object.ts';

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
