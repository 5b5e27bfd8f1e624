// MutatingAdmissionWebhook and ValidatingAdmissionWebhook: the configured webhooks (plus the in-process hooks of
// startCapstan's `admission` option) as plugins of the chain.

import type { AdmissionPlugin } from '../types.ts';
import type { PluginDeps } from '../plugin-set.ts';
import { namespaceReader } from '../plugins/namespace-lifecycle.ts';
import { dispatchMutating, dispatchValidating, type DispatchDeps } from './dispatch.ts';
import { inProcessWebhook } from './in-process.ts';
import { webhookSource } from './source.ts';

function dispatchDeps(deps: PluginDeps): DispatchDeps {
  return { registry: deps.registry, authorizer: deps.authorizer, getNamespace: namespaceReader(deps.registry) };
}

export function mutatingWebhookPlugin(deps: PluginDeps): AdmissionPlugin {
  const source = webhookSource(deps.registry, 'mutatingwebhookconfigurations');
  const extra = deps.inProcess?.mutate ? [inProcessWebhook('in-process.mutate.capstan.dev', deps.inProcess.mutate, deps.inProcess.sideEffects)] : [];
  const d = dispatchDeps(deps);
  return {
    name: 'MutatingAdmissionWebhook',
    close: () => source.stop(),
    async admit(a) {
      const hooks = await source.current();
      await dispatchMutating(extra.length ? [...hooks, ...extra] : hooks, a, d);
    },
  };
}

export function validatingWebhookPlugin(deps: PluginDeps): AdmissionPlugin {
  const source = webhookSource(deps.registry, 'validatingwebhookconfigurations');
  const extra = deps.inProcess?.validate ? [inProcessWebhook('in-process.validate.capstan.dev', deps.inProcess.validate, deps.inProcess.sideEffects)] : [];
  const d = dispatchDeps(deps);
  return {
    name: 'ValidatingAdmissionWebhook',
    close: () => source.stop(),
    async validate(a) {
      const hooks = await source.current();
      await dispatchValidating(extra.length ? [...hooks, ...extra] : hooks, a, d);
    },
  };
}
