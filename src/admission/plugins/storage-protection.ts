// StorageObjectInUseProtection: a PersistentVolumeClaim or PersistentVolume is created with its protection finalizer
// (kubernetes.io/pvc-protection, kubernetes.io/pv-protection), so its deletion waits until the pvc-protection or
// pv-protection controller sees it unused (src/controllers/volume-protection.ts).

import type { AdmissionPlugin } from '../types.ts';

export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';

const FINALIZER_BY_RESOURCE: Readonly<Record<string, string>> = {
  persistentvolumeclaims: PVC_PROTECTION_FINALIZER,
  persistentvolumes: PV_PROTECTION_FINALIZER,
};

export function storageObjectInUseProtection(): AdmissionPlugin {
  return {
    name: 'StorageObjectInUseProtection',
    handles: (op) => op === 'CREATE',
    admit(a) {
      if (a.operation !== 'CREATE' || a.resource.group !== '' || a.subResource !== '' || !a.object) return;
      const finalizer = FINALIZER_BY_RESOURCE[a.resource.resource];
      if (!finalizer) return;
      const meta = a.object.metadata;
      const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
      if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
    },
  };
}
