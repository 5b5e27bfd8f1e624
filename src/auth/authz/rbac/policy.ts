// The RBAC policy as the authorizer reads it: Roles, ClusterRoles, RoleBindings and ClusterRoleBindings kept by
// informers on the registry's stores (so read from the watch caches), with bindings indexed by the users and groups
// they name: a request looks at the bindings of its user and groups only, however many bindings exist.

import type { Informer } from '../../../registry/informer.ts';
import { objectKey, startInformer } from '../../../registry/informer.ts';
import type { KubeObject, Registry } from '../../../registry/types.ts';
import type { UserInfo } from '../../user.ts';
import { rulesOf, serviceAccountUsername, subjectAppliesTo, type PolicyRule, type RoleRef, type Subject } from './rules.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface Binding {
  readonly name: string;
  /** '' for a ClusterRoleBinding. */
  readonly namespace: string;
  readonly roleRef: RoleRef;
  readonly subjects: readonly Subject[];
}

/** What the RBAC visitor sees of one applicable binding: its role's rules, or why they could not be read. */
export interface BoundRules {
  readonly binding: Binding;
  readonly subject: Subject;
  readonly rules?: readonly PolicyRule[];
  readonly error?: string;
}

export interface RbacPolicy {
  /** Resolves once every informer has listed. */
  synced(): Promise<void>;
  /** The bindings that apply to the user: every ClusterRoleBinding, then (namespace given) the namespace's RoleBindings. */
  visit(user: UserInfo, namespace: string, visitor: (b: BoundRules) => boolean): void;
  /** The rules a roleRef points at (GetRoleReferenceRules), from the binding's namespace. */
  roleRefRules(ref: RoleRef, namespace: string): { rules?: readonly PolicyRule[]; error?: string };
  /** Counts the changes to roles and bindings seen so far: what was read of the policy holds while it stays. */
  revision(): number;
  /** Every ClusterRole (the aggregation controller). */
  clusterRoles(): IterableIterator<KubeObject>;
  onClusterRoleChange(handler: () => void): () => void;
  stop(): void;
}

function bindingOf(obj: KubeObject): Binding {
  const ref = (obj.roleRef ?? {}) as Record<string, unknown>;
  const subjects = Array.isArray(obj.subjects) ? (obj.subjects as Record<string, unknown>[]) : [];
  return {
    name: obj.metadata.name ?? '',
    namespace: obj.metadata.namespace ?? '',
    roleRef: { apiGroup: String(ref.apiGroup ?? ''), kind: String(ref.kind ?? ''), name: String(ref.name ?? '') },
    subjects: subjects.map((s) => ({ kind: String(s.kind ?? ''), name: String(s.name ?? ''), namespace: typeof s.namespace === 'string' ? s.namespace : undefined })),
  };
}

/** The index keys a subject is found under: "u:<user>" or "g:<group>"; none for a subject that names no one. */
function subjectKey(s: Subject, bindingNamespace: string): string | undefined {
  if (s.kind === 'User') return `u:${s.name}`;
  if (s.kind === 'Group') return `g:${s.name}`;
  if (s.kind === 'ServiceAccount') {
    const ns = s.namespace || bindingNamespace;
    return ns ? `u:${serviceAccountUsername(ns, s.name)}` : undefined;
  }
  return undefined;
}

/** Bindings by subject key, kept in step with an informer. */
function bindingIndex(informer: Informer) {
  const byKey = new Map<string, Map<string, Set<Binding>>>(); // namespace -> key -> bindings
  const current = new Map<string, Binding>();
  const remove = (b: Binding) => {
    const ns = byKey.get(b.namespace);
    if (!ns) return;
    for (const s of b.subjects) {
      const key = subjectKey(s, b.namespace);
      if (!key) continue;
      const set = ns.get(key);
      set?.delete(b);
      if (set && set.size === 0) ns.delete(key);
    }
  };
  informer.onEvent((type, obj) => {
    const id = objectKey(obj.metadata.namespace, obj.metadata.name);
    const old = current.get(id);
    if (old) remove(old);
    if (type === 'delete') {
      current.delete(id);
      return;
    }
    const b = bindingOf(obj);
    current.set(id, b);
    let ns = byKey.get(b.namespace);
    if (!ns) byKey.set(b.namespace, (ns = new Map()));
    for (const s of b.subjects) {
      const key = subjectKey(s, b.namespace);
      if (!key) continue;
      let set = ns.get(key);
      if (!set) ns.set(key, (set = new Set()));
      set.add(b);
    }
  });
  return (namespace: string) => byKey.get(namespace);
}

