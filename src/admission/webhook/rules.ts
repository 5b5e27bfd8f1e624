// Which requests a webhook's (or policy's) rules cover (k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules):
// operations, apiGroups, apiVersions, resources with subresources ("*", "*/*", "pods/*", "*/status"), and scope.

import type { AdmissionAttributes } from '../types.ts';

export interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

const anyOf = (list: readonly string[] | undefined, value: string): boolean => !!list && (list.includes('*') || list.includes(value));

function resourceMatches(patterns: readonly string[] | undefined, resource: string, subresource: string): boolean {
  for (const p of patterns ?? []) {
    if (p === '*/*') return true;
    const slash = p.indexOf('/');
    if (slash < 0) {
      if (subresource === '' && (p === '*' || p === resource)) return true;
      continue;
    }
    const r = p.slice(0, slash);
    const s = p.slice(slash + 1);
    if ((r === '*' || r === resource) && (s === '*' || s === subresource)) return true;
  }
  return false;
}

function scopeMatches(scope: string | undefined, a: Pick<AdmissionAttributes, 'namespace' | 'resource'>): boolean {
  if (!scope || scope === '*') return true;
  const isNamespaceObject = a.resource.group === '' && a.resource.resource === 'namespaces';
  if (scope === 'Namespaced') return !isNamespaceObject && a.namespace !== '';
  if (scope === 'Cluster') return isNamespaceObject || a.namespace === '';
  return false;
}

/** One rule against the request as seen in a given group/version/resource. */
export function ruleMatches(
  rule: RuleWithOperations,
  a: Pick<AdmissionAttributes, 'operation' | 'namespace' | 'resource' | 'subResource'>,
  gvr: { group: string; version: string; resource: string } = a.resource,
): boolean {
  return (
    anyOf(rule.operations, a.operation) &&
    anyOf(rule.apiGroups, gvr.group) &&
    anyOf(rule.apiVersions, gvr.version) &&
    resourceMatches(rule.resources, gvr.resource, a.subResource) &&
    scopeMatches(rule.scope, a)
  );
}
