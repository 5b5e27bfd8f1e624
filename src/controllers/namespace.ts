// The namespace lifecycle controller (kube-controller-manager's namespace controller, in process): for a
// namespace with a deletionTimestamp it sets phase Terminating, deletes every namespaced object in it through the
// stores, reports progress in status.conditions as kube does, and when nothing is left removes the "kubernetes"
// finalizer through the finalize subresource, which deletes the namespace.

import { clockDate } from '../apis/clock.ts';
import { isStatusError } from '../apis/errors.ts';
import { LOOPBACK_USER } from '../auth/user.ts';
import type { KubeObject, Registry, RequestContext, ResourceStore } from '../registry/types.ts';
import { startWorkQueue, type WorkQueue } from './work-queue.ts';

export interface NamespaceController {
  /** Process one namespace now (tests and callers that need the result synchronously). */
  sync(name: string): Promise<void>;
  stop(): Promise<void>;
}

export interface NamespaceControllerOptions {
  /** Delay before looking again at a namespace whose content is not gone yet (default 1000 ms). */
  resyncMs?: number;
}

const FINALIZER = 'kubernetes';

function ctxFor(namespace: string): RequestContext {
  return { user: LOOPBACK_USER, namespace, dryRun: false, warnings: [] };
}

interface NamespaceCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

const CONDITION_TYPES = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;

