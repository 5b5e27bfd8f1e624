// The discovery documents kube-apiserver serves, built from the registry's ResourceDefinitions only:
// legacy /api, /apis, /apis/<g>, /api/v1 and /apis/<g>/<v>, and aggregated discovery (apidiscovery.k8s.io v2/v2beta1).

import { createHash } from 'node:crypto';
import type { ResourceDefinition } from '../registry/types.ts';
import type { SubresourceFacts } from '../apis/model-types.ts';
import { compareKubeAwareVersions } from '../apis/versions.ts';
import { isServedSubresource } from './router.ts';

export interface GroupVersions {
  /** '' for the legacy core group. */
  readonly name: string;
  /** In priority order: the first is the preferred version. */
  readonly versions: readonly string[];
}

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

export interface GroupVersionKindRef {
  group: string;
  version: string;
  kind: string;
}

export interface APISubresourceDiscovery {
  subresource: string;
  responseKind: GroupVersionKindRef;
  verbs: string[];
}

export interface APIResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKindRef;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: APISubresourceDiscovery[];
}

export { compareKubeAwareVersions };

export type AggregatedVersion = 'v2' | 'v2beta1';

/**
 * A group-version another server serves through an APIService (src/aggregator), with the priorities that place it
 * and the resources its server reported.
 */
export interface ExternalGroupVersion {
  readonly group: string;
  readonly version: string;
  readonly groupPriorityMinimum: number;
  readonly versionPriority: number;
  readonly resources: readonly APIResourceDiscovery[];
  readonly freshness: 'Current' | 'Stale';
}

/** The priorities kube's CRD registration gives every custom resource group-version (groupPriorityMinimum / versionPriority). */
const CRD_GROUP_PRIORITY = 1000;
const CRD_VERSION_PRIORITY = 100;

/**
 * Groups and their versions in discovery order: the core group first, the built-in groups in registry order
 * (kube's group priorities), then the groups of custom resources and of APIServices by group priority (custom
 * resources have 1000), then name, with their versions by version priority, then in kube-aware order (as
 * apiextensions and the aggregator order them, whatever order the CRDs were registered in).
 */
