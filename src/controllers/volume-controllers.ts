// kube-controller-manager's volume controllers: pvc-protection and pv-protection always, and the PersistentVolume
// binder from the first claim or volume on (its module, informers and event recorder cost a server that never
// sees one nothing).

import type { Registry } from '../registry/types.ts';
import type { PersistentVolumeBinder } from './persistent-volumes.ts';
import { startVolumeProtection } from './volume-protection.ts';

export interface VolumeControllers {
  stop(): Promise<void>;
}

export function startVolumeControllers(registry: Registry): VolumeControllers {
  let stopped = false;
  let binder: Promise<PersistentVolumeBinder | undefined> | undefined;
  const protection = startVolumeProtection(registry, {
    onObject() {
      binder ??= import('./persistent-volumes.ts').then((m) => (stopped ? undefined : m.startPersistentVolumeBinder(registry)));
    },
  });
  return {
    async stop() {
      stopped = true;
      await protection.stop();
      await (await binder)?.stop();
    },
  };
}
