// ValueClaims in storage: a claim is a key created if absent (so two writes on any instances sharing the storage
// cannot both hold it) and deleted when the write is over. A claim whose process died is taken over once older
// than CLAIM_TTL_MS; writes finish well within it (the request timeout is 60 s by default, claims live for the
// allocation and the store's write only).
import { StorageError, type Storage } from '../storage/types.ts';
import type { ValueClaims } from './types.ts';

export const CLAIM_TTL_MS = 120_000;

interface ClaimValue {
  holder: string;
  /** When the claim was made (ms since the epoch). */
  at: number;
}

function expired(value: string, now: number): boolean {
  try {
    const claim = JSON.parse(value) as Partial<ClaimValue>;
    return typeof claim.at !== 'number' || now - claim.at > CLAIM_TTL_MS;
  } catch {
    return true;
  }
}

const byStorage = new WeakMap<Storage, ValueClaims>();

/** The claims of one storage (one object per storage, so a release is seen by this process's next claim). */
export function storageClaims(storage: Storage, now: () => Date): ValueClaims {
  let claims = byStorage.get(storage);
  if (claims === undefined) {
    claims = createClaims(storage, now);
    byStorage.set(storage, claims);
  }
  return claims;
}

function createClaims(storage: Storage, now: () => Date): ValueClaims {
  /** Releases under way: a claim of the same key by this process waits for them. */
  const releasing = new Map<string, Promise<unknown>>();
  return {
    async claim(key, holder) {
      await releasing.get(key);
      for (let attempt = 0; attempt < 2; attempt++) {
        const value: ClaimValue = { holder, at: now().getTime() };
        try {
          await storage.create(key, JSON.stringify(value));
          return true;
        } catch (e) {
          if (!(e instanceof StorageError && e.code === 'KeyExists')) throw e;
          const current = e.current ?? (await storage.get(key)).kv;
          if (current === undefined) continue; // released meanwhile
          if (!expired(current.value, now().getTime())) return false;
          await storage.delete(key, current.modRevision).catch(() => undefined);
        }
      }
      return false;
    },
    release(key) {
      const done = storage.delete(key).catch(() => undefined).finally(() => {
        if (releasing.get(key) === done) releasing.delete(key);
      });
      releasing.set(key, done);
    },
  };
}
