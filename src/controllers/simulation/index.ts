// Simulated workloads (opt-in: --simulate-workloads / startCapstan({ simulateWorkloads: true })): simulated nodes
// and kubelets, a scheduler, and the workload controllers of kube-controller-manager (CronJobs on the server's clock), all in process and through
// the stores like any client, so applied apps settle as on a small real cluster.

import type { AdmissionChain } from '../../admission/types.ts';
import type { Registry } from '../../registry/types.ts';
import { startCronJobController } from './cronjobs.ts';
import { startDaemonSetController } from './daemonsets.ts';
import { startDeploymentController } from './deployments.ts';
import { startEndpointsController } from './endpoints.ts';
import { createEventSink } from '../events.ts';
import { createInformers } from '../informers.ts';
import { startJobController } from './jobs.ts';
import { startLoadBalancerController } from './load-balancers.ts';
import { startKubelets } from './kubelet.ts';
import { nodeName, startSimulatedNodes } from './nodes.ts';
import { startReplicaSetController } from './replicasets.ts';
import { startScheduler } from './scheduler.ts';
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
}

export interface Simulation {
  stop(): Promise<void>;
}

/** `admission`: the server's chain, which the simulated components' writes go through as any client's do. */
export async function startSimulation(registry: Registry, options: SimulationOptions = {}, admission?: AdmissionChain): Promise<Simulation> {
  const count = Math.max(1, options.nodes ?? 1);
  const nodes = await startSimulatedNodes(registry, count);
  await ensureDefaultStorageClass(registry);
  const informers = createInformers(registry, { admission });
  const events = createEventSink(informers);
  const parts = [
    startKubelets(informers, events, { nodes: Array.from({ length: count }, (_, i) => nodeName(i)), podStartupMs: options.podStartupMs, jobPodRunMs: options.jobPodRunMs, podTerminationMs: options.podTerminationMs }),
    startScheduler(informers, events),
    startReplicaSetController(informers, events),
    startDeploymentController(informers, events),
    startStatefulSetController(informers, events),
    startDaemonSetController(informers, events),
    startJobController(informers, events),
    startCronJobController(informers, events),
    startEndpointsController(informers),
    startVolumeProvisioner(informers, events),
    startLoadBalancerController(informers, events),
    nodes,
  ];
  return {
    async stop() {
      for (const p of parts) await p.stop();
      await events.stop();
      await informers.stop();
    },
  };
}
