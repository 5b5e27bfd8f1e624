// Test fixture: a registry on memory storage with the control plane running beside it; close() stops both.

import { createMemoryStorage } from '../storage/memory/memory-storage.ts';
import type { Storage } from '../storage/types.ts';
import { createRegistry, type RegistryHandle } from '../registry/registry.ts';
import { startControlPlane, type ControlPlaneOptions } from './index.ts';

export async function startWithControlPlane(options: ControlPlaneOptions & { storage?: Storage } = {}): Promise<RegistryHandle> {
  const registry = await createRegistry({ storage: options.storage ?? createMemoryStorage(), runtimeConfig: '', featureGates: {} });
  const controlPlane = await startControlPlane(registry, { bootstrap: options.bootstrap, namespaceResyncMs: options.namespaceResyncMs ?? 50 });
  return {
    ...registry,
    async close() {
      await controlPlane.stop();
      await registry.close();
    },
  };
}