function rbacStore(registry: Registry, resource: string) {
  const def = registry.lookup(RBAC_GROUP, 'v1', resource);
  if (!def) throw new Error(`RBAC needs ${resource}.${RBAC_GROUP}/v1 to be served`);
  return registry.store(def);
}

export function startRbacPolicy(registry: Registry): RbacPolicy {
  const roles = startInformer(rbacStore(registry, 'roles'));
  const clusterRoles = startInformer(rbacStore(registry, 'clusterroles'));
  const roleBindings = startInformer(rbacStore(registry, 'rolebindings'));
  const clusterRoleBindings = startInformer(rbacStore(registry, 'clusterrolebindings'));
  const informers = [roles, clusterRoles, roleBindings, clusterRoleBindings];
  let revision = 0;
  for (const i of informers) i.onEvent(() => void revision++);

  // Parsed rules, memoized per stored object (objects are replaced, never changed, on update).
  const parsed = new WeakMap<KubeObject, PolicyRule[]>();
  const rulesOfObject = (obj: KubeObject): PolicyRule[] => {
    let r = parsed.get(obj);
    if (!r) parsed.set(obj, (r = rulesOf(obj)));
    return r;
  };
  const crbIndex = bindingIndex(clusterRoleBindings);
  const rbIndex = bindingIndex(roleBindings);

  const roleRefRules = (ref: RoleRef, namespace: string): { rules?: readonly PolicyRule[]; error?: string } => {
    if (ref.kind === 'ClusterRole') {
      const obj = clusterRoles.get('', ref.name);
      // kube's lister NotFound: the singular resource, qualified with the group.
      return obj ? { rules: rulesOfObject(obj) } : { error: `clusterrole.${RBAC_GROUP} ${JSON.stringify(ref.name)} not found` };
    }
    if (ref.kind === 'Role') {
      const obj = roles.get(namespace, ref.name);
      return obj ? { rules: rulesOfObject(obj) } : { error: `role.${RBAC_GROUP} ${JSON.stringify(ref.name)} not found` };
    }
    return { error: `unsupported role reference kind: ${JSON.stringify(ref.kind)}` };
  };

  const visitIndex = (index: Map<string, Set<Binding>> | undefined, user: UserInfo, namespace: string, seen: Set<Binding>, visitor: (b: BoundRules) => boolean): boolean => {
    if (!index) return true;
    const keys = [`u:${user.name}`, ...user.groups.map((g) => `g:${g}`)];
    for (const key of keys) {
      const set = index.get(key);
      if (!set) continue;
      for (const binding of set) {
        if (seen.has(binding)) continue;
        const subject = binding.subjects.find((s) => subjectAppliesTo(user, s, namespace));
        if (!subject) continue;
        seen.add(binding);
        if (!visitor({ binding, subject, ...roleRefRules(binding.roleRef, binding.namespace) })) return false;
      }
    }
    return true;
  };

  return {
    synced: async () => {
      await Promise.all(informers.map((i) => i.synced()));
    },
    visit(user, namespace, visitor) {
      const seen = new Set<Binding>();
      if (!visitIndex(crbIndex(''), user, '', seen, visitor)) return;
      if (namespace !== '') visitIndex(rbIndex(namespace), user, namespace, seen, visitor);
    },
    roleRefRules,
    revision: () => revision,
    clusterRoles: () => clusterRoles.items(),
    onClusterRoleChange(handler) {
      return clusterRoles.onEvent(() => handler());
    },
    stop() {
      for (const i of informers) i.stop();
    },
  };
}
