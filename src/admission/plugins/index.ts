// The implemented admission plugins by kube name. Registered names without an entry (ALL_ORDERED_PLUGINS) are
// accepted by the flags and do nothing: they act on nodes, kubelets or objects Capstan does not run.

import type { PluginFactory } from '../plugin-set.ts';
import { namespaceLifecycle, namespaceReader } from './namespace-lifecycle.ts';
import { validatingAdmissionPolicyPlugin } from '../policy/plugin.ts';
import { limitRanger } from './limit-ranger.ts';
import { podSecurity } from './pod-security.ts';
import { defaultIngressClass, defaultStorageClass, defaultTolerationSeconds, priority } from './defaults.ts';
import { resourceQuotaPlugin } from '../quota/plugin.ts';
import { mutatingWebhookPlugin, validatingWebhookPlugin } from '../webhook/plugins.ts';

export const PLUGIN_FACTORIES: Readonly<Record<string, PluginFactory>> = {
  NamespaceLifecycle: ({ registry }) => namespaceLifecycle(registry),
  LimitRanger: ({ registry }) => limitRanger(registry),
  PodSecurity: ({ registry }) => podSecurity(namespaceReader(registry)),
  Priority: ({ registry }) => priority(registry),
  DefaultTolerationSeconds: () => defaultTolerationSeconds(),
  DefaultStorageClass: ({ registry }) => defaultStorageClass(registry),
  DefaultIngressClass: ({ registry }) => defaultIngressClass(registry),
  MutatingAdmissionWebhook: mutatingWebhookPlugin,
  ValidatingAdmissionPolicy: ({ registry, authorizer }) => validatingAdmissionPolicyPlugin({ registry, authorizer, getNamespace: namespaceReader(registry) }),
  ValidatingAdmissionWebhook: validatingWebhookPlugin,
  ResourceQuota: ({ registry }) => resourceQuotaPlugin(registry),
};
