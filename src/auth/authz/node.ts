// A minimal Node authorizer (plugin/pkg/auth/authorizer/node). A node's identity (user system:node:<name> in group
// system:nodes) gets the system:node rules for resources kube does not subdivide, its own Lease and CSINode.
// What kube decides from its graph of pods, secrets, configmaps, volumes and service accounts bound to a node is
// not modelled: those requests get no opinion, with kube's reason, so RBAC (or another mode) decides them.

import { BOOTSTRAP_CLUSTER_ROLES } from './rbac/bootstrap-policy.ts';
import { ruleAllows, rulesOf, type PolicyRule } from './rbac/rules.ts';
import type { Authorizer, AuthzAttributes, AuthzResult, RulesResult } from './types.ts';

const NODES_GROUP = 'system:nodes';
const NODE_USER_PREFIX = 'system:node:';
const NO_OPINION: AuthzResult = { decision: 'noopinion', reason: '' };
const ALLOW: AuthzResult = { decision: 'allow', reason: '' };
const NO_RULES: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
/** kube's NodeAuthorizer.RulesFor: a node's permissions are not enumerated; other users get nothing from it. */
const NODE_RULES_UNKNOWN: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: true, error: 'node authorizer does not support user rule resolution' };

/** Resources kube's Node authorizer decides from its graph (group/resource). */
const GRAPH_RESOURCES = new Set(['/secrets', '/configmaps', '/persistentvolumeclaims', '/persistentvolumes', 'storage.k8s.io/volumeattachments', '/serviceaccounts', 'resource.k8s.io/resourceclaims', 'resource.k8s.io/resourceslices']);
const OWN_OBJECT_VERBS = new Set(['get', 'create', 'update', 'patch', 'delete']);

/** The node name of a node identity; undefined for any other user. */
export function nodeIdentity(user: AuthzAttributes['user']): string | undefined {
  if (!user.groups.includes(NODES_GROUP) || !user.name.startsWith(NODE_USER_PREFIX)) return undefined;
  return user.name.slice(NODE_USER_PREFIX.length);
}

export function nodeAuthorizer(): Authorizer {
  const nodeRules: PolicyRule[] = rulesOf(BOOTSTRAP_CLUSTER_ROLES.find((r) => r.metadata.name === 'system:node')!);
  return {
    authorize(attrs) {
      const node = nodeIdentity(attrs.user);
      if (node === undefined) return NO_OPINION;
      if (node === '') return { decision: 'noopinion', reason: `unknown node for user ${JSON.stringify(attrs.user.name)}` };
      if (attrs.isResourceRequest) {
        const key = `${attrs.apiGroup}/${attrs.resource}`;
        if (GRAPH_RESOURCES.has(key)) return { decision: 'noopinion', reason: `no relationship found between node '${node}' and this object` };
        if (key === 'coordination.k8s.io/leases') {
          if (attrs.namespace === 'kube-node-lease' && OWN_OBJECT_VERBS.has(attrs.verb) && (attrs.name === node || (attrs.verb === 'create' && attrs.name === ''))) return ALLOW;
          return { decision: 'noopinion', reason: 'can only access node lease with the same name as the requesting node' };
        }
        if (key === 'storage.k8s.io/csinodes') {
          if (OWN_OBJECT_VERBS.has(attrs.verb) && (attrs.name === node || (attrs.verb === 'create' && attrs.name === ''))) return ALLOW;
          return { decision: 'noopinion', reason: 'can only access CSINode with the same name as the requesting node' };
        }
      }
      return nodeRules.some((r) => ruleAllows(attrs, r)) ? ALLOW : NO_OPINION;
    },
    rulesFor: (user) => (nodeIdentity(user) === undefined ? NO_RULES : NODE_RULES_UNKNOWN),
  };
}
