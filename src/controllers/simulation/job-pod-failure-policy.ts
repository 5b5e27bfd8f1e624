// A Job's podFailurePolicy (kube's pod_failure_policy.go) and which of its pods count as failed: the rules are
// matched against each failed pod in order, the first match winning. FailJob fails the Job, Ignore lets the pod go
// uncounted, Count (and no match) counts it, FailIndex fails the pod's index at once (with backoffLimitPerIndex).

import type { KubeObject } from '../../registry/types.ts';
import { asObj, type Obj } from './shared.ts';

const phaseOf = (pod: KubeObject): unknown => asObj(pod.status).phase;

/** onlyReplaceFailedPods: podReplacementPolicy Failed (the default that comes with a podFailurePolicy), or a podFailurePolicy. */
export function onlyReplaceFailedPods(spec: Obj): boolean {
  return spec.podReplacementPolicy === 'Failed' || (spec.podFailurePolicy !== undefined && spec.podFailurePolicy !== null);
}

/**
 * isPodFailed: phase Failed; or, unless only failed pods are replaced, deleted before it succeeded (an orphan or
 * evicted pod may never reach Failed).
 */
export function isPodFailed(pod: KubeObject, spec: Obj): boolean {
  const phase = phaseOf(pod);
  if (phase === 'Failed') return true;
  if (onlyReplaceFailedPods(spec)) return false;
  return Boolean(pod.metadata.deletionTimestamp) && phase !== 'Succeeded';
}

export interface PolicyMatch {
  action: string;
  /** A FailJob rule's message for the Job's conditions. */
  message?: string;
}

/** getMatchingContainerFromList: the first terminated container, of the name if the rule gives one, whose exit code matches. */
function matchingContainer(statuses: unknown, req: Obj): { name: string; exitCode: number } | undefined {
  const values = Array.isArray(req.values) ? req.values : [];
  for (const cs of Array.isArray(statuses) ? statuses.map(asObj) : []) {
    const state = asObj(cs.state);
    if (state.terminated === undefined || state.terminated === null) continue;
    const terminated = asObj(state.terminated);
    if (typeof req.containerName === 'string' && req.containerName !== cs.name) continue;
    const exitCode = typeof terminated.exitCode === 'number' ? terminated.exitCode : 0;
    // A container that succeeded never matches, whatever the operator (validation keeps 0 out of In's values).
    if (exitCode === 0) continue;
    const listed = values.includes(exitCode);
    if ((req.operator === 'In' && listed) || (req.operator === 'NotIn' && !listed)) return { name: String(cs.name ?? ''), exitCode };
  }
  return undefined;
}

/** matchOnPodConditions: the first of the pod's conditions that a pattern (type and status) names. */
function matchingCondition(conditions: unknown, patterns: unknown): Obj | undefined {
  const wanted = Array.isArray(patterns) ? patterns.map(asObj) : [];
  return (Array.isArray(conditions) ? conditions.map(asObj) : []).find((c) => wanted.some((w) => w.type === c.type && w.status === c.status));
}

/**
 * matchPodFailurePolicy: the action of the first rule the failed pod matches (regular containers' exit codes before
 * init containers'), with kube's message for FailJob; undefined without a policy or a match.
 */
export function matchPodFailurePolicy(policy: unknown, pod: KubeObject): PolicyMatch | undefined {
  const rules = Array.isArray(asObj(policy).rules) ? (asObj(policy).rules as unknown[]).map(asObj) : [];
  const status = asObj(pod.status);
  const podName = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
  for (const [index, rule] of rules.entries()) {
    const action = String(rule.action ?? '');
    let message: string;
    if (rule.onExitCodes !== undefined && rule.onExitCodes !== null) {
      const req = asObj(rule.onExitCodes);
      const c = matchingContainer(status.containerStatuses, req) ?? matchingContainer(status.initContainerStatuses, req);
      if (!c) continue;
      message = `Container ${c.name} for pod ${podName} failed with exit code ${c.exitCode} matching ${action} rule at index ${index}`;
    } else if (rule.onPodConditions !== undefined && rule.onPodConditions !== null) {
      const cond = matchingCondition(status.conditions, rule.onPodConditions);
      if (!cond) continue;
      message = `Pod ${podName} has condition ${String(cond.type)} matching ${action} rule at index ${index}`;
    } else continue;
    // kube's switch: a rule of an unknown action matches nothing, and the next rule is tried.
    if (action === 'FailJob') return { action, message };
    if (action === 'Ignore' || action === 'Count' || action === 'FailIndex') return { action };
  }
  return undefined;
}

/** Whether a failed pod counts in status.failed and toward backoffLimit: not when it matches an Ignore rule. */
export function failureCounts(pod: KubeObject, spec: Obj): boolean {
  return matchPodFailurePolicy(spec.podFailurePolicy, pod)?.action !== 'Ignore';
}

/** getFailJobMessage: the message of the first failed pod that matches a FailJob rule. */
export function failJobMessage(pods: readonly KubeObject[], spec: Obj): string | undefined {
  if (spec.podFailurePolicy === undefined || spec.podFailurePolicy === null) return undefined;
  for (const pod of pods) {
    if (!isPodFailed(pod, spec)) continue;
    const match = matchPodFailurePolicy(spec.podFailurePolicy, pod);
    if (match?.message !== undefined) return match.message;
  }
  return undefined;
}
