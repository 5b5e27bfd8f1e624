// kube-controller-manager's csrcleaner: once an hour (and here whenever the test controls move the clock), requests
// past their time are deleted: issued ones an hour after their approval, or once their certificate has expired;
// denied and failed ones an hour after that condition; pending ones a day after their creation.

import { X509Certificate } from 'node:crypto';
import { clockNow, onClockChange } from '../apis/clock.ts';
import { isStatusError } from '../apis/errors.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry } from '../registry/types.ts';
import { pemBlocks } from '../server/pem.ts';
import { csrStore, isIssued } from './csr-signing.ts';

type Obj = Record<string, unknown>;

const HOUR = 3600 * 1000;
const POLLING_INTERVAL_MS = HOUR;
const APPROVED_EXPIRATION_MS = HOUR;
const DENIED_EXPIRATION_MS = HOUR;
const PENDING_EXPIRATION_MS = 24 * HOUR;

/** A time set and more than `ms` before now. */
const olderThan = (time: unknown, ms: number, now: number): boolean => typeof time === 'string' && time !== '' && Date.parse(time) < now - ms;

/** When the issued certificate (the first PEM block) expires; undefined when there is none that parses. */
function certificateNotAfter(csr: KubeObject): number | undefined {
  const block = pemBlocks(Buffer.from(String((csr.status as Obj).certificate), 'base64').toString('latin1'))[0];
  if (!block) return undefined;
  try {
    return Date.parse(new X509Certificate(Buffer.from(block.body, 'base64')).validTo);
  } catch {
    return undefined;
  }
}

/** Whether the cleaner deletes this request now. */
export function isPastDeadline(csr: KubeObject, now: number): boolean {
  const conditions = (csr.status as Obj | undefined)?.conditions;
  const list = Array.isArray(conditions) ? (conditions as Obj[]) : [];
  const issued = isIssued(csr);
  if (list.length === 0 && olderThan(csr.metadata.creationTimestamp, PENDING_EXPIRATION_MS, now)) return true;
  for (const c of list) {
    if (c.type === 'Denied' && olderThan(c.lastUpdateTime, DENIED_EXPIRATION_MS, now)) return true;
    if (c.type === 'Failed' && olderThan(c.lastUpdateTime, DENIED_EXPIRATION_MS, now)) return true;
    if (c.type === 'Approved' && issued && olderThan(c.lastUpdateTime, APPROVED_EXPIRATION_MS, now)) return true;
  }
  if (issued && list.some((c) => c.type === 'Approved')) {
    const notAfter = certificateNotAfter(csr);
    if (notAfter !== undefined && now > notAfter) return true;
  }
  return false;
}

export function startCsrCleaning(registry: Registry): { stop(): void } {
  let running = false;
  const clean = async (): Promise<void> => {
    const store = csrStore(registry);
    if (!store || running) return;
    running = true;
    try {
      const now = clockNow();
      for (const csr of (await store.list(loopbackContext(), { resourceVersion: '0' })).items) {
        if (!isPastDeadline(csr, now)) continue;
        await store.delete(loopbackContext(), csr.metadata.name ?? '', { preconditions: { uid: csr.metadata.uid } }).catch((e: unknown) => {
          if (!(isStatusError(e) && (e.code === 404 || e.code === 409))) throw e;
        });
      }
    } catch {
      // The next round tries again.
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void clean(), POLLING_INTERVAL_MS);
  timer.unref();
  const stopClock = onClockChange(() => void clean());
  void clean();
  return {
    stop() {
      clearInterval(timer);
      stopClock();
    },
  };
}
