// Printer cells PersistentVolumes and their claims share (pkg/printers/internalversion printPersistentVolume*).

import type { KubeObject } from '../../types.ts';
import { strAt } from '../object.ts';

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

export function storageClassOf(obj: KubeObject): string {
  const annotation = obj.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'];
  return annotation !== undefined ? annotation : strAt(obj, 'spec', 'storageClassName');
}

export function terminatingPhase(obj: KubeObject): string {
  return obj.metadata?.deletionTimestamp ? 'Terminating' : strAt(obj, 'status', 'phase');
}

export function unsetOr(v: unknown): string {
  return typeof v === 'string' ? v : '<unset>';
}
