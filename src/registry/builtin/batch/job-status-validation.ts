// A Job's status write as kube 1.31 checks it (ValidateJobUpdateStatus with the strategy's options). Always: counts
// not negative, uncountedTerminatedPods UIDs non-empty and unique, SuccessCriteriaMet never with Failed or
// FailureTarget, never withdrawn, never added to a Job already Complete without it, and Complete with a
// successPolicy only after SuccessCriteriaMet. With JobPodReplacementPolicy or JobManagedBy on (the first is on by
// default), SuccessCriteriaMet may also be set on NonIndexed Jobs and Jobs without a successPolicy (the controller
// sets it before Complete); with both off, only where the old status had it. JobManagedBy (alpha, off) adds the
// transition rules meant for external controllers, most of them checked only when their fields change.

import { fieldErrors, OMITTED_VALUE, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goTimeString } from '../../../encoding/go-format.ts';
import type { KubeObject } from '../../types.ts';
import { validateNonnegative } from '../../validation/meta.ts';
import { isObj, objAt, objsAt, semanticEqual, type Obj } from '../object.ts';
import { goUncountedTerminatedPods } from './go-batch-values.ts';
import { indexesFormat, overlappingIndex } from './job-index-intervals.ts';

type Gates = Readonly<Record<string, boolean>>;

/** JobStatusValidationOptions: which of the checks kube runs depend on the gates and on what the write changes. */
interface StatusOptions {
  rejectDecreasingSucceededCounter: boolean;
  rejectDecreasingFailedCounter: boolean;
  rejectDisablingTerminalCondition: boolean;
  rejectInvalidCompletedIndexes: boolean;
  rejectInvalidFailedIndexes: boolean;
  rejectCompletedIndexesForNonIndexedJob: boolean;
  rejectFailedIndexesForNoBackoffLimitPerIndex: boolean;
  rejectFailedIndexesOverlappingCompleted: boolean;
  rejectFailedJobWithoutFailureTarget: boolean;
  rejectCompleteJobWithoutSuccessCriteriaMet: boolean;
  rejectFinishedJobWithActivePods: boolean;
  rejectFinishedJobWithoutStartTime: boolean;
  rejectFinishedJobWithUncountedTerminatedPods: boolean;
  rejectStartTimeUpdateForUnsuspendedJob: boolean;
  rejectCompletionTimeBeforeStartTime: boolean;
  rejectMutatingCompletionTime: boolean;
  rejectCompleteJobWithoutCompletionTime: boolean;
  rejectNotCompleteJobWithCompletionTime: boolean;
  rejectCompleteJobWithFailedCondition: boolean;
  rejectCompleteJobWithFailureTargetCondition: boolean;
  allowSuccessCriteriaMetInExtendedScope: boolean;
  rejectMoreReadyThanActivePods: boolean;
  rejectFinishedJobWithTerminatingPods: boolean;
}

