// The rbac/bootstrap-roles post-start hook of kube-apiserver: the default ClusterRoles, ClusterRoleBindings,
// Roles and RoleBindings are created when missing and, unless annotated rbac.authorization.kubernetes.io/autoupdate
// "false", reconciled as kube does (pkg/registry/rbac/reconciliation): missing rules, aggregation selectors,
// subjects, labels and annotations are added, nothing is removed; a binding whose roleRef changed is recreated.

import { isStatusError } from '../apis/errors.ts';
import {
  AUTOUPDATE_ANNOTATION,
  BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
  BOOTSTRAP_CLUSTER_ROLES,
  BOOTSTRAP_ROLE_BINDINGS,
  BOOTSTRAP_ROLES,
} from '../auth/authz/rbac/bootstrap-policy.ts';
import { RBAC_GROUP } from '../auth/authz/rbac/policy.ts';
import { covers, rulesOf } from '../auth/authz/rbac/rules.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry, ResourceStore } from '../registry/types.ts';
import { cloneJson } from '../apis/json-clone.ts';

type Reconcile = (current: KubeObject, expected: KubeObject) => KubeObject | 'recreate' | undefined;

/** merge(expected, existing): the existing values win. */
function mergedMap(expected: Record<string, string> | undefined, existing: Record<string, string> | undefined): Record<string, string> | undefined {
  const out = { ...expected, ...existing };
  return Object.keys(out).length > 0 ? out : undefined;
}

function withMergedMeta(current: KubeObject, expected: KubeObject): { next: KubeObject; changed: boolean } {
  const labels = mergedMap(expected.metadata.labels, current.metadata.labels);
  const annotations = mergedMap(expected.metadata.annotations, current.metadata.annotations);
  const changed = JSON.stringify(labels ?? {}) !== JSON.stringify(current.metadata.labels ?? {}) || JSON.stringify(annotations ?? {}) !== JSON.stringify(current.metadata.annotations ?? {});
  return { next: { ...current, metadata: { ...current.metadata, labels, annotations } }, changed };
}

const selectorsOf = (obj: KubeObject): unknown[] => ((obj.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined)?.clusterRoleSelectors ?? []);

const reconcileRole: Reconcile = (current, expected) => {
  let { next, changed } = withMergedMeta(current, expected);
  const expectedSelectors = selectorsOf(expected);
  if (expected.aggregationRule) {
    const have = selectorsOf(current);
    const missing = expectedSelectors.filter((s) => !have.some((h) => JSON.stringify(h) === JSON.stringify(s)));
    if (missing.length > 0) {
      next = { ...next, aggregationRule: { ...(current.aggregationRule as object), clusterRoleSelectors: [...have, ...missing] } };
      changed = true;
    }
  }
  const { missing } = covers(rulesOf(current), rulesOf(expected));
  if (missing.length > 0) {
    const added = missing.map((r) => ({
      verbs: r.verbs,
      ...(r.apiGroups.length ? { apiGroups: r.apiGroups } : {}),
      ...(r.resources.length ? { resources: r.resources } : {}),
      ...(r.resourceNames.length ? { resourceNames: r.resourceNames } : {}),
      ...(r.nonResourceURLs.length ? { nonResourceURLs: r.nonResourceURLs } : {}),
    }));
    next = { ...next, rules: [...(Array.isArray(current.rules) ? current.rules : []), ...added] };
    changed = true;
  }
  return changed ? next : undefined;
};

const reconcileBinding: Reconcile = (current, expected) => {
  if (JSON.stringify(current.roleRef) !== JSON.stringify(expected.roleRef)) return 'recreate';
  let { next, changed } = withMergedMeta(current, expected);
  const have = Array.isArray(current.subjects) ? (current.subjects as Record<string, unknown>[]) : [];
  const want = Array.isArray(expected.subjects) ? (expected.subjects as Record<string, unknown>[]) : [];
  const key = (s: Record<string, unknown>) => JSON.stringify([s.kind, s.name, s.namespace ?? '']);
  const missing = want.filter((s) => !have.some((h) => key(h) === key(s)));
  if (missing.length > 0) {
    next = { ...next, subjects: [...have, ...missing] };
    changed = true;
  }
  return changed ? next : undefined;
};

const objectKey = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

async function reconcileAll(store: ResourceStore, objects: readonly KubeObject[], reconcile: Reconcile): Promise<void> {
  // One list from the watch cache instead of a read (a NotFound on a first start) per object; the objects are
  // independent, so their writes share the storage's commits.
  const found = new Map((await store.list(loopbackContext())).items.map((o) => [objectKey(o), o]));
  await Promise.all(objects.map((expected) => reconcileOne(store, expected, found.get(objectKey(expected)), reconcile)));
}

async function reconcileOne(store: ResourceStore, expected: KubeObject, current: KubeObject | undefined, reconcile: Reconcile): Promise<void> {
  const ctx = loopbackContext(expected.metadata.namespace ?? '');
  const name = expected.metadata.name!;
  if (!current) {
    try {
      await store.create(ctx, cloneJson(expected));
    } catch (e) {
      if (!(isStatusError(e) && e.reason === 'AlreadyExists')) throw e;
    }
    return;
  }
  if (current.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') return;
  const result = reconcile(current, expected);
  if (result === undefined) return;
  if (result === 'recreate') {
    await store.delete(ctx, name, { preconditions: { uid: current.metadata.uid } });
    await store.create(ctx, cloneJson(expected));
    return;
  }
  await store.update(ctx, name, (live) => (live ? (reconcile(live, expected) as KubeObject | undefined) ?? live : cloneJson(expected)));
}

/** Creates or reconciles the default RBAC policy; resolves once every object is in place. */
export async function reconcileBootstrapPolicy(registry: Registry): Promise<void> {
  const store = (resource: string) => {
    const def = registry.lookup(RBAC_GROUP, 'v1', resource);
    if (!def) throw new Error(`${resource}.${RBAC_GROUP}/v1 is not served`);
    return registry.store(def);
  };
  await reconcileAll(store('clusterroles'), BOOTSTRAP_CLUSTER_ROLES, reconcileRole);
  await reconcileAll(store('clusterrolebindings'), BOOTSTRAP_CLUSTER_ROLE_BINDINGS, reconcileBinding);
  await reconcileAll(store('roles'), BOOTSTRAP_ROLES, reconcileRole);
  await reconcileAll(store('rolebindings'), BOOTSTRAP_ROLE_BINDINGS, reconcileBinding);
}
