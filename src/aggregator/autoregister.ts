// kube-apiserver's APIService auto-registration (the autoregister and crdregistration controllers of its
// aggregator): every group-version served here gets a local APIService (no service), which the aggregator's
// availability check reports Available with reason Local, so `kubectl get apiservices` and
// `kubectl describe apiservice v1.apps` answer as in kube.
//
// - Built-in group-versions with a priority in kube's table are registered once at start, labelled
//   kube-aggregator.kubernetes.io/automanaged=onstart, named <version>.<group> ("v1." for the core group); those
//   left from an earlier start whose group-version is no longer served are deleted then. Group-versions missing from
//   the table (the simulated metrics API) are not registered, as kube's makeAPIService skips them.
// - Every served version of a custom resource gets one labelled automanaged=true (groupPriorityMinimum 1000,
//   versionPriority 100), kept while the version is served and deleted after.
// - An APIService without the label (made by a user) is never changed.

import { isStatusError } from '../apis/errors.ts';
import { createKeyedQueue } from '../controllers/work-queue.ts';
import { startInformer } from '../registry/informer.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry } from '../registry/types.ts';

export const MANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';
const ON_START = 'onstart';
const CONTINUOUSLY = 'true';

interface Priority {
  readonly group: number;
  readonly version: number;
}

/** kube 1.31's apiVersionPriorities (cmd/kube-apiserver/app/aggregator.go and the generic control plane's). */
const BUILT_IN_PRIORITIES: Readonly<Record<string, Priority>> = {
  '/v1': { group: 18000, version: 1 },
  'apps/v1': { group: 17800, version: 15 },
  'events.k8s.io/v1': { group: 17750, version: 15 },
  'events.k8s.io/v1beta1': { group: 17750, version: 5 },
  'authentication.k8s.io/v1': { group: 17700, version: 15 },
  'authentication.k8s.io/v1beta1': { group: 17700, version: 9 },
  'authentication.k8s.io/v1alpha1': { group: 17700, version: 1 },
  'authorization.k8s.io/v1': { group: 17600, version: 15 },
  'autoscaling/v1': { group: 17500, version: 15 },
  'autoscaling/v2': { group: 17500, version: 30 },
  'autoscaling/v2beta1': { group: 17500, version: 9 },
  'autoscaling/v2beta2': { group: 17500, version: 1 },
  'batch/v1': { group: 17400, version: 15 },
  'batch/v1beta1': { group: 17400, version: 9 },
  'certificates.k8s.io/v1': { group: 17300, version: 15 },
  'certificates.k8s.io/v1alpha1': { group: 17300, version: 1 },
  'networking.k8s.io/v1': { group: 17200, version: 15 },
  'networking.k8s.io/v1beta1': { group: 17200, version: 9 },
  'networking.k8s.io/v1alpha1': { group: 17200, version: 1 },
  'policy/v1': { group: 17100, version: 15 },
  'policy/v1beta1': { group: 17100, version: 9 },
  'rbac.authorization.k8s.io/v1': { group: 17000, version: 15 },
  'storage.k8s.io/v1': { group: 16800, version: 15 },
  'storage.k8s.io/v1beta1': { group: 16800, version: 9 },
  'storage.k8s.io/v1alpha1': { group: 16800, version: 1 },
  'apiextensions.k8s.io/v1': { group: 16700, version: 15 },
  'admissionregistration.k8s.io/v1': { group: 16700, version: 15 },
  'admissionregistration.k8s.io/v1beta1': { group: 16700, version: 12 },
  'admissionregistration.k8s.io/v1alpha1': { group: 16700, version: 9 },
  'scheduling.k8s.io/v1': { group: 16600, version: 15 },
  'coordination.k8s.io/v1': { group: 16500, version: 15 },
  'coordination.k8s.io/v1alpha1': { group: 16500, version: 9 },
  'node.k8s.io/v1': { group: 16300, version: 15 },
  'discovery.k8s.io/v1': { group: 16200, version: 15 },
  'flowcontrol.apiserver.k8s.io/v1': { group: 16100, version: 21 },
  'flowcontrol.apiserver.k8s.io/v1beta3': { group: 16100, version: 18 },
  'flowcontrol.apiserver.k8s.io/v1beta2': { group: 16100, version: 15 },
  'flowcontrol.apiserver.k8s.io/v1beta1': { group: 16100, version: 12 },
  'internal.apiserver.k8s.io/v1alpha1': { group: 16000, version: 9 },
  'resource.k8s.io/v1alpha3': { group: 15900, version: 9 },
  'storagemigration.k8s.io/v1alpha1': { group: 15800, version: 9 },
};
/** crdregistration: custom resources sort after the built-in groups, their versions kube-like. */
const CRD_PRIORITY: Priority = { group: 1000, version: 100 };

export interface ApiServiceRegistration {
  /** Resolves once the APIServices wanted so far are written. */
  idle(): Promise<void>;
  /** Whether the first pass (the APIServices wanted at start) is done: kube's autoregister-completion check. */
  startDone(): boolean;
  stop(): Promise<void>;
}

