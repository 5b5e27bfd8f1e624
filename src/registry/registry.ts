// The registry: every served ResourceDefinition (built-in ones from the API model and the builtin type facts;
// CRDs add theirs at run time through register/unregister), one generic store per group/resource shared by its
// versions (or, for the review kinds served without storage, a virtual store). What runs beside it (system
// namespaces, bootstrap objects, controllers) starts from src/controllers/index.ts.

import { isStatusError } from '../apis/errors.ts';
import { deprecatedKind, deprecationWarning } from '../apis/deprecated-versions.ts';
import { enabledGroupVersions, schemaByName } from '../apis/model.ts';
import type { ResourceFacts } from '../apis/model-types.ts';
import { builtinResourcePrefix } from '../storage/keys.ts';
import type { KeyValue, Storage } from '../storage/types.ts';
import { conversionFacts } from './builtin/conversion/index.ts';
import { builtinTypeFacts } from './builtin/index.ts';
import { reviewStores, type ReviewOptions } from './reviews/index.ts';
import { decodeFromStorage } from './store-codec.ts';
import { keyFor, readCurrent, type StoreCore } from './store-core.ts';
import type { WatchCacheOptions } from './store-cache.ts';
import { namespaceMayBeDeleted } from './store-namespaces.ts';
import { createGenericStore, type GenericStore } from './store.ts';
import { asyncConvertingStore } from './store-async-conversion.ts';
import { apiVersionOf } from './store-codec.ts';
import type { KubeObject, Registry, ResourceDefinition, ResourceStore, StoreFactory } from './types.ts';

