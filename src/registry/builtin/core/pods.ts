// Pods (pkg/registry/core/pod/strategy.go, core validation ValidatePodCreate/Update/StatusUpdate, printPod, the
// pod field label conversion): status Pending with its QoS class on create, the spec nearly immutable on
// update, graceful deletion, kubectl's READY/STATUS/RESTARTS cells and the selectable fields.

import { clockDate } from '../../../apis/clock.ts';
import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { goQuote } from '../../../encoding/go-format.ts';
import type { KubeObject, SubresourceStrategy } from '../../types.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../validation/meta.ts';
import { buildStrategy, type BuiltinStrategy } from '../generic.ts';
import { arrAt, clone, isObj, objAt, objsAt, semanticEqual, strAt, type Obj } from '../object.ts';
import { ageColumn, column, translateTimestampSince } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { defaultContainer, defaultPod } from './pod-defaults.ts';
import { dropDisabledPodFields } from './pod-disabled-fields.ts';
import { validatePodSpec } from './pod-validation.ts';
import { securityAnnotationFieldErrors } from './pod-security-validation.ts';
import { podUpdateOptions } from './pod-validation-options.ts';
import { podSpecUpdateErrors } from './pod-update-validation.ts';
import { podStatusUpdateErrors } from './pod-status-validation.ts';
import { applyAppArmorVersionSkew, podDeletionCost, podSpecificAnnotationErrors, podSpecificAnnotationUpdateErrors } from './pod-annotations.ts';
import { podWarnings, workloadNameWarnings } from './pod-warnings.ts';
import { podQOSClass } from './qos.ts';



/**
 * mutatePodAffinity (MatchLabelKeysInPodAffinity): each pod (anti-)affinity term with a label selector gets, for
 * every key of its matchLabelKeys / mismatchLabelKeys the pod carries as a label, an In / NotIn expression on the
 * pod's own value.
 */
function applyAffinityLabelKeys(pod: KubeObject): void {
  const labels = pod.metadata?.labels ?? {};
  const affinity = objAt(pod.spec, 'affinity');
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = objAt(affinity, kind);
    const terms = [...objsAt(a, 'requiredDuringSchedulingIgnoredDuringExecution'), ...objsAt(a, 'preferredDuringSchedulingIgnoredDuringExecution').map((w) => objAt(w, 'podAffinityTerm'))];
    for (const term of terms) {
      const selector = objAt(term, 'labelSelector');
      if (!term || !selector) continue;
      const expressions: Obj[] = [];
      for (const [list, operator] of [['matchLabelKeys', 'In'], ['mismatchLabelKeys', 'NotIn']] as const) {
        for (const key of arrAt(term, list)) {
          if (typeof key === 'string' && Object.hasOwn(labels, key)) expressions.push({ key, operator, values: [labels[key]] });
        }
      }
      if (expressions.length > 0) selector.matchExpressions = [...objsAt(selector, 'matchExpressions'), ...expressions];
    }
  }
}

function initialPodStatus(pod: KubeObject): Obj {
  const status: Obj = { phase: 'Pending', qosClass: podQOSClass(pod.spec) };
  if (arrAt(pod, 'spec', 'schedulingGates').length > 0) {
    status.conditions = [
      {
        type: 'PodScheduled',
        status: 'False',
        lastProbeTime: null,
        lastTransitionTime: null,
        reason: 'SchedulingGated',
        message: 'Scheduling is blocked due to non-empty scheduling gates',
      },
    ];
  }
  return status;
}

/**
 * validatePodMetadataAndSpec past ObjectMeta: the pod-specific annotations, then the spec. An update may keep what
 * the pod it replaces already held in a form no longer accepted (a deletion cost, selector label values).
 */
