// NamespaceLifecycle (plugin/pkg/admission/namespace/lifecycle): no new content in a missing or terminating
// namespace, and the system namespaces default, kube-public and kube-system cannot be deleted. The store applies
// the same rules to in-process writers that bypass admission (src/registry/store-namespaces.ts).

import { notFound } from '../../apis/errors.ts';
import { loopbackContext } from '../../registry/registry.ts';
import { forbiddenError, namespaceTerminating } from '../../registry/store-errors.ts';
import { IMMORTAL_NAMESPACES, NAMESPACES } from '../../registry/store-namespaces.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import type { AdmissionPlugin } from '../types.ts';

export function namespaceReader(registry: Registry): (name: string) => Promise<KubeObject | undefined> {
  if (registry.readNamespace) return registry.readNamespace.bind(registry);
  return async (name) => {
    const def = registry.lookup('', 'v1', 'namespaces');
    if (!def || !name) return undefined;
    const store = registry.store(def);
    const absent = (e: unknown): undefined => {
      if ((e as { code?: number }).code === 404 || (e as { code?: number }).code === 400) return undefined;
      throw e;
    };
    // As kube's plugin: the informer's copy (the watch cache), and a live read when it has not seen the namespace yet.
    const cached = await store.get(loopbackContext(), name, { resourceVersion: '0' }).catch(absent);
    return cached ?? (await store.get(loopbackContext(), name).catch(absent));
  };
}

export function namespaceLifecycle(registry: Registry): AdmissionPlugin {
  const getNamespace = namespaceReader(registry);
  return {
    name: 'NamespaceLifecycle',
    async admit(a) {
      if (a.kind.group === '' && a.kind.kind === 'Namespace') {
        if (a.operation === 'DELETE' && IMMORTAL_NAMESPACES.includes(a.name)) throw forbiddenError(NAMESPACES, a.name, 'this namespace may not be deleted');
        return;
      }
      if (a.operation !== 'CREATE' || !a.namespace) return;
      if (a.resource.group === 'authorization.k8s.io' && a.resource.resource === 'localsubjectaccessreviews') return;
      const def = a.resource;
      const ns = await getNamespace(a.namespace);
      if (!ns) throw notFound(NAMESPACES, a.namespace);
      if ((ns.status as { phase?: unknown } | undefined)?.phase === 'Terminating') {
        const m = a.object?.metadata;
        throw namespaceTerminating({ group: def.group, resource: def.resource }, m?.name || m?.generateName || 'Unknown', a.namespace);
      }
    },
  };
}
