// Simulated workloads (opt-in: --simulate-workloads / startCapstan({ simulateWorkloads: true })): simulated nodes
// and kubelets, a scheduler, and kube-controller-manager's workload and node controllers (node lifecycle, taint
// eviction, pod garbage collection; CronJobs on the server's clock), all in process and through the stores like any
// client, so applied apps settle as on a small real cluster, and a node whose kubelet the test controls stop fails
// as a real one does. The node controllers run only here: without kubelets, every node would go NotReady.

import type { AggregatedApiGet } from './horizontal-pod-autoscaler.ts';
import type { AdmissionChain } from '../../admission/types.ts';
import type { RegistryHandle } from '../../registry/registry.ts';
import { startCronJobController } from './cronjobs.ts';
import { startDaemonSetController } from './daemonsets.ts';
import { startDeploymentController } from './deployments.ts';
import { startEndpointsController } from './endpoints.ts';
import { startEphemeralVolumeController } from './ephemeral-volumes.ts';
import { createEventSink } from '../events.ts';
import { createInformers } from '../informers.ts';
import { startJobController } from './jobs.ts';
import { startLoadBalancerController } from './load-balancers.ts';
import { ensureMetricsApiService, ensureMetricsReaderRole, METRICS_DEFINITIONS, metricsStores } from './metrics-api.ts';
import { createResourceUsage, type ResourceUsage } from './resource-usage.ts';
import { createContainerRuns, type ContainerRuns } from './container-runs.ts';
import { startHorizontalPodAutoscaler } from './horizontal-pod-autoscaler.ts';
import { startKubelets } from './kubelet.ts';
import { startSimulatedNodes } from './nodes.ts';
import { startNodeLifecycle } from './node-lifecycle.ts';
import { startPodGarbageCollector } from './pod-gc.ts';
import { startTaintEviction } from './taint-eviction.ts';
import { REPLICATION_CONTROLLER_KIND, startReplicaSetController } from './replicasets.ts';
import { startScheduler } from './scheduler.ts';
import { componentFieldManager } from './shared.ts';
import { loadManagedFieldsEngine } from '../../endpoints/managed-fields.ts';
import { startStatefulSetController } from './statefulsets.ts';
import { ensureDefaultStorageClass, startVolumeProvisioner } from './volumes.ts';

export interface SimulationOptions {
  /** How many nodes (default 1). */
  readonly nodes?: number;
  /** Delay from a pod's binding to Running and Ready (default 100 ms). */
  readonly podStartupMs?: number;
  /** How long a pod that runs to completion (a Job's, any with restartPolicy Never or OnFailure) runs before it succeeds (default 300 ms). */
  readonly jobPodRunMs?: number;
  /** Delay from a pod's graceful deletion to its removal by its simulated kubelet (default 100 ms). */
  readonly podTerminationMs?: number;
  /**
   * Serve the resource metrics API (metrics.k8s.io, as metrics-server does) from the usage the tests set; the
   * horizontal pod autoscaler then scales on cpu and memory (default true). False: a cluster without
   * metrics-server, as kind's.
   */
  readonly metricsApi?: boolean;
}

/** The test controls' handle on the simulated kubelets (`capstan.kubelets`, /capstan/v1/kubelets). */
export interface KubeletControls {
  list(): { node: string; running: boolean }[];
  /**
   * Stops a node's kubelet: it renews no lease and leaves its pods as they are, so the node lifecycle controller
   * finds the node unreachable once its grace period has passed (40 s on the server clock).
   */
  stop(node: string): Promise<void>;
  /** Starts it again: it reports the node Ready at once and takes up its pods. */
  start(node: string): Promise<void>;
}

export interface Simulation {
  readonly kubelets: KubeletControls;
  /** The containers' usage the simulated kubelets report (the usage test control); absent without the metrics API. */
  readonly usage?: ResourceUsage;
  /** How the simulated containers run and what they print (the containers test control). */
  readonly containers: ContainerRuns;
  stop(): Promise<void>;
}

/**
 * `admission`: the server's chain, which the simulated components' writes go through as any client's do;
 * `aggregated`: GETs of aggregated APIs (the autoscaler's custom and external metrics).
 */
export async function startSimulation(registry: RegistryHandle, options: SimulationOptions = {}, admission?: AdmissionChain, aggregated?: AggregatedApiGet): Promise<Simulation> {
  const count = Math.max(1, options.nodes ?? 1);
  await loadManagedFieldsEngine();
  const informers = createInformers(registry, { admission, fieldManager: componentFieldManager });
  const events = createEventSink(informers);
  const nodes = await startSimulatedNodes(informers, count, events);
  await ensureDefaultStorageClass(registry);
  const containerRuns = createContainerRuns();
  const kubelets = startKubelets(informers, events, { nodes: nodes.names, running: nodes.running, podStartupMs: options.podStartupMs, jobPodRunMs: options.jobPodRunMs, podTerminationMs: options.podTerminationMs, runs: containerRuns });
  const lifecycle = startNodeLifecycle(informers, events, { beforeClockPass: nodes.renew });
  const usage = options.metricsApi === false ? undefined : createResourceUsage(nodes.running);
  if (usage) {
    registry.register(METRICS_DEFINITIONS, metricsStores(informers, usage, nodes.running));
    await Promise.all([ensureMetricsReaderRole(registry), ensureMetricsApiService(registry)]);
  }
  const parts = [
    kubelets,
    lifecycle,
    startTaintEviction(informers, events),
    startPodGarbageCollector(informers),
    startScheduler(informers, events),
    startReplicaSetController(informers, events),
    startReplicaSetController(informers, events, REPLICATION_CONTROLLER_KIND),
    startDeploymentController(informers, events),
    startStatefulSetController(informers, events),
    startDaemonSetController(informers, events),
    startJobController(informers, events),
    startCronJobController(informers, events),
    startEndpointsController(informers),
    startVolumeProvisioner(informers, events, { kubeletRunning: nodes.running }),
    startEphemeralVolumeController(informers, events),
    startLoadBalancerController(informers, events),
    startHorizontalPodAutoscaler(informers, events, usage, aggregated),
    nodes,
  ];
  // The nodes' first health pass: their registration taints (TaintNodesByCondition's not-ready) go before the
  // first pod is scheduled.
  await lifecycle.pass();
  await lifecycle.idle();
  const knownNode = (node: string) => {
    if (!nodes.names.includes(node)) throw new Error(`no simulated kubelet serves node "${node}" (simulated nodes: ${nodes.names.join(', ')})`);
  };
  return {
    kubelets: {
      list: () => nodes.names.map((node) => ({ node, running: nodes.running(node) })),
      async stop(node) {
        knownNode(node);
        await nodes.setRunning(node, false);
      },
      async start(node) {
        knownNode(node);
        await nodes.setRunning(node, true);
        kubelets.resync(node);
      },
    },
    ...(usage ? { usage } : {}),
    containers: containerRuns,
    async stop() {
      if (usage) registry.unregister(METRICS_DEFINITIONS);
      for (const p of parts) await p.stop();
      await events.stop();
      await informers.stop();
    },
  };
}
