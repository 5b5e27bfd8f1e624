// The APIServerIdentity lease (kube's controlplane apiserver-identity post-start hook and component-helpers'
// lease controller): a Lease in kube-system named apiserver-<hash>, labelled apiserver.kubernetes.io/identity=
// kube-apiserver and kubernetes.io/hostname, held by <name>_<uuid of this run>, renewed every 10 s with a
// lease duration of 3600 s while the server runs.

import { createHash, randomUUID } from 'node:crypto';
import { hostname as osHostname } from 'node:os';
import { isStatusError } from '../apis/errors.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry } from '../registry/types.ts';
import { microTime } from '../registry/store-codec.ts';

export const IDENTITY_LEASE_NAMESPACE = 'kube-system';
export const IDENTITY_LABEL = 'apiserver.kubernetes.io/identity';
// IdentityLeaseDurationSeconds and IdentityLeaseRenewIntervalPeriod of pkg/controlplane.
const LEASE_DURATION_SECONDS = 3600;
const RENEW_INTERVAL_MS = 10_000;

/** apiserver-<lowercase unpadded base32 of the first 16 bytes of sha256(identity source)>. */
export function identityLeaseName(source: string): string {
  const hash = createHash('sha256').update(source).digest().subarray(0, 16);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of hash) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return `apiserver-${out}`;
}

export interface IdentityLeaseOptions {
  /**
   * What the name is hashed from. kube hashes the host name; Capstan adds the serving address so that several
   * instances on one host (sharing etcd) hold one lease each.
   */
  readonly identitySource?: string;
  readonly hostname?: string;
  readonly renewIntervalMs?: number;
  readonly onError?: (error: unknown) => void;
}

export interface IdentityLease {
  readonly name: string;
  readonly holderIdentity: string;
  /** Resolves once the lease was written at least once. */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

export function startIdentityLease(registry: Registry, options: IdentityLeaseOptions = {}): IdentityLease | undefined {
  const def = registry.lookup('coordination.k8s.io', 'v1', 'leases');
  if (!def) return undefined;
  const store = registry.store(def);
  const host = options.hostname ?? osHostname();
  const name = identityLeaseName(options.identitySource ?? host);
  const holderIdentity = `${name}_${randomUUID()}`;
  const ctx = loopbackContext(IDENTITY_LEASE_NAMESPACE);
  const labels = { [IDENTITY_LABEL]: 'kube-apiserver', 'kubernetes.io/hostname': host };

  const renew = async (): Promise<void> => {
    const now = microTime(performance.timeOrigin + performance.now());
    const desired = (current: KubeObject | undefined): KubeObject => {
      const spec = { ...((current?.spec as Record<string, unknown>) ?? {}), holderIdentity, leaseDurationSeconds: LEASE_DURATION_SECONDS, renewTime: now };
      if (!current) return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: IDENTITY_LEASE_NAMESPACE, labels }, spec };
      const meta = current.metadata as Record<string, unknown>;
      return { ...current, metadata: { ...meta, labels: { ...(meta.labels as Record<string, string>), ...labels } }, spec };
    };
    try {
      await store.update(ctx, name, desired, { forceAllowCreate: true });
    } catch (e) {
      if (!(isStatusError(e) && e.code === 409)) throw e;
    }
  };

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const loop = (): void => {
    if (stopped) return;
    running = renew()
      .catch((e: unknown) => options.onError?.(e))
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, options.renewIntervalMs ?? RENEW_INTERVAL_MS);
      });
  };
  loop();
  const ready = running;
  return {
    name,
    holderIdentity,
    ready,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
