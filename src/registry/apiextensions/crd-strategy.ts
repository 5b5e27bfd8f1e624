// The CustomResourceDefinition type (apiextensions-apiserver pkg/registry/customresourcedefinition): v1
// defaulting, create/update preparation (status reset, generation, storedVersions), validation, the status
// subresource, and deletion that first adds the instance-cleanup finalizer and the Terminating condition.

import { clockDate } from '../../apis/clock.ts';
import { rfc3339 } from '../store-codec.ts';
import type { TypeFacts } from '../builtin/facts.ts';
import { carrySystemMeta, metaOf } from '../builtin/generic.ts';
import type { KubeObject, Strategy } from '../types.ts';
import { validateCrd, validateCrdStatusUpdate, validateCrdUpdate } from './crd-validation.ts';
import { CLEANUP_FINALIZER, type CrdCondition, type CrdStatus, type CustomResourceDefinition } from './crd-types.ts';
import { jsonEqual } from '../store-codec.ts';
import { genericStatusStrategy } from '../store-subresources.ts';
import { cloneJson } from '../../apis/json-clone.ts';

const asCrd = (obj: KubeObject) => obj as CustomResourceDefinition;

/** SetDefaults_CustomResourceDefinition (v1). */
function defaultCrd(crd: CustomResourceDefinition): void {
  if (!crd.spec || typeof crd.spec !== 'object') return;
  const names = (crd.spec.names ??= {});
  if (!names.singular && names.kind) names.singular = names.kind.toLowerCase();
  if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  crd.spec.conversion ??= { strategy: 'None' };
  const service = crd.spec.conversion.webhook?.clientConfig?.service;
  if (service && service.port === undefined) service.port = 443;
}

/** The storage version joins status.storedVersions on every write that names it. */
function recordStoredVersion(crd: CustomResourceDefinition): void {
  const versions = crd.spec?.versions;
  const storage = Array.isArray(versions) ? versions.find((v) => v?.storage)?.name : undefined;
  if (!storage) return;
  const status = (crd.status ??= emptyStatus());
  const stored = (status.storedVersions ??= []);
  if (!stored.includes(storage)) stored.push(storage);
}

/** A new CRD's status as kube stores it: v1's conditions and acceptedNames have no omitempty. */
function emptyStatus(): CrdStatus {
  return { conditions: null, acceptedNames: { plural: '', kind: '' } };
}

/** SetCRDCondition: replace the condition of that type, keeping lastTransitionTime when the status is unchanged. */
export function setCrdCondition(crd: CustomResourceDefinition, condition: CrdCondition, now: Date = clockDate()): void {
  const status = (crd.status ??= emptyStatus());
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === condition.type);
  const next = { ...condition, lastTransitionTime: condition.lastTransitionTime ?? rfc3339(now) };
  if (i < 0) {
    conditions.push(next);
    return;
  }
  if (conditions[i].status === condition.status && conditions[i].lastTransitionTime) next.lastTransitionTime = conditions[i].lastTransitionTime;
  conditions[i] = next;
}

export const crdStrategy: Strategy = {
  defaults: (obj) => defaultCrd(asCrd(obj)),
  prepareForCreate(obj) {
    const crd = asCrd(obj);
    crd.status = emptyStatus();
    metaOf(crd).generation = 1;
    recordStoredVersion(crd);
  },
  prepareForUpdate(obj, old) {
    const crd = asCrd(obj);
    carrySystemMeta(crd, old);
    if (old.status === undefined) delete crd.status;
    else crd.status = cloneJson(old.status) as CrdStatus;
    if (!jsonEqual(crd.spec, old.spec)) metaOf(crd).generation = (old.metadata?.generation ?? 0) + 1;
    recordStoredVersion(crd);
  },
  validate: (obj) => validateCrd(asCrd(obj)),
  validateUpdate: (obj, old) => validateCrdUpdate(asCrd(obj), asCrd(old)),
  subresources: {
    status: {
      prepareForUpdate: genericStatusStrategy.prepareForUpdate,
      validateUpdate: (obj, old) => validateCrdStatusUpdate(asCrd(obj), asCrd(old)),
    },
  },
  // kube refuses a CRD update (and a status update) that names no resourceVersion
  allowUnconditionalUpdate: false,
  deleteFinalizers: [CLEANUP_FINALIZER],
  prepareForDelete(obj) {
    const crd = asCrd(obj);
    if (crd.status?.conditions?.some((c) => c.type === 'Terminating' && c.status === 'True')) return;
    setCrdCondition(crd, {
      type: 'Terminating',
      status: 'True',
      reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
  },
};

export function crdFacts(): TypeFacts {
  return { strategy: crdStrategy, printerColumns: [], selectableFields: {} };
}
