// PersistentVolumeClaimResize: a claim's storage request may only grow when it is bound and its StorageClass (the
// same before and after, named by the beta annotation or spec.storageClassName) says allowVolumeExpansion: true;
// otherwise 403 with kube's message. Shrinking is the strategy's refusal, before this plugin runs.

import { quantityNanos } from '../../registry/validation/quantity.ts';
import { forbiddenError } from '../../registry/store-errors.ts';
import { storageClassOf } from '../../registry/builtin/core/volume-printing.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import type { AdmissionPlugin } from '../types.ts';
import { classLister } from './defaults.ts';

const storageRequest = (pvc: KubeObject): bigint => {
  const requests = (pvc.spec as { resources?: { requests?: Record<string, unknown> } } | undefined)?.resources?.requests;
  return quantityNanos(requests?.storage) ?? 0n;
};

export function persistentVolumeClaimResize(registry: Registry): AdmissionPlugin {
  const classes = classLister(registry, 'storage.k8s.io', 'v1', 'storageclasses');
  return {
    name: 'PersistentVolumeClaimResize',
    close: classes.stop,
    handles: (op) => op === 'UPDATE',
    async validate(a) {
      if (a.resource.group !== '' || a.resource.resource !== 'persistentvolumeclaims' || a.subResource !== '' || !a.object || !a.oldObject) return;
      if (storageRequest(a.object) <= storageRequest(a.oldObject)) return;
      const refuse = (message: string) => forbiddenError({ group: '', resource: 'persistentvolumeclaims' }, a.name, message);
      if ((a.oldObject.status as { phase?: string } | undefined)?.phase !== 'Bound') throw refuse('Only bound persistent volume claims can be expanded');
      const name = storageClassOf(a.object);
      const allowed =
        name !== '' && name === storageClassOf(a.oldObject) && (await classes.items()).some((c) => c.metadata.name === name && (c as { allowVolumeExpansion?: unknown }).allowVolumeExpansion === true);
      if (!allowed) throw refuse('only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    },
  };
}