const isSet = (v: unknown): boolean => v !== undefined && v !== null;
const statusOf = (job: KubeObject): Obj => objAt(job, 'status') ?? {};
const specOf = (job: KubeObject): Obj => objAt(job, 'spec') ?? {};
const count = (v: unknown): number => (typeof v === 'number' ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const conditionTrue = (job: KubeObject, type: string): boolean => objsAt(statusOf(job), 'conditions').some((c) => c.type === type && c.status === 'True');
const isComplete = (job: KubeObject) => conditionTrue(job, 'Complete');
const isFailed = (job: KubeObject) => conditionTrue(job, 'Failed');
const isFinished = (job: KubeObject) => isComplete(job) || isFailed(job);
const isFailureTarget = (job: KubeObject) => conditionTrue(job, 'FailureTarget');
const isSuccessCriteriaMet = (job: KubeObject) => conditionTrue(job, 'SuccessCriteriaMet');
const isIndexed = (job: KubeObject) => specOf(job).completionMode === 'Indexed';

/** ptr.Equal of two metav1.Time pointers (the same instant). */
function sameTime(a: unknown, b: unknown): boolean {
  if (!isSet(a) || !isSet(b)) return isSet(a) === isSet(b);
  return Date.parse(str(a)) === Date.parse(str(b));
}

const samePointer = (a: unknown, b: unknown): boolean => (isSet(a) && isSet(b) ? a === b : isSet(a) === isSet(b));

/** getStatusValidationOptions of kube 1.31's Job strategy. */
function statusOptions(job: KubeObject, old: KubeObject, gates: Gates): StatusOptions {
  const none: StatusOptions = {
    rejectDecreasingSucceededCounter: false,
    rejectDecreasingFailedCounter: false,
    rejectDisablingTerminalCondition: false,
    rejectInvalidCompletedIndexes: false,
    rejectInvalidFailedIndexes: false,
    rejectCompletedIndexesForNonIndexedJob: false,
    rejectFailedIndexesForNoBackoffLimitPerIndex: false,
    rejectFailedIndexesOverlappingCompleted: false,
    rejectFailedJobWithoutFailureTarget: false,
    rejectCompleteJobWithoutSuccessCriteriaMet: false,
    rejectFinishedJobWithActivePods: false,
    rejectFinishedJobWithoutStartTime: false,
    rejectFinishedJobWithUncountedTerminatedPods: false,
    rejectStartTimeUpdateForUnsuspendedJob: false,
    rejectCompletionTimeBeforeStartTime: false,
    rejectMutatingCompletionTime: false,
    rejectCompleteJobWithoutCompletionTime: false,
    rejectNotCompleteJobWithCompletionTime: false,
    rejectCompleteJobWithFailedCondition: false,
    rejectCompleteJobWithFailureTargetCondition: false,
    allowSuccessCriteriaMetInExtendedScope: false,
    rejectMoreReadyThanActivePods: false,
    rejectFinishedJobWithTerminatingPods: false,
  };
  if (gates.JobManagedBy !== true) {
    const extended = gates.JobPodReplacementPolicy !== false || isSuccessCriteriaMet(old);
    return { ...none, allowSuccessCriteriaMetInExtendedScope: extended };
  }
  const s = statusOf(job);
  const o = statusOf(old);
  const spec = specOf(job);
  const finishedChanged = isFinished(old) !== isFinished(job);
  const completeChanged = isComplete(old) !== isComplete(job);
  const failedChanged = isFailed(old) !== isFailed(job);
  const failureTargetChanged = isFailureTarget(old) !== isFailureTarget(job);
  const successCriteriaMetChanged = isSuccessCriteriaMet(old) !== isSuccessCriteriaMet(job);
  const completedIndexesChanged = str(o.completedIndexes) !== str(s.completedIndexes);
  const failedIndexesChanged = !samePointer(o.failedIndexes, s.failedIndexes);
  const activeChanged = count(o.active) !== count(s.active);
  const startTimeChanged = !sameTime(o.startTime, s.startTime);
  const completionTimeChanged = !sameTime(o.completionTime, s.completionTime);
  const uncountedChanged = !semanticEqual(o.uncountedTerminatedPods, s.uncountedTerminatedPods) || isSet(o.uncountedTerminatedPods) !== isSet(s.uncountedTerminatedPods);
  const readyChanged = !samePointer(o.ready, s.ready);
  const terminatingChanged = !samePointer(o.terminating, s.terminating);
  return {
    // Indexed Jobs scaled down together (completions equal to parallelism) may lose succeeded pods.
    rejectDecreasingSucceededCounter: !isIndexed(job) || !samePointer(spec.completions, spec.parallelism),
    rejectDecreasingFailedCounter: true,
    rejectDisablingTerminalCondition: true,
    rejectInvalidCompletedIndexes: completedIndexesChanged,
    rejectInvalidFailedIndexes: failedIndexesChanged,
    rejectCompletedIndexesForNonIndexedJob: completedIndexesChanged,
    rejectFailedIndexesForNoBackoffLimitPerIndex: failedIndexesChanged,
    rejectFailedIndexesOverlappingCompleted: failedIndexesChanged || completedIndexesChanged,
    rejectFailedJobWithoutFailureTarget: failedChanged || failedIndexesChanged,
    rejectCompleteJobWithoutSuccessCriteriaMet: completeChanged || successCriteriaMetChanged,
    rejectFinishedJobWithActivePods: finishedChanged || activeChanged,
    rejectFinishedJobWithoutStartTime: finishedChanged || startTimeChanged,
    rejectFinishedJobWithUncountedTerminatedPods: finishedChanged || uncountedChanged,
    rejectStartTimeUpdateForUnsuspendedJob: startTimeChanged,
    rejectCompletionTimeBeforeStartTime: startTimeChanged || completionTimeChanged,
    rejectMutatingCompletionTime: true,
    rejectNotCompleteJobWithCompletionTime: completeChanged || completionTimeChanged,
    rejectCompleteJobWithoutCompletionTime: completeChanged || completionTimeChanged,
    rejectCompleteJobWithFailedCondition: completeChanged || failedChanged,
    rejectCompleteJobWithFailureTargetCondition: completeChanged || failureTargetChanged,
    allowSuccessCriteriaMetInExtendedScope: true,
    rejectMoreReadyThanActivePods: readyChanged || activeChanged,
    rejectFinishedJobWithTerminatingPods: finishedChanged || terminatingChanged,
  };
}

const conditionsError = (detail: string): FieldError => fieldErrors.invalid('status.conditions', OMITTED_VALUE, detail);
/** A metav1.Time bad value: field.Error prints its String(). */
const timeValue = (v: unknown): unknown => renderedBadValue(goTimeString(str(v)));

function uncountedErrors(uncounted: unknown): FieldError[] {
  if (!isObj(uncounted)) return [];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const which of ['succeeded', 'failed']) {
    const uids = Array.isArray(uncounted[which]) ? (uncounted[which] as unknown[]) : [];
    uids.forEach((raw, i) => {
      const uid = str(raw);
      const path = `status.uncountedTerminatedPods.${which}[${i}]`;
      if (uid === '') errs.push(fieldErrors.invalid(path, uid, 'must not be empty'));
      else if (seen.has(uid)) errs.push(fieldErrors.duplicate(path, uid));
      else seen.add(uid);
    });
  }
  return errs;
}