export function servedGroups(defs: readonly ResourceDefinition[], external: readonly ExternalGroupVersion[] = []): GroupVersions[] {
  const byName = new Map<string, { versions: string[]; builtIn: boolean; priority: number; versionPriority: Map<string, number> }>();
  const entryOf = (name: string) => {
    let entry = byName.get(name);
    if (!entry) byName.set(name, (entry = { versions: [], builtIn: false, priority: 0, versionPriority: new Map() }));
    return entry;
  };
  for (const def of defs) {
    const entry = entryOf(def.group);
    if (!entry.versions.includes(def.version)) entry.versions.push(def.version);
    const priority = def.discoveryPriority ?? (def.custom ? { group: CRD_GROUP_PRIORITY, version: CRD_VERSION_PRIORITY } : undefined);
    if (!priority) entry.builtIn = true;
    else {
      entry.priority = Math.max(entry.priority, priority.group);
      entry.versionPriority.set(def.version, priority.version);
    }
  }
  for (const gv of external) {
    const entry = entryOf(gv.group);
    if (!entry.versions.includes(gv.version)) entry.versions.push(gv.version);
    entry.priority = Math.max(entry.priority, gv.groupPriorityMinimum);
    entry.versionPriority.set(gv.version, gv.versionPriority);
  }
  const builtIn: GroupVersions[] = [];
  const others: (GroupVersions & { priority: number })[] = [];
  for (const [name, { versions, builtIn: isBuiltIn, priority, versionPriority }] of byName) {
    if (isBuiltIn) builtIn.push({ name, versions });
    else {
      const byPriority = (a: string, b: string) => (versionPriority.get(b) ?? 0) - (versionPriority.get(a) ?? 0) || compareKubeAwareVersions(a, b);
      others.push({ name, versions: [...versions].sort(byPriority), priority });
    }
  }
  const core = builtIn.findIndex((g) => g.name === '');
  if (core > 0) builtIn.unshift(...builtIn.splice(core, 1));
  others.sort((a, b) => b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return [...builtIn, ...others.map(({ name, versions }) => ({ name, versions }))];
}

function groupVersionString(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

function forDiscovery(group: string, version: string): GroupVersionForDiscovery {
  return { groupVersion: groupVersionString(group, version), version };
}

/** /api: the legacy core group's versions and the address clients should use. */
export function apiVersionsDocument(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroupEntry(group: GroupVersions): APIGroup {
  const versions = group.versions.map((v) => forDiscovery(group.name, v));
  return { name: group.name, versions, preferredVersion: versions[0] };
}

/** /apis: every named group with its versions and preferred version. */
export function apiGroupListDocument(defs: readonly ResourceDefinition[], external: readonly ExternalGroupVersion[] = []): Record<string, unknown> {
  const groups = servedGroups(defs, external).filter((g) => g.name !== '');
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(apiGroupEntry) };
}

/** /apis/<group>, or undefined when no version of the group is served. */
export function apiGroupDocument(defs: readonly ResourceDefinition[], group: string, external: readonly ExternalGroupVersion[] = []): APIGroup | undefined {
  if (!group) return undefined;
  const found = servedGroups(defs, external).find((g) => g.name === group);
  if (!found) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroupEntry(found) };
}

/**
 * kube's StorageVersionHash: base64 of the first 8 bytes of sha256("<group>/<version>/<kind>") of the
 * version objects are stored in.
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/**
 * The group/version/kind objects of a definition are stored as. All served versions of a resource share its
 * storage prefix; a definition's storageVersion names the version they are stored in, else the one listed first
 * (the preferred version, or the core group for resources such as events that live in two groups) is taken. Resources kube serves without a generic store
 * (bindings, componentstatuses, the reviews) have none: they are the ones that cannot be watched.
 */
export function storageKind(def: ResourceDefinition, defs: readonly ResourceDefinition[]): GroupVersionKindRef | undefined {
  if (!def.storagePrefix || !def.verbs.includes('watch')) return undefined;
  if (def.storageVersion) {
    const slash = def.storageVersion.indexOf('/');
    const group = slash < 0 ? '' : def.storageVersion.slice(0, slash);
    return { group, version: def.storageVersion.slice(slash + 1), kind: def.kind };
  }
  const first = defs.find((d) => d.storagePrefix === def.storagePrefix) ?? def;
  return { group: first.group, version: first.version, kind: first.kind };
}

// CRD subresources are listed status first, then scale (apiextensions' discovery controller order).
const customSubresourceRank: Record<string, number> = { status: 0, scale: 1 };

function orderedSubresources(def: ResourceDefinition): readonly SubresourceFacts[] {
  const subs = def.subresources.filter((s) => isServedSubresource(def, s.name));
  if (def.custom) return subs.sort((a, b) => (customSubresourceRank[a.name] ?? 2) - (customSubresourceRank[b.name] ?? 2));
  return subs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The group/version of a subresource's kind when it lives outside the parent's group/version, else undefined. */
function foreignGroupVersion(def: ResourceDefinition, sub: SubresourceFacts): { group: string; version: string } | undefined {
  // Scale is always autoscaling/v1, also when a definition leaves its group/version out.
  const scale = sub.kind === 'Scale' && sub.group === undefined;
  const group = sub.group ?? (scale ? 'autoscaling' : def.group);
  const version = sub.version ?? (scale ? 'v1' : def.version);
  if (group === def.group && version === def.version) return undefined;
  return { group, version };
}

function mainResource(def: ResourceDefinition, defs: readonly ResourceDefinition[]): APIResource {
  const r: APIResource = {
    name: def.resource,
    singularName: def.singularName,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: [...def.verbs],
  };
  if (def.shortNames.length) r.shortNames = [...def.shortNames];
  if (def.categories.length) r.categories = [...def.categories];
  const storage = storageKind(def, defs);
  if (storage) r.storageVersionHash = storageVersionHash(storage.group, storage.version, storage.kind);
  return r;
}

function subresourceEntry(def: ResourceDefinition, sub: SubresourceFacts): APIResource {
  const name = `${def.resource}/${sub.name}`;
  const foreign = foreignGroupVersion(def, sub);
  // Field order as kube writes it: group and version (only for a kind of another group/version) before kind.
  return foreign
    ? { name, singularName: '', namespaced: def.namespaced, group: foreign.group, version: foreign.version, kind: sub.kind, verbs: [...sub.verbs] }
    : { name, singularName: '', namespaced: def.namespaced, kind: sub.kind, verbs: [...sub.verbs] };
}

function definitionsOf(defs: readonly ResourceDefinition[], group: string, version: string): ResourceDefinition[] {
  return defs.filter((d) => d.group === group && d.version === version);
}

/**
 * /api/v1 and /apis/<g>/<v>: built-in resources and their subresources sorted by name as kube's installer
 * registers them; custom resources follow, each with its status and scale subresources.
 */
export function apiResourceListDocument(
  defs: readonly ResourceDefinition[],
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const inVersion = definitionsOf(defs, group, version);
  if (inVersion.length === 0) return undefined;
  const builtIn: APIResource[] = [];
  const custom: APIResource[] = [];
  for (const def of inVersion) {
    const entries = [mainResource(def, defs), ...orderedSubresources(def).map((s) => subresourceEntry(def, s))];
    (def.custom ? custom : builtIn).push(...entries);
  }
  builtIn.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const resources = [...builtIn, ...custom];
  // Like kube, the core group's list carries no apiVersion (kept unversioned since release 1.1).
  return group === ''
    ? { kind: 'APIResourceList', groupVersion: version, resources }
    : { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersionString(group, version), resources };
}

function responseKindOf(def: ResourceDefinition): GroupVersionKindRef {
  // Built-in resources report only the kind (their APIResource has no group/version); apiextensions fills all three.
  return def.custom ? { group: def.group, version: def.version, kind: def.kind } : { group: '', version: '', kind: def.kind };
}

function subresourceResponseKind(def: ResourceDefinition, sub: SubresourceFacts): GroupVersionKindRef {
  const foreign = foreignGroupVersion(def, sub);
  if (foreign) return { group: foreign.group, version: foreign.version, kind: sub.kind };
  return def.custom ? { group: def.group, version: def.version, kind: sub.kind } : { group: '', version: '', kind: sub.kind };
}

function resourceDiscovery(def: ResourceDefinition): APIResourceDiscovery {
  const r: APIResourceDiscovery = {
    resource: def.resource,
    responseKind: responseKindOf(def),
    scope: def.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: def.singularName,
    verbs: [...def.verbs],
  };
  if (def.shortNames.length) r.shortNames = [...def.shortNames];
  if (def.categories.length) r.categories = [...def.categories];
  const subs = orderedSubresources(def);
  if (subs.length) {
    r.subresources = subs.map((s) => ({ subresource: s.name, responseKind: subresourceResponseKind(def, s), verbs: [...s.verbs] }));
  }
  return r;
}

function versionDiscovery(defs: readonly ResourceDefinition[], group: string, version: string): Record<string, unknown> {
  const inVersion = definitionsOf(defs, group, version);
  const builtIn = inVersion.filter((d) => !d.custom).map(resourceDiscovery);
  const custom = inVersion.filter((d) => d.custom).map(resourceDiscovery);
  const byName = (a: APIResourceDiscovery, b: APIResourceDiscovery) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0);
  builtIn.sort(byName);
  custom.sort(byName);
  return { version, resources: [...builtIn, ...custom], freshness: 'Current' };
}

/**
 * Aggregated discovery (APIGroupDiscoveryList): on /api the core group only, on /apis every named group, each
 * with all its versions and their resources.
 */
export function aggregatedDiscoveryDocument(
  defs: readonly ResourceDefinition[],
  scope: 'api' | 'apis',
  apiVersion: AggregatedVersion,
  external: readonly ExternalGroupVersion[] = [],
): Record<string, unknown> {
  const groups = servedGroups(defs, external).filter((g) => (scope === 'api' ? g.name === '' : g.name !== ''));
  const items = groups.map((g) => ({
    metadata: g.name ? { name: g.name, creationTimestamp: null } : { creationTimestamp: null },
    versions: g.versions.map((v) => {
      const aggregated = external.find((e) => e.group === g.name && e.version === v);
      return aggregated ? { version: v, resources: aggregated.resources, freshness: aggregated.freshness } : versionDiscovery(defs, g.name, v);
    }),
  }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${apiVersion}`, metadata: {}, items };
}
