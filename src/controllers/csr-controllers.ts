// The controllers that follow CertificateSigningRequests (the approver and the signers) share one watch, each with
// its own queue, as kube-controller-manager's share one informer.

import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry } from '../registry/types.ts';
import { csrStore, type CsrHandler } from './csr-signing.ts';
import { createKeyedQueue, followWatch } from './work-queue.ts';

const RETRY_MS = 1000;

export function startCsrControllers(registry: Registry, handlers: readonly CsrHandler[]): { idle(): Promise<void>; stop(): Promise<void> } {
  const queues = handlers.map((h) => {
    const queue = createKeyedQueue((name) => h.sync(name, (again, delayMs) => queue.enqueue(again, delayMs)), RETRY_MS);
    return queue;
  });
  const stopWatch = followWatch(
    () => csrStore(registry),
    loopbackContext(),
    (ev) => {
      const name = (ev.object as KubeObject).metadata?.name;
      if (!name) return;
      handlers.forEach((h, i) => {
        if (h.wants(ev)) queues[i]!.enqueue(name);
      });
    },
    queues[0]!,
    RETRY_MS,
  );
  return {
    async idle() {
      await Promise.all(queues.map((q) => q.idle()));
    },
    async stop() {
      stopWatch();
      await Promise.all(queues.map((q) => q.stop()));
    },
  };
}
