// --audit-policy-file: reading and validating an audit.k8s.io/v1 Policy, and kube's policy checker
// (k8s.io/apiserver/pkg/audit/policy/checker.go): the first matching rule gives the level, its omitStages join
// the policy's, its omitManagedFields overrides the policy's.

import { readFile } from 'node:fs/promises';
import { yaml } from '../../encoding/yaml.ts';
import type { AuthzAttributes } from '../../auth/authz/types.ts';
import { AUDIT_LEVELS, AUDIT_STAGES, type AuditLevel, type AuditPolicy, type AuditStage, type PolicyRule, type RequestAuditConfig } from './types.ts';

const SUPPORTED_API_VERSIONS = ['audit.k8s.io/v1'];

function quoteList(values: readonly string[]): string {
  return values.map((v) => JSON.stringify(v)).join(', ');
}

function stringList(value: unknown, path: string, errors: string[]): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    errors.push(`${path}: Invalid value: must be a list of strings`);
    return undefined;
  }
  return value as string[];
}

function stages(value: unknown, path: string, errors: string[]): AuditStage[] | undefined {
  const list = stringList(value, path, errors);
  list?.forEach((s, i) => {
    if (!AUDIT_STAGES.includes(s as AuditStage)) errors.push(`${path}[${i}]: Unsupported value: ${JSON.stringify(s)}: supported values: ${quoteList(AUDIT_STAGES)}`);
  });
  return list as AuditStage[] | undefined;
}

/** validation.ValidatePolicy: level, stages, and rules that mix resource and non-resource matching. */
export function validatePolicy(raw: unknown): AuditPolicy {
  const errors: string[] = [];
  const obj = (raw ?? {}) as Record<string, unknown>;
  const rules: PolicyRule[] = [];
  const rawRules = Array.isArray(obj.rules) ? obj.rules : [];
  rawRules.forEach((r: Record<string, unknown>, i: number) => {
    const path = `rules[${i}]`;
    const level = r?.level as AuditLevel;
    if (level === undefined || (level as string) === '') errors.push(`${path}.level: Required value`);
    else if (!AUDIT_LEVELS.includes(level)) errors.push(`${path}.level: Unsupported value: ${JSON.stringify(level)}: supported values: ${quoteList(AUDIT_LEVELS)}`);
    const nonResourceURLs = stringList(r?.nonResourceURLs, `${path}.nonResourceURLs`, errors);
    const namespaces = stringList(r?.namespaces, `${path}.namespaces`, errors);
    const resources = Array.isArray(r?.resources) ? (r.resources as PolicyRule['resources']) : undefined;
    if (nonResourceURLs?.length && (resources?.length || namespaces?.length)) {
      errors.push(`${path}.nonResourceURLs: Invalid value: ${JSON.stringify(nonResourceURLs)}: rules cannot apply to both regular resources and non-resource URLs`);
    }
    nonResourceURLs?.forEach((u, j) => {
      if (u !== '*' && !u.startsWith('/')) errors.push(`${path}.nonResourceURLs[${j}]: Invalid value: ${JSON.stringify(u)}: non-resource URL rules must begin with a '/' character`);
      if (u.length > 1 && u.slice(0, -1).includes('*')) errors.push(`${path}.nonResourceURLs[${j}]: Invalid value: ${JSON.stringify(u)}: non-resource URL wildcards ('*') must be the final character of the rule`);
    });
    resources?.forEach((gr, j) => {
      if (gr.resourceNames?.length && gr.resources?.some((res) => res.includes('*'))) {
        errors.push(`${path}.resources[${j}].resourceNames: Invalid value: ${JSON.stringify(gr.resourceNames)}: using resourceNames with wildcard resources is not supported`);
      }
    });
    rules.push({
      level,
      users: stringList(r?.users, `${path}.users`, errors),
      userGroups: stringList(r?.userGroups, `${path}.userGroups`, errors),
      verbs: stringList(r?.verbs, `${path}.verbs`, errors),
      resources,
      namespaces,
      nonResourceURLs,
      omitStages: stages(r?.omitStages, `${path}.omitStages`, errors),
      omitManagedFields: typeof r?.omitManagedFields === 'boolean' ? r.omitManagedFields : undefined,
    });
  });
  const omitStages = stages(obj.omitStages, 'omitStages', errors);
  if (errors.length > 0) throw new Error(errors.join(', '));
  return { apiVersion: String(obj.apiVersion ?? ''), kind: 'Policy', rules, omitStages, omitManagedFields: obj.omitManagedFields === true };
}

