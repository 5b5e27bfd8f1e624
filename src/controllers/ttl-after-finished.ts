// kube-controller-manager's ttl-after-finished controller: a Job with spec.ttlSecondsAfterFinished is deleted (in the
// foreground, so its pods go first, and only if it is still the same Job) that many seconds after its Complete or
// Failed condition became True, on the server's clock (the test controls' clock moves it too).

import { clockNow, onClockChange } from '../apis/clock.ts';
import { isStatusError } from '../apis/errors.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry, ResourceStore } from '../registry/types.ts';
import { createKeyedQueue, followWatch } from './work-queue.ts';

type Obj = Record<string, unknown>;

/** When a finished Job may go, in ms since the epoch; undefined when it has no TTL or has not finished. */
export function expiresAt(job: KubeObject): number | undefined {
  const ttl = (job.spec as Obj | undefined)?.ttlSecondsAfterFinished;
  if (typeof ttl !== 'number' || job.metadata.deletionTimestamp) return undefined;
  const conditions = (job.status as Obj | undefined)?.conditions;
  const finished = (Array.isArray(conditions) ? (conditions as Obj[]) : []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
  if (!finished) return undefined;
  const at = Date.parse(String(finished.lastTransitionTime ?? ''));
  // kube: "unable to find the time when the Job finished"; nothing to count from.
  if (Number.isNaN(at)) return undefined;
  return at + ttl * 1000;
}

export function startTtlAfterFinished(registry: Registry, options: { retryMs?: number } = {}): { stop(): Promise<void> } {
  const retryMs = options.retryMs ?? 1000;
  const store = (): ResourceStore | undefined => {
    const def = registry.lookup('batch', 'v1', 'jobs');
    return def ? registry.store(def) : undefined;
  };
  /** The Jobs waiting for their time, by "namespace/name". */
  const waiting = new Set<string>();
  const queue = createKeyedQueue(async (key) => {
    const s = store();
    if (!s) return;
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    let job: KubeObject;
    try {
      job = await s.get(loopbackContext(namespace), name);
    } catch (e) {
      if (isStatusError(e) && e.code === 404) return void waiting.delete(key);
      throw e;
    }
    const at = expiresAt(job);
    if (at === undefined) return void waiting.delete(key);
    const left = at - clockNow();
    if (left > 0) {
      waiting.add(key);
      queue.later(() => queue.enqueue(key), Math.min(left, 2 ** 31 - 1));
      return;
    }
    waiting.delete(key);
    await s.delete(loopbackContext(namespace), name, { propagationPolicy: 'Foreground', preconditions: { uid: job.metadata.uid } }).catch((e: unknown) => {
      if (!(isStatusError(e) && (e.code === 404 || e.code === 409))) throw e;
    });
  }, retryMs);
  const stopWatch = followWatch(
    store,
    loopbackContext(),
    (ev) => {
      const job = ev.object as KubeObject;
      const key = `${job.metadata.namespace ?? ''}/${job.metadata.name ?? ''}`;
      if (ev.type === 'DELETED') waiting.delete(key);
      else if (expiresAt(job) !== undefined) queue.enqueue(key);
    },
    queue,
    retryMs,
  );
  const stopClock = onClockChange(() => {
    for (const key of waiting) queue.enqueue(key);
  });
  return {
    async stop() {
      stopClock();
      stopWatch();
      await queue.stop();
    },
  };
}
