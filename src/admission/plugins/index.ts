// The implemented admission plugins by kube name. Registered names without an entry (ALL_ORDERED_PLUGINS) are
// accepted by the flags and do nothing: they act on nodes, kubelets or objects Capstan does not run.

import type { PluginFactory } from '../plugin-set.ts';
import { namespaceLifecycle, namespaceReader } from './namespace-lifecycle.ts';
import { validatingAdmissionPolicyPlugin } from '../policy/plugin.ts';
import { limitRanger } from './limit-ranger.ts';
import { alwaysAdmit, alwaysDeny, alwaysPullImages, denyServiceExternalIPs, namespaceAutoProvision, namespaceExists, runtimeClass, taintNodesByCondition } from './opt-in.ts';
import { podLister, podSecurity, type PodSecurityConfiguration } from './pod-security.ts';
import { defaultIngressClass, defaultStorageClass, defaultTolerationSeconds, priority } from './defaults.ts';
import { storageObjectInUseProtection } from './storage-protection.ts';
import { serviceAccountPlugin } from './service-account.ts';
import { persistentVolumeClaimResize } from './pvc-resize.ts';
import { resourceQuotaPlugin } from '../quota/plugin.ts';
import { mutatingWebhookPlugin, validatingWebhookPlugin } from '../webhook/plugins.ts';

export const PLUGIN_FACTORIES: Readonly<Record<string, PluginFactory>> = {
  AlwaysAdmit: () => alwaysAdmit(),
  NamespaceAutoProvision: ({ registry }) => namespaceAutoProvision(registry, namespaceReader(registry)),
  NamespaceLifecycle: ({ registry }) => namespaceLifecycle(registry),
  NamespaceExists: ({ registry }) => namespaceExists(namespaceReader(registry)),
  TaintNodesByCondition: () => taintNodesByCondition(),
  AlwaysPullImages: () => alwaysPullImages(),
  LimitRanger: ({ registry }) => limitRanger(registry),
  ServiceAccount: ({ registry }) => serviceAccountPlugin(registry),
  PodSecurity: ({ registry, config }) => podSecurity(namespaceReader(registry), (config ?? {}) as PodSecurityConfiguration, podLister(registry)),
  Priority: ({ registry }) => priority(registry),
  DefaultTolerationSeconds: () => defaultTolerationSeconds(),
  DefaultStorageClass: ({ registry }) => defaultStorageClass(registry),
  StorageObjectInUseProtection: () => storageObjectInUseProtection(),
  PersistentVolumeClaimResize: ({ registry }) => persistentVolumeClaimResize(registry),
  RuntimeClass: ({ registry }) => runtimeClass(registry),
  DefaultIngressClass: ({ registry }) => defaultIngressClass(registry),
  DenyServiceExternalIPs: () => denyServiceExternalIPs(),
  MutatingAdmissionWebhook: mutatingWebhookPlugin,
  ValidatingAdmissionPolicy: ({ registry, authorizer }) => validatingAdmissionPolicyPlugin({ registry, authorizer, getNamespace: namespaceReader(registry) }),
  ValidatingAdmissionWebhook: validatingWebhookPlugin,
  ResourceQuota: ({ registry }) => resourceQuotaPlugin(registry),
  AlwaysDeny: () => alwaysDeny(),
};
