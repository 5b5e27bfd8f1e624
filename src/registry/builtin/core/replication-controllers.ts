// ReplicationControllers (SetDefaults_ReplicationController, ValidateReplicationController, printReplicationController).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { validateLabels } from '../../validation/meta.ts';
import { buildStrategy } from '../generic.ts';
import { clone, ensureObj, getPath, isObj, numAt, objAt, setDefault, stringMap, strAt } from '../object.ts';
import { ageColumn, column, containerCells, formatLabels } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { REPLICA_SET_STATUS, replicaStatusErrors } from '../apps/workloads.ts';
import { SELECTOR_MISMATCH } from '../apps/template-validation.ts';
import { goStringMap } from '../../../apis/go-bad-values.ts';
import { defaultPodTemplate } from './pod-defaults.ts';
import { validatePodTemplateSpec } from './pod-validation.ts';
import { templateUpdateOptions, type PodUpdateOptions } from './pod-validation-options.ts';
import { generationChanged, podTemplateWarnings, workloadNameWarnings } from './pod-warnings.ts';

function defaultReplicationController(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  const labels = getPath(spec, 'template', 'metadata', 'labels');
  if (isObj(labels)) {
    if (!isObj(spec.selector) || Object.keys(spec.selector).length === 0) spec.selector = clone(labels);
    const meta = obj.metadata ?? (obj.metadata = {});
    if (!isObj(meta.labels) || Object.keys(meta.labels).length === 0) meta.labels = clone(labels) as Record<string, string>;
  }
  setDefault(spec, 'replicas', 1);
  if (isObj(spec.template)) defaultPodTemplate(spec.template);
}

function validateReplicationControllerSpec(obj: KubeObject, templateOptions: PodUpdateOptions = {}): FieldError[] {
  const spec = objAt(obj, 'spec') ?? {};
  const errs: FieldError[] = [];
  if (typeof spec.minReadySeconds === 'number' && spec.minReadySeconds < 0) errs.push(fieldErrors.invalid('spec.minReadySeconds', spec.minReadySeconds, 'must be greater than or equal to 0'));
  const selector = stringMap(spec.selector);
  if (Object.keys(selector).length === 0) errs.push(fieldErrors.required('spec.selector'));
  else errs.push(...validateLabels(selector, 'spec.selector'));
  if (typeof spec.replicas === 'number' && spec.replicas < 0) errs.push(fieldErrors.invalid('spec.replicas', spec.replicas, 'must be greater than or equal to 0'));
  if (!isObj(spec.template)) {
    errs.push(fieldErrors.required('spec.template'));
    return errs;
  }
  const labels = stringMap(getPath(spec.template, 'metadata', 'labels'));
  if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
    errs.push(fieldErrors.invalid('spec.template.metadata.labels', goStringMap(getPath(spec.template, 'metadata', 'labels')), SELECTOR_MISMATCH));
  }
  errs.push(...validatePodTemplateSpec(spec.template, 'spec.template', {}, templateOptions));
  const restartPolicy = strAt(spec.template, 'spec', 'restartPolicy');
  if (restartPolicy !== 'Always') errs.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  if (getPath(spec.template, 'spec', 'activeDeadlineSeconds') !== undefined) {
    errs.push(fieldErrors.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicationController is not Supported'));
  }
  return errs;
}

export function replicationControllerFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      defaults: defaultReplicationController,
      podTemplate: (obj) => objAt(obj, 'spec')?.template,
      validate: (obj) => validateReplicationControllerSpec(obj),
      validateUpdate: (obj, old) => validateReplicationControllerSpec(obj, templateUpdateOptions(objAt(old, 'spec')?.template)),
      // kube's update passes the templates in the wrong order: it warns about the old one (kubernetes#142443).
      warnings: (obj, old) =>
        old ? (generationChanged(obj, old) ? podTemplateWarnings(getPath(old, 'spec', 'template'), 'spec.template') : []) : [...workloadNameWarnings(obj), ...podTemplateWarnings(getPath(obj, 'spec', 'template'), 'spec.template')],
      // ValidateReplicationControllerStatus.
      validateStatusUpdate: (obj) => replicaStatusErrors(obj, REPLICA_SET_STATUS),
    }),
    printerColumns: [
      column('Desired', 'integer', 'Desired replicas.', (o) => numAt(o, 'spec', 'replicas')),
      column('Current', 'integer', 'Observed replicas.', (o) => numAt(o, 'status', 'replicas')),
      column('Ready', 'integer', 'Ready replicas.', (o) => numAt(o, 'status', 'readyReplicas')),
      ageColumn,
      column('Containers', 'string', 'Names of each container in the template.', (o) => containerCells(getPath(o, 'spec', 'template', 'spec')).names, 1),
      column('Images', 'string', 'Images referenced by each container in the template.', (o) => containerCells(getPath(o, 'spec', 'template', 'spec')).images, 1),
      column('Selector', 'string', 'Labels of the pods the controller manages.', (o) => formatLabels(getPath(o, 'spec', 'selector')), 1),
    ],
    selectableFields: { 'status.replicas': (o) => String(numAt(o, 'status', 'replicas')) },
  };
}