/** policy.LoadPolicyFromBytes: one Policy document of a supported apiVersion with at least one rule. */
export function parsePolicy(text: string, source: string): AuditPolicy {
  const docs = yaml().parseAllDocuments(text).filter((d) => d.contents !== null);
  if (docs.length === 0) throw new Error(`loaded illegal policy with 0 rules from file ${source}`);
  const doc = docs[0]!;
  if (doc.errors.length > 0) throw new Error(`failed decoding file ${JSON.stringify(source)}: ${doc.errors[0]!.message}`);
  const raw = doc.toJS() as Record<string, unknown>;
  const apiVersion = String(raw?.apiVersion ?? '');
  if (raw?.kind !== 'Policy' || !SUPPORTED_API_VERSIONS.includes(apiVersion)) {
    throw new Error(`unknown group version field ${JSON.stringify(apiVersion)} in policy file ${source}`);
  }
  let policy: AuditPolicy;
  try {
    policy = validatePolicy(raw);
  } catch (e) {
    throw new Error(`policy file ${source} is invalid: ${(e as Error).message}`);
  }
  if (policy.rules.length === 0) throw new Error(`loaded illegal policy with 0 rules from file ${source}`);
  return policy;
}

export async function loadPolicyFile(path: string): Promise<AuditPolicy> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new Error(`failed to read file path ${JSON.stringify(path)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parsePolicy(text, path);
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function matchesResource(rule: PolicyRule, a: AuthzAttributes): boolean {
  if (!a.isResourceRequest) return false;
  // Cluster-scoped resources have the namespace "".
  if (rule.namespaces?.length && !rule.namespaces.includes(a.namespace)) return false;
  if (!rule.resources?.length) return true;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  for (const gr of rule.resources) {
    if ((gr.group ?? '') !== a.apiGroup) continue;
    if (!gr.resources?.length) return true;
    for (const res of gr.resources) {
      if (gr.resourceNames?.length && !gr.resourceNames.includes(a.name)) continue;
      if (res === combined || res === '*') return true;
      if (a.subresource && res.startsWith('*/') && a.subresource === res.slice(2)) return true;
      if (res.endsWith('/*') && a.resource === res.slice(0, -2)) return true;
    }
  }
  return false;
}

export function ruleMatches(rule: PolicyRule, a: AuthzAttributes): boolean {
  if (rule.users?.length && !rule.users.includes(a.user.name)) return false;
  if (rule.userGroups?.length && !a.user.groups.some((g) => rule.userGroups!.includes(g))) return false;
  if (rule.verbs?.length && !rule.verbs.includes(a.verb)) return false;
  if (rule.namespaces?.length || rule.resources?.length) return matchesResource(rule, a);
  if (rule.nonResourceURLs?.length) return !a.isResourceRequest && rule.nonResourceURLs.some((spec) => pathMatches(a.path, spec));
  return true;
}

const NONE: RequestAuditConfig = { level: 'None', omitStages: [], omitManagedFields: false };

// What a rule asks for is the same for every request it matches: made once per rule of a loaded policy.
const ruleConfigs = new WeakMap<PolicyRule, RequestAuditConfig>();
const noRuleConfigs = new WeakMap<AuditPolicy, RequestAuditConfig>();

function ruleConfig(policy: AuditPolicy, rule: PolicyRule): RequestAuditConfig {
  let config = ruleConfigs.get(rule);
  if (!config) {
    const omit = new Set<AuditStage>([...(policy.omitStages ?? []), ...(rule.omitStages ?? [])]);
    config = { level: rule.level, omitStages: [...omit], omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields ?? false };
    ruleConfigs.set(rule, config);
  }
  return config;
}

/** The policy checker: what to record of one request (callers read the answer, never change it). */
export function evaluatePolicy(policy: AuditPolicy, a: AuthzAttributes): RequestAuditConfig {
  for (const rule of policy.rules) if (ruleMatches(rule, a)) return ruleConfig(policy, rule);
  let config = noRuleConfigs.get(policy);
  if (!config) noRuleConfigs.set(policy, (config = { ...NONE, omitStages: policy.omitStages ?? [] }));
  return config;
}
