// Deployments, ReplicaSets, StatefulSets and DaemonSets (pkg/apis/apps/v1 defaults, pkg/apis/apps/validation,
// pkg/registry/apps/*/strategy.go, their printers): defaulted replicas and update strategies, selectors that
// must match the template and may not change, generation tracking the spec.

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goInt, goIntOrString, goIntOrStringValue, goLabelSelector, goPointer, goText } from '../../../apis/go-bad-values.ts';
import { formatLabelSelector as selectorString } from '../../../apis/labels.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE, validateAnnotations, validateLabels } from '../../validation/meta.ts';
import { isInvalidSelector, validateLabelSelector } from '../../validation/label-selector.ts';
import { buildStrategy, specChanged, type TypeHooks } from '../generic.ts';
import { clone, ensureObj, getPath, isObj, numAt, objAt, objsAt, semanticEqual, setDefault, setDefaultString, type Obj } from '../object.ts';
import { ageColumn, column, containerCells, formatLabels, formatLabelSelector } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { podSpecificAnnotationErrors } from '../core/pod-annotations.ts';
import { defaultPodTemplate } from '../core/pod-defaults.ts';
import { validatePodTemplateSpec } from '../core/pod-validation.ts';
import { templateUpdateOptions, type PodUpdateOptions } from '../core/pod-validation-options.ts';
import { claimSpecWarnings, generationChanged, podTemplateWarnings, workloadNameWarnings } from '../core/pod-warnings.ts';
import {
  intOrPercentValue,
  nonnegativeAt,
  notMoreThan100PercentErrors,
  positiveIntOrPercentErrors,
  replicaSetTemplateErrors,
  requiredSelectorErrors,
  restartAlwaysErrors,
  selectorMismatch,
} from './template-validation.ts';

function spec(obj: KubeObject): Obj {
  return ensureObj(obj, 'spec');
}

function specOf(obj: KubeObject): Obj {
  return objAt(obj, 'spec') ?? {};
}

/** GetValidationOptionsFromPodTemplate of the stored object's template, for an update. */
function oldTemplateOptions(old: KubeObject): PodUpdateOptions {
  return templateUpdateOptions(specOf(old).template);
}

function defaultTemplate(s: Obj): void {
  defaultPodTemplate(ensureObj(s, 'template'));
}

function selectorImmutable(obj: KubeObject, old: KubeObject): FieldError[] {
  const n = specOf(obj).selector;
  const o = specOf(old).selector;
  return semanticEqual(n, o) ? [] : [fieldErrors.invalid('spec.selector', goLabelSelector(n), FIELD_IMMUTABLE)];
}

function templateCells(obj: KubeObject) {
  return containerCells(objAt(specOf(obj).template, 'spec'));
}

export interface StatusCounterRules {
  /** The counters that must not be negative, in the order kube checks them. */
  nonnegative: string[];
  /** The counters that may not exceed status.replicas, and kube's message for it. */
  overReplicas: string[];
  overMessage: string;
  /** kube's message when availableReplicas exceeds readyReplicas. */
  availableOverReadyMessage: string;
}

/** Validate*Status of the replicated workloads: counters non-negative and consistent with status.replicas. */
export function replicaStatusErrors(obj: KubeObject, rules: StatusCounterRules): FieldError[] {
  const status = objAt(obj, 'status') ?? {};
  const errs: FieldError[] = [];
  for (const f of rules.nonnegative) errs.push(...nonnegativeAt(status, `status.${f}`, f));
  const replicas = numAt(status, 'replicas');
  for (const f of rules.overReplicas) {
    if (numAt(status, f) > replicas) errs.push(fieldErrors.invalid(`status.${f}`, numAt(status, f), rules.overMessage));
  }
  if (numAt(status, 'availableReplicas') > numAt(status, 'readyReplicas')) {
    errs.push(fieldErrors.invalid('status.availableReplicas', numAt(status, 'availableReplicas'), rules.availableOverReadyMessage));
  }
  return errs;
}

/** IsDecremented(status.collisionCount): a controller's hash-collision count only grows. */
function collisionCountErrors(obj: KubeObject, old: KubeObject): FieldError[] {
  const n = getPath(obj, 'status', 'collisionCount');
  const o = getPath(old, 'status', 'collisionCount');
  if (typeof o !== 'number') return [];
  if (typeof n === 'number' && n >= o) return [];
  return [fieldErrors.invalid('status.collisionCount', typeof n === 'number' ? n : 0, 'cannot be decremented')];
}

