// What is special about namespaces in the store: the NamespaceLifecycle admission checks (no new content in a
// missing or terminating namespace; the system namespaces cannot be deleted) and the namespace registry's DELETE,
// which only starts termination (deletionTimestamp, phase Terminating) and leaves the rest to the namespace
// controller and the finalize subresource.

import { conflict, notFound } from '../apis/errors.ts';
import { convertToVersion, rfc3339 } from './store-codec.ts';
import { guaranteedUpdate, keyFor, readCurrent, type StoreCore } from './store-core.ts';
import { forbiddenError, namespaceTerminating } from './store-errors.ts';
import { removeNow, validateDeleteOptions } from './store-delete.ts';
import type { DeleteOptions, DeleteResult, KubeObject, RequestContext, ResourceDefinition } from './types.ts';

/** The namespaces kube-apiserver's NamespaceLifecycle plugin refuses to delete. */
export const IMMORTAL_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public'];

/** The namespaces the apiserver creates at start. */
export const SYSTEM_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export const NAMESPACES = { group: '', resource: 'namespaces' };

export function isNamespaceStore(core: StoreCore): boolean {
  return core.gr.group === '' && core.gr.resource === 'namespaces';
}

/** NamespaceLifecycle on create: 404 for a missing namespace, 403 NamespaceTerminating for a terminating one. */
export async function checkNamespaceForCreate(core: StoreCore, ctx: RequestContext, obj: KubeObject): Promise<void> {
  if (!core.namespaced || !ctx.namespace || !core.options.getNamespace) return;
  const ns = await core.options.getNamespace(ctx.namespace);
  if (!ns) throw notFound(NAMESPACES, ctx.namespace);
  const phase = (ns.status as { phase?: unknown } | undefined)?.phase;
  if (phase === 'Terminating') {
    const name = obj.metadata?.name || obj.metadata?.generateName || 'Unknown';
    throw namespaceTerminating(core.gr, name, ctx.namespace);
  }
}

function specFinalizers(ns: KubeObject): string[] {
  const f = (ns.spec as { finalizers?: unknown } | undefined)?.finalizers;
  return Array.isArray(f) ? f.filter((x): x is string => typeof x === 'string') : [];
}

/** An update that empties a terminating namespace's spec.finalizers deletes it only when spec.finalizers is empty too. */
export function namespaceMayBeDeleted(ns: KubeObject): boolean {
  return specFinalizers(ns).length === 0;
}

function shouldHaveOrphan(options: DeleteOptions, has: boolean): boolean {
  if (options.orphanDependents !== undefined) return options.orphanDependents;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Orphan';
  return has;
}

function shouldHaveForeground(options: DeleteOptions, has: boolean): boolean {
  if (options.orphanDependents !== undefined) return false;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Foreground';
  return has;
}

export async function deleteNamespace(core: StoreCore, def: ResourceDefinition, ctx: RequestContext, name: string, options: DeleteOptions = {}): Promise<DeleteResult> {
  // With admission, the NamespaceLifecycle plugin refuses this (src/admission/plugins/namespace-lifecycle.ts).
  if (!ctx.admit && IMMORTAL_NAMESPACES.includes(name)) throw forbiddenError(NAMESPACES, name, 'this namespace may not be deleted');
  validateDeleteOptions(options);
  const key = keyFor(core, '', name);
  const current = await readCurrent(core, key, def);
  if (!current) throw notFound(NAMESPACES, name);
  const ns = current.object;
  const uid = options.preconditions?.uid ?? ns.metadata.uid ?? '';
  if (uid !== (ns.metadata.uid ?? '')) {
    throw conflict(NAMESPACES, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${ns.metadata.uid ?? ''}`);
  }
  const rv = options.preconditions?.resourceVersion;
  if (rv !== undefined && rv !== ns.metadata.resourceVersion) {
    throw conflict(NAMESPACES, name, `Precondition failed: ResourceVersion in precondition: ${rv}, ResourceVersion in object meta: ${ns.metadata.resourceVersion ?? ''}`);
  }
  await ctx.validate?.(undefined, convertToVersion(ns, def));

  if (!ns.metadata.deletionTimestamp) {
    // First DELETE: start termination; the namespace controller removes the content and then the namespace.
    const res = await guaranteedUpdate(
      core,
      def,
      key,
      name,
      ({ object }) => {
        if (object.metadata.uid !== uid) {
          throw conflict(NAMESPACES, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${object.metadata.uid ?? ''}`);
        }
        if (rv !== undefined && rv !== object.metadata.resourceVersion) {
          throw conflict(NAMESPACES, name, `Precondition failed: ResourceVersion in precondition: ${rv}, ResourceVersion in object meta: ${object.metadata.resourceVersion ?? ''}`);
        }
        const m = object.metadata;
        if (!m.deletionTimestamp) m.deletionTimestamp = rfc3339(core.now());
        const status = (object.status && typeof object.status === 'object' ? object.status : {}) as Record<string, unknown>;
        object.status = { ...status, phase: 'Terminating' };
        const finalizers = [...(m.finalizers ?? [])];
        const want: [string, boolean][] = [
          ['orphan', shouldHaveOrphan(options, finalizers.includes('orphan'))],
          ['foregroundDeletion', shouldHaveForeground(options, finalizers.includes('foregroundDeletion'))],
        ];
        let next = finalizers;
        for (const [f, should] of want) {
          if (should && !next.includes(f)) next = [...next, f];
          if (!should && next.includes(f)) next = next.filter((x) => x !== f);
        }
        if (next.length !== finalizers.length || next.some((f, i) => f !== finalizers[i])) m.finalizers = next;
        return object;
      },
      ctx.dryRun,
    );
    return { object: convertToVersion(res.object, def), deletedImmediately: false };
  }
  // Already terminating: gone only once the finalizers of spec are done.
  if (specFinalizers(ns).length > 0) return { object: convertToVersion(ns, def), deletedImmediately: false };
  if ((ns.metadata.finalizers?.length ?? 0) > 0) return { object: convertToVersion(ns, def), deletedImmediately: false };
  return removeNow(core, def, ctx, key, name, options.preconditions);
}
