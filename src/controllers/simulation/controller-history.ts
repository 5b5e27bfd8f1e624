// ControllerRevisions, as kube's StatefulSet and DaemonSet controllers keep them (pkg/controller/history and the
// two controllers' revision handling): one per pod template the set has had, named <set>-<hash>, owned by the set,
// labelled with the template's labels and the hash, carrying the set's annotations, a revision number and, in
// `data`, the patch that puts the template back (`{"spec":{"template":{...,"$patch":"replace"}}}`, keys sorted as
// Go's json.Marshal of a map writes them). A template the set had before gets its revision renumbered as the
// newest; revisions no pod uses beyond spec.revisionHistoryLimit are deleted, oldest first. What `kubectl rollout
// history` lists and shows, and what `kubectl rollout undo` patches the set with.

import type { KubeObject } from '../../registry/types.ts';
import type { Informer } from '../informers.ts';
import { asObj, claim, controllerRef, ignoreConflictOrGone, isConflictOrGone, type Obj } from './shared.ts';

export const CONTROLLERREVISIONS = { group: 'apps', version: 'v1', resource: 'controllerrevisions' } as const;

/** A JSON value with its object keys sorted, as Go marshals a map[string]interface{}. */
export function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortedKeys((v as Obj)[k])]),
  );
}

/** getPatch: the set's template as a strategic merge patch that replaces it. */
export function revisionData(set: KubeObject): Obj {
  return sortedKeys({ spec: { template: { ...asObj(asObj(set.spec).template), $patch: 'replace' } } }) as Obj;
}

const revisionNumber = (r: KubeObject): number => Number(r.revision ?? 0);

export interface HistoryOptions {
  /** The set's kind, for the owner reference. */
  readonly kind: 'StatefulSet' | 'DaemonSet';
  /** The hash of the set's template: the revision is named <set>-<hash>. */
  readonly hash: string;
  /** The label carrying the hash (StatefulSets: controller.kubernetes.io/hash; DaemonSets: controller-revision-hash). */
  readonly hashLabel: string;
  /** The names of the revisions still in use (the pods', the status's): never deleted. */
  readonly live: ReadonlySet<string>;
}

/**
 * Makes (or renumbers) the revision of the set's current template and trims the history; returns the revision's
 * name. Writes that another pass overtook are left to the next one.
 */
export async function syncHistory(history: Informer, set: KubeObject, opts: HistoryOptions): Promise<string> {
  const namespace = set.metadata.namespace ?? '';
  const name = `${set.metadata.name}-${opts.hash}`;
  // The set's revisions, orphans it selects adopted (adoptOrphanRevisions, controlledHistories).
  const revisions = (await claim(history, set, { apiVersion: 'apps/v1', kind: opts.kind })).sort((a, b) => revisionNumber(a) - revisionNumber(b));
  const max = revisions.length ? revisionNumber(revisions[revisions.length - 1]!) : 0;
  const existing = revisions.find((r) => r.metadata.name === name);
  if (!existing) {
    const revision: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name,
        namespace,
        labels: { ...(asObj(asObj(asObj(set.spec).template).metadata).labels as Record<string, string> | undefined), [opts.hashLabel]: opts.hash },
        ...(set.metadata.annotations ? { annotations: { ...set.metadata.annotations } } : {}),
        ownerReferences: [controllerRef(set, 'apps/v1', opts.kind)],
      },
      data: revisionData(set),
      revision: max + 1,
    };
    await history.create(namespace, revision).catch((e) => {
      if (!isConflictOrGone(e)) throw e;
    });
  } else if (revisionNumber(existing) < max) {
    // A rollback to an earlier template: its revision becomes the newest again.
    await history.update(namespace, name, (cur) => ({ ...cur!, revision: max + 1 })).catch(ignoreConflictOrGone);
  }
  // truncateHistory / cleanupHistory: the oldest revisions no pod uses, past the limit.
  const limit = typeof asObj(set.spec).revisionHistoryLimit === 'number' ? Number(asObj(set.spec).revisionHistoryLimit) : 10;
  const old = revisions.filter((r) => r.metadata.name !== name && !opts.live.has(r.metadata.name ?? ''));
  for (const r of old.slice(0, Math.max(0, old.length - limit))) {
    await history.delete(namespace, r.metadata.name ?? '', { preconditions: { uid: r.metadata.uid } }).catch(ignoreConflictOrGone);
  }
  return name;
}
