// The webhook configurations in force: read through the registry's store on each admission (so a change is seen
// by the next request, without restart), compiled once per configuration version, in kube's order (configurations
// by name, webhooks in their order).

import { loopbackContext } from '../../registry/registry.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import { displayUrlOf, httpsTransport, type ClientConfig } from './client.ts';
import { webhookFrom, type Webhook } from './webhook.ts';

export interface WebhookSource {
  current(): Promise<readonly Webhook[]>;
}

export function webhookSource(registry: Registry, resource: 'mutatingwebhookconfigurations' | 'validatingwebhookconfigurations'): WebhookSource {
  const compiled = new Map<string, { version: string; webhooks: Webhook[] }>();
  let last: { key: string; webhooks: Webhook[] } = { key: '', webhooks: [] };
  const mutating = resource === 'mutatingwebhookconfigurations';
  return {
    async current() {
      const def = registry.lookup('admissionregistration.k8s.io', 'v1', resource);
      if (!def) return [];
      const items = (await registry.store(def).list(loopbackContext(), {})).items;
      let key = '';
      for (const c of items) key += `${c.metadata.uid}@${c.metadata.resourceVersion};`;
      if (key === last.key) return last.webhooks;
      const sorted = [...items].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
      const webhooks: Webhook[] = [];
      const seen = new Set<string>();
      for (const c of sorted) {
        const uid = c.metadata.uid ?? '';
        seen.add(uid);
        const version = c.metadata.resourceVersion ?? '';
        let entry = compiled.get(uid);
        if (!entry || entry.version !== version) {
          entry = { version, webhooks: compileConfiguration(registry, c, mutating) };
          compiled.set(uid, entry);
        }
        webhooks.push(...entry.webhooks);
      }
      for (const uid of [...compiled.keys()]) if (!seen.has(uid)) compiled.delete(uid);
      last = { key, webhooks };
      return webhooks;
    },
  };
}

function compileConfiguration(registry: Registry, config: KubeObject, mutating: boolean): Webhook[] {
  const list = Array.isArray(config.webhooks) ? (config.webhooks as Record<string, unknown>[]) : [];
  return list.map((w) => {
    const cc = (w.clientConfig ?? {}) as ClientConfig;
    return webhookFrom(w, config.metadata.name ?? '', mutating, httpsTransport(registry, cc), displayUrlOf(cc));
  });
}
