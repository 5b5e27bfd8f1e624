// The in-process control plane kube-apiserver (and the part of kube-controller-manager users expect) runs beside
// its API: the system namespaces, the objects it makes for itself (bootstrap), the CRD controllers, the namespace
// lifecycle controller, the garbage collector, the default RBAC policy and ClusterRole aggregation, the
// default ServiceAccount and kube-root-ca.crt of every namespace. Everything writes through the registry's stores.

import { isStatusError } from '../apis/errors.ts';
import { loopbackContext, type RegistryHandle } from '../registry/registry.ts';
import { SYSTEM_NAMESPACES } from '../registry/store-namespaces.ts';
import type { Registry } from '../registry/types.ts';
import { startBootstrapController, type BootstrapController, type BootstrapOptions } from './bootstrap.ts';
import { startBootstrapTokenControllers, type BootstrapTokenControllers, type BootstrapTokenOptions } from './bootstrap-tokens.ts';
import { startCrdController, type CrdController } from './crd.ts';
import { startClusterRoleAggregation } from './clusterrole-aggregation.ts';
import { startGarbageCollector, type GarbageCollector } from './garbage-collector.ts';
import { startNamespaceController, type NamespaceController } from './namespace.ts';
import { startPodTermination } from './pod-termination.ts';
import { startNamespaceDefaults, type NamespaceDefaultsOptions } from './namespace-defaults.ts';
import { reconcileBootstrapPolicy } from './rbac-bootstrap.ts';
import { startQuotaController } from './resource-quota.ts';

export interface ControlPlaneOptions {
  /** The `kubernetes` Service, its endpoints and the system PriorityClasses; false: none are made. */
  readonly bootstrap?: BootstrapOptions | false;
  /** Retry delay of the namespace controller while content remains (default 1000 ms). */
  readonly namespaceResyncMs?: number;
  /** Retry delay of the CRD controller while instances remain (default 1000 ms). */
  readonly crdRetryMs?: number;
  /** Create and reconcile the default RBAC policy at start (kube-apiserver does when RBAC is an authorization mode). */
  readonly rbacBootstrapPolicy?: boolean;
  /** The `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap (with this CA bundle) in every namespace; false: none. */
  readonly namespaceDefaults?: NamespaceDefaultsOptions | false;
  /** The bootstrap token cleaner and signer (--enable-bootstrap-token-auth); absent: not run. */
  readonly bootstrapTokens?: BootstrapTokenOptions;
}

export interface ControlPlane {
  /** True once the system namespaces exist. */
  ready(): boolean;
  readonly crds: CrdController;
  readonly garbageCollector: GarbageCollector;
  readonly bootstrapTokens?: BootstrapTokenControllers;
  stop(): Promise<void>;
}

export async function startControlPlane(registry: RegistryHandle, options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  await ensureSystemNamespaces(registry);
  const crds: CrdController = startCrdController(registry, { retryMs: options.crdRetryMs });
  await crds.synced();
  const bootstrap: BootstrapController | undefined = options.bootstrap === false ? undefined : await startBootstrapController(registry, options.bootstrap);
  const namespaces: NamespaceController = startNamespaceController(registry, { resyncMs: options.namespaceResyncMs });
  const garbageCollector: GarbageCollector = startGarbageCollector(registry);
  const podTermination = startPodTermination(registry);
  if (options.rbacBootstrapPolicy) await reconcileBootstrapPolicy(registry);
  const aggregation = startClusterRoleAggregation(registry);
  const quotas = startQuotaController(registry);
  // The default admin, edit and view roles are aggregated before the server answers anyone.
  if (options.rbacBootstrapPolicy) await aggregation?.idle();
  const namespaceDefaults = options.namespaceDefaults === false ? undefined : startNamespaceDefaults(registry, options.namespaceDefaults ?? {});
  await namespaceDefaults?.idle();
  const bootstrapTokens = options.bootstrapTokens ? startBootstrapTokenControllers(registry, options.bootstrapTokens) : undefined;
  return {
    ready: () => true,
    crds,
    garbageCollector,
    bootstrapTokens,
    async stop() {
      await podTermination.stop();
      bootstrapTokens?.stop();
      namespaceDefaults?.stop();
      await garbageCollector.stop();
      await crds.stop();
      aggregation?.stop();
      await bootstrap?.stop();
      await namespaces.stop();
      quotas.stop();
    },
  };
}

async function ensureSystemNamespaces(registry: Registry): Promise<void> {
  const def = registry.lookup('', 'v1', 'namespaces');
  if (!def) return;
  const store = registry.store(def);
  for (const name of SYSTEM_NAMESPACES) {
    try {
      await store.create(loopbackContext(), { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch (e) {
      if (!(isStatusError(e) && e.reason === 'AlreadyExists')) throw e;
    }
  }
}
