// VolumeAttachments (pkg/apis/storage/validation ValidateVolumeAttachment, its v1 extras on create and its update:
// the spec is fixed; the strategy's status reset, and a status write that keeps the spec and the metadata
// ResetObjectMetaForStatus keeps; printVolumeAttachment).

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goPointer, goText } from '../../../apis/go-bad-values.ts';
import { goQuote } from '../../../encoding/go-format.ts';
import type { KubeObject } from '../../types.ts';
import { validateObjectMeta } from '../../validation/meta.ts';
import { isDNS1123Subdomain } from '../../validation/names.ts';
import { accessModeErrors } from '../core/volume-validation.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { arrAt, getPath, isObj, objAt, semanticEqual, strAt } from '../object.ts';
import { ageColumn, column, ownNameColumn } from '../printing.ts';
import { csiDriverNameErrors } from './csi-nodes.ts';

const MAX_METADATA_SIZE = 256 * 1024;
const MAX_ERROR_MESSAGE = 1024;

function sourceErrors(spec: Record<string, unknown>): FieldError[] {
  const source = objAt(spec, 'source') ?? {};
  const pvName = source.persistentVolumeName;
  const inline = objAt(source, 'inlineVolumeSpec');
  const hasName = typeof pvName === 'string';
  if (!inline && !hasName) return [fieldErrors.required('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName')];
  if (inline && hasName) return [fieldErrors.forbidden('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName')];
  if (hasName || !inline) return pvName === '' ? [fieldErrors.required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName')] : [];
  // ValidatePersistentVolumeSpec in its inline form: a CSI source, no capacity, claim or reclaim policy.
  const p = 'spec.source.inlineVolumeSpec';
  const errs: FieldError[] = [];
  if (inline.claimRef !== undefined) errs.push(fieldErrors.forbidden(`${p}.claimRef`, 'may not be specified in the context of inline volumes'));
  if (isObj(inline.capacity) && Object.keys(inline.capacity).length > 0) errs.push(fieldErrors.forbidden(`${p}.capacity`, 'may not be specified in the context of inline volumes'));
  if (!isObj(inline.csi)) errs.push(fieldErrors.required(`${p}.csi`, 'has to be specified in the context of inline volumes'));
  if (arrAt(inline, 'accessModes').length === 0) errs.push(fieldErrors.required(`${p}.accessModes`));
  errs.push(...accessModeErrors(arrAt(inline, 'accessModes'), `${p}.accessModes`));
  if (strAt(inline, 'persistentVolumeReclaimPolicy') !== '') errs.push(fieldErrors.forbidden(`${p}.persistentVolumeReclaimPolicy`, 'may not be specified in the context of inline volumes'));
  return errs;
}

/** validateVolumeError (1.31's VolumeError has no errorCode); kube reports the metadata limit as the maximum. */
function volumeErrorErrors(e: unknown, path: string): FieldError[] {
  return strAt(e, 'message').length > MAX_ERROR_MESSAGE ? [fieldErrors.tooLong(`${path}.message`, MAX_METADATA_SIZE)] : [];
}

/** ValidateVolumeAttachment: the checks of every write, the status's included. */
function validateVolumeAttachment(obj: KubeObject): FieldError[] {
  const spec = objAt(obj, 'spec') ?? {};
  const attacher = strAt(spec, 'attacher');
  const errs: FieldError[] = [];
  if (attacher === '') errs.push(fieldErrors.required('spec.attacher'));
  errs.push(...sourceErrors(spec));
  const nodeName = strAt(spec, 'nodeName');
  for (const m of isDNS1123Subdomain(nodeName)) errs.push(fieldErrors.invalid('spec.nodeName', nodeName, m));
  const status = objAt(obj, 'status') ?? {};
  let size = 0;
  for (const [k, v] of Object.entries(objAt(status, 'attachmentMetadata') ?? {})) size += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  if (size > MAX_METADATA_SIZE) errs.push(fieldErrors.tooLong('status.attachmentMetadata', MAX_METADATA_SIZE));
  errs.push(...volumeErrorErrors(status.attachError, 'status.attachError'), ...volumeErrorErrors(status.detachError, 'status.detachError'));
  return errs;
}

/** ValidateVolumeAttachmentV1, which only a create gets: the attacher is a CSI driver name, the volume name a PersistentVolume's. */
function validateNewV1Attachment(obj: KubeObject): FieldError[] {
  const spec = objAt(obj, 'spec') ?? {};
  const errs = csiDriverNameErrors(strAt(spec, 'attacher'), 'spec.attacher');
  const pvName = getPath(spec, 'source', 'persistentVolumeName');
  if (typeof pvName === 'string') for (const m of isDNS1123Subdomain(pvName)) errs.push(fieldErrors.invalid('spec.source.persistentVolumeName', pvName, m));
  return errs;
}

/**
 * Go's %#v of a storage.VolumeAttachmentSpec (pointers shown by their pointee). An inline volume spec is not
 * rendered as Go would: its JSON stands in for the core.PersistentVolumeSpec struct.
 */
function goVolumeAttachmentSpec(spec: unknown): unknown {
  const source = getPath(spec, 'source');
  const pvName = goPointer('string', getPath(source, 'persistentVolumeName'), (v) => goQuote(String(v)));
  const inline = goPointer('core.PersistentVolumeSpec', getPath(source, 'inlineVolumeSpec'), (v) => JSON.stringify(v));
  return renderedBadValue(
    `storage.VolumeAttachmentSpec{Attacher:${goText(getPath(spec, 'attacher'))}, ` +
      `Source:storage.VolumeAttachmentSource{PersistentVolumeName:${pvName}, InlineVolumeSpec:${inline}}, NodeName:${goText(getPath(spec, 'nodeName'))}}`,
  );
}

const specImmutable = (obj: KubeObject, old: KubeObject): FieldError[] =>
  semanticEqual(obj.spec, old.spec) ? [] : [fieldErrors.invalid('spec', goVolumeAttachmentSpec(obj.spec), 'field is immutable')];

/** What metav1.ResetObjectMetaForStatus takes from the stored object besides the system fields. */
const KEPT_BY_STATUS_WRITES = ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const;

function resetObjectMetaForStatus(merged: KubeObject, old: KubeObject): void {
  for (const k of KEPT_BY_STATUS_WRITES) {
    if (old.metadata?.[k] === undefined) delete merged.metadata[k];
    else merged.metadata[k] = structuredClone(old.metadata[k]) as never;
  }
}

export const volumeAttachmentFacts: FactsMaker = (rules) => {
  // ValidateVolumeAttachment with its ObjectMeta checks, as the update rules run it.
  const validateWhole = (obj: KubeObject): FieldError[] => [...validateObjectMeta(obj.metadata, rules), ...validateVolumeAttachment(obj)];
  // The strategy's ValidateUpdate, which the status strategy inherits: ValidateVolumeAttachment, then
  // ValidateVolumeAttachmentUpdate (ValidateVolumeAttachment again and a fixed spec; no ObjectMeta update rules).
  const validateUpdate = (obj: KubeObject, old: KubeObject): FieldError[] => [...validateWhole(obj), ...validateWhole(obj), ...specImmutable(obj, old)];
  return {
    strategy: buildStrategy(rules, {
      validate: (obj) => [...validateVolumeAttachment(obj), ...validateNewV1Attachment(obj)],
      placesMetaUpdate: true,
      validateUpdate: (obj, old) => validateUpdate(obj, old),
      resetMetaForStatus: resetObjectMetaForStatus,
      validateStatusUpdate: (obj, old) => validateUpdate(obj, old),
    }),
    printerColumns: [
      ownNameColumn,
      column('Attacher', 'string', 'The attaching driver.', (o) => strAt(o, 'spec', 'attacher'), 0, 'name'),
      column('PV', 'string', 'The persistent volume.', (o) => strAt(o, 'spec', 'source', 'persistentVolumeName')),
      column('Node', 'string', 'The node.', (o) => strAt(o, 'spec', 'nodeName')),
      column('Attached', 'boolean', 'Whether the volume is attached.', (o) => getPath(o, 'status', 'attached') === true),
      ageColumn,
    ],
    selectableFields: {},
  };
};
