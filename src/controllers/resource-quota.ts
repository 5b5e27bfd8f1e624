// The resource quota controller: keeps every ResourceQuota's status current (status.hard from spec.hard,
// status.used recounted from the namespace's objects) on a short resync, so usage freed
// by deletes comes back (kube's replenishment). Admission raises status.used at once on creates between recounts.

import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry } from '../registry/types.ts';
import { amountText, countedResources, usageOf, type Amount } from '../admission/quota/usage.ts';
import { cloneJson } from '../apis/json-clone.ts';
import { coalescedPass } from './work-queue.ts';

export interface QuotaController {
  /** Recount now (tests, and after a quota event). */
  sync(): Promise<void>;
  stop(): void;
}

type Obj = Record<string, string>;

async function recount(registry: Registry, quota: KubeObject): Promise<Obj> {
  const hard = ((quota.spec as { hard?: Obj } | undefined)?.hard ?? {}) as Obj;
  const names = Object.keys(hard);
  const namespace = quota.metadata.namespace ?? '';
  const totals = new Map<string, Amount>();
  for (const gr of countedResources(names)) {
    const def = registry.all().find((d) => d.group === gr.group && d.resource === gr.resource);
    if (!def) continue;
    const items = (await registry.store(def).list(loopbackContext(namespace), {})).items;
    for (const item of items) {
      for (const [k, v] of usageOf(gr.group, gr.resource, item)) {
        const t = totals.get(k);
        totals.set(k, t ? { nanos: t.nanos + v.nanos, binary: t.binary && v.binary } : { ...v });
      }
    }
  }
  const used: Obj = {};
  for (const n of names) used[n] = amountText(totals.get(n));
  return used;
}

const same = (a: Obj | undefined, b: Obj): boolean => !!a && Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v);

export function startQuotaController(registry: Registry, options: { resyncMs?: number } = {}): QuotaController {
  let stopped = false;
  const syncOnce = async (): Promise<void> => {
    const def = registry.lookup('', 'v1', 'resourcequotas');
    if (!def) return;
    const store = registry.store(def);
    const quotas = (await store.list(loopbackContext(), {})).items;
    for (const q of quotas) {
      const hard = ((q.spec as { hard?: Obj } | undefined)?.hard ?? {}) as Obj;
      const used = await recount(registry, q);
      const status = (q.status ?? {}) as { hard?: Obj; used?: Obj };
      if (same(status.hard, hard) && same(status.used, used)) continue;
      await store
        .update(
          loopbackContext(q.metadata.namespace ?? ''),
          q.metadata.name ?? '',
          (cur) => ({ ...cloneJson(cur!), status: { hard: { ...hard }, used } }),
          { subresource: 'status' },
        )
        .catch(() => undefined);
    }
  };
  const sync = coalescedPass(syncOnce, () => stopped);
  // A short resync, no watch: a new quota gets its status within a resync (kube's controller takes a moment too),
  // and the controller holds no watcher of its own.
  const timer = setInterval(() => void sync(), options.resyncMs ?? 500);
  timer.unref();
  void sync();
  return {
    sync,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
