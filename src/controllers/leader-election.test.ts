import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemoryStorage } from '../storage/memory/memory-storage.ts';
import { createRegistry, loopbackContext } from '../registry/registry.ts';
import type { Registry } from '../registry/types.ts';
import type { ResourceDefinition, ResourceStore } from '../registry/types.ts';
import { startLeaderElection } from './leader-election.ts';

/** The registry with its Lease reads held at a gate while `closed`; `waiting` resolves when a read is held. */
function gatedLeases(registry: Registry) {
  let closed = false;
  let open: () => void = () => {};
  let gate = Promise.resolve();
  let held: () => void = () => {};
  let waiting = new Promise<void>((resolve) => (held = resolve));
  const gated = Object.create(registry) as Registry;
  gated.store = (def: ResourceDefinition) => {
    const store = registry.store(def);
    if (def.resource !== 'leases') return store;
    return Object.assign(Object.create(store) as ResourceStore, {
      get: async (...args: Parameters<ResourceStore['get']>) => {
        if (closed) {
          held();
          await gate;
        }
        return store.get(...args);
      },
    });
  };
  return {
    registry: gated,
    close() {
      closed = true;
      gate = new Promise<void>((resolve) => (open = resolve));
      waiting = new Promise<void>((resolve) => (held = resolve));
    },
    waiting: () => waiting,
    open: () => open(),
  };
}

test('a renewal under way when the elector stops does not start leading again; the Lease it renewed is released', async () => {
  const registry = await createRegistry({ storage: createMemoryStorage(), runtimeConfig: '', featureGates: {} });
  await registry.store(registry.lookup('', 'v1', 'namespaces')!).create(loopbackContext(''), { metadata: { name: 'kube-system' } });
  const leases = gatedLeases(registry);
  const calls: string[] = [];
  const elector = startLeaderElection(leases.registry, { namespace: 'kube-system', leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 10 }, {
    onStartedLeading: () => void calls.push('started'),
    onStoppedLeading: () => void calls.push('stopped'),
  });
  try {
    await elector.firstAttempt();
    assert.deepEqual(calls, ['started']);
    // The next renewal reads the Lease and waits at the gate; the elector stops meanwhile, and the renewal goes on
    // only after a stop that does not wait for it would be over (it stepped down and released the Lease by then).
    leases.close();
    await leases.waiting();
    setTimeout(() => leases.open(), 100);
    await elector.stop();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(calls, ['started', 'stopped'], 'the late renewal did not start the controllers again');
    assert.equal(elector.isLeader(), false);
    const lease = await registry.store(registry.lookup('coordination.k8s.io', 'v1', 'leases')!).get(loopbackContext('kube-system'), 'kube-controller-manager');
    assert.equal((lease.spec as { holderIdentity?: string }).holderIdentity, '', 'released for the next candidate');
  } finally {
    await elector.stop();
    await registry.close();
  }
});
