// The configuration objects kube-apiserver 1.31 creates at start (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap
// default.go, hand-checked facts): the mandatory exempt and catch-all objects, which it keeps as they are, and
// the suggested ones, which it creates when missing and updates while they carry apf.kubernetes.io/autoupdate-spec
// "true".

import type { FlowSchemaSpec, PolicyRulesWithSubjects, PriorityLevelSpec, ResourcePolicyRule, Subject } from './types.ts';

const user = (name: string): Subject => ({ kind: 'User', user: { name } });
const group = (name: string): Subject => ({ kind: 'Group', group: { name } });
const serviceAccount = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', serviceAccount: { namespace, name } });
const allResources = (): ResourcePolicyRule => ({ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] });
const everything = (subjects: Subject[]): PolicyRulesWithSubjects => ({ subjects, resourceRules: [allResources()], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] });
const queued = (shares: number, lendable: number, queues: number, handSize: number): PriorityLevelSpec => ({
  type: 'Limited',
  limited: { nominalConcurrencyShares: shares, lendablePercent: lendable, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } } },
});
const schema = (pl: string, precedence: number, distinguisher: 'ByUser' | 'ByNamespace' | undefined, rules: PolicyRulesWithSubjects[]): FlowSchemaSpec => ({
  priorityLevelConfiguration: { name: pl },
  matchingPrecedence: precedence,
  ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
  rules,
});

export const MANDATORY_PRIORITY_LEVELS: Readonly<Record<string, PriorityLevelSpec>> = {
  exempt: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
  'catch-all': { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } },
};

export const SUGGESTED_PRIORITY_LEVELS: Readonly<Record<string, PriorityLevelSpec>> = {
  system: queued(30, 33, 64, 6),
  'node-high': queued(40, 25, 64, 6),
  'leader-election': queued(10, 0, 16, 4),
  'workload-high': queued(40, 50, 128, 6),
  'workload-low': queued(100, 90, 128, 6),
  'global-default': queued(20, 50, 128, 6),
};

export const MANDATORY_FLOW_SCHEMAS: Readonly<Record<string, FlowSchemaSpec>> = {
  exempt: schema('exempt', 1, undefined, [everything([group('system:masters')])]),
  'catch-all': schema('catch-all', 10000, 'ByUser', [everything([group('system:unauthenticated'), group('system:authenticated')])]),
};

const leaderElectionResources = (namespaces: string[] | undefined): ResourcePolicyRule[] => [
  { verbs: ['get', 'create', 'update'], apiGroups: [''], resources: ['endpoints', 'configmaps'], namespaces: namespaces ?? ['*'] },
  { verbs: ['get', 'create', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: namespaces ?? ['*'] },
];

export const SUGGESTED_FLOW_SCHEMAS: Readonly<Record<string, FlowSchemaSpec>> = {
  probes: schema('exempt', 2, undefined, [{ subjects: [group('system:unauthenticated'), group('system:authenticated')], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }] }]),
  'system-leader-election': schema('leader-election', 100, 'ByUser', [
    { subjects: [user('system:kube-controller-manager'), user('system:kube-scheduler')], resourceRules: leaderElectionResources(['kube-system']) },
  ]),
  'endpoint-controller': schema('workload-high', 150, 'ByUser', [
    { subjects: [user('system:kube-controller-manager'), serviceAccount('kube-system', 'endpoint-controller')], resourceRules: [{ verbs: ['get', 'create', 'update'], apiGroups: [''], resources: ['endpoints'], namespaces: ['*'] }] },
  ]),
  'workload-leader-election': schema('leader-election', 200, 'ByUser', [{ subjects: [serviceAccount('kube-system', '*')], resourceRules: leaderElectionResources(undefined) }]),
  'system-node-high': schema('node-high', 400, 'ByUser', [
    {
      subjects: [group('system:nodes')],
      resourceRules: [
        { verbs: ['*'], apiGroups: [''], resources: ['nodes', 'nodes/status'], clusterScope: true },
        { verbs: ['*'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] },
      ],
    },
  ]),
  'system-nodes': schema('system', 500, 'ByUser', [everything([group('system:nodes')])]),
  'kube-controller-manager': schema('workload-high', 800, 'ByNamespace', [everything([user('system:kube-controller-manager')])]),
  'kube-scheduler': schema('workload-high', 800, 'ByNamespace', [everything([user('system:kube-scheduler')])]),
  'kube-system-service-accounts': schema('workload-high', 900, 'ByNamespace', [everything([serviceAccount('kube-system', '*')])]),
  'service-accounts': schema('workload-low', 9000, 'ByUser', [everything([group('system:serviceaccounts')])]),
  'global-default': schema('global-default', 9900, 'ByUser', [everything([group('system:unauthenticated'), group('system:authenticated')])]),
};

export const AUTO_UPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';
