// The in-process control plane kube-apiserver (and the part of kube-controller-manager users expect) runs beside
// its API: the system namespaces, the objects it makes for itself (bootstrap), the CRD controllers, the namespace
// lifecycle controller, the garbage collector, the disruption controller (PodDisruptionBudgets' status), the
// pvc-protection and pv-protection controllers (claims used by pods and bound volumes kept until unused), the
// PersistentVolume binder (claims bound to volumes, volumes' phases and reclaiming), the ttl-after-finished
// controller (finished Jobs deleted after spec.ttlSecondsAfterFinished), the default RBAC policy and ClusterRole aggregation, the default ServiceAccount and kube-root-ca.crt of every
// namespace, the approver, signers and cleaner of certificate signing requests. Everything writes through the
// registry's stores.

import { isStatusError } from '../apis/errors.ts';
import { APISERVER_FIELD_MANAGER } from '../endpoints/managed-fields.ts';
import { clockDate } from '../apis/clock.ts';
import { rfc3339 } from '../registry/store-codec.ts';
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
import { startServiceAccountTokens, type ServiceAccountTokenOptions } from './service-account-tokens.ts';
import { startQuotaController } from './resource-quota.ts';
import { startPolicyStatusController } from './admission-policy-status.ts';
import { csrSigner, type CsrHandler, type CsrSigningOptions } from './csr-signing.ts';
import { csrApprover } from './csr-approving.ts';
import { startCsrControllers } from './csr-controllers.ts';
import { startCsrCleaning } from './csr-cleaning.ts';
import { startDisruptionController, type DisruptionController } from './disruption.ts';
import { startVolumeControllers, type VolumeControllers } from './volume-controllers.ts';
import { startTtlAfterFinished } from './ttl-after-finished.ts';
import type { Authorizer } from '../auth/authz/types.ts';
import type { KubeletControls } from './simulation/index.ts';
import type { ResourceUsage } from './simulation/resource-usage.ts';
import type { ContainerRuns } from './simulation/container-runs.ts';
import { startLeaderElection, type LeaderElectionConfig, type LeaderElector } from './leader-election.ts';

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
  /** The tokens controller of legacy service account token Secrets; absent: not run. */
  readonly serviceAccountTokens?: ServiceAccountTokenOptions;
  /** The signers of approved CertificateSigningRequests for the kubernetes.io signers; absent: not run. */
  readonly csrSigning?: CsrSigningOptions;
  /** The approver of kubelet client CSRs, asking this authorizer what the requester may do; absent: not run. */
  readonly csrApproving?: Authorizer;
  /** The bootstrap token cleaner and signer (--enable-bootstrap-token-auth); absent: not run. */
  readonly bootstrapTokens?: BootstrapTokenOptions;
  /**
   * More loops that run only while this instance leads (or always, without leader election), started after the
   * controllers above: the simulated nodes, kubelets and workload controllers, which several instances must not
   * run side by side.
   */
  readonly whileLeading?: () => Promise<LeadingExtras>;
  /**
   * Run kube-controller-manager's controllers (namespace lifecycle, garbage collection, ClusterRole aggregation,
   * quota, service accounts and root CA, bootstrap tokens, certificate approval, signing and cleaning, disruption budgets, claim and volume in-use protection, persistent volume binding, finished Jobs' TTL, the end of pods' graceful deletion) only while this
   * instance holds the kube-system/kube-controller-manager Lease (--leader-elect). Absent: they always run (one
   * process owns its storage). The apiserver's own loops (system namespaces, bootstrap objects, the RBAC default
   * policy, CRD naming and establishing) run on every instance, as in kube-apiserver.
   */
  readonly leaderElection?: LeaderElectionConfig;
}

/** What the loops started while leading hand back: a stop, and the simulated kubelets' controls when simulated. */
export interface LeadingExtras {
  readonly kubelets?: KubeletControls;
  readonly usage?: ResourceUsage;
  readonly containers?: ContainerRuns;
  stop(): Promise<void>;
}

export interface ControlPlane {
  /** The simulated kubelets while this instance runs them (--simulate-workloads, and leading). */
  kubelets(): KubeletControls | undefined;
  /** The containers' usage the simulated kubelets report (with the simulated metrics API, and leading). */
  usage(): ResourceUsage | undefined;
  /** How the simulated containers run and what they print (with simulated kubelets, and leading). */
  containers(): ContainerRuns | undefined;
  /** True once the system namespaces exist. */
  ready(): boolean;
  readonly crds: CrdController;
  /** The bootstrap token controllers while this instance leads (or always, without leader election). */
  readonly bootstrapTokens: () => BootstrapTokenControllers | undefined;
  /** The elector when leader election is on. */
  readonly elector?: LeaderElector;
  /**
   * kube's pre-shutdown hook of the kubernetes Service controller: this instance leaves the Service's endpoints
   * (its master lease goes) as shutdown begins, before the shutdown delay, so clients move to the other instances.
   */
  preShutdown(): Promise<void>;
  stop(): Promise<void>;
}

