// RBAC's matching (k8s.io/kubernetes plugin/pkg/auth/authorizer/rbac, pkg/apis/rbac/v1 helpers): does a rule
// allow a request, does a binding's subject name the user, and the words kube uses to describe a binding.

import type { AuthzAttributes } from '../types.ts';
import type { UserInfo } from '../../user.ts';

export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

export interface Subject {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly apiGroup?: string;
}

export interface RoleRef {
  readonly apiGroup: string;
  readonly kind: string;
  readonly name: string;
}

const ALL = '*';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** A stored rule as plain data (absent lists are empty). */
export function policyRuleOf(raw: unknown): PolicyRule {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  return {
    verbs: strings(r.verbs),
    apiGroups: strings(r.apiGroups),
    resources: strings(r.resources),
    resourceNames: strings(r.resourceNames),
    nonResourceURLs: strings(r.nonResourceURLs),
  };
}

export function rulesOf(obj: { readonly [field: string]: unknown }): PolicyRule[] {
  return Array.isArray(obj.rules) ? obj.rules.map(policyRuleOf) : [];
}

const has = (list: readonly string[], v: string): boolean => list.includes(v);

function verbMatches(rule: PolicyRule, verb: string): boolean {
  return has(rule.verbs, ALL) || has(rule.verbs, verb);
}

function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return has(rule.apiGroups, ALL) || has(rule.apiGroups, group);
}

function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources) {
    if (r === ALL || r === combined) return true;
    // "*/status" matches the status subresource of every resource.
    if (subresource !== '' && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  return rule.resourceNames.length === 0 || has(rule.resourceNames, name);
}

function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs) {
    if (u === ALL || u === path) return true;
    if (u.endsWith(ALL) && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** rbac.RuleAllows. */
export function ruleAllows(a: AuthzAttributes, rule: PolicyRule): boolean {
  return ruleAllowsSomeName(a, rule) && (!a.isResourceRequest || resourceNameMatches(rule, a.name));
}

/** rbac.RuleAllows but for the rule's resourceNames: whether it allows the request for some object name. */
export function ruleAllowsSomeName(a: AuthzAttributes, rule: PolicyRule): boolean {
  if (a.isResourceRequest) {
    const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    return verbMatches(rule, a.verb) && apiGroupMatches(rule, a.apiGroup) && resourceMatches(rule, combined, a.subresource);
  }
  return verbMatches(rule, a.verb) && nonResourceURLMatches(rule, a.path);
}

export const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`;
}

/** appliesToUser: `namespace` is the binding's ('' for ClusterRoleBindings), the default of a ServiceAccount subject. */
export function subjectAppliesTo(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || namespace;
      return ns !== '' && user.name === serviceAccountUsername(ns, subject.name);
    }
    default:
      return false;
  }
}

/** describeSubject, as the allow reasons word it. */
export function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}

// --- Covering (pkg/registry/rbac/validation): does a user's set of rules hold every right a new rule grants? ---

/** BreakdownRule: one rule per group x resource x verb (x name), and per URL x verb. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups) {
    for (const resource of rule.resources) {
      for (const verb of rule.verbs) {
        if (rule.resourceNames.length > 0) {
          for (const n of rule.resourceNames) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [n], nonResourceURLs: [] });
        } else out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [], nonResourceURLs: [] });
      }
    }
  }
  for (const url of rule.nonResourceURLs) for (const verb of rule.verbs) out.push({ apiGroups: [], resources: [], verbs: [verb], resourceNames: [], nonResourceURLs: [url] });
  return out;
}

const hasAll = (set: readonly string[], wanted: readonly string[]): boolean => wanted.every((w) => set.includes(w));

function resourceCoversAll(set: readonly string[], covers: readonly string[]): boolean {
  if (has(set, ALL) || hasAll(set, covers)) return true;
  for (const path of covers) {
    if (has(set, path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    if (!has(set, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, sub: string): boolean {
  return owner === sub || (owner.endsWith('*') && sub.startsWith(owner.replace(/\*+$/, '')));
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, ALL) || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, ALL) || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = sub.nonResourceURLs.every((p) => owner.nonResourceURLs.some((o) => nonResourceURLCovers(o, p)));
  const names = sub.resourceNames.length === 0 ? owner.resourceNames.length === 0 : owner.resourceNames.length === 0 || hasAll(owner.resourceNames, sub.resourceNames);
  return verbs && groups && resources && names && urls;
}

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * An owner rule equal to the servant covers every rule the servant breaks down into, unless the servant mixes
 * resource names with non-resource URLs (its URL rules then need an owner without names). The bootstrap roles
 * reconciled at every start are mostly unchanged, so this spares breaking them down.
 */
function coveredAsWhole(ownerRules: readonly PolicyRule[], servant: PolicyRule): boolean {
  if (servant.resourceNames.length > 0 && servant.nonResourceURLs.length > 0) return false;
  return ownerRules.some(
    (o) =>
      sameList(o.verbs, servant.verbs) &&
      sameList(o.apiGroups, servant.apiGroups) &&
      sameList(o.resources, servant.resources) &&
      sameList(o.resourceNames, servant.resourceNames) &&
      sameList(o.nonResourceURLs, servant.nonResourceURLs),
  );
}

/** Covers: whether ownerRules hold every right in servantRules, and the broken-down rules they miss. */
export function covers(ownerRules: readonly PolicyRule[], servantRules: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const servant of servantRules) {
    if (coveredAsWhole(ownerRules, servant)) continue;
    for (const sub of breakdownRule(servant)) {
      if (!ownerRules.some((o) => ruleCovers(o, sub))) missing.push(sub);
    }
  }
  return { covered: missing.length === 0, missing };
}

/** CompactRules: simple rules (one group, one resource, at most one name) of the same target merge their verbs. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, { -readonly [K in keyof PolicyRule]: PolicyRule[K] }>();
  for (const r of rules) {
    const isSimple = r.nonResourceURLs.length === 0 && r.apiGroups.length === 1 && r.resources.length === 1 && r.resourceNames.length <= 1;
    if (!isSimple) {
      compacted.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups[0], r.resources[0], r.resourceNames.length > 0, r.resourceNames[0] ?? '']);
    const existing = simple.get(key);
    if (existing) existing.verbs = [...existing.verbs, ...r.verbs];
    else simple.set(key, { ...r, verbs: [...r.verbs] });
  }
  return [...compacted, ...simple.values()];
}

/** Go's %q of a []string: ["a" "b"]. */
export function goQuotedList(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/** rbacv1helpers.CompactString. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups.length > 0) parts.push(`APIGroups:${goQuotedList(r.apiGroups)}`);
  if (r.resources.length > 0) parts.push(`Resources:${goQuotedList(r.resources)}`);
  if (r.nonResourceURLs.length > 0) parts.push(`NonResourceURLs:${goQuotedList(r.nonResourceURLs)}`);
  if (r.resourceNames.length > 0) parts.push(`ResourceNames:${goQuotedList(r.resourceNames)}`);
  if (r.verbs.length > 0) parts.push(`Verbs:${goQuotedList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}