const OVER_REPLICAS = 'cannot be greater than status.replicas';

// ---- Deployments ----

export function defaultDeployment(obj: KubeObject): void {
  const s = spec(obj);
  setDefault(s, 'replicas', 1);
  const strategy = ensureObj(s, 'strategy');
  setDefaultString(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = ensureObj(strategy, 'rollingUpdate');
    setDefault(ru, 'maxUnavailable', '25%');
    setDefault(ru, 'maxSurge', '25%');
  }
  setDefault(s, 'revisionHistoryLimit', 10);
  setDefault(s, 'progressDeadlineSeconds', 600);
  defaultTemplate(s);
}

const goSurgeFields = (ru: Obj): string => `MaxUnavailable:${goIntOrString(ru.maxUnavailable)}, MaxSurge:${goIntOrString(ru.maxSurge)}`;

/** An update strategy as field.Error prints it: `apps.DeploymentStrategy{Type:"x", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}`. */
function goStrategy(type: string, rollingType: string, st: Obj, rollingFields: (ru: Obj) => string): unknown {
  const rolling = goPointer(rollingType, st.rollingUpdate, (ru) => `${rollingType}{${rollingFields(isObj(ru) ? ru : {})}}`);
  return renderedBadValue(`${type}{Type:${goText(st.type)}, RollingUpdate:${rolling}}`);
}

