// ResourceQuota admission (plugin/pkg/admission/resourcequota): a create is checked against every quota of its
// namespace whose status.hard names a resource the object uses; over the limit it is refused with kube's
// "exceeded quota" message, otherwise the quota's status.used is raised at once (the status controller recounts).

import { forbiddenError } from '../../registry/store-errors.ts';
import { loopbackContext } from '../../registry/registry.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import { nanosOf, isBinary } from '../plugins/resources.ts';
import { amountText, missingPodResources, usageOf } from './usage.ts';
import { createInformer } from '../informer.ts';
import { cloneJson } from '../../apis/json-clone.ts';

type Obj = Record<string, string>;

function refuse(a: AdmissionAttributes, message: string) {
  const m = a.object?.metadata;
  return forbiddenError({ group: a.resource.group, resource: a.resource.resource }, m?.name || m?.generateName || a.name, message);
}

const sortedPairs = (pairs: [string, string][]): string => pairs.sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join(',');

export function resourceQuotaPlugin(registry: Registry): AdmissionPlugin {
  const informer = createInformer(registry, '', 'v1', 'resourcequotas');
  // Started with the server, as kube's informers are, not by the first create.
  setImmediate(() => informer.snapshot().catch(() => undefined)).unref();
  return {
    name: 'ResourceQuota',
    close: () => informer.stop(),
    handles: (op) => op === 'CREATE',
    validate(a) {
      if (!a.namespace || a.subResource || !a.object) return;
      if (a.resource.group === '' && a.resource.resource === 'namespaces') return;
      // Most namespaces have no quota: then nothing waits.
      const known = informer.now();
      if (known && !known.items.some((q) => q.metadata.namespace === a.namespace)) return;
      return charge(a, a.object);
    },
  };

  async function charge(a: AdmissionAttributes, object: KubeObject): Promise<void> {
    const def = registry.lookup('', 'v1', 'resourcequotas');
    if (!def) return;
    const store = registry.store(def);
    // kube's quota admission reads a lister; so does this (a map kept by a watch, not a list per create).
    const quotas = (await informer.snapshot()).items.filter((q) => q.metadata.namespace === a.namespace);
    if (quotas.length === 0) return;
    const usage = usageOf(a.resource.group, a.resource.resource, object);
    const updates: { quota: KubeObject; used: Obj }[] = [];
    for (const q of quotas) {
      const status = (q.status ?? {}) as { hard?: Obj; used?: Obj };
      const hard = status.hard ?? {};
      const tracked = Object.keys(hard).filter((r) => usage.has(r) || (a.resource.resource === 'pods' && a.resource.group === '' && /^(requests|limits)\.|^(cpu|memory)$/.test(r)));
      if (tracked.length === 0) continue;
      const name = q.metadata.name ?? '';
      if (a.resource.group === '' && a.resource.resource === 'pods') {
        const missing = missingPodResources(object, tracked);
        if (missing.length) throw refuse(a, `failed quota: ${name}: must specify ${missing.join('; ')}`);
      }
      const used = status.used;
      for (const r of tracked) if (used?.[r] === undefined) throw refuse(a, `status unknown for quota: ${name}, resource: ${r}`);
      const over: string[] = [];
      const next: Obj = { ...used };
      for (const r of tracked) {
        const add = usage.get(r);
        if (!add) continue;
        const total = nanosOf(used![r]) + add.nanos;
        if (total > nanosOf(hard[r])) over.push(r);
        next[r] = amountText({ nanos: total, binary: add.binary && isBinary(used![r] === '0' ? hard[r] : used![r]) });
      }
      if (over.length) {
        const requested = sortedPairs(over.map((r) => [r, amountText(usage.get(r))]));
        const usedText = sortedPairs(over.map((r) => [r, used![r]]));
        const limited = sortedPairs(over.map((r) => [r, hard[r]]));
        throw refuse(a, `exceeded quota: ${name}, requested: ${requested}, used: ${usedText}, limited: ${limited}`);
      }
      updates.push({ quota: q, used: next });
    }
    if (a.dryRun) return;
    for (const u of updates) {
      await store
        .update(
          loopbackContext(a.namespace),
          u.quota.metadata.name ?? '',
          (cur) => {
            const c = cloneJson(cur!);
            const status = (c.status ?? {}) as { used?: Obj };
            const used = { ...(status.used ?? {}) };
            for (const [r, v] of Object.entries(u.used)) {
              const delta = nanosOf(v) - nanosOf((u.quota.status as { used?: Obj }).used?.[r] ?? '0');
              used[r] = amountText({ nanos: nanosOf(used[r] ?? '0') + delta, binary: isBinary(v) });
            }
            c.status = { ...status, used };
            return c;
          },
          { subresource: 'status' },
        )
        .catch(() => undefined);
    }
  }
}