/** The APIService kube's makeAPIService writes for a group-version (group left out for the core group). */
export function localApiService(group: string, version: string, priority: Priority, managed: string): KubeObject {
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `${version}.${group}`, labels: { [MANAGED_LABEL]: managed } },
    spec: { ...(group ? { group } : {}), version, groupPriorityMinimum: priority.group, versionPriority: priority.version },
  } as unknown as KubeObject;
}

/** What is registered: built-in group-versions with a known priority, and every custom resource group-version. */
export function wantedApiServices(registry: Registry): { onStart: Map<string, KubeObject>; continuously: Map<string, KubeObject> } {
  const onStart = new Map<string, KubeObject>();
  const continuously = new Map<string, KubeObject>();
  for (const def of registry.all()) {
    const name = `${def.version}.${def.group}`;
    if (def.custom) {
      if (!continuously.has(name)) continuously.set(name, localApiService(def.group, def.version, CRD_PRIORITY, CONTINUOUSLY));
      continue;
    }
    const priority = BUILT_IN_PRIORITIES[`${def.group}/${def.version}`];
    if (priority && !onStart.has(name)) onStart.set(name, localApiService(def.group, def.version, priority, ON_START));
  }
  for (const name of onStart.keys()) continuously.delete(name);
  return { onStart, continuously };
}

const ignorable = (e: unknown) => isStatusError(e) && (e.code === 404 || e.reason === 'AlreadyExists' || e.code === 409);
const managedBy = (obj: KubeObject | undefined): string | undefined => obj?.metadata.labels?.[MANAGED_LABEL];
const specOf = (obj: KubeObject): unknown => (obj as unknown as { spec?: unknown }).spec;

export function startApiServiceRegistration(registry: Registry): ApiServiceRegistration | undefined {
  const def = registry.lookup('apiregistration.k8s.io', 'v1', 'apiservices');
  if (!def) return undefined;
  const store = registry.store(def);
  const ctx = loopbackContext();
  const informer = startInformer(store);
  let wanted = wantedApiServices(registry);
  /** The onstart names still to be checked: each is synced once. */
  const pendingOnStart = new Set(wanted.onStart.keys());
  let startSwept = false;

  /** kube's checkAPIService for one name. */
  async function sync(name: string): Promise<void> {
    await informer.synced();
    const current = informer.get('', name);
    const onStart = pendingOnStart.has(name) ? wanted.onStart.get(name) : undefined;
    const desired = onStart ?? wanted.continuously.get(name);
    pendingOnStart.delete(name);
    if (!desired) {
      // Left by an earlier start or by a custom resource version no longer served.
      const managed = managedBy(current);
      if (managed === CONTINUOUSLY || (managed === ON_START && !startSwept && !wanted.onStart.has(name))) {
        await store.delete(ctx, name, { preconditions: { uid: current!.metadata.uid } }).catch((e: unknown) => {
          if (!ignorable(e)) throw e;
        });
      }
      return;
    }
    if (!current) {
      await store.create(ctx, structuredClone(desired)).catch((e: unknown) => {
        if (!ignorable(e)) throw e;
      });
      return;
    }
    // A user's APIService of the same name stays as it is.
    if (!managedBy(current)) return;
    if (JSON.stringify(specOf(current)) === JSON.stringify(specOf(desired)) && managedBy(current) === managedBy(desired)) return;
    await store
      .update(ctx, name, (cur) => {
        if (!cur || !managedBy(cur)) throw new Error(`APIService ${name} changed hands`);
        return { ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, ...desired.metadata.labels } }, spec: structuredClone(specOf(desired)) } as KubeObject;
      })
      .catch((e: unknown) => {
        if (!ignorable(e)) throw e;
      });
  }

  const queue = createKeyedQueue(sync);
  const enqueueAll = () => {
    for (const name of [...wanted.onStart.keys(), ...wanted.continuously.keys()]) queue.enqueue(name);
    for (const obj of informer.items()) if (managedBy(obj)) queue.enqueue(obj.metadata.name ?? '');
  };
  void informer.synced().then(() => {
    enqueueAll();
    // The onstart APIServices found at start are swept by that first pass only.
    void queue.idle().then(() => (startSwept = true));
  });
  const stopDefs = registry.onChange(() => {
    wanted = wantedApiServices(registry);
    if (informer.hasSynced()) enqueueAll();
  });
  // A managed APIService changed or deleted by someone else is looked at again (onstart ones only until synced).
  informer.onEvent((_type, obj) => {
    const name = obj.metadata.name ?? '';
    if (managedBy(obj) || wanted.continuously.has(name)) queue.enqueue(name);
  });

  return {
    idle: async () => {
      await informer.synced();
      await queue.idle();
    },
    startDone: () => startSwept,
    async stop() {
      stopDefs();
      informer.stop();
      await queue.stop();
    },
  };
}
