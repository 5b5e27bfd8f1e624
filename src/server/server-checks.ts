// The checks behind /healthz, /livez and /readyz, named and ordered as kube-apiserver 1.31 lists them: ping, log,
// etcd (the storage backend, whatever it is), then (readyz only) etcd-readiness and informer-sync, its post-start
// hooks, and (readyz only) shutdown, which fails once the server is stopping so load balancers drain it first.

import type { Storage } from '../storage/types.ts';
import { namedCheck } from './health.ts';
import type { ApiServer, HealthCheck } from './types.ts';

export type HealthEndpointName = 'healthz' | 'livez' | 'readyz';

/**
 * kube-apiserver 1.31's post-start hooks with its default feature gates, as its health endpoints list them (the
 * apiextensions server's, the control plane's, then the aggregator's, each in the order it adds them), and the
 * aggregator's autoregister-completion check. Capstan does what they wait for before it starts listening (its
 * start-up awaits the control plane's first reconcile: system namespaces, RBAC roles, priority classes, flow
 * control configuration, the `kubernetes` Service), so those without a check of Capstan's own pass once it answers.
 */
export const KUBE_POST_START_CHECKS = [
  'poststarthook/start-apiserver-admission-initializer',
  'poststarthook/generic-apiserver-start-informers',
  'poststarthook/priority-and-fairness-config-consumer',
  'poststarthook/priority-and-fairness-filter',
  'poststarthook/storage-object-count-tracker-hook',
  'poststarthook/start-apiextensions-informers',
  'poststarthook/start-apiextensions-controllers',
  'poststarthook/crd-informer-synced',
  'poststarthook/start-system-namespaces-controller',
  'poststarthook/start-cluster-authentication-info-controller',
  'poststarthook/start-kube-apiserver-identity-lease-controller',
  'poststarthook/start-kube-apiserver-identity-lease-garbage-collector',
  'poststarthook/start-legacy-token-tracking-controller',
  'poststarthook/start-service-ip-repair-controllers',
  'poststarthook/rbac/bootstrap-roles',
  'poststarthook/scheduling/bootstrap-system-priority-classes',
  'poststarthook/priority-and-fairness-config-producer',
  'poststarthook/bootstrap-controller',
  'poststarthook/aggregator-reload-proxy-client-cert',
  'poststarthook/start-kube-aggregator-informers',
  'poststarthook/apiservice-registration-controller',
  'poststarthook/apiservice-status-available-controller',
  'poststarthook/kube-apiserver-autoregistration',
  'autoregister-completion',
  'poststarthook/apiservice-openapi-controller',
  'poststarthook/apiservice-openapiv3-controller',
  'poststarthook/apiservice-discovery-controller',
];

/** kube's list with Capstan's own checks in their places (and any it has no place for after them). */
function postStartChecks(own: readonly HealthCheck[]): HealthCheck[] {
  const byName = new Map(own.map((c) => [c.name, c]));
  const listed = KUBE_POST_START_CHECKS.map((name) => byName.get(name) ?? namedCheck(name, () => {}));
  return [...listed, ...own.filter((c) => !KUBE_POST_START_CHECKS.includes(c.name))];
}

export function serverHealthChecks(storage: Storage, api: ApiServer, isShuttingDown: () => boolean): Record<HealthEndpointName, () => readonly HealthCheck[]> {
  const ping = namedCheck('ping', () => {});
  // Logging here cannot block (lines go straight to stderr), so this one always passes.
  const log = namedCheck('log', () => {});
  const storageReady = async () => {
    if (!(await storage.ready())) throw new Error(`${storage.name} storage is not ready`);
  };
  const etcd = namedCheck('etcd', storageReady);
  const etcdReadiness = namedCheck('etcd-readiness', storageReady);
  // The API is built before the listeners open, so by the time anyone can ask its informers have started.
  const informerSync = namedCheck('informer-sync', () => {});
  const shutdown = namedCheck('shutdown', () => {
    if (isShuttingDown()) throw new Error('process is shutting down');
  });
  // The API's ready checks fail /readyz only; its live checks all three.
  const live: HealthCheck[] = [ping, log, etcd, ...postStartChecks(api.liveChecks)];
  const ready: HealthCheck[] = [ping, log, etcd, etcdReadiness, informerSync, ...postStartChecks([...api.liveChecks, ...api.readyChecks]), shutdown];
  return { healthz: () => live, livez: () => live, readyz: () => ready };
}