function validatePodMetadataAndSpec(pod: KubeObject, gates: Readonly<Record<string, boolean>>, old?: KubeObject): FieldError[] {
  const updateOptions = old ? podUpdateOptions(old.spec, old.metadata?.annotations) : {};
  const errs = podSpecificAnnotationErrors(pod.metadata?.annotations, pod.spec, 'metadata.annotations', updateOptions.allowInvalidPodDeletionCost);
  errs.push(...validatePodSpec(pod.spec, 'spec', { ...updateOptions, isPod: true, podName: pod.metadata?.name, featureGates: gates }));
  const spec = isObj(pod.spec) ? pod.spec : {};
  if (!strAt(spec, 'serviceAccountName')) {
    objsAt(spec, 'volumes').forEach((vol, vi) => {
      objsAt(vol.projected, 'sources').forEach((src, si) => {
        if (isObj(src.serviceAccountToken)) {
          errs.push(fieldErrors.forbidden(`spec.volumes[${vi}].projected.sources[${si}].serviceAccountToken`, 'must not be specified when serviceAccountName is not set'));
        }
      });
    });
  }
  for (const key of ['containers', 'initContainers']) {
    objsAt(spec, key).forEach((c, i) => {
      const image = strAt(c, 'image');
      if (image.length !== image.trim().length) errs.push(fieldErrors.invalid(`spec.${key}[${i}].image`, image, 'must not have leading or trailing whitespace'));
    });
  }
  return errs;
}

/** A compact rendering of what changed, in place of Go's cmp.Diff. */
function specDiff(oldSpec: unknown, newSpec: unknown, path = 'spec'): string[] {
  if (semanticEqual(oldSpec, newSpec)) return [];
  if (isObj(oldSpec) && isObj(newSpec)) {
    const keys = [...new Set([...Object.keys(oldSpec), ...Object.keys(newSpec)])].sort();
    return keys.flatMap((k) => specDiff(oldSpec[k], newSpec[k], `${path}.${k}`));
  }
  if (Array.isArray(oldSpec) && Array.isArray(newSpec) && oldSpec.length === newSpec.length) {
    return oldSpec.flatMap((x, i) => specDiff(x, newSpec[i], `${path}[${i}]`));
  }
  return [`- ${path}: ${JSON.stringify(oldSpec ?? null)}`, `+ ${path}: ${JSON.stringify(newSpec ?? null)}`];
}

/**
 * ValidatePodSpecificAnnotationUpdates: the guarded annotations unchanged, then the new annotations validated again
 * (their errors repeat among the causes).
 */
function annotationUpdateErrors(pod: KubeObject, old: KubeObject): FieldError[] {
  const allowInvalidDeletionCost = podDeletionCost(old.metadata?.annotations) === undefined;
  return [
    ...podSpecificAnnotationUpdateErrors(pod.metadata?.annotations, old.metadata?.annotations, 'metadata.annotations'),
    ...podSpecificAnnotationErrors(pod.metadata?.annotations, pod.spec, 'metadata.annotations', allowInvalidDeletionCost),
  ];
}

const describeSpecDiff = (oldSpec: Obj, munged: Obj): string => specDiff(oldSpec, munged).join('\n');

/** CheckGracefulDelete: the requested period, else the pod's; 0 for unscheduled or finished pods, 1 for a negative one. */
function gracefulDeletePeriod(pod: KubeObject, requested: number | undefined): number {
  let period = requested ?? (typeof (pod.spec as Obj | undefined)?.terminationGracePeriodSeconds === 'number' ? ((pod.spec as Obj).terminationGracePeriodSeconds as number) : 0);
  if (strAt(pod, 'spec', 'nodeName') === '') period = 0;
  const phase = strAt(pod, 'status', 'phase');
  if (phase === 'Failed' || phase === 'Succeeded') period = 0;
  // A negative grace period (older pods may hold one) deletes as 1 second.
  return period < 0 ? 1 : period;
}

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
/** The metadata a subresource write cannot change (metav1.ResetObjectMetaForStatus). */
const RESET_FOR_STATUS = ['deletionTimestamp', 'generation', 'labels', 'annotations', 'finalizers', 'ownerReferences'] as const;

/**
 * pods/ephemeralcontainers (dropNonEphemeralContainerUpdates): the stored pod with the written
 * spec.ephemeralContainers (defaulted as containers are), its metadata reset as for a status write. Ephemeral
 * containers are only ever added (ValidatePodEphemeralContainersUpdate).
 */