export interface RegistryOptions {
  readonly storage: Storage;
  /** --runtime-config ('' for kube's defaults). */
  readonly runtimeConfig: string;
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** How long reads at a future resourceVersion wait (default 3000 ms, as kube's watch cache). */
  readonly futureRevisionWaitMs?: number;
  /** Watch cache settings of every store; false disables the caches (every read goes to storage). */
  readonly watchCache?: WatchCacheOptions | false;
  /** What the review kinds (SubjectAccessReview, TokenReview, ...) evaluate with: authorizer, token authenticator. */
  readonly reviews?: Omit<ReviewOptions, 'featureGates'>;
  /**
   * Wrappers of some resources' generic stores, by "group/resource": checks a write must pass beyond the strategy's
   * (kube's policy-based RBAC storage: escalation prevention).
   */
  readonly storeWrappers?: ReadonlyMap<string, (store: ResourceStore) => ResourceStore>;
  /** Resources served without storage besides the review kinds, by "group/resource" (kube's componentstatuses). */
  readonly virtualStores?: ReadonlyMap<string, StoreFactory>;
}

export interface RegistryHandle extends Registry {
  /**
   * Add definitions (a CRD's versions); a definition of a known group/version/resource replaces it. With `virtual`,
   * they are served without storage by the stores it makes (the simulated cluster's metrics API).
   */
  register(defs: readonly ResourceDefinition[], virtual?: StoreFactory): void;
  /** Remove definitions (by group/version/resource); their stored objects stay in storage. */
  unregister(defs: readonly Pick<ResourceDefinition, 'group' | 'version' | 'resource'>[]): void;
  /**
   * Resolves true once every watch cache is ready (after a restore of the test controls they relist), false when
   * one is not within timeoutMs.
   */
  cachesReady(timeoutMs: number): Promise<boolean>;
  /** Objects held by each resource's watch cache ("configmaps", "deployments.apps"), for apiserver_storage_objects. */
  storedObjectCounts(): { resource: string; objects: number }[];
  close(): Promise<void>;
}

export { loopbackContext } from './loopback-context.ts';


/** The definition of one built-in resource of the model. */
export function builtinDefinition(r: ResourceFacts, featureGates: Readonly<Record<string, boolean>> = {}): ResourceDefinition {
  const facts = builtinTypeFacts(r.group, r.resource, featureGates);
  const conversion = conversionFacts(r.group, r.resource);
  const deprecated = deprecatedKind(r.group, r.version, r.kind);
  return {
    group: r.group,
    version: r.version,
    resource: r.resource,
    singularName: r.singularName,
    kind: r.kind,
    listKind: `${r.kind}List`,
    namespaced: r.namespaced,
    verbs: r.verbs,
    shortNames: r.shortNames ?? [],
    categories: r.categories ?? [],
    subresources: r.subresources ?? [],
    storagePrefix: conversion?.storagePrefix ?? builtinResourcePrefix(r.group, r.resource),
    ...(conversion ? { storageVersion: conversion.storageVersion, convert: conversion.convert } : {}),
    schema: schemaByName(r.schema) ?? { type: 'object' },
    resolveRef: schemaByName,
    strategy: facts.strategy,
    printerColumns: facts.printerColumns,
    selectableFields: facts.selectableFields,
    custom: false,
    ...(deprecated ? { deprecationWarning: deprecationWarning(r.group, r.version, r.kind, deprecated), removedRelease: deprecated.removed } : {}),
  };
}

// Resources whose REST storage kube 1.31 installs only with a feature gate, even when their version is enabled
// (pkg/registry/resource/rest/storage_resource.go, pkg/registry/certificates/rest/storage_certificates.go). A version
// left without resources is not served.
const GATED_RESOURCES: Readonly<Record<string, readonly string[]>> = {
  'certificates.k8s.io/clustertrustbundles': ['ClusterTrustBundle'],
  'resource.k8s.io/deviceclasses': ['DynamicResourceAllocation'],
  'resource.k8s.io/resourceclaims': ['DynamicResourceAllocation'],
  'resource.k8s.io/resourceclaimtemplates': ['DynamicResourceAllocation'],
  'resource.k8s.io/resourceslices': ['DynamicResourceAllocation'],
  'resource.k8s.io/podschedulingcontexts': ['DynamicResourceAllocation', 'DRAControlPlaneController'],
};

// Built-in definitions are read-only data derived from the model: every registry of the process with the same
// settings shares them (and what is memoized per definition: routing tables, apply schemas), so a second server or
// logical cluster does not build them again.
const builtinSets = new Map<string, readonly ResourceDefinition[]>();

export function builtinDefinitions(runtimeConfig: string, featureGates: Readonly<Record<string, boolean>> = {}): readonly ResourceDefinition[] {
  const key = `${runtimeConfig}\n${Object.keys(featureGates).sort().map((g) => `${g}=${featureGates[g]}`).join(',')}`;
  let defs = builtinSets.get(key);
  if (!defs) {
    defs = buildBuiltinDefinitions(runtimeConfig, featureGates);
    builtinSets.set(key, defs);
  }
  return defs;
}

function buildBuiltinDefinitions(runtimeConfig: string, featureGates: Readonly<Record<string, boolean>>): ResourceDefinition[] {
  const defs: ResourceDefinition[] = [];
  for (const gv of enabledGroupVersions(runtimeConfig)) {
    for (const r of gv.resources) {
      const gates = GATED_RESOURCES[`${r.group}/${r.resource}`];
      if (gates && !gates.every((g) => featureGates[g] === true)) continue;
      defs.push(builtinDefinition(r, featureGates));
    }
  }
  return defs;
}

const gvrKey = (d: Pick<ResourceDefinition, 'group' | 'version' | 'resource'>) => `${d.group}/${d.version}/${d.resource}`;
const grKey = (d: Pick<ResourceDefinition, 'group' | 'resource'>) => `${d.group}/${d.resource}`;

export async function createRegistry(options: RegistryOptions): Promise<RegistryHandle> {
  const defs = new Map<string, ResourceDefinition>();
  /** One store (core) per group/resource, created with the first definition seen. */
  const stores = new Map<string, GenericStore>();
  const listeners = new Set<() => void>();
  /** Virtual stores by "group/resource": definitions served without storage, which get no generic store. */
  const virtualFactories = new Map([...reviewStores({ ...options.reviews, featureGates: options.featureGates }), ...(options.virtualStores ?? [])]);
  /** The group/resources `register` made virtual: they lose their factory with their last version. */
  const registeredVirtual = new Set<string>();
  const virtualStores = new Map<ResourceDefinition, ResourceStore>();
  const virtualStore = (def: ResourceDefinition): ResourceStore | undefined => {
    const factory = virtualFactories.get(grKey(def));
    if (!factory) return undefined;
    let store = virtualStores.get(def);
    if (!store) virtualStores.set(def, (store = factory(def)));
    return store;
  };
  let ordered: ResourceDefinition[] = [];
  /** Versions served through their storage version's store (async conversion), one wrapper per definition. */
  const converting = new WeakMap<ResourceDefinition, ResourceStore>();
  const convertingStore = (def: ResourceDefinition): ResourceStore | undefined => {
    if (!def.convertAsync || !def.storageVersion || def.storageVersion === apiVersionOf(def)) return undefined;
    let store = converting.get(def);
    if (!store) {
      const storageDef: ResourceDefinition = { ...def, version: def.storageVersion.slice(def.storageVersion.indexOf('/') + 1), convertAsync: undefined };
      store = asyncConvertingStore(baseStore(def).forVersion(storageDef), def, def.convertAsync);
      converting.set(def, store);
    }
    return store;
  };
  const wrappedStores = new WeakMap<ResourceStore, ResourceStore>();

  const namespaceCore = (): StoreCore | undefined => stores.get('/namespaces')?.core;
  // As kube's NamespaceLifecycle admission: the namespace from the watch cache, else (not seen there yet) a read.
  // Readers share the object decoded once per cached value (a lister's object: read, never written).
  const decodedNamespaces = new WeakMap<KeyValue, KubeObject>();
  const getNamespace = async (name: string): Promise<KubeObject | undefined> => {
    const core = namespaceCore();
    if (!core) return undefined;
    try {
      const key = keyFor(core, '', name);
      const cached = core.cache?.ready() ? core.cache.get(key) : undefined;
      if (cached) {
        let ns = decodedNamespaces.get(cached.kv);
        if (!ns) decodedNamespaces.set(cached.kv, (ns = decodeFromStorage(cached.kv)));
        return ns;
      }
      return (await readCurrent(core, key, core.definition))?.object;
    } catch (e) {
      if (isStatusError(e) && e.code === 400) return undefined;
      throw e;
    }
  };

  const baseStore = (def: ResourceDefinition): GenericStore => {
    let store = stores.get(grKey(def));
    if (!store) {
      const isNamespaces = def.group === '' && def.resource === 'namespaces';
      store = createGenericStore({
        storage: options.storage,
        definition: def,
        getNamespace,
        featureGates: options.featureGates,
        futureRevisionWaitMs: options.futureRevisionWaitMs,
        watchCache: options.watchCache,
        ...(isNamespaces ? { returnDeletedObject: true, shouldDeleteDuringUpdate: namespaceMayBeDeleted } : {}),
      });
      stores.set(grKey(def), store);
    }
    return store;
  };

  const notify = () => {
    for (const l of [...listeners]) {
      try {
        l();
      } catch {
        // A listener's failure must not stop the others.
      }
    }
  };

  const handle: RegistryHandle = {
    all: () => ordered,
    lookup: (group, version, resource) => defs.get(`${group}/${version}/${resource}`),
    readNamespace: getNamespace,
    store(def: ResourceDefinition): ResourceStore {
      const virtual = virtualStore(def);
      if (virtual) return virtual;
      const store = convertingStore(def) ?? baseStore(def).forVersion(def);
      const wrap = options.storeWrappers?.get(grKey(def));
      if (!wrap) return store;
      let wrapped = wrappedStores.get(store);
      if (!wrapped) wrappedStores.set(store, (wrapped = wrap(store)));
      return wrapped;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    register(newDefs, virtual) {
      for (const d of newDefs) {
        defs.set(gvrKey(d), d);
        if (!virtual) continue;
        virtualFactories.set(grKey(d), virtual);
        registeredVirtual.add(grKey(d));
      }
      ordered = [...defs.values()];
      const current = new Set(ordered);
      for (const d of newDefs) {
        if (virtualFactories.has(grKey(d))) continue;
        // A CRD's new generation replaces its definitions. As kube replaces a CRD's storage on each spec change
        // (ending its watches), the store starts afresh from them: its watch cache relists with the new selectable
        // fields and read defaults.
        const existing = stores.get(grKey(d));
        if (existing && d.custom && !current.has(existing.core.definition)) {
          existing.core.cache?.stop();
          stores.delete(grKey(d));
        }
        baseStore(d);
      }
      notify();
    },
    unregister(gone) {
      let changed = false;
      for (const d of gone) {
        const known = defs.get(gvrKey(d));
        if (known) virtualStores.delete(known);
        changed = defs.delete(gvrKey(d)) || changed;
      }
      if (!changed) return;
      ordered = [...defs.values()];
      // A group/resource with no version left loses its store; a later registration starts a fresh one.
      const live = new Set(ordered.map(grKey));
      for (const key of registeredVirtual) {
        if (live.has(key)) continue;
        virtualFactories.delete(key);
        registeredVirtual.delete(key);
      }
      for (const [key, store] of [...stores]) {
        if (live.has(key)) continue;
        store.core.cache?.stop();
        stores.delete(key);
      }
      notify();
    },
    async cachesReady(timeoutMs) {
      const waits = [...stores.values()].map((store) => store.core.cache?.waitReady(timeoutMs) ?? Promise.resolve(true));
      return (await Promise.all(waits)).every((ok) => ok);
    },
    storedObjectCounts() {
      const out: { resource: string; objects: number }[] = [];
      for (const store of stores.values()) {
        const cache = store.core.cache;
        if (!cache?.ready()) continue;
        const { group, resource } = store.core.gr;
        out.push({ resource: group ? `${resource}.${group}` : resource, objects: cache.size().objects });
      }
      return out;
    },
    async close() {
      for (const store of stores.values()) store.core.cache?.stop();
    },
  };

  handle.register(builtinDefinitions(options.runtimeConfig, options.featureGates));
  return handle;
}
