// What kube-controller-manager puts in every namespace, kept there: the `default` ServiceAccount (the
// serviceaccounts controller) and the `kube-root-ca.crt` ConfigMap holding the API server's CA bundle (the
// root-ca-cert-publisher). Deleted or changed, they come back; a terminating namespace is left alone.

import { isStatusError } from '../apis/errors.ts';
import { startInformer, type Informer } from '../registry/informer.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry, ResourceStore } from '../registry/types.ts';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const ROOT_CA_KEY = 'ca.crt';

export interface NamespaceDefaultsOptions {
  /** The CA bundle clients in the cluster verify the API server with; absent: no kube-root-ca.crt. */
  readonly rootCaPem?: string;
}

export interface NamespaceDefaultsController {
  /** Resolves once every namespace seen so far has been processed. */
  idle(): Promise<void>;
  stop(): void;
}

function storeOf(registry: Registry, resource: string): ResourceStore | undefined {
  const def = registry.lookup('', 'v1', resource);
  return def ? registry.store(def) : undefined;
}

const ignorable = (e: unknown) => isStatusError(e) && (e.reason === 'AlreadyExists' || e.code === 404 || e.code === 409 || e.reason === 'Forbidden');

export function startNamespaceDefaults(registry: Registry, options: NamespaceDefaultsOptions): NamespaceDefaultsController | undefined {
  const namespaces = storeOf(registry, 'namespaces');
  const serviceAccounts = storeOf(registry, 'serviceaccounts');
  const configMaps = storeOf(registry, 'configmaps');
  if (!namespaces || !serviceAccounts || !configMaps) return undefined;
  const nsInformer = startInformer(namespaces);
  const informers: Informer[] = [nsInformer];
  let work: Promise<void> = Promise.resolve();
  const queued = new Set<string>();
  let stopped = false;

  const active = (name: string): boolean => {
    const ns = nsInformer.get('', name);
    return !!ns && !ns.metadata.deletionTimestamp && (ns.status as { phase?: string } | undefined)?.phase !== 'Terminating';
  };

  async function ensureServiceAccount(namespace: string): Promise<void> {
    const ctx = loopbackContext(namespace);
    try {
      await serviceAccounts!.get(ctx, DEFAULT_SERVICE_ACCOUNT, { resourceVersion: '0' });
    } catch (e) {
      if (!(isStatusError(e) && e.code === 404)) throw e;
      await serviceAccounts!.create(ctx, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace } });
    }
  }

  async function ensureRootCa(namespace: string, pem: string): Promise<void> {
    const ctx = loopbackContext(namespace);
    const desired = { [ROOT_CA_KEY]: pem };
    let current: KubeObject | undefined;
    try {
      current = await configMaps!.get(ctx, ROOT_CA_CONFIGMAP, { resourceVersion: '0' });
    } catch (e) {
      if (!(isStatusError(e) && e.code === 404)) throw e;
    }
    if (!current) {
      await configMaps!.create(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP, namespace }, data: desired });
      return;
    }
    const data = current.data as Record<string, string> | undefined;
    if (data && Object.keys(data).length === 1 && data[ROOT_CA_KEY] === pem) return;
    await configMaps!.update(ctx, ROOT_CA_CONFIGMAP, (live) => (live ? { ...live, data: desired } : live!));
  }

  const enqueue = (namespace: string) => {
    if (stopped || queued.has(namespace)) return;
    queued.add(namespace);
    work = work.then(async () => {
      queued.delete(namespace);
      if (stopped || !active(namespace)) return;
      for (const step of [() => ensureServiceAccount(namespace), () => (options.rootCaPem ? ensureRootCa(namespace, options.rootCaPem) : Promise.resolve())]) {
        try {
          await step();
        } catch (e) {
          if (!ignorable(e)) process.emitWarning(`namespace defaults of ${namespace}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    });
  };

  nsInformer.onEvent((type, obj) => {
    if (type !== 'delete') enqueue(obj.metadata.name ?? '');
  });
  // Watch what is made here, to make it again when it is deleted or changed.
  const saInformer = startInformer(serviceAccounts);
  saInformer.onEvent((type, obj) => {
    if (type === 'delete' && obj.metadata.name === DEFAULT_SERVICE_ACCOUNT) enqueue(obj.metadata.namespace ?? '');
  });
  informers.push(saInformer);
  if (options.rootCaPem) {
    const cmInformer = startInformer(configMaps);
    cmInformer.onEvent((_type, obj) => {
      if (obj.metadata.name === ROOT_CA_CONFIGMAP) enqueue(obj.metadata.namespace ?? '');
    });
    informers.push(cmInformer);
  }
  return {
    idle: async () => {
      await Promise.all(informers.map((i) => i.synced()));
      await work;
    },
    stop() {
      stopped = true;
      for (const i of informers) i.stop();
    },
  };
}
