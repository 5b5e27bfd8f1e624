// The checks behind /healthz, /livez and /readyz, named as kube-apiserver names them: ping, log, etcd (the
// storage backend, whatever it is), informer-sync, a post-start hook, the API's own checks, and (readyz only)
// shutdown, which fails once the server is stopping so load balancers drain it first.

import type { Storage } from '../storage/types.ts';
import { namedCheck } from './health.ts';
import type { ApiServer, HealthCheck } from './types.ts';

export type HealthEndpointName = 'healthz' | 'livez' | 'readyz';

export function serverHealthChecks(storage: Storage, api: ApiServer, isShuttingDown: () => boolean): Record<HealthEndpointName, () => readonly HealthCheck[]> {
  const ping = namedCheck('ping', () => {});
  // Logging here cannot block (lines go straight to stderr), so this one always passes.
  const log = namedCheck('log', () => {});
  const etcd = namedCheck('etcd', async () => {
    if (!(await storage.ready())) throw new Error(`${storage.name} storage is not ready`);
  });
  // The API is built before the listeners open, so by the time anyone can ask its informers have started.
  const informerSync = namedCheck('informer-sync', () => {});
  const startInformers = namedCheck('poststarthook/generic-apiserver-start-informers', () => {});
  const shutdown = namedCheck('shutdown', () => {
    if (isShuttingDown()) throw new Error('process is shutting down');
  });
  const live = (): HealthCheck[] => [ping, log, etcd, ...api.liveChecks, startInformers];
  return {
    healthz: live,
    livez: live,
    readyz: () => [ping, log, etcd, informerSync, ...api.readyChecks, startInformers, shutdown],
  };
}
