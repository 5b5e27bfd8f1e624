// MutatingAdmissionWebhook and ValidatingAdmissionWebhook: the configured webhooks (plus the in-process hooks of
// startCapstan's `admission` option) as plugins of the chain.

import type { AdmissionPlugin } from '../types.ts';
import type { PluginDeps } from '../plugin-set.ts';
import { namespaceReader } from '../plugins/namespace-lifecycle.ts';
import { dispatchMutating, dispatchValidating, type DispatchDeps } from './dispatch.ts';
import { inProcessWebhook } from './in-process.ts';
import { webhookSource } from './source.ts';
import type { Webhook } from './webhook.ts';

function dispatchDeps(deps: PluginDeps): DispatchDeps {
  return { registry: deps.registry, authorizer: deps.authorizer, getNamespace: namespaceReader(deps.registry) };
}

export async function mutatingWebhookPlugin(deps: PluginDeps): Promise<AdmissionPlugin> {
  const source = webhookSource(deps.registry, 'mutatingwebhookconfigurations');
  // The informer is up before the server serves (its watch is there from the start, not from the first write).
  await source.current();
  const extra = deps.inProcess?.mutate ? [inProcessWebhook('in-process.mutate.capstan.dev', deps.inProcess.mutate, deps.inProcess.sideEffects)] : [];
  const d = dispatchDeps(deps);
  return {
    name: 'MutatingAdmissionWebhook',
    close: () => source.stop(),
    admit(a) {
      const run = (hooks: readonly Webhook[]) => (hooks.length === 0 && extra.length === 0 ? undefined : dispatchMutating(extra.length ? [...hooks, ...extra] : hooks, a, d));
      const hooks = source.now();
      return hooks ? run(hooks) : source.current().then(run);
    },
  };
}

export async function validatingWebhookPlugin(deps: PluginDeps): Promise<AdmissionPlugin> {
  const source = webhookSource(deps.registry, 'validatingwebhookconfigurations');
  await source.current();
  const extra = deps.inProcess?.validate ? [inProcessWebhook('in-process.validate.capstan.dev', deps.inProcess.validate, deps.inProcess.sideEffects)] : [];
  const d = dispatchDeps(deps);
  return {
    name: 'ValidatingAdmissionWebhook',
    close: () => source.stop(),
    validate(a) {
      const run = (hooks: readonly Webhook[]) => (hooks.length === 0 && extra.length === 0 ? undefined : dispatchValidating(extra.length ? [...hooks, ...extra] : hooks, a, d));
      const hooks = source.now();
      return hooks ? run(hooks) : source.current().then(run);
    },
  };
}