function ephemeralContainersSubresource(rules: TypeRules): SubresourceStrategy {
  return {
    prepareForUpdate(obj, old) {
      const metadata = { ...obj.metadata };
      for (const k of RESET_FOR_STATUS) {
        if (old.metadata?.[k] === undefined) delete metadata[k];
        else (metadata as Obj)[k] = old.metadata[k];
      }
      const spec: Obj = { ...(isObj(old.spec) ? old.spec : {}) };
      const written = isObj(obj.spec) ? obj.spec.ephemeralContainers : undefined;
      if (Array.isArray(written)) {
        spec.ephemeralContainers = clone(written);
        for (const c of objsAt(spec, 'ephemeralContainers')) defaultContainer(c);
      } else delete spec.ephemeralContainers;
      const next: KubeObject = { ...obj, metadata, spec };
      if (old.status === undefined) delete next.status;
      else next.status = old.status;
      return next;
    },
    validateUpdate(obj, old) {
      // Static pods don't support ephemeral containers (kubernetes#113935).
      if (old.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return [fieldErrors.forbidden('', 'static pods do not support ephemeral containers')];
      const errs = [
        ...validateObjectMetaUpdate(obj.metadata, old.metadata, 'metadata', rules.kubeFinalizers),
        ...validateObjectMeta(obj.metadata, rules),
        ...validatePodMetadataAndSpec(obj, rules.featureGates, old),
        ...annotationUpdateErrors(obj, old),
      ];
      // Existing ephemeral containers may be neither removed nor changed (a patch may reorder them).
      const written = new Map(objsAt(obj, 'spec', 'ephemeralContainers').map((c) => [strAt(c, 'name'), c]));
      for (const existing of objsAt(old, 'spec', 'ephemeralContainers')) {
        const name = strAt(existing, 'name');
        const now = written.get(name);
        if (!now) errs.push(fieldErrors.forbidden('spec.ephemeralContainers', `existing ephemeral containers ${goQuote(name)} may not be removed\n`));
        else if (!semanticEqual(existing, now)) errs.push(fieldErrors.forbidden('spec.ephemeralContainers', `existing ephemeral containers ${goQuote(name)} may not be changed\n`));
      }
      return errs;
    },
  };
}

export function podStrategy(rules: TypeRules): BuiltinStrategy {
  return buildStrategy(rules, {
    defaults: (obj) => defaultPod(obj),
    initialStatus: (obj) => initialPodStatus(obj),
    prepareForCreate: (obj, ctx) => {
      dropDisabledPodFields(obj, undefined, rules.featureGates);
      if (rules.featureGates.MatchLabelKeysInPodAffinity !== false) applyAffinityLabelKeys(obj);
      applyAppArmorVersionSkew(obj, ctx.warnings);
    },
    prepareForUpdate: (obj, old) => dropDisabledPodFields(obj, old, rules.featureGates),
    validate: (obj) => {
      const errs = validatePodMetadataAndSpec(obj, rules.featureGates);
      if (arrAt(obj, 'spec', 'ephemeralContainers').length > 0) errs.push(fieldErrors.forbidden('spec.ephemeralContainers', 'cannot be set on create'));
      if (strAt(obj, 'spec', 'nodeName') !== '' && arrAt(obj, 'spec', 'schedulingGates').length > 0) {
        errs.push(fieldErrors.forbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
      }
      // Create only (ValidatePodCreate): a pod's deprecated profile annotations may drift from its fields later.
      errs.push(...securityAnnotationFieldErrors(obj.metadata?.annotations, obj.spec, 'spec'));
      return errs;
    },
    // kube skips warnings on pod updates (a high-frequency path that humans rarely drive).
    warnings: (obj, old) => (old ? [] : [...workloadNameWarnings(obj, "the Pod's hostname"), ...podWarnings(obj)]),
    // ValidatePodUpdate re-validates metadata and spec, not the create-only rules, then what may change.
    validateUpdate: (obj, old) => [
      ...validateObjectMeta(obj.metadata, rules),
      ...validatePodMetadataAndSpec(obj, rules.featureGates, old),
      ...annotationUpdateErrors(obj, old),
      ...podSpecUpdateErrors(obj, old, rules.featureGates.InPlacePodVerticalScaling === true, describeSpecDiff),
    ],
    resetMetaForStatus(merged, old) {
      // Old kubelets corrupt owner references through status writes: kube keeps the stored ones.
      const refs = old.metadata?.ownerReferences;
      if (refs === undefined) delete merged.metadata.ownerReferences;
      else merged.metadata.ownerReferences = clone(refs);
    },
    validateStatusUpdate: (obj, old) => podStatusUpdateErrors(obj, old, annotationUpdateErrors(obj, old)),
    subresources: { ephemeralcontainers: ephemeralContainersSubresource(rules) },
    gracefulDeletePeriod,
  });
}

// ---- printing (printPod) ----

function isRestartableInit(container: Obj | undefined): boolean {
  return container?.restartPolicy === 'Always';
}

function terminatedAt(status: Obj): number {
  const t = getTime(objAt(objAt(status, 'lastState'), 'terminated')?.finishedAt);
  return t;
}

function getTime(v: unknown): number {
  if (typeof v !== 'string') return 0;
  const t = Date.parse(v);
  return Number.isNaN(t) ? 0 : t;
}

interface PodSummary {
  ready: string;
  reason: string;
  restarts: string;
}

export function summarizePod(pod: KubeObject, now: Date = clockDate()): PodSummary {
  const spec = isObj(pod.spec) ? pod.spec : {};
  const status = isObj(pod.status) ? pod.status : {};
  let restarts = 0;
  let restartableInitRestarts = 0;
  let total = objsAt(spec, 'containers').length;
  let ready = 0;
  let lastRestart = 0;
  let lastRestartableInitRestart = 0;
  const phase = strAt(status, 'phase');
  let reason = strAt(status, 'reason') || phase;
  for (const c of objsAt(status, 'conditions')) {
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }
  const initContainers = new Map<string, Obj>();
  for (const c of objsAt(spec, 'initContainers')) {
    initContainers.set(strAt(c, 'name'), c);
    if (isRestartableInit(c)) total++;
  }
  let initializing = false;
  const initStatuses = objsAt(status, 'initContainerStatuses');
  const initCount = objsAt(spec, 'initContainers').length;
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    const count = typeof cs.restartCount === 'number' ? cs.restartCount : 0;
    restarts += count;
    lastRestart = Math.max(lastRestart, terminatedAt(cs));
    const restartable = isRestartableInit(initContainers.get(strAt(cs, 'name')));
    if (restartable) {
      restartableInitRestarts += count;
      lastRestartableInitRestart = Math.max(lastRestartableInitRestart, terminatedAt(cs));
    }
    const terminated = objAt(objAt(cs, 'state'), 'terminated');
    const waiting = objAt(objAt(cs, 'state'), 'waiting');
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (restartable && cs.started === true) {
      if (cs.ready === true) ready++;
      continue;
    }
    if (terminated) {
      if (!strAt(terminated, 'reason')) {
        reason = terminated.signal ? `Init:Signal:${String(terminated.signal)}` : `Init:ExitCode:${String(terminated.exitCode ?? 0)}`;
      } else {
        reason = `Init:${strAt(terminated, 'reason')}`;
      }
    } else if (waiting && strAt(waiting, 'reason') !== '' && strAt(waiting, 'reason') !== 'PodInitializing') {
      reason = `Init:${strAt(waiting, 'reason')}`;
    } else {
      reason = `Init:${i}/${initCount}`;
    }
    initializing = true;
    break;
  }
  const initializedTrue = objsAt(status, 'conditions').some((c) => c.type === 'Initialized' && c.status === 'True');
  if (!initializing || initializedTrue) {
    restarts = restartableInitRestarts;
    lastRestart = lastRestartableInitRestart;
    let hasRunning = false;
    const statuses = objsAt(status, 'containerStatuses');
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      restarts += typeof cs.restartCount === 'number' ? cs.restartCount : 0;
      lastRestart = Math.max(lastRestart, terminatedAt(cs));
      const waiting = objAt(objAt(cs, 'state'), 'waiting');
      const terminated = objAt(objAt(cs, 'state'), 'terminated');
      const running = objAt(objAt(cs, 'state'), 'running');
      if (waiting && strAt(waiting, 'reason') !== '') reason = strAt(waiting, 'reason');
      else if (terminated && strAt(terminated, 'reason') !== '') reason = strAt(terminated, 'reason');
      else if (terminated) reason = terminated.signal ? `Signal:${String(terminated.signal)}` : `ExitCode:${String(terminated.exitCode ?? 0)}`;
      else if (cs.ready === true && running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      const podReady = objsAt(status, 'conditions').some((c) => c.type === 'Ready' && c.status === 'True');
      reason = podReady ? 'Running' : 'NotReady';
    }
  }
  if (pod.metadata?.deletionTimestamp && strAt(status, 'reason') === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata?.deletionTimestamp && phase !== 'Failed' && phase !== 'Succeeded') reason = 'Terminating';
  let restartsText = String(restarts);
  if (restarts !== 0 && lastRestart !== 0) restartsText = `${restarts} (${translateTimestampSince(new Date(lastRestart).toISOString(), now)} ago)`;
  return { ready: `${ready}/${total}`, reason, restarts: restartsText };
}

function readinessGates(pod: KubeObject): string {
  const gates = objsAt(pod, 'spec', 'readinessGates');
  if (gates.length === 0) return '<none>';
  const conditions = objsAt(pod, 'status', 'conditions');
  let trueCount = 0;
  for (const g of gates) {
    const c = conditions.find((x) => x.type === g.conditionType);
    if (c && c.status === 'True') trueCount++;
  }
  return `${trueCount}/${gates.length}`;
}

function podIP(pod: KubeObject): string {
  const ips = objsAt(pod, 'status', 'podIPs');
  const ip = ips.length > 0 ? strAt(ips[0], 'ip') : '';
  return ip === '' ? '<none>' : ip;
}

const orNone = (s: string) => (s === '' ? '<none>' : s);

export function podFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: podStrategy(rules),
    printerColumns: [
      column('Ready', 'string', 'Ready containers of all containers.', (o) => summarizePod(o).ready),
      column('Status', 'string', 'The aggregate status of the containers.', (o) => summarizePod(o).reason),
      column('Restarts', 'string', 'Container restarts, and when the last one happened.', (o) => summarizePod(o).restarts),
      ageColumn,
      column('IP', 'string', 'The first pod IP.', podIP, 1),
      column('Node', 'string', 'The node the pod runs on.', (o) => orNone(strAt(o, 'spec', 'nodeName')), 1),
      column('Nominated Node', 'string', 'The node nominated by preemption.', (o) => orNone(strAt(o, 'status', 'nominatedNodeName')), 1),
      column('Readiness Gates', 'string', 'True readiness gates of all readiness gates.', readinessGates, 1),
    ],
    selectableFields: {
      'spec.nodeName': (o) => strAt(o, 'spec', 'nodeName'),
      // Old v1 clients send spec.host.
      'spec.host': (o) => strAt(o, 'spec', 'nodeName'),
      'spec.restartPolicy': (o) => strAt(o, 'spec', 'restartPolicy'),
      'spec.schedulerName': (o) => strAt(o, 'spec', 'schedulerName'),
      'spec.serviceAccountName': (o) => strAt(o, 'spec', 'serviceAccountName'),
      'spec.hostNetwork': (o) => String(objAt(o, 'spec')?.hostNetwork === true),
      'status.phase': (o) => strAt(o, 'status', 'phase'),
      'status.podIP': (o) => {
        const ips = objsAt(o, 'status', 'podIPs');
        return ips.length > 0 ? strAt(ips[0], 'ip') : '';
      },
      // Accepted by the label conversion but not in kube's field set: always empty.
      'status.podIPs': () => '',
      'status.nominatedNodeName': (o) => strAt(o, 'status', 'nominatedNodeName'),
    },
  };
}
