// The webhook configurations in force: kept by an informer over the registry's store (a change is seen by the
// next request once the watch cache has it, without restart), compiled once per configuration version, in kube's order (configurations
// by name, webhooks in their order).

import { createInformer } from '../informer.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import { displayUrlOf, httpsTransport, type ClientConfig } from './client.ts';
import { webhookFrom, type Webhook } from './webhook.ts';

export interface WebhookSource {
  current(): Promise<readonly Webhook[]>;
  stop(): void;
}

export function webhookSource(registry: Registry, resource: 'mutatingwebhookconfigurations' | 'validatingwebhookconfigurations'): WebhookSource {
  const informer = createInformer(registry, 'admissionregistration.k8s.io', 'v1', resource);
  const compiled = new Map<string, { version: string; webhooks: Webhook[] }>();
  let last: { version: number; webhooks: Webhook[] } = { version: -1, webhooks: [] };
  const mutating = resource === 'mutatingwebhookconfigurations';
  return {
    async current() {
      const snap = await informer.snapshot();
      if (snap.version === last.version) return last.webhooks;
      const webhooks: Webhook[] = [];
      const seen = new Set<string>();
      for (const c of snap.items) {
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
      last = { version: snap.version, webhooks };
      return webhooks;
    },
    stop: () => informer.stop(),
  };
}

function compileConfiguration(registry: Registry, config: KubeObject, mutating: boolean): Webhook[] {
  const list = Array.isArray(config.webhooks) ? (config.webhooks as Record<string, unknown>[]) : [];
  return list.map((w) => {
    const cc = (w.clientConfig ?? {}) as ClientConfig;
    return webhookFrom(w, config.metadata.name ?? '', mutating, httpsTransport(registry, cc), displayUrlOf(cc));
  });
}