function countErrors(s: Obj): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['active', 'succeeded', 'failed']) errs.push(...validateNonnegative(count(s[f]), `status.${f}`));
  for (const f of ['ready', 'terminating']) if (typeof s[f] === 'number') errs.push(...validateNonnegative(s[f], `status.${f}`));
  return errs;
}

function conditionPairErrors(job: KubeObject, opts: StatusOptions): FieldError[] {
  const errs: FieldError[] = [];
  const s = statusOf(job);
  if (opts.rejectCompleteJobWithFailedCondition && isComplete(job) && isFailed(job)) errs.push(conditionsError('cannot set Complete=True and Failed=true conditions'));
  if (opts.rejectCompleteJobWithFailureTargetCondition && isComplete(job) && isFailureTarget(job)) errs.push(conditionsError('cannot set Complete=True and FailureTarget=true conditions'));
  if (opts.rejectNotCompleteJobWithCompletionTime && isSet(s.completionTime) && !isComplete(job)) {
    errs.push(fieldErrors.invalid('status.completionTime', timeValue(s.completionTime), 'cannot set completionTime when there is no Complete=True condition'));
  }
  if (opts.rejectCompleteJobWithoutCompletionTime && !isSet(s.completionTime) && isComplete(job)) errs.push(fieldErrors.required('status.completionTime', 'completionTime is required for Complete jobs'));
  if (opts.rejectCompletionTimeBeforeStartTime && isSet(s.startTime) && isSet(s.completionTime) && Date.parse(str(s.completionTime)) < Date.parse(str(s.startTime))) {
    errs.push(fieldErrors.invalid('status.completionTime', timeValue(s.completionTime), 'completionTime cannot be set before startTime'));
  }
  if (opts.rejectFailedJobWithoutFailureTarget && isFailed(job) && !isFailureTarget(job)) errs.push(conditionsError('cannot set Failed=True condition without the FailureTarget=true condition'));
  if (opts.rejectCompleteJobWithoutSuccessCriteriaMet && isComplete(job) && !isSuccessCriteriaMet(job)) {
    errs.push(conditionsError('cannot set Complete=True condition without the SuccessCriteriaMet=true condition'));
  }
  return errs;
}

