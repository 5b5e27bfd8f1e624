// The ABAC authorization mode (pkg/auth/authorizer/abac, --authorization-policy-file): one JSON policy per line,
// abac.authorization.kubernetes.io/v1beta1 (or the unversioned v0 form); a request is allowed by the first policy
// whose subject, verb (readonly policies allow get, list and watch only) and resource or non-resource path match.

import { ALL_AUTHENTICATED } from '../user.ts';
import type { Authorizer, AuthzAttributes, NonResourceRule, ResourceRule } from './types.ts';

export interface AbacPolicy {
  readonly user: string;
  readonly group: string;
  readonly readonly: boolean;
  readonly apiGroup: string;
  readonly resource: string;
  readonly namespace: string;
  readonly nonResourcePath: string;
}

type Obj = Record<string, unknown>;
const str = (o: Obj, k: string): string => (typeof o[k] === 'string' ? (o[k] as string) : '');

/** Parses a policy file; throws with kube's line-numbered wording on a bad line. */
export function parseAbacPolicies(text: string, path: string): AbacPolicy[] {
  const policies: AbacPolicy[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    let doc: Obj;
    try {
      const parsed = JSON.parse(line) as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      doc = parsed as Obj;
    } catch (e) {
      throw new Error(`error reading policy file ${path}, line ${i + 1}: ${JSON.stringify(line)}: ${(e as Error).message}`);
    }
    const apiVersion = str(doc, 'apiVersion');
    if (apiVersion === '') {
      // v0: an empty subject is every authenticated user, an empty resource or namespace is any.
      const user = str(doc, 'user');
      const group = str(doc, 'group');
      policies.push({
        user,
        group: user === '' && group === '' ? ALL_AUTHENTICATED : group,
        readonly: doc.readonly === true,
        apiGroup: '*',
        resource: str(doc, 'resource') || '*',
        namespace: str(doc, 'namespace') || '*',
        nonResourcePath: '*',
      });
      return;
    }
    if (apiVersion !== 'abac.authorization.kubernetes.io/v1beta1' || str(doc, 'kind') !== 'Policy') {
      throw new Error(`error reading policy file ${path}, line ${i + 1}: ${JSON.stringify(line)}: unknown policy ${JSON.stringify(apiVersion)}, kind ${JSON.stringify(str(doc, 'kind'))}`);
    }
    const spec = (doc.spec && typeof doc.spec === 'object' ? doc.spec : {}) as Obj;
    let user = str(spec, 'user');
    let group = str(spec, 'group');
    // v1beta1: "*" as user or group is every authenticated user.
    if (user === '*' || group === '*') {
      group = ALL_AUTHENTICATED;
      user = '';
    }
    policies.push({
      user,
      group,
      readonly: spec.readonly === true,
      apiGroup: str(spec, 'apiGroup'),
      resource: str(spec, 'resource'),
      namespace: str(spec, 'namespace'),
      nonResourcePath: str(spec, 'nonResourcePath'),
    });
  });
  return policies;
}

function subjectMatches(p: AbacPolicy, a: AuthzAttributes): boolean {
  let matched = false;
  if (p.user !== '') {
    if (p.user === '*') matched = true;
    else if (!(matched = p.user === a.user.name)) return false;
  }
  if (p.group !== '') {
    if (p.group === '*') matched = true;
    else if (!(matched = a.user.groups.includes(p.group))) return false;
  }
  return matched;
}

const READ_VERBS = new Set(['get', 'list', 'watch']);

function matches(p: AbacPolicy, a: AuthzAttributes): boolean {
  if (!subjectMatches(p, a)) return false;
  if (!READ_VERBS.has(a.verb) && p.readonly) return false;
  if (a.isResourceRequest) {
    return (p.namespace === '*' || p.namespace === a.namespace) && (p.resource === '*' || p.resource === a.resource) && (p.apiGroup === '*' || p.apiGroup === a.apiGroup);
  }
  const path = p.nonResourcePath;
  return path === '*' || path === a.path || (path.endsWith('*') && a.path.startsWith(path.replace(/\*+$/, '')));
}

export function abacAuthorizer(policies: readonly AbacPolicy[]): Authorizer {
  return {
    authorize(attrs) {
      return policies.some((p) => matches(p, attrs)) ? { decision: 'allow', reason: '' } : { decision: 'noopinion', reason: 'No policy matched.' };
    },
    rulesFor(user) {
      const resourceRules: ResourceRule[] = [];
      const nonResourceRules: NonResourceRule[] = [];
      const probe = { user, verb: '', isResourceRequest: false, path: '', namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
      for (const p of policies) {
        if (!subjectMatches(p, probe)) continue;
        const verbs = p.readonly ? ['get', 'list', 'watch'] : ['*'];
        if (p.resource !== '') resourceRules.push({ verbs, apiGroups: [p.apiGroup], resources: [p.resource], resourceNames: [] });
        if (p.nonResourcePath !== '') nonResourceRules.push({ verbs, nonResourceURLs: [p.nonResourcePath] });
      }
      return { resourceRules, nonResourceRules, incomplete: false };
    },
  };
}
