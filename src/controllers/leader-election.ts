// Leader election through a coordination.k8s.io/v1 Lease, as client-go's leaderelection package does it for
// kube-controller-manager: a candidate takes the Lease when it is free or its holder has not renewed it within
// leaseDuration (timed by this process's clock from when it last saw the record change, never by the record's
// timestamps, so clock skew between instances does not matter); the leader renews every retryPeriod and steps down
// when it could not renew for renewDeadline. On stop the leader releases the Lease (holder cleared), so another
// instance takes over at its next retry instead of after a whole lease duration.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { isStatusError } from '../apis/errors.ts';
import { loopbackContext } from '../registry/registry.ts';
import { microTime } from '../registry/store-codec.ts';
import type { KubeObject, Registry } from '../registry/types.ts';

export interface LeaderElectionConfig {
  /** --leader-elect-lease-duration (default 15 s). */
  readonly leaseDurationMs?: number;
  /** --leader-elect-renew-deadline (default 10 s). */
  readonly renewDeadlineMs?: number;
  /** --leader-elect-retry-period (default 2 s). */
  readonly retryPeriodMs?: number;
  /** The Lease (default kube-system/kube-controller-manager, the controllers' own). */
  readonly namespace?: string;
  readonly name?: string;
  /** Holder identity (default <hostname>_<uuid>, as kube-controller-manager). */
  readonly identity?: string;
  readonly onError?: (err: unknown) => void;
}

export interface LeaderCallbacks {
  onStartedLeading(): void | Promise<void>;
  onStoppedLeading(): void | Promise<void>;
}

export interface LeaderElector {
  readonly identity: string;
  isLeader(): boolean;
  /** Resolves after the first acquisition attempt. */
  firstAttempt(): Promise<void>;
  /** Stops the loop; a leader steps down (onStoppedLeading) and releases the Lease. */
  stop(): Promise<void>;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export function startLeaderElection(registry: Registry, config: LeaderElectionConfig, callbacks: LeaderCallbacks): LeaderElector {
  const leaseDurationMs = config.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = config.renewDeadlineMs ?? 10_000;
  const retryPeriodMs = config.retryPeriodMs ?? 2_000;
  const namespace = config.namespace ?? 'kube-system';
  const name = config.name ?? 'kube-controller-manager';
  const identity = config.identity ?? `${hostname()}_${randomUUID()}`;
  const onError = config.onError ?? (() => {});
  const ctx = loopbackContext(namespace);

  let leader = false;
  let stopped = false;
  let lastRenew = 0;
  /** The record as last seen, and when (local clock) it last changed. */
  let observed: { key: string; at: number } | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** The round under way: stop() waits for it, so that its answer cannot start leading after the stop. */
  let pending: Promise<void> = Promise.resolve();
  /** A round that ended after stop() with the Lease held: stop() releases it. */
  let heldAtStop = false;
  let transition: Promise<void> = Promise.resolve();
  let resolveFirst: () => void = () => {};
  const first = new Promise<void>((resolve) => (resolveFirst = resolve));

  const store = () => {
    const def = registry.lookup('coordination.k8s.io', 'v1', 'leases');
    if (def === undefined) throw new Error('coordination.k8s.io/v1 leases are not served');
    return registry.store(def);
  };

  function setLeader(value: boolean): void {
    if (leader === value) return;
    leader = value;
    const call = value ? callbacks.onStartedLeading : callbacks.onStoppedLeading;
    transition = transition.then(async () => {
      try {
        await call();
      } catch (err) {
        onError(err);
      }
    });
  }

  function spec(current: LeaseSpec | undefined, now: Date, acquiring: boolean): LeaseSpec {
    return {
      holderIdentity: identity,
      leaseDurationSeconds: Math.max(1, Math.round(leaseDurationMs / 1000)),
      acquireTime: acquiring ? microTime(now.getTime()) : current?.acquireTime ?? microTime(now.getTime()),
      renewTime: microTime(now.getTime()),
      leaseTransitions: (current?.leaseTransitions ?? 0) + (acquiring && current?.holderIdentity ? 1 : 0),
    };
  }

  /** One round of client-go's tryAcquireOrRenew; true when this instance holds the Lease afterwards. */
  async function tryAcquireOrRenew(): Promise<boolean> {
    const leases = store();
    const now = new Date();
    let current: KubeObject | undefined;
    try {
      current = await leases.get(ctx, name);
    } catch (e) {
      if (!(isStatusError(e) && e.code === 404)) throw e;
    }
    if (current === undefined) {
      await leases.create(ctx, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: spec(undefined, now, true) });
      observed = undefined;
      return true;
    }
    const held = (current.spec ?? {}) as LeaseSpec;
    const recordKey = JSON.stringify([held.holderIdentity, held.renewTime, held.acquireTime]);
    if (observed?.key !== recordKey) observed = { key: recordKey, at: Date.now() };
    const holder = held.holderIdentity ?? '';
    const durationMs = (held.leaseDurationSeconds ?? Math.round(leaseDurationMs / 1000)) * 1000;
    if (holder !== '' && holder !== identity && observed.at + durationMs > Date.now()) return false;
    const mine = holder === identity;
    await leases.update(ctx, name, () => ({ ...current, spec: spec(held, now, !mine) }));
    return true;
  }

  async function round(): Promise<void> {
    if (stopped) return;
    try {
      const ok = await tryAcquireOrRenew();
      if (stopped) {
        heldAtStop = ok;
        return;
      }
      if (ok) lastRenew = Date.now();
      if (ok) setLeader(true);
      else if (leader) setLeader(false);
    } catch (err) {
      if (!(isStatusError(err) && err.code === 409)) onError(err);
      if (leader && Date.now() - lastRenew > renewDeadlineMs) setLeader(false);
    } finally {
      // The first attempt is over once a started leader's controllers are up.
      void transition.then(resolveFirst);
      if (!stopped) {
        timer = setTimeout(() => void (pending = round()), retryPeriodMs);
        timer.unref();
      }
    }
  }

  pending = round();

  return {
    identity,
    isLeader: () => leader,
    firstAttempt: () => first,
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await pending;
      const held = leader || heldAtStop;
      heldAtStop = false;
      setLeader(false);
      await transition;
      if (!held) return;
      // ReleaseOnCancel: clear the holder so another candidate takes over at once.
      try {
        await store().update(ctx, name, (current) => {
          const s = (current?.spec ?? {}) as LeaseSpec;
          if (current === undefined || s.holderIdentity !== identity) throw new Error('lease no longer held');
          return { ...current, spec: { ...s, holderIdentity: '', leaseDurationSeconds: 1 } };
        });
      } catch {
        // lost already, or storage unreachable: the lease simply expires
      }
    },
  };
}
