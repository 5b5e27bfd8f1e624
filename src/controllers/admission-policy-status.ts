// ValidatingAdmissionPolicy status: once a policy generation is seen, status.observedGeneration and
// status.typeChecking are written (src/admission/policy/type-checking.ts: warnings for expressions that do not
// compile against the kinds the policy matches).

import { typeCheckingOf } from '../admission/policy/type-checking.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { Registry } from '../registry/types.ts';
import { cloneJson } from '../apis/json-clone.ts';

type Obj = Record<string, unknown>;

export function startPolicyStatusController(registry: Registry, options: { resyncMs?: number } = {}): { stop(): void } {
  const def = registry.lookup('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies');
  if (!def) return { stop() {} };
  const store = registry.store(def);
  let busy = false;
  // Polls the watch cache (no watcher of its own); writes only policies whose generation it has not recorded.
  const sync = async () => {
    if (busy) return;
    busy = true;
    try {
      const items = (await store.list(loopbackContext(), { resourceVersion: '0' })).items;
      for (const p of items) {
        const generation = p.metadata.generation ?? 0;
        if ((p.status as { observedGeneration?: number } | undefined)?.observedGeneration === generation) continue;
        await store
          .update(
            loopbackContext(),
            p.metadata.name ?? '',
            (cur) => {
              const c = cloneJson(cur!);
              c.status = { ...((c.status as Obj) ?? {}), observedGeneration: c.metadata.generation ?? 0, typeChecking: typeCheckingOf(c, registry) };
              return c;
            },
            { subresource: 'status' },
          )
          .catch(() => undefined);
      }
    } catch {
      // The next round tries again.
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void sync(), options.resyncMs ?? 500);
  timer.unref();
  void sync();
  return { stop: () => clearInterval(timer) };
}