function finishedJobErrors(job: KubeObject, opts: StatusOptions): FieldError[] {
  const errs: FieldError[] = [];
  const s = statusOf(job);
  const finished = isFinished(job);
  if (opts.rejectFinishedJobWithActivePods && count(s.active) > 0 && finished) errs.push(fieldErrors.invalid('status.active', count(s.active), 'active>0 is invalid for finished job'));
  if (opts.rejectFinishedJobWithoutStartTime && !isSet(s.startTime) && finished) errs.push(fieldErrors.required('status.startTime', 'startTime is required for finished job'));
  const uncounted = objAt(s, 'uncountedTerminatedPods');
  const uncountedCount = uncounted ? [uncounted.succeeded, uncounted.failed].reduce<number>((n, l) => n + (Array.isArray(l) ? l.length : 0), 0) : 0;
  if (opts.rejectFinishedJobWithUncountedTerminatedPods && finished && uncountedCount > 0) {
    errs.push(fieldErrors.invalid('status.uncountedTerminatedPods', goUncountedTerminatedPods(uncounted), 'uncountedTerminatedPods needs to be empty for finished job'));
  }
  return errs;
}

function indexesErrors(job: KubeObject, opts: StatusOptions): FieldError[] {
  const errs: FieldError[] = [];
  const s = statusOf(job);
  const spec = specOf(job);
  const completions = typeof spec.completions === 'number' ? spec.completions : undefined;
  const completed = str(s.completedIndexes);
  const failed = typeof s.failedIndexes === 'string' ? s.failedIndexes : undefined;
  if (opts.rejectInvalidCompletedIndexes && completions !== undefined) {
    const parsed = indexesFormat(completed, completions);
    if ('error' in parsed) errs.push(fieldErrors.invalid('status.completedIndexes', completed, `error parsing completedIndexes: ${parsed.error}`));
  }
  if (opts.rejectInvalidFailedIndexes && completions !== undefined && isSet(spec.backoffLimitPerIndex) && failed !== undefined) {
    const parsed = indexesFormat(failed, completions);
    if ('error' in parsed) errs.push(fieldErrors.invalid('status.failedIndexes', failed, `error parsing failedIndexes: ${parsed.error}`));
  }
  if (opts.rejectCompletedIndexesForNonIndexedJob && completed !== '' && !isIndexed(job)) {
    errs.push(fieldErrors.invalid('status.completedIndexes', completed, 'cannot set non-empty completedIndexes when non-indexed completion mode'));
  }
  if (opts.rejectFailedIndexesForNoBackoffLimitPerIndex && !isSet(spec.backoffLimitPerIndex) && failed !== undefined) {
    errs.push(fieldErrors.invalid('status.failedIndexes', failed, 'cannot set non-null failedIndexes when backoffLimitPerIndex is null'));
  }
  if (opts.rejectFailedIndexesOverlappingCompleted && completions !== undefined && failed !== undefined) {
    const at = overlappingIndex(completed, failed, completions);
    if (at !== undefined) errs.push(fieldErrors.invalid('status.failedIndexes', failed, `failedIndexes and completedIndexes overlap at index: ${at}`));
  }
  return errs;
}