const OK: Record<string, { reason: string; message: string }> = {
  NamespaceDeletionDiscoveryFailure: { reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
  NamespaceDeletionGroupVersionParsingFailure: { reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
  NamespaceDeletionContentFailure: { reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
  NamespaceContentRemaining: { reason: 'ContentRemoved', message: 'All content successfully removed' },
  NamespaceFinalizersRemaining: { reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
};

interface ContentReport {
  /** "<resource>.<group> has N resource instances", sorted. */
  remaining: string[];
  /** "<finalizer> in N resource instances", sorted. */
  finalizers: string[];
  errors: string[];
}

function now(): string {
  return clockDate().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The conditions for this pass: failures where something is wrong, kube's "ok" variant otherwise. */
function conditionsFor(report: ContentReport): Map<string, NamespaceCondition> {
  const out = new Map<string, NamespaceCondition>();
  if (report.errors.length) {
    out.set('NamespaceDeletionContentFailure', {
      type: 'NamespaceDeletionContentFailure',
      status: 'True',
      reason: 'ContentDeletionFailed',
      // utilerrors.NewAggregate: one error bare, several in brackets.
      message: `Failed to delete all resource types, ${report.errors.length} remaining: ${report.errors.length === 1 ? report.errors[0] : `[${report.errors.join(', ')}]`}`,
    });
  }
  if (report.remaining.length) {
    out.set('NamespaceContentRemaining', {
      type: 'NamespaceContentRemaining',
      status: 'True',
      reason: 'SomeResourcesRemain',
      message: `Some resources are remaining: ${report.remaining.join(', ')}`,
    });
  }
  if (report.finalizers.length) {
    out.set('NamespaceFinalizersRemaining', {
      type: 'NamespaceFinalizersRemaining',
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message: `Some content in the namespace has finalizers remaining: ${report.finalizers.join(', ')}`,
    });
  }
  return out;
}

/** namespaceConditionUpdater.Update: add missing conditions, replace changed ones, keep unchanged ones as they are. */
export function mergeConditions(existing: readonly NamespaceCondition[], report: ContentReport, at: string): { conditions: NamespaceCondition[]; changed: boolean } {
  const fresh = conditionsFor(report);
  const conditions = existing.map((c) => ({ ...c }));
  let changed = false;
  for (const type of CONDITION_TYPES) {
    const next = fresh.get(type) ?? { type, status: 'False', ...OK[type] };
    const i = conditions.findIndex((c) => c.type === type);
    if (i < 0) {
      conditions.push({ type, status: next.status, lastTransitionTime: at, reason: next.reason, message: next.message });
      changed = true;
      continue;
    }
    const old = conditions[i];
    if (old.status === next.status && old.reason === next.reason && old.message === next.message) continue;
    conditions[i] = { type, status: next.status, lastTransitionTime: at, reason: next.reason, message: next.message };
    changed = true;
  }
  return { conditions, changed };
}

function specFinalizers(ns: KubeObject): string[] {
  const f = (ns.spec as { finalizers?: unknown } | undefined)?.finalizers;
  return Array.isArray(f) ? f.filter((x): x is string => typeof x === 'string') : [];
}

function isNotFound(e: unknown): boolean {
  return isStatusError(e) && e.code === 404;
}

export function startNamespaceController(registry: Registry, options: NamespaceControllerOptions = {}): NamespaceController {
  const resyncMs = options.resyncMs ?? 1000;
  let stopped = false;

  const namespaces = (): ResourceStore | undefined => {
    const def = registry.lookup('', 'v1', 'namespaces');
    return def ? registry.store(def) : undefined;
  };

  /** One store per namespaced group/resource that can be listed and deleted. */
  function contentStores(): { store: ResourceStore; label: string }[] {
    const seen = new Set<string>();
    const out: { store: ResourceStore; label: string }[] = [];
    for (const def of registry.all()) {
      if (!def.namespaced || !def.verbs.includes('list') || !def.verbs.includes('delete')) continue;
      const gr = `${def.resource}.${def.group}`;
      if (seen.has(gr)) continue;
      seen.add(gr);
      out.push({ store: registry.store(def), label: gr });
    }
    return out;
  }

  async function deleteContent(name: string): Promise<ContentReport> {
    const ctx = ctxFor(name);
    const remaining: string[] = [];
    const byFinalizer = new Map<string, number>();
    const errors: string[] = [];
    for (const { store, label } of contentStores()) {
      try {
        await store.deleteCollection(ctx, {}, { propagationPolicy: 'Background' });
        const left = await store.list(ctx, {});
        if (left.items.length === 0) continue;
        remaining.push(`${label} has ${left.items.length} resource instances`);
        for (const item of left.items) for (const f of item.metadata.finalizers ?? []) byFinalizer.set(f, (byFinalizer.get(f) ?? 0) + 1);
      } catch (e) {
        errors.push(e instanceof Error ? e.message : String(e));
      }
    }
    const finalizers = [...byFinalizer].map(([f, n]) => `${f} in ${n} resource instances`);
    return { remaining: remaining.sort(), finalizers: finalizers.sort(), errors };
  }

  async function sync(name: string): Promise<void> {
    const store = namespaces();
    if (!store || stopped) return;
    const ctx = ctxFor('');
    let ns: KubeObject;
    try {
      ns = await store.get(ctx, name);
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    if (!ns.metadata.deletionTimestamp) return;
    if ((ns.status as { phase?: unknown } | undefined)?.phase !== 'Terminating') {
      ns = (await store.update(ctx, name, (cur) => ({ ...cur!, status: { ...(cur!.status as object), phase: 'Terminating' } }), { subresource: 'status' })).object;
    }
    if (!specFinalizers(ns).includes(FINALIZER)) {
      // Finalized already: a namespace nothing else holds is removed (kube's older controller did the same).
      if (specFinalizers(ns).length === 0 && (ns.metadata.finalizers?.length ?? 0) === 0) {
        await store.delete(ctx, name, { preconditions: { uid: ns.metadata.uid } }).catch((e) => {
          if (!isNotFound(e)) throw e;
        });
      }
      return;
    }
    const report = await deleteContent(name);
    const at = now();
    await store
      .update(
        ctx,
        name,
        (cur) => {
          const status = (cur!.status ?? {}) as { conditions?: NamespaceCondition[] };
          const merged = mergeConditions(status.conditions ?? [], report, at);
          return merged.changed ? { ...cur!, status: { ...status, conditions: merged.conditions } } : cur!;
        },
        { subresource: 'status' },
      )
      .catch((e) => {
        if (!isNotFound(e)) throw e;
      });
    if (report.remaining.length || report.errors.length) {
      queue.enqueue(name, resyncMs);
      return;
    }
    await store
      .update(
        ctx,
        name,
        (cur) => {
          const spec = (cur!.spec ?? {}) as { finalizers?: string[] };
          return { ...cur!, spec: { ...spec, finalizers: specFinalizers(cur!).filter((f) => f !== FINALIZER) } };
        },
        { subresource: 'finalize' },
      )
      .catch((e) => {
        if (!isNotFound(e)) throw e;
      });
  }

  const queue: WorkQueue = startWorkQueue({
    store: namespaces,
    context: ctxFor(''),
    filter: (ev) => (ev.type === 'ADDED' || ev.type === 'MODIFIED') && !!(ev.object as KubeObject).metadata?.deletionTimestamp,
    sync: (name) => (stopped ? Promise.resolve() : sync(name)),
    retryMs: resyncMs,
  });

  return {
    sync,
    async stop() {
      stopped = true;
      await queue.stop();
    },
  };
}
