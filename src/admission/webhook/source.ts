// The webhook configurations in force: kept by an informer over the registry's store (a change is seen by the
// next request once the watch cache has it, without restart), compiled once per configuration version, in kube's order (configurations
// by name, webhooks in their order).

import { builtList, createInformer, type Built } from '../informer.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import { displayUrlOf, httpsTransport, type ClientConfig } from './client.ts';
import { webhookFrom, type Webhook } from './webhook.ts';

export interface WebhookSource {
  current(): Promise<readonly Webhook[]>;
  /** The webhooks now when the informer is watching (no waiting), else undefined: call current(). */
  now(): readonly Webhook[] | undefined;
  stop(): void;
}

export function webhookSource(registry: Registry, resource: 'mutatingwebhookconfigurations' | 'validatingwebhookconfigurations'): WebhookSource {
  const mutating = resource === 'mutatingwebhookconfigurations';
  const configurations = builtList(createInformer(registry, 'admissionregistration.k8s.io', 'v1', resource), (c) => compileConfiguration(registry, c, mutating));
  let last: { from: readonly Built<Webhook[]>[]; webhooks: readonly Webhook[] } = { from: [], webhooks: [] };
  const webhooksOf = (from: readonly Built<Webhook[]>[]): readonly Webhook[] => {
    if (from !== last.from) last = { from, webhooks: from.flatMap((c) => c.built) };
    return last.webhooks;
  };
  return {
    current: async () => webhooksOf(await configurations.read()),
    now() {
      const from = configurations.now();
      return from && webhooksOf(from);
    },
    stop: () => configurations.stop(),
  };
}

function compileConfiguration(registry: Registry, config: KubeObject, mutating: boolean): Webhook[] {
  const list = Array.isArray(config.webhooks) ? (config.webhooks as Record<string, unknown>[]) : [];
  return list.map((w) => {
    const cc = (w.clientConfig ?? {}) as ClientConfig;
    return webhookFrom(w, config.metadata.name ?? '', mutating, httpsTransport(registry, cc), displayUrlOf(cc));
  });
}