function deploymentStrategyErrors(strategy: unknown, path: string): FieldError[] {
  const st = isObj(strategy) ? strategy : {};
  switch (st.type) {
    case 'Recreate':
      return st.rollingUpdate !== undefined && st.rollingUpdate !== null
        ? [fieldErrors.forbidden(`${path}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'")]
        : [];
    case 'RollingUpdate': {
      if (!isObj(st.rollingUpdate)) return [fieldErrors.required(`${path}.rollingUpdate`, 'this should be defaulted and never be nil')];
      const ru = st.rollingUpdate;
      const errs = [
        ...positiveIntOrPercentErrors(ru.maxUnavailable, `${path}.rollingUpdate.maxUnavailable`),
        ...positiveIntOrPercentErrors(ru.maxSurge, `${path}.rollingUpdate.maxSurge`),
      ];
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
        errs.push(fieldErrors.invalid(`${path}.rollingUpdate.maxUnavailable`, goIntOrStringValue(ru.maxUnavailable), 'may not be 0 when `maxSurge` is 0'));
      }
      errs.push(...notMoreThan100PercentErrors(ru.maxUnavailable, `${path}.rollingUpdate.maxUnavailable`));
      return errs;
    }
    default:
      return [fieldErrors.notSupported(path, goStrategy('apps.DeploymentStrategy', 'apps.RollingUpdateDeployment', st, goSurgeFields), ['Recreate', 'RollingUpdate'])];
  }
}

export function validateDeploymentSpec(obj: KubeObject, templateOptions: PodUpdateOptions = {}): FieldError[] {
  const s = specOf(obj);
  const errs = nonnegativeAt(s, 'spec.replicas', 'replicas');
  errs.push(...requiredSelectorErrors(s.selector, 'spec.selector', 'deployment'));
  errs.push(...replicaSetTemplateErrors(s.selector, s.template, 'spec.template', 'ReplicaSet', templateOptions));
  errs.push(...deploymentStrategyErrors(s.strategy, 'spec.strategy'));
  errs.push(...nonnegativeAt(s, 'spec.minReadySeconds', 'minReadySeconds'));
  errs.push(...nonnegativeAt(s, 'spec.revisionHistoryLimit', 'revisionHistoryLimit'));
  if (typeof s.progressDeadlineSeconds === 'number') {
    errs.push(...nonnegativeAt(s, 'spec.progressDeadlineSeconds', 'progressDeadlineSeconds'));
    if (s.progressDeadlineSeconds <= numAt(s, 'minReadySeconds')) {
      errs.push(fieldErrors.invalid('spec.progressDeadlineSeconds', s.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
    }
  }
  return errs;
}

/**
 * WarningsOnCreate and WarningsOnUpdate of the types with a spec.template: the name (Deployments and ReplicaSets,
 * on create) and the template (on create, and on an update that changed the generation).
 */
function templateWarnings(obj: KubeObject, old: KubeObject | undefined, nameGoesIntoPods: boolean): string[] {
  if (old) return generationChanged(obj, old) ? podTemplateWarnings(specOf(obj).template, 'spec.template') : [];
  return [...(nameGoesIntoPods ? workloadNameWarnings(obj) : []), ...podTemplateWarnings(specOf(obj).template, 'spec.template')];
}

/** A StatefulSet's: its template's, its claim templates' (kube's update names them `[i].Spec`) and revisionHistoryLimit's. */
function statefulSetWarnings(obj: KubeObject, old: KubeObject | undefined): string[] {
  const s = specOf(obj);
  const out = templateWarnings(obj, old, false);
  objsAt(s, 'volumeClaimTemplates').forEach((claim, i) => out.push(...claimSpecWarnings(`spec.volumeClaimTemplates[${i}]${old ? '.Spec' : ''}`, claim.spec)));
  if (typeof s.revisionHistoryLimit === 'number' && s.revisionHistoryLimit < 0) {
    out.push('spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended');
  }
  return out;
}

function deploymentHooks(): TypeHooks {
  return {
    defaults: defaultDeployment,
    podTemplate: (obj) => specOf(obj).template,
    validate: (obj) => validateDeploymentSpec(obj),
    warnings: (obj, old) => templateWarnings(obj, old, true),
    // Annotations are copied to replica sets: their changes count like spec changes.
    generationChanged: (obj, old) => specChanged(obj, old) || !semanticEqual(obj.metadata?.annotations, old.metadata?.annotations),
    validateUpdate: (obj, old) => [...validateDeploymentSpec(obj, oldTemplateOptions(old)), ...selectorImmutable(obj, old)],
    validateStatusUpdate: (obj, old) => [
      ...replicaStatusErrors(obj, {
        nonnegative: ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'collisionCount'],
        overReplicas: ['updatedReplicas', 'readyReplicas', 'availableReplicas'],
        overMessage: OVER_REPLICAS,
        availableOverReadyMessage: 'cannot be greater than readyReplicas',
      }),
      ...collisionCountErrors(obj, old),
    ],
    resetMetaForStatus(merged, old) {
      if (old.metadata?.labels === undefined) delete merged.metadata.labels;
      else merged.metadata.labels = clone(old.metadata.labels);
    },
  };
}

function deploymentSelectorCell(obj: KubeObject): string {
  const sel = specOf(obj).selector;
  if (isInvalidSelector(sel)) return '<invalid>';
  return selectorString(sel);
}

export function deploymentFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, deploymentHooks()),
    printerColumns: [
      column('Ready', 'string', 'Ready replicas of desired replicas.', (o) => `${numAt(o, 'status', 'readyReplicas')}/${numAt(o, 'spec', 'replicas')}`),
      column('Up-to-date', 'string', 'Replicas running the current template.', (o) => numAt(o, 'status', 'updatedReplicas')),
      column('Available', 'string', 'Replicas available to serve.', (o) => numAt(o, 'status', 'availableReplicas')),
      ageColumn,
      column('Containers', 'string', 'Names of each container in the template.', (o) => templateCells(o).names, 1),
      column('Images', 'string', 'Images referenced by each container in the template.', (o) => templateCells(o).images, 1),
      column('Selector', 'string', 'Labels of the pods the deployment manages.', deploymentSelectorCell, 1),
    ],
    selectableFields: {},
  };
}

// ---- ReplicaSets ----

/** ValidateReplicaSetStatus, and core's ValidateReplicationControllerStatus word for word. */
export const REPLICA_SET_STATUS: StatusCounterRules = {
  nonnegative: ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
  overReplicas: ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'],
  overMessage: OVER_REPLICAS,
  availableOverReadyMessage: 'cannot be greater than readyReplicas',
};

export function validateReplicaSetSpec(obj: KubeObject, templateOptions: PodUpdateOptions = {}): FieldError[] {
  const s = specOf(obj);
  const errs = nonnegativeAt(s, 'spec.replicas', 'replicas');
  errs.push(...nonnegativeAt(s, 'spec.minReadySeconds', 'minReadySeconds'));
  // kube's message says "deployment" here too.
  errs.push(...requiredSelectorErrors(s.selector, 'spec.selector', 'deployment'));
  errs.push(...replicaSetTemplateErrors(s.selector, s.template, 'spec.template', 'ReplicaSet', templateOptions));
  return errs;
}

export function replicaSetFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      podTemplate: (obj) => specOf(obj).template,
      defaults(obj) {
        const s = spec(obj);
        setDefault(s, 'replicas', 1);
        defaultTemplate(s);
      },
      validate: (obj) => validateReplicaSetSpec(obj),
      validateUpdate: (obj, old) => [...validateReplicaSetSpec(obj, oldTemplateOptions(old)), ...selectorImmutable(obj, old)],
      warnings: (obj, old) => templateWarnings(obj, old, true),
      validateStatusUpdate: (obj) => replicaStatusErrors(obj, REPLICA_SET_STATUS),
    }),
    printerColumns: [
      column('Desired', 'integer', 'Desired replicas.', (o) => numAt(o, 'spec', 'replicas')),
      column('Current', 'integer', 'Observed replicas.', (o) => numAt(o, 'status', 'replicas')),
      column('Ready', 'integer', 'Ready replicas.', (o) => numAt(o, 'status', 'readyReplicas')),
      ageColumn,
      column('Containers', 'string', 'Names of each container in the template.', (o) => templateCells(o).names, 1),
      column('Images', 'string', 'Images referenced by each container in the template.', (o) => templateCells(o).images, 1),
      column('Selector', 'string', 'Labels of the pods the replica set manages.', (o) => formatLabelSelector(specOf(o).selector), 1),
    ],
    selectableFields: { 'status.replicas': (o) => String(numAt(o, 'status', 'replicas')) },
  };
}

// ---- StatefulSets ----

function defaultClaimTemplate(pvc: Obj): void {
  setDefaultString(ensureObj(pvc, 'spec'), 'volumeMode', 'Filesystem');
  setDefaultString(ensureObj(pvc, 'status'), 'phase', 'Pending');
}

export function defaultStatefulSet(obj: KubeObject, gates: Readonly<Record<string, boolean>> = {}): void {
  const s = spec(obj);
  setDefaultString(s, 'podManagementPolicy', 'OrderedReady');
  const us = ensureObj(s, 'updateStrategy');
  if (!us.type) {
    us.type = 'RollingUpdate';
    if (!isObj(us.rollingUpdate)) us.rollingUpdate = {};
  }
  if (us.type === 'RollingUpdate' && isObj(us.rollingUpdate)) {
    setDefault(us.rollingUpdate, 'partition', 0);
    if (gates.MaxUnavailableStatefulSet === true) setDefault(us.rollingUpdate, 'maxUnavailable', 1);
  }
  const retention = ensureObj(s, 'persistentVolumeClaimRetentionPolicy');
  setDefaultString(retention, 'whenDeleted', 'Retain');
  setDefaultString(retention, 'whenScaled', 'Retain');
  setDefault(s, 'replicas', 1);
  setDefault(s, 'revisionHistoryLimit', 10);
  defaultTemplate(s);
  for (const pvc of objsAt(s, 'volumeClaimTemplates')) defaultClaimTemplate(pvc);
}

function goStatefulSetRollingFields(ru: unknown): string {
  const o = isObj(ru) ? ru : {};
  return `Partition:${goInt(o.partition)}, MaxUnavailable:${goPointer('intstr.IntOrString', o.maxUnavailable, goIntOrString)}`;
}

/** validateRollingUpdateStatefulSet (maxUnavailable: only with MaxUnavailableStatefulSet, or kept from before). */
function statefulSetRollingUpdateErrors(ru: Obj, path: string): FieldError[] {
  const errs = nonnegativeAt(ru, `${path}.partition`, 'partition');
  const mu = ru.maxUnavailable;
  if (mu !== undefined && mu !== null) {
    errs.push(...positiveIntOrPercentErrors(mu, `${path}.maxUnavailable`));
    if (intOrPercentValue(mu) === 0) errs.push(fieldErrors.invalid(`${path}.maxUnavailable`, goIntOrStringValue(mu), 'cannot be 0'));
    errs.push(...notMoreThan100PercentErrors(mu, `${path}.maxUnavailable`));
  }
  return errs;
}

export function validateStatefulSetSpec(obj: KubeObject, templateOptions: PodUpdateOptions = {}): FieldError[] {
  const s = specOf(obj);
  const errs: FieldError[] = [];
  const pmp = s.podManagementPolicy;
  if (pmp === undefined || pmp === null || pmp === '') errs.push(fieldErrors.required('spec.podManagementPolicy'));
  else if (pmp !== 'OrderedReady' && pmp !== 'Parallel') errs.push(fieldErrors.invalid('spec.podManagementPolicy', pmp, "must be 'OrderedReady' or 'Parallel'"));
  const us = isObj(s.updateStrategy) ? s.updateStrategy : {};
  switch (us.type) {
    case undefined:
    case null:
    case '':
      errs.push(fieldErrors.required('spec.updateStrategy'));
      break;
    case 'OnDelete':
      if (us.rollingUpdate !== undefined && us.rollingUpdate !== null) {
        errs.push(fieldErrors.invalid('spec.updateStrategy.rollingUpdate', renderedBadValue(`apps.RollingUpdateStatefulSetStrategy{${goStatefulSetRollingFields(us.rollingUpdate)}}`), "only allowed for updateStrategy 'RollingUpdate'"));
      }
      break;
    case 'RollingUpdate':
      if (isObj(us.rollingUpdate)) errs.push(...statefulSetRollingUpdateErrors(us.rollingUpdate, 'spec.updateStrategy.rollingUpdate'));
      break;
    default:
      errs.push(fieldErrors.invalid('spec.updateStrategy', goStrategy('apps.StatefulSetUpdateStrategy', 'apps.RollingUpdateStatefulSetStrategy', us, goStatefulSetRollingFields), "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = objAt(s, 'persistentVolumeClaimRetentionPolicy');
  if (retention) {
    for (const f of ['whenDeleted', 'whenScaled']) {
      const v = retention[f];
      if (v !== 'Retain' && v !== 'Delete') errs.push(fieldErrors.notSupported(`spec.persistentVolumeClaimRetentionPolicy.${f}`, v ?? '', ['Retain', 'Delete']));
    }
  }
  errs.push(...nonnegativeAt(s, 'spec.replicas', 'replicas'));
  errs.push(...nonnegativeAt(s, 'spec.minReadySeconds', 'minReadySeconds'));
  errs.push(...nonnegativeAt(s, 'spec.ordinals.start', 'ordinals', 'start'));
  errs.push(...requiredSelectorErrors(s.selector, 'spec.selector', 'statefulset'));
  if (isInvalidSelector(s.selector)) errs.push(fieldErrors.invalid('spec.selector', goLabelSelector(s.selector), ''));
  else {
    errs.push(...selectorMismatch(s.selector, s.template, 'spec.template'));
    // ValidatePodTemplateSpecForStatefulSet: the template's labels and annotations only. kube leaves its pod spec
    // unchecked, as its volume mounts may name the volumeClaimTemplates (the pods the controller makes are checked).
    const meta = objAt(objAt(s, 'template'), 'metadata') ?? {};
    errs.push(...validateLabels(meta.labels, 'spec.template.labels'), ...validateAnnotations(meta.annotations, 'spec.template.annotations'));
    errs.push(...podSpecificAnnotationErrors(meta.annotations, objAt(objAt(s, 'template'), 'spec'), 'spec.template.annotations', templateOptions.allowInvalidPodDeletionCost));
  }
  errs.push(...restartAlwaysErrors(s.template, 'spec.template', 'StatefulSet'));
  return errs;
}

function dropStatefulSetMaxUnavailable(obj: KubeObject, old: KubeObject | undefined, gates: Readonly<Record<string, boolean>>): void {
  if (gates.MaxUnavailableStatefulSet === true) return;
  const inUse = (o: KubeObject | undefined) => getPath(o, 'spec', 'updateStrategy', 'rollingUpdate', 'maxUnavailable') != null;
  const ru = objAt(objAt(specOf(obj), 'updateStrategy'), 'rollingUpdate');
  if (ru && !inUse(old)) delete ru.maxUnavailable;
}

const STS_MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds', 'revisionHistoryLimit'];

function validateStatefulSetUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateStatefulSetSpec(obj, oldTemplateOptions(old));
  const n = clone(specOf(obj));
  const o = specOf(old);
  for (const k of STS_MUTABLE) {
    if (o[k] === undefined) delete n[k];
    else n[k] = clone(o[k]);
  }
  if (!semanticEqual(n, o)) {
    errs.push(
      fieldErrors.forbidden(
        'spec',
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  }
  return errs;
}

export function statefulSetFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      defaults: (obj) => defaultStatefulSet(obj, rules.featureGates),
      // dropStatefulSetDisabledFields: maxUnavailable needs MaxUnavailableStatefulSet unless the stored object has it.
      prepareForCreate: (obj) => dropStatefulSetMaxUnavailable(obj, undefined, rules.featureGates),
      prepareForUpdate: (obj, old) => dropStatefulSetMaxUnavailable(obj, old, rules.featureGates),
      podTemplate: (obj) => specOf(obj).template,
      validate: (obj) => validateStatefulSetSpec(obj),
      validateUpdate: (obj, old) => validateStatefulSetUpdate(obj, old),
      validateStatusUpdate: (obj, old) => [
        ...replicaStatusErrors(obj, {
          nonnegative: ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount'],
          overReplicas: ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'],
          overMessage: OVER_REPLICAS,
          availableOverReadyMessage: 'cannot be greater than status.readyReplicas',
        }),
        ...collisionCountErrors(obj, old),
      ],
      warnings: statefulSetWarnings,
    }),
    printerColumns: [
      column('Ready', 'string', 'Ready replicas of desired replicas.', (o) => `${numAt(o, 'status', 'readyReplicas')}/${numAt(o, 'spec', 'replicas')}`),
      ageColumn,
      column('Containers', 'string', 'Names of each container in the template.', (o) => templateCells(o).names, 1),
      column('Images', 'string', 'Images referenced by each container in the template.', (o) => templateCells(o).images, 1),
    ],
    selectableFields: {},
  };
}

// ---- DaemonSets ----

export function defaultDaemonSet(obj: KubeObject): void {
  const s = spec(obj);
  const us = ensureObj(s, 'updateStrategy');
  setDefaultString(us, 'type', 'RollingUpdate');
  if (us.type === 'RollingUpdate') {
    const ru = ensureObj(us, 'rollingUpdate');
    setDefault(ru, 'maxUnavailable', 1);
    setDefault(ru, 'maxSurge', 0);
  }
  setDefault(s, 'revisionHistoryLimit', 10);
  defaultTemplate(s);
}

function daemonSetUpdateStrategyErrors(strategy: unknown): FieldError[] {
  const st = isObj(strategy) ? strategy : {};
  const path = 'spec.updateStrategy';
  switch (st.type) {
    case 'OnDelete':
      return [];
    case 'RollingUpdate': {
      if (!isObj(st.rollingUpdate)) return [fieldErrors.required(`${path}.rollingUpdate`)];
      const ru = st.rollingUpdate;
      const errs = [
        ...positiveIntOrPercentErrors(ru.maxUnavailable, `${path}.rollingUpdate.maxUnavailable`),
        ...positiveIntOrPercentErrors(ru.maxSurge, `${path}.rollingUpdate.maxSurge`),
      ];
      errs.push(...notMoreThan100PercentErrors(ru.maxUnavailable, `${path}.rollingUpdate.maxUnavailable`));
      errs.push(...notMoreThan100PercentErrors(ru.maxSurge, `${path}.rollingUpdate.maxSurge`));
      const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
      const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
      if (hasUnavailable && hasSurge) errs.push(fieldErrors.invalid(`${path}.rollingUpdate.maxSurge`, goIntOrStringValue(ru.maxSurge), 'may not be set when maxUnavailable is non-zero'));
      if (!hasUnavailable && !hasSurge) errs.push(fieldErrors.required(`${path}.rollingUpdate.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
      return errs;
    }
    default:
      return [fieldErrors.notSupported(path, goStrategy('apps.DaemonSetUpdateStrategy', 'apps.RollingUpdateDaemonSet', st, goSurgeFields), ['RollingUpdate', 'OnDelete'])];
  }
}

export function validateDaemonSetSpec(obj: KubeObject, templateOptions: PodUpdateOptions = {}): FieldError[] {
  const s = specOf(obj);
  const errs = validateLabelSelector(s.selector, 'spec.selector');
  if (!isInvalidSelector(s.selector)) errs.push(...selectorMismatch(s.selector ?? null, s.template, 'spec.template'));
  if (isObj(s.selector) && Object.keys(objAt(s.selector, 'matchLabels') ?? {}).length + objsAt(s.selector, 'matchExpressions').length === 0) {
    errs.push(fieldErrors.invalid('spec.selector', goLabelSelector(s.selector), 'empty selector is invalid for daemonset'));
  }
  errs.push(...validatePodTemplateSpec(s.template, 'spec.template', {}, templateOptions));
  errs.push(...restartAlwaysErrors(s.template, 'spec.template', 'DaemonSet', true));
  errs.push(...nonnegativeAt(s, 'spec.minReadySeconds', 'minReadySeconds'));
  errs.push(...nonnegativeAt(s, 'spec.templateGeneration', 'templateGeneration'));
  errs.push(...daemonSetUpdateStrategyErrors(s.updateStrategy));
  errs.push(...nonnegativeAt(s, 'spec.revisionHistoryLimit', 'revisionHistoryLimit'));
  return errs;
}

const DAEMON_SET_COUNTERS = [
  'currentNumberScheduled',
  'numberMisscheduled',
  'desiredNumberScheduled',
  'numberReady',
  'observedGeneration',
  'updatedNumberScheduled',
  'numberAvailable',
  'numberUnavailable',
  'collisionCount',
];

/** apps/v1 carries the internal spec.templateGeneration in this annotation, always written. */
const TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

function templateGenerationOf(obj: KubeObject): number {
  const v = Number(getPath(obj, 'metadata', 'annotations', TEMPLATE_GENERATION));
  return Number.isSafeInteger(v) ? v : 0;
}

function setTemplateGeneration(obj: KubeObject, generation: number): void {
  const meta = ensureObj(obj, 'metadata');
  meta.annotations = { ...(isObj(meta.annotations) ? meta.annotations : {}), [TEMPLATE_GENERATION]: String(generation) };
}

export function daemonSetFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      // The template generation starts at 1 and counts template changes; clients cannot set it on update.
      prepareForCreate: (obj) => setTemplateGeneration(obj, Math.max(1, templateGenerationOf(obj))),
      prepareForUpdate: (obj, old) => setTemplateGeneration(obj, templateGenerationOf(old) + (semanticEqual(specOf(obj).template, specOf(old).template) ? 0 : 1)),
      defaults: defaultDaemonSet,
      podTemplate: (obj) => specOf(obj).template,
      validate: (obj) => validateDaemonSetSpec(obj),
      validateUpdate: (obj, old) => [...validateDaemonSetSpec(obj, oldTemplateOptions(old)), ...selectorImmutable(obj, old)],
      // validateDaemonSetStatus.
      validateStatusUpdate: (obj, old) => [
        ...DAEMON_SET_COUNTERS.flatMap((f) => nonnegativeAt(obj, `status.${f}`, 'status', f)),
        ...collisionCountErrors(obj, old),
      ],
      warnings: (obj, old) => templateWarnings(obj, old, false),
    }),
    printerColumns: [
      column('Desired', 'integer', 'Nodes that should run the daemon pod.', (o) => numAt(o, 'status', 'desiredNumberScheduled')),
      column('Current', 'integer', 'Nodes running the daemon pod.', (o) => numAt(o, 'status', 'currentNumberScheduled')),
      column('Ready', 'integer', 'Nodes with a ready daemon pod.', (o) => numAt(o, 'status', 'numberReady')),
      column('Up-to-date', 'integer', 'Nodes running the current template.', (o) => numAt(o, 'status', 'updatedNumberScheduled')),
      column('Available', 'integer', 'Nodes with an available daemon pod.', (o) => numAt(o, 'status', 'numberAvailable')),
      column('Node Selector', 'string', 'Labels a node needs to run the daemon pod.', (o) => formatLabels(objAt(specOf(o).template, 'spec')?.nodeSelector)),
      ageColumn,
      column('Containers', 'string', 'Names of each container in the template.', (o) => templateCells(o).names, 1),
      column('Images', 'string', 'Images referenced by each container in the template.', (o) => templateCells(o).images, 1),
      column('Selector', 'string', 'Labels of the pods the daemon set manages.', (o) => formatLabelSelector(specOf(o).selector), 1),
    ],
    selectableFields: {},
  };
}

// ---- ControllerRevisions (printing only) ----
