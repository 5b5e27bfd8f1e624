// Which admission plugins run, in which order: kube-apiserver 1.31's registered plugins (AllOrderedPlugins), its
// default-on set, --enable-admission-plugins / --disable-admission-plugins with kube's validation messages, and
// --admission-control-config-file (an AdmissionConfiguration whose per-plugin configuration reaches the plugin).

import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseYaml } from '../encoding/yaml.ts';
import type { Registry } from '../registry/types.ts';
import type { Authorizer } from '../auth/authz/types.ts';
import { createChain } from './chain.ts';
import type { AdmissionChain, AdmissionPlugin } from './types.ts';
import type { InProcessAdmission } from './webhook/in-process.ts';

/** kube-apiserver 1.31's plugins in the order the chain runs them (pkg/kubeapiserver/options/plugins.go). */
export const ALL_ORDERED_PLUGINS: readonly string[] = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
];

/** The plugins on unless disabled (DefaultOffAdmissionPlugins' complement). */
export const DEFAULT_ON_PLUGINS: readonly string[] = [
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'TaintNodesByCondition',
  'PodSecurity',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
];

/** Go's fmt %v of a sorted []string: [a b]. */
const goList = (xs: readonly string[]): string => `[${[...xs].sort().join(' ')}]`;

/** AdmissionOptions.Validate: kube's messages, [] when valid. */
export function validatePluginFlags(enable: readonly string[], disable: readonly string[]): string[] {
  const known = new Set(ALL_ORDERED_PLUGINS);
  const errors: string[] = [];
  for (const p of enable) if (!known.has(p)) errors.push(`enable-admission-plugins plugin ${JSON.stringify(p)} is unknown`);
  for (const p of disable) if (!known.has(p)) errors.push(`disable-admission-plugins plugin ${JSON.stringify(p)} is unknown`);
  const both = [...new Set(enable)].filter((p) => disable.includes(p));
  if (both.length > 0) errors.push(`${goList(both)} in enable-admission-plugins and disable-admission-plugins overlapped`);
  return errors;
}

/** The enabled plugins in chain order: the defaults plus --enable, less --disable. */
export function enabledPlugins(enable: readonly string[], disable: readonly string[]): string[] {
  const on = new Set([...DEFAULT_ON_PLUGINS, ...enable]);
  for (const p of disable) on.delete(p);
  return ALL_ORDERED_PLUGINS.filter((p) => on.has(p));
}

/** What plugin factories may use. */
export interface PluginDeps {
  readonly registry: Registry;
  /** The server's authorizer (the CEL `authorizer` variable of policies and match conditions). */
  readonly authorizer?: Authorizer;
  /** startCapstan's in-process admission functions (run by the webhook plugins). */
  readonly inProcess?: InProcessAdmission;
  /** The plugin's configuration from --admission-control-config-file, if any. */
  readonly config?: unknown;
}

export type PluginFactory = (deps: PluginDeps) => AdmissionPlugin | undefined | Promise<AdmissionPlugin | undefined>;

/**
 * --admission-control-config-file: an AdmissionConfiguration (apiserver.config.k8s.io/v1 or v1alpha1), each plugin's
 * configuration inline or in a file named by `path` (relative to the configuration file).
 */
export async function readAdmissionConfigFile(path: string): Promise<Map<string, unknown>> {
  const text = await readFile(path, 'utf8');
  const doc = parseYaml(text).value as Record<string, unknown> | null;
  const out = new Map<string, unknown>();
  if (!doc || typeof doc !== 'object') return out;
  const kind = doc.kind;
  const apiVersion = doc.apiVersion;
  if (kind !== 'AdmissionConfiguration' || typeof apiVersion !== 'string' || !/^apiserver\.(config\.)?k8s\.io\/v1(alpha1)?$/.test(apiVersion)) {
    throw new Error(`no kind "${String(kind ?? '')}" is registered for version "${String(apiVersion ?? '')}" in scheme "k8s.io/apiserver/pkg/admission/plugin.go"`);
  }
  const plugins = Array.isArray(doc.plugins) ? doc.plugins : [];
  for (const p of plugins as Record<string, unknown>[]) {
    const name = typeof p?.name === 'string' ? p.name : '';
    if (!name) continue;
    if (p.configuration !== undefined) out.set(name, p.configuration);
    else if (typeof p.path === 'string' && p.path) {
      const file = resolve(dirname(path), p.path);
      out.set(name, parseYaml(await readFile(file, 'utf8')).value);
    }
  }
  return out;
}

/** Builds the chain of the enabled plugins that have an implementation (the others are registered names only). */
export async function buildChain(
  names: readonly string[],
  factories: Readonly<Record<string, PluginFactory>>,
  deps: Omit<PluginDeps, 'config'>,
  configs: ReadonlyMap<string, unknown> = new Map(),
): Promise<AdmissionChain> {
  const plugins: AdmissionPlugin[] = [];
  for (const name of names) {
    const factory = factories[name];
    if (!factory) continue;
    const plugin = await factory({ ...deps, config: configs.get(name) });
    if (plugin) plugins.push(plugin);
  }
  return createChain(plugins);
}
