// Definitions and contexts for the generic store's tests: small stand-ins of a namespaced kind (configmaps-like),
// a kind with status and scale subresources (deployments-like) and namespaces, served from real memory storage.

import { LOOPBACK_USER } from '../auth/user.ts';
import { createMemoryStorage } from '../storage/memory/memory-storage.ts';
import { resourcePrefix } from '../storage/keys.ts';
import type { Storage } from '../storage/types.ts';
import { createGenericStore, type GenericStore, type StoreOptions } from './store.ts';
import type { KubeObject, RequestContext, ResourceDefinition, Strategy } from './types.ts';

export function definition(partial: Partial<ResourceDefinition> & Pick<ResourceDefinition, 'group' | 'version' | 'resource' | 'kind'>): ResourceDefinition {
  return {
    singularName: partial.resource.replace(/s$/, ''),
    listKind: `${partial.kind}List`,
    namespaced: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: [],
    categories: [],
    subresources: [],
    storagePrefix: resourcePrefix(partial.group, partial.resource),
    schema: { type: 'object' },
    resolveRef: () => undefined,
    strategy: {},
    printerColumns: [],
    selectableFields: {},
    custom: false,
    ...partial,
  };
}

export function ctx(namespace = 'default', extra: Partial<RequestContext> = {}): RequestContext {
  return { user: LOOPBACK_USER, namespace, dryRun: false, warnings: [], ...extra };
}

export function widgets(strategy: Strategy = {}): ResourceDefinition {
  return definition({
    group: 'example.com',
    version: 'v1',
    resource: 'widgets',
    kind: 'Widget',
    strategy: { trackGeneration: true, ...strategy },
    selectableFields: { 'spec.color': (o) => (o.spec as { color?: string } | undefined)?.color },
  });
}

export function deployments(strategy: Strategy = {}): ResourceDefinition {
  return definition({
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    kind: 'Deployment',
    strategy: { trackGeneration: true, ...strategy },
    subresources: [
      { name: 'status', kind: 'Deployment', verbs: ['get', 'patch', 'update'] },
      { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] },
    ],
  });
}

export function namespacesDef(): ResourceDefinition {
  return definition({ group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, subresources: [{ name: 'status', kind: 'Namespace', verbs: ['get', 'patch', 'update'] }, { name: 'finalize', kind: 'Namespace', verbs: ['update'] }] });
}

export interface Fixture {
  storage: Storage;
  namespaces: GenericStore;
  /** A store of def on the fixture's storage; extra overrides StoreOptions (e.g. watchCache: false). */
  store(def: ResourceDefinition, extra?: Partial<StoreOptions>): GenericStore;
}

/** Memory storage, a namespaces store with "default", and stores that refuse content in missing namespaces. */
export async function fixture(): Promise<Fixture> {
  const storage = createMemoryStorage();
  let namespaces: GenericStore;
  const getNamespace = async (name: string) => {
    try {
      return await namespaces.get(ctx(''), name);
    } catch {
      return undefined;
    }
  };
  namespaces = createGenericStore({ storage, definition: namespacesDef(), returnDeletedObject: true, shouldDeleteDuringUpdate: (o: KubeObject) => !((o.spec as { finalizers?: string[] })?.finalizers?.length) });
  await namespaces.create(ctx(''), { metadata: { name: 'default' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  return {
    storage,
    namespaces,
    store: (def, extra = {}) => createGenericStore({ storage, definition: def, getNamespace, futureRevisionWaitMs: 1000, ...extra }),
  };
}

export async function rejection(p: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await p;
  } catch (e) {
    const s = (e as { toStatus?: () => Record<string, unknown> }).toStatus?.();
    if (s) return s;
    throw e;
  }
  throw new Error('expected a rejection');
}
