// The field manager of non-apply writes: records each create, update and patch in metadata.managedFields under the
// request's manager, as kube-apiserver's handlers do around every write.

import { clockDate } from '../apis/clock.ts';
import { loopbackContext } from '../registry/loopback-context.ts';
import { rfc3339 } from '../registry/store-codec.ts';
import type { KubeObject, RequestContext, ResourceDefinition } from '../registry/types.ts';

type ApplyEngine = typeof import('../apply/index.ts');
let engine: ApplyEngine | undefined;

/** Loads the apply engine (on the first write, not at start-up); managedFieldsTracker needs it loaded. */
export async function loadManagedFieldsEngine(): Promise<void> {
  engine ??= await import('../apply/index.ts');
}

function nowRfc3339(): string {
  return rfc3339(clockDate());
}

export function managedFieldsTracker(def: ResourceDefinition, manager: string): NonNullable<RequestContext['trackManagedFields']> {
  const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
  if (!engine) throw new Error('managedFieldsTracker: the apply engine is not loaded (await loadManagedFieldsEngine() first)');
  const { revertManagedFieldsTimestamps, updateManagedFields } = engine;
  return (old: KubeObject | undefined, next: KubeObject, subresource: string): KubeObject => {
    const updated = updateManagedFields(old, next, { manager, apiVersion, subresource: subresource || undefined, def, now: nowRfc3339() });
    // A write that changes nothing but managedFields timestamps keeps the old ones (and so stays a no-op).
    return old ? revertManagedFieldsTimestamps(updated, old) : updated;
  };
}

/**
 * The manager kube-apiserver's own writes are recorded under: its loopback client's user agent
 * ("kube-apiserver/v1.31.0 (linux/amd64) kubernetes/..."), cut at the first slash as for any client.
 */
export const APISERVER_FIELD_MANAGER = 'kube-apiserver';

/**
 * The context of a write kube-apiserver makes for itself through its loopback client (the system namespaces, the
 * CRD controllers' status): the loopback user, recorded in metadata.managedFields under kube-apiserver as on a
 * cluster, so a later server-side apply of such an object meets that manager and no before-first-apply one.
 */
export async function apiserverWriteContext(def: ResourceDefinition, namespace = ''): Promise<RequestContext> {
  await loadManagedFieldsEngine();
  return { ...loopbackContext(namespace), fieldManager: APISERVER_FIELD_MANAGER, trackManagedFields: managedFieldsTracker(def, APISERVER_FIELD_MANAGER) };
}

/**
 * What the store calls in place of a tracker for server-side apply, which records managedFields itself: a write that
 * changed nothing but managedFields timestamps keeps the old ones (kube's IgnoreManagedFieldsTimestampsTransformer on
 * every patch). The apply engine times an apply whose merge changed the object before defaulting, e.g. an atomic
 * struct applied without the field the server defaults in it, though the stored object comes out the same.
 */
export function appliedTimestampsKeeper(): NonNullable<RequestContext['trackManagedFields']> {
  if (!engine) throw new Error('appliedTimestampsKeeper: the apply engine is not loaded (await loadManagedFieldsEngine() first)');
  const { revertManagedFieldsTimestamps } = engine;
  return (old: KubeObject | undefined, next: KubeObject): KubeObject => (old ? revertManagedFieldsTimestamps(next, old) : next);
}
