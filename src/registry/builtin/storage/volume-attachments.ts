// VolumeAttachments (pkg/apis/storage/validation ValidateVolumeAttachment, its v1 extras and its update: the spec
// is fixed; the strategy's status reset; printVolumeAttachment).

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { isDNS1123Subdomain, inclusiveRangeError } from '../../validation/names.ts';
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

function volumeErrorErrors(e: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (strAt(e, 'message').length > MAX_ERROR_MESSAGE) errs.push(fieldErrors.tooLong(`${path}.message`, MAX_METADATA_SIZE));
  const code = getPath(e, 'errorCode');
  if (typeof code === 'number' && code < 0) errs.push(fieldErrors.invalid(`${path}.errorCode`, code, inclusiveRangeError(0, 2147483647)));
  return errs;
}

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
  // ValidateVolumeAttachmentV1: the attacher is a CSI driver name, the volume name a PersistentVolume's.
  errs.push(...csiDriverNameErrors(attacher, 'spec.attacher'));
  const pvName = getPath(spec, 'source', 'persistentVolumeName');
  if (typeof pvName === 'string') for (const m of isDNS1123Subdomain(pvName)) errs.push(fieldErrors.invalid('spec.source.persistentVolumeName', pvName, m));
  return errs;
}

export const volumeAttachmentFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    validate: validateVolumeAttachment,
    validateUpdate(obj, old) {
      const errs = validateVolumeAttachment(obj);
      if (!semanticEqual(obj.spec, old.spec)) {
        // kube prints the spec struct (pointer addresses included); its JSON stands in for it.
        errs.push(fieldErrors.invalid('spec', renderedBadValue(JSON.stringify(obj.spec ?? {})), 'field is immutable'));
      }
      return errs;
    },
    validateStatusUpdate: (obj) => validateVolumeAttachment(obj).filter((e) => e.field.startsWith('status')),
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
});