export async function startControlPlane(registry: RegistryHandle, options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  await ensureSystemNamespaces(registry);
  const crds: CrdController = startCrdController(registry, { retryMs: options.crdRetryMs });
  await crds.synced();
  const bootstrap: BootstrapController | undefined = options.bootstrap === false ? undefined : await startBootstrapController(registry, options.bootstrap);
  if (options.rbacBootstrapPolicy) await reconcileBootstrapPolicy(registry);

  // kube-controller-manager's controllers: while leading (or always, without leader election).
  interface Leading {
    namespaces: NamespaceController;
    garbageCollector: GarbageCollector;
    podTermination: { stop(): Promise<void> };
    aggregation: ReturnType<typeof startClusterRoleAggregation>;
    quotas: ReturnType<typeof startQuotaController>;
    policyStatus: ReturnType<typeof startPolicyStatusController>;
    namespaceDefaults: ReturnType<typeof startNamespaceDefaults> | undefined;
    bootstrapTokens: BootstrapTokenControllers | undefined;
    serviceAccountTokens: ReturnType<typeof startServiceAccountTokens>;
    certificates: ReturnType<typeof startCsrControllers> | undefined;
    csrCleaning: ReturnType<typeof startCsrCleaning>;
    disruption: DisruptionController;
    volumes: VolumeControllers;
    ttlAfterFinished: ReturnType<typeof startTtlAfterFinished>;
    more: LeadingExtras | undefined;
  }
  let leading: Leading | undefined;
  const csrHandlers: CsrHandler[] = [];
  if (options.csrApproving) csrHandlers.push(csrApprover(registry, options.csrApproving));
  if (options.csrSigning) csrHandlers.push(csrSigner(registry, options.csrSigning));
  const startLeading = async () => {
    const aggregation = startClusterRoleAggregation(registry);
    const namespaceDefaults = options.namespaceDefaults === false ? undefined : startNamespaceDefaults(registry, options.namespaceDefaults ?? {});
    leading = {
      namespaces: startNamespaceController(registry, { resyncMs: options.namespaceResyncMs }),
      garbageCollector: startGarbageCollector(registry),
      podTermination: startPodTermination(registry),
      aggregation,
      quotas: startQuotaController(registry),
      policyStatus: startPolicyStatusController(registry),
      namespaceDefaults,
      bootstrapTokens: options.bootstrapTokens ? startBootstrapTokenControllers(registry, options.bootstrapTokens) : undefined,
      serviceAccountTokens: options.serviceAccountTokens ? startServiceAccountTokens(registry, options.serviceAccountTokens) : undefined,
      certificates: csrHandlers.length > 0 ? startCsrControllers(registry, csrHandlers) : undefined,
      csrCleaning: startCsrCleaning(registry),
      disruption: startDisruptionController(registry),
      volumes: startVolumeControllers(registry),
      ttlAfterFinished: startTtlAfterFinished(registry),
      more: undefined,
    };
    const current = leading;
    // The default admin, edit and view roles are aggregated, and every namespace has its default service
    // account, before the server answers anyone.
    if (options.rbacBootstrapPolicy) await aggregation?.idle();
    await namespaceDefaults?.idle();
    if (options.whileLeading) {
      const more = await options.whileLeading();
      // Leadership lost meanwhile: what just started stops again.
      if (leading === current) current.more = more;
      else await more.stop();
    }
  };
  const stopLeading = async () => {
    const l = leading;
    leading = undefined;
    if (!l) return;
    await l.more?.stop();
    l.aggregation?.stop();
    l.quotas.stop();
    l.policyStatus.stop();
    l.bootstrapTokens?.stop();
    l.serviceAccountTokens?.stop();
    l.namespaceDefaults?.stop();
    await l.certificates?.stop();
    l.csrCleaning.stop();
    await l.disruption.stop();
    await l.volumes.stop();
    await l.ttlAfterFinished.stop();
    await l.podTermination.stop();
    await l.garbageCollector.stop();
    await l.namespaces.stop();
  };
  let elector: LeaderElector | undefined;
  if (options.leaderElection) {
    elector = startLeaderElection(registry, options.leaderElection, { onStartedLeading: startLeading, onStoppedLeading: stopLeading });
    await elector.firstAttempt();
  } else {
    await startLeading();
  }
  return {
    ready: () => true,
    crds,
    elector,
    bootstrapTokens: () => leading?.bootstrapTokens,
    kubelets: () => leading?.more?.kubelets,
    usage: () => leading?.more?.usage,
    containers: () => leading?.more?.containers,
    async preShutdown() {
      await bootstrap?.stop();
    },
    async stop() {
      await crds.stop();
      if (elector) await elector.stop();
      else await stopLeading();
      await bootstrap?.stop();
    },
  };
}

async function ensureSystemNamespaces(registry: Registry): Promise<void> {
  const def = registry.lookup('', 'v1', 'namespaces');
  if (!def) return;
  const store = registry.store(def);
  // A restart finds them: one read from the watch cache spares the create path and its AlreadyExists.
  const existing = new Set((await store.list(loopbackContext())).items.map((ns) => ns.metadata.name));
  const missing = SYSTEM_NAMESPACES.filter((name) => !existing.has(name));
  if (missing.length === 0) return;
  // kube's system namespaces controller creates them through the loopback client, so their managedFields name
  // kube-apiserver as the owner of the name label the strategy sets. The entry is written as it comes out, which
  // spares loading the apply engine at every start of the memory backend.
  const ctx = loopbackContext();
  for (const name of missing) {
    const owned = { manager: APISERVER_FIELD_MANAGER, operation: 'Update' as const, apiVersion: 'v1', time: rfc3339(clockDate()), fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } } };
    try {
      await store.create(ctx, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, managedFields: [owned] } });
    } catch (e) {
      if (!(isStatusError(e) && e.reason === 'AlreadyExists')) throw e;
    }
  }
}