function successCriteriaErrors(job: KubeObject, opts: StatusOptions): FieldError[] {
  const errs: FieldError[] = [];
  const met = isSuccessCriteriaMet(job);
  const hasPolicy = isSet(specOf(job).successPolicy);
  if (!opts.allowSuccessCriteriaMetInExtendedScope && !isIndexed(job) && met) errs.push(conditionsError('cannot set SuccessCriteriaMet to NonIndexed Job'));
  if (met && isFailed(job)) errs.push(conditionsError('cannot set SuccessCriteriaMet=True and Failed=true conditions'));
  if (met && isFailureTarget(job)) errs.push(conditionsError('cannot set SuccessCriteriaMet=True and FailureTarget=true conditions'));
  if (!opts.allowSuccessCriteriaMetInExtendedScope && !hasPolicy && met) errs.push(conditionsError('cannot set SuccessCriteriaMet=True for Job without SuccessPolicy'));
  if (hasPolicy && !met && isComplete(job)) errs.push(conditionsError('cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True'));
  return errs;
}

/** validateJobStatus. */
function jobStatusErrors(job: KubeObject, opts: StatusOptions): FieldError[] {
  const s = statusOf(job);
  const errs = [...countErrors(s), ...uncountedErrors(s.uncountedTerminatedPods), ...conditionPairErrors(job, opts), ...finishedJobErrors(job, opts), ...indexesErrors(job, opts)];
  if (opts.rejectFinishedJobWithTerminatingPods && count(s.terminating) > 0 && isFinished(job)) {
    errs.push(fieldErrors.invalid('status.terminating', count(s.terminating), 'terminating>0 is invalid for finished job'));
  }
  if (opts.rejectMoreReadyThanActivePods && typeof s.ready === 'number' && s.ready > count(s.active)) errs.push(fieldErrors.invalid('status.ready', s.ready, 'cannot set more ready pods than active'));
  errs.push(...successCriteriaErrors(job, opts));
  return errs;
}

/** The transition checks of ValidateJobStatusUpdate. */
function transitionErrors(job: KubeObject, old: KubeObject, opts: StatusOptions): FieldError[] {
  const errs: FieldError[] = [];
  const s = statusOf(job);
  const o = statusOf(old);
  if (opts.rejectDisablingTerminalCondition) {
    for (const type of ['Failed', 'Complete', 'FailureTarget']) {
      if (conditionTrue(old, type) && !conditionTrue(job, type)) errs.push(conditionsError(`cannot disable the terminal ${type}=True condition`));
    }
  }
  if (opts.rejectDecreasingFailedCounter && count(s.failed) < count(o.failed)) errs.push(fieldErrors.invalid('status.failed', count(s.failed), 'cannot decrease the failed counter'));
  if (opts.rejectDecreasingSucceededCounter && count(s.succeeded) < count(o.succeeded)) errs.push(fieldErrors.invalid('status.succeeded', count(s.succeeded), 'cannot decrease the succeeded counter'));
  if (opts.rejectMutatingCompletionTime && isSet(s.completionTime) && isSet(o.completionTime) && !sameTime(s.completionTime, o.completionTime)) {
    errs.push(fieldErrors.invalid('status.completionTime', timeValue(s.completionTime), 'completionTime cannot be mutated'));
  }
  if (opts.rejectStartTimeUpdateForUnsuspendedJob && isSet(o.startTime) && !sameTime(o.startTime, s.startTime) && specOf(job).suspend !== true) {
    errs.push(fieldErrors.required('status.startTime', 'startTime cannot be removed for unsuspended job'));
  }
  if (isSuccessCriteriaMet(old) && !isSuccessCriteriaMet(job)) errs.push(conditionsError('cannot disable the SuccessCriteriaMet=True condition'));
  if (isComplete(old) && !isSuccessCriteriaMet(old) && isSuccessCriteriaMet(job)) errs.push(conditionsError('cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions'));
  return errs;
}

/** ValidateJobStatusUpdate of a status write (job: the stored Job with the written status) under the server's gates. */
export function jobStatusUpdateErrors(job: KubeObject, old: KubeObject, gates: Gates): FieldError[] {
  const opts = statusOptions(job, old, gates);
  return [...jobStatusErrors(job, opts), ...transitionErrors(job, old, opts)];
}
