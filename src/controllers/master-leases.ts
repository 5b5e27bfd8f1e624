// kube's apiserver master leases (pkg/controlplane/reconcilers/lease.go, storageLeases): each apiserver keeps the
// key /registry/masterleases/<its IP> alive with a TTL, holding an Endpoints object that names the IP; the keys
// present are the live apiservers. Written straight to storage, as kube writes them, not through the API.

import { StorageError, type KeyValue, type Storage } from '../storage/types.ts';
import { REGISTRY_ROOT } from '../storage/keys.ts';

export interface MasterLeases {
  /** The IPs of the live leases, in key order. */
  list(): Promise<string[]>;
  /** Adds or refreshes this apiserver's lease. */
  update(ip: string): Promise<void>;
  /** Removes this apiserver's lease (absent already: fine). */
  remove(ip: string): Promise<void>;
}

/** kube's DefaultEndpointReconcilerTTL; the reconciler refreshes every 10 s. */
export const MASTER_LEASE_TTL_SECONDS = 15;
export const MASTER_LEASES_PREFIX = `${REGISTRY_ROOT}/masterleases/`;

type Obj = Record<string, unknown>;

function firstAddress(value: string): string | undefined {
  try {
    const ep = JSON.parse(value) as { subsets?: { addresses?: { ip?: unknown }[] }[] };
    const ip = ep.subsets?.[0]?.addresses?.[0]?.ip;
    return typeof ip === 'string' && ip !== '' ? ip : undefined;
  } catch {
    return undefined;
  }
}

function generationOf(kv: KeyValue | undefined): number {
  if (!kv) return 0;
  try {
    const g = (JSON.parse(kv.value) as { metadata?: { generation?: unknown } }).metadata?.generation;
    return typeof g === 'number' ? g : 0;
  } catch {
    return 0;
  }
}

/**
 * The Endpoints kube's GuaranteedUpdate stores for a lease: ObjectMeta carries only the generation, bumped on every
 * refresh (kube must change something for the write, and with it the TTL, to happen).
 */
function leaseValue(ip: string, generation: number): string {
  const endpoints: Obj = { kind: 'Endpoints', apiVersion: 'v1', metadata: { generation, creationTimestamp: null }, subsets: [{ addresses: [{ ip }] }] };
  return JSON.stringify(endpoints);
}

const retryable = (e: unknown) => e instanceof StorageError && (e.code === 'Conflict' || e.code === 'KeyExists' || e.code === 'NotFound');

/** The leases of a storage that can write with a TTL; undefined for one that cannot (memory, sqlite). */
export function masterLeasesOf(storage: Storage, ttlSeconds = MASTER_LEASE_TTL_SECONDS): MasterLeases | undefined {
  const writeWithTtl = storage.writeWithTtl?.bind(storage);
  if (!writeWithTtl) return undefined;
  return {
    async list() {
      const { kvs } = await storage.range(MASTER_LEASES_PREFIX);
      const ips: string[] = [];
      for (const kv of kvs) {
        const ip = firstAddress(kv.value);
        if (ip !== undefined) ips.push(ip);
      }
      return ips;
    },
    async update(ip) {
      const key = MASTER_LEASES_PREFIX + ip;
      for (let attempt = 0; ; attempt++) {
        const { kv } = await storage.get(key);
        try {
          await writeWithTtl(key, leaseValue(ip, generationOf(kv) + 1), kv?.modRevision ?? 0, ttlSeconds);
          return;
        } catch (e) {
          if (!retryable(e) || attempt >= 5) throw e;
        }
      }
    },
    async remove(ip) {
      try {
        await storage.delete(MASTER_LEASES_PREFIX + ip);
      } catch (e) {
        if (!(e instanceof StorageError && e.code === 'NotFound')) throw e;
      }
    },
  };
}
