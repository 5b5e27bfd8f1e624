// PersistentVolumes and PersistentVolumeClaims (defaults, validation, printers).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { buildStrategy } from '../generic.ts';
import { arrAt, ensureObj, getPath, objAt, setDefaultString, strAt } from '../object.ts';
import { ageColumn, column, quantityCell } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';

/** helper.GetAccessModesAsString. */
export function accessModesString(modes: unknown[]): string {
  const set = new Set(modes.map(String));
  const out: string[] = [];
  if (set.has('ReadWriteOnce')) out.push('RWO');
  if (set.has('ReadOnlyMany')) out.push('ROX');
  if (set.has('ReadWriteMany')) out.push('RWX');
  if (set.has('ReadWriteOncePod')) out.push('RWOP');
  return out.join(',');
}

function storageClassOf(obj: KubeObject): string {
  const annotation = obj.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'];
  return annotation !== undefined ? annotation : strAt(obj, 'spec', 'storageClassName');
}

function terminatingPhase(obj: KubeObject): string {
  return obj.metadata?.deletionTimestamp ? 'Terminating' : strAt(obj, 'status', 'phase');
}

function unsetOr(v: unknown): string {
  return typeof v === 'string' ? v : '<unset>';
}

export function persistentVolumeFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      defaults(obj) {
        const spec = ensureObj(obj, 'spec');
        setDefaultString(spec, 'persistentVolumeReclaimPolicy', 'Retain');
        setDefaultString(spec, 'volumeMode', 'Filesystem');
        setDefaultString(ensureObj(obj, 'status'), 'phase', 'Pending');
      },
      initialStatus: () => ({ phase: 'Pending' }),
    }),
    printerColumns: [
      column('Capacity', 'string', 'Storage capacity.', (o) => quantityCell(getPath(o, 'spec', 'capacity', 'storage'))),
      column('Access Modes', 'string', 'How the volume can be mounted.', (o) => accessModesString(arrAt(o, 'spec', 'accessModes'))),
      column('Reclaim Policy', 'string', 'What happens to the volume when released.', (o) => strAt(o, 'spec', 'persistentVolumeReclaimPolicy')),
      column('Status', 'string', 'The phase of the volume.', terminatingPhase),
      column('Claim', 'string', 'The claim bound to the volume.', (o) => {
        const ref = objAt(objAt(o, 'spec'), 'claimRef');
        return ref ? `${strAt(ref, 'namespace')}/${strAt(ref, 'name')}` : '';
      }),
      column('StorageClass', 'string', 'The storage class of the volume.', storageClassOf),
      column('VolumeAttributesClass', 'string', 'The volume attributes class.', (o) => unsetOr(getPath(o, 'spec', 'volumeAttributesClassName'))),
      column('Reason', 'string', 'Why the volume is in its phase.', (o) => strAt(o, 'status', 'reason')),
      ageColumn,
      column('VolumeMode', 'string', 'Filesystem or Block.', (o) => unsetOr(getPath(o, 'spec', 'volumeMode')), 1),
    ],
    selectableFields: {},
  };
}

export function persistentVolumeClaimFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      defaults(obj) {
        setDefaultString(ensureObj(obj, 'spec'), 'volumeMode', 'Filesystem');
        setDefaultString(ensureObj(obj, 'status'), 'phase', 'Pending');
      },
      initialStatus: () => ({ phase: 'Pending' }),
      validate(obj) {
        const errs: FieldError[] = [];
        if (arrAt(obj, 'spec', 'accessModes').length === 0) errs.push(fieldErrors.required('spec.accessModes', 'at least 1 access mode is required'));
        if (getPath(obj, 'spec', 'resources', 'requests', 'storage') === undefined) errs.push(fieldErrors.required('spec.resources[storage]'));
        return errs;
      },
      validateUpdate: () => [],
    }),
    printerColumns: [
      column('Status', 'string', 'The phase of the claim.', terminatingPhase),
      column('Volume', 'string', 'The bound volume.', (o) => strAt(o, 'spec', 'volumeName')),
      column('Capacity', 'string', 'Storage capacity of the bound volume.', (o) => (strAt(o, 'spec', 'volumeName') ? quantityCell(getPath(o, 'status', 'capacity', 'storage')) : '')),
      column('Access Modes', 'string', 'How the volume can be mounted.', (o) => (strAt(o, 'spec', 'volumeName') ? accessModesString(arrAt(o, 'status', 'accessModes')) : '')),
      column('StorageClass', 'string', 'The storage class of the claim.', storageClassOf),
      column('VolumeAttributesClass', 'string', 'The volume attributes class.', (o) => unsetOr(getPath(o, 'spec', 'volumeAttributesClassName'))),
      ageColumn,
      column('VolumeMode', 'string', 'Filesystem or Block.', (o) => unsetOr(getPath(o, 'spec', 'volumeMode')), 1),
    ],
    selectableFields: {},
  };
}
