// Which FlowSchema a request matches (k8s.io/apiserver/pkg/util/flowcontrol/rule.go): schemas in order of
// matchingPrecedence then name, the first whose rules match subject and resource (or non-resource URL) wins.

import type { UserInfo } from '../../auth/user.ts';
import type { RequestInfo } from '../../endpoints/request-info.ts';
import type { FlowSchema, NonResourcePolicyRule, ResourcePolicyRule, Subject } from './types.ts';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

function matchesSubject(user: UserInfo, s: Subject): boolean {
  switch (s.kind) {
    case 'User':
      return s.user?.name === '*' || s.user?.name === user.name;
    case 'Group':
      return s.group?.name === '*' || (s.group !== undefined && user.groups.includes(s.group.name));
    case 'ServiceAccount': {
      const sa = s.serviceAccount;
      if (!sa || !user.name.startsWith(SERVICE_ACCOUNT_PREFIX)) return false;
      const [namespace, name] = user.name.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
      return namespace === sa.namespace && (sa.name === '*' || sa.name === name);
    }
  }
  return false;
}

const has = (list: readonly string[] | undefined, value: string): boolean => !!list && (list.includes('*') || list.includes(value));

function matchesResourceRule(info: RequestInfo, r: ResourcePolicyRule): boolean {
  if (!has(r.verbs, info.verb)) return false;
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  if (!has(r.resources, resource)) return false;
  if (!has(r.apiGroups, info.apiGroup)) return false;
  if (info.namespace === '') return r.clusterScope === true;
  return has(r.namespaces, info.namespace);
}

function matchesNonResourceRule(info: RequestInfo, r: NonResourcePolicyRule): boolean {
  if (!has(r.verbs, info.verb)) return false;
  return r.nonResourceURLs.some((url) => url === '*' || url === info.path || (url.endsWith('*') && info.path.startsWith(url.slice(0, -1))));
}

export function matchesFlowSchema(fs: FlowSchema, user: UserInfo, info: RequestInfo): boolean {
  for (const rule of fs.spec.rules ?? []) {
    if (!rule.subjects.some((s) => matchesSubject(user, s))) continue;
    if (info.isResourceRequest ? (rule.resourceRules ?? []).some((r) => matchesResourceRule(info, r)) : (rule.nonResourceRules ?? []).some((r) => matchesNonResourceRule(info, r))) return true;
  }
  return false;
}

/** The flow within a priority level: the distinguisher's value. */
export function flowDistinguisher(fs: FlowSchema, user: UserInfo, info: RequestInfo): string {
  switch (fs.spec.distinguisherMethod?.type) {
    case 'ByUser':
      return user.name;
    case 'ByNamespace':
      return info.namespace;
    default:
      return '';
  }
}

export function sortFlowSchemas(schemas: readonly FlowSchema[]): FlowSchema[] {
  return [...schemas].sort((a, b) => (a.spec.matchingPrecedence ?? 1000) - (b.spec.matchingPrecedence ?? 1000) || (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
}
