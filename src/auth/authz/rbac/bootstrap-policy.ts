// kube-apiserver 1.31's default RBAC policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy, as its testdata
// fixtures list it with the default feature gates): the ClusterRoles, ClusterRoleBindings, Roles and RoleBindings
// it reconciles at every start. Facts only, in a compact form: a rule is "verbs | groups | resources [| names]"
// with comma-separated lists ('' is the core group), or "verbs | urls" for non-resource URLs (prefixed "url:").

import type { KubeObject } from '../../../registry/types.ts';

const GROUP = 'rbac.authorization.k8s.io';
const V1 = `${GROUP}/v1`;
export const BOOTSTRAPPING_LABEL = 'kubernetes.io/bootstrapping';
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
const AGGREGATE = (to: string) => `rbac.authorization.k8s.io/aggregate-to-${to}`;

const GLW = 'get,list,watch';
const WRITE = 'create,delete,deletecollection,patch,update';
const ALL_RW = 'create,delete,deletecollection,get,list,patch,update,watch';
const EVENTS = 'create,patch,update | ,events.k8s.io | events';

function rule(spec: string): Record<string, unknown> {
  const parts = spec.split('|').map((p) => p.trim());
  if (parts[0].startsWith('url:')) return { verbs: parts[0].slice(4).split(','), nonResourceURLs: parts[1].split(',') };
  const out: Record<string, unknown> = { verbs: parts[0].split(','), apiGroups: parts[1].split(','), resources: parts[2].split(',') };
  if (parts[3]) out.resourceNames = parts[3].split(',');
  return out;
}

function meta(name: string, extraLabels: Record<string, string> = {}, namespace?: string) {
  return {
    name,
    ...(namespace ? { namespace } : {}),
    labels: { [BOOTSTRAPPING_LABEL]: 'rbac-defaults', ...extraLabels },
    annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
  };
}

function clusterRole(name: string, rules: string[], labels?: Record<string, string>): KubeObject {
  return { apiVersion: V1, kind: 'ClusterRole', metadata: meta(name, labels), rules: rules.map(rule) };
}

function aggregatedClusterRole(name: string, to: string, labels?: Record<string, string>): KubeObject {
  return {
    apiVersion: V1,
    kind: 'ClusterRole',
    metadata: meta(name, labels),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [AGGREGATE(to)]: 'true' } }] },
    rules: [],
  };
}

type SubjectSpec = `User:${string}` | `Group:${string}` | `ServiceAccount:${string}/${string}`;

function subject(spec: SubjectSpec): Record<string, string> {
  const [kind, rest] = [spec.slice(0, spec.indexOf(':')), spec.slice(spec.indexOf(':') + 1)];
  if (kind === 'ServiceAccount') {
    const [namespace, name] = rest.split('/');
    return { kind, name, namespace };
  }
  return { apiGroup: GROUP, kind, name: rest };
}

function clusterRoleBinding(name: string, role: string, subjects: SubjectSpec[]): KubeObject {
  return {
    apiVersion: V1,
    kind: 'ClusterRoleBinding',
    metadata: meta(name),
    roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: role },
    ...(subjects.length > 0 ? { subjects: subjects.map(subject) } : {}),
  };
}

const CORE_CLUSTER_ROLES: KubeObject[] = [
  aggregatedClusterRole('admin', 'admin'),
  clusterRole('cluster-admin', ['* | * | *', 'url:* | *']),
  aggregatedClusterRole('edit', 'edit', { [AGGREGATE('admin')]: 'true' }),
  clusterRole('system:aggregate-to-admin', ['create | authorization.k8s.io | localsubjectaccessreviews', `${ALL_RW} | ${GROUP} | rolebindings,roles`], {
    [AGGREGATE('admin')]: 'true',
  }),
  clusterRole(
    'system:aggregate-to-edit',
    [
      `${GLW} | | pods/attach,pods/exec,pods/portforward,pods/proxy,secrets,services/proxy`,
      'impersonate | | serviceaccounts',
      `${WRITE} | | pods,pods/attach,pods/exec,pods/portforward,pods/proxy`,
      'create | | pods/eviction',
      `${WRITE} | | configmaps,events,persistentvolumeclaims,replicationcontrollers,replicationcontrollers/scale,secrets,serviceaccounts,services,services/proxy`,
      'create | | serviceaccounts/token',
      `${WRITE} | apps | daemonsets,deployments,deployments/rollback,deployments/scale,replicasets,replicasets/scale,statefulsets,statefulsets/scale`,
      `${WRITE} | autoscaling | horizontalpodautoscalers`,
      `${WRITE} | batch | cronjobs,jobs`,
      `${WRITE} | extensions | daemonsets,deployments,deployments/rollback,deployments/scale,ingresses,networkpolicies,replicasets,replicasets/scale,replicationcontrollers/scale`,
      `${WRITE} | policy | poddisruptionbudgets`,
      `${WRITE} | networking.k8s.io | ingresses,networkpolicies`,
      `${ALL_RW} | coordination.k8s.io | leases`,
    ],
    { [AGGREGATE('edit')]: 'true' },
  ),
  clusterRole(
    'system:aggregate-to-view',
    [
      `${GLW} | | configmaps,endpoints,persistentvolumeclaims,persistentvolumeclaims/status,pods,replicationcontrollers,replicationcontrollers/scale,serviceaccounts,services,services/status`,
      `${GLW} | | bindings,events,limitranges,namespaces/status,pods/log,pods/status,replicationcontrollers/status,resourcequotas,resourcequotas/status`,
      `${GLW} | | namespaces`,
      `${GLW} | discovery.k8s.io | endpointslices`,
      `${GLW} | apps | controllerrevisions,daemonsets,daemonsets/status,deployments,deployments/scale,deployments/status,replicasets,replicasets/scale,replicasets/status,statefulsets,statefulsets/scale,statefulsets/status`,
      `${GLW} | autoscaling | horizontalpodautoscalers,horizontalpodautoscalers/status`,
      `${GLW} | batch | cronjobs,cronjobs/status,jobs,jobs/status`,
      `${GLW} | extensions | daemonsets,daemonsets/status,deployments,deployments/scale,deployments/status,ingresses,ingresses/status,networkpolicies,replicasets,replicasets/scale,replicasets/status,replicationcontrollers/scale`,
      `${GLW} | policy | poddisruptionbudgets,poddisruptionbudgets/status`,
      `${GLW} | networking.k8s.io | ingresses,ingresses/status,networkpolicies`,
    ],
    { [AGGREGATE('view')]: 'true' },
  ),
  clusterRole('system:auth-delegator', ['create | authentication.k8s.io | tokenreviews', 'create | authorization.k8s.io | subjectaccessreviews']),
  clusterRole('system:basic-user', ['create | authorization.k8s.io | selfsubjectaccessreviews,selfsubjectrulesreviews', 'create | authentication.k8s.io | selfsubjectreviews']),
  clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', ['create | certificates.k8s.io | certificatesigningrequests/nodeclient']),
  clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', ['create | certificates.k8s.io | certificatesigningrequests/selfnodeclient']),
  clusterRole('system:certificates.k8s.io:kube-apiserver-client-approver', ['approve | certificates.k8s.io | signers | kubernetes.io/kube-apiserver-client']),
  clusterRole('system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', ['approve | certificates.k8s.io | signers | kubernetes.io/kube-apiserver-client-kubelet']),
  clusterRole('system:certificates.k8s.io:kubelet-serving-approver', ['approve | certificates.k8s.io | signers | kubernetes.io/kubelet-serving']),
  clusterRole('system:certificates.k8s.io:legacy-unknown-approver', ['approve | certificates.k8s.io | signers | kubernetes.io/legacy-unknown']),
  clusterRole('system:discovery', ['url:get | /api,/api/*,/apis,/apis/*,/healthz,/livez,/openapi,/openapi/*,/readyz,/version,/version/']),
  clusterRole('system:heapster', [`${GLW} | | events,namespaces,nodes,pods`, `${GLW} | extensions | deployments`]),
  clusterRole('system:kube-aggregator', [`${GLW} | | endpoints,services`]),
  clusterRole('system:kube-controller-manager', [
    EVENTS,
    'create | coordination.k8s.io | leases',
    'get,update | coordination.k8s.io | leases | kube-controller-manager',
    'create | | secrets,serviceaccounts',
    'delete | | secrets',
    'get | | configmaps,namespaces,secrets,serviceaccounts',
    'update | | secrets,serviceaccounts',
    'create | authentication.k8s.io | tokenreviews',
    'create | authorization.k8s.io | subjectaccessreviews',
    'list,watch | * | *',
    'create | | serviceaccounts/token',
  ]),
  clusterRole('system:kube-dns', ['list,watch | | endpoints,services']),
  clusterRole('system:kube-scheduler', [
    EVENTS,
    'create | coordination.k8s.io | leases',
    'get,update | coordination.k8s.io | leases | kube-scheduler',
    `${GLW} | | nodes`,
    'delete,get,list,watch | | pods',
    'create | | bindings,pods/binding',
    'patch,update | | pods/status',
    `${GLW} | | replicationcontrollers,services`,
    `${GLW} | apps,extensions | replicasets`,
    `${GLW} | apps | statefulsets`,
    `${GLW} | policy | poddisruptionbudgets`,
    `${GLW} | | persistentvolumeclaims,persistentvolumes`,
    'create | authentication.k8s.io | tokenreviews',
    'create | authorization.k8s.io | subjectaccessreviews',
    `${GLW} | storage.k8s.io | csinodes`,
    `${GLW} | | namespaces`,
    `${GLW} | storage.k8s.io | csidrivers`,
    `${GLW} | storage.k8s.io | csistoragecapacities`,
  ]),
  clusterRole('system:kubelet-api-admin', [`${GLW} | | nodes`, 'proxy | | nodes', '* | | nodes/log,nodes/metrics,nodes/proxy,nodes/stats']),
  clusterRole('system:monitoring', ['url:get | /healthz,/healthz/*,/livez,/livez/*,/metrics,/metrics/slis,/readyz,/readyz/*']),
  clusterRole('system:node', [
    'create | authentication.k8s.io | tokenreviews',
    'create | authorization.k8s.io | localsubjectaccessreviews,subjectaccessreviews',
    `${GLW} | | services`,
    'create,get,list,watch | | nodes',
    'patch,update | | nodes/status',
    'patch,update | | nodes',
    'create,patch,update | | events',
    `${GLW} | | pods`,
    'create,delete | | pods',
    'patch,update | | pods/status',
    'create | | pods/eviction',
    `${GLW} | | configmaps,secrets`,
    'get | | persistentvolumeclaims,persistentvolumes',
    'get | | endpoints',
    'create,get,list,watch | certificates.k8s.io | certificatesigningrequests',
    'create,delete,get,patch,update | coordination.k8s.io | leases',
    'get | storage.k8s.io | volumeattachments',
    'create | | serviceaccounts/token',
    'get,patch,update | | persistentvolumeclaims/status',
    `${GLW} | storage.k8s.io | csidrivers`,
    'create,delete,get,patch,update | storage.k8s.io | csinodes',
    `${GLW} | node.k8s.io | runtimeclasses`,
  ]),
  clusterRole('system:node-bootstrapper', ['create,get,list,watch | certificates.k8s.io | certificatesigningrequests']),
  clusterRole('system:node-problem-detector', ['get | | nodes', 'patch | | nodes/status', EVENTS]),
  clusterRole('system:node-proxier', ['list,watch | | endpoints,services', `${GLW} | | nodes`, EVENTS, 'list,watch | discovery.k8s.io | endpointslices']),
  clusterRole('system:persistent-volume-provisioner', [
    'create,delete,get,list,watch | | persistentvolumes',
    'get,list,update,watch | | persistentvolumeclaims',
    `${GLW} | storage.k8s.io | storageclasses`,
    'watch | | events',
    EVENTS,
  ]),
  clusterRole('system:public-info-viewer', ['url:get | /healthz,/livez,/readyz,/version,/version/']),
  clusterRole('system:service-account-issuer-discovery', ['url:get | /.well-known/openid-configuration,/.well-known/openid-configuration/,/openid/v1/jwks,/openid/v1/jwks/']),
  clusterRole('system:volume-scheduler', [
    'get,list,patch,update,watch | | persistentvolumes',
    `${GLW} | storage.k8s.io | storageclasses`,
    'get,list,patch,update,watch | | persistentvolumeclaims',
  ]),
  aggregatedClusterRole('view', 'view', { [AGGREGATE('edit')]: 'true' }),
];

/** The controller roles (system:controller:<name>), each bound to the ServiceAccount <name> in kube-system. */
const CONTROLLER_ROLES: Record<string, string[]> = {
  'attachdetach-controller': [
    'list,watch | | persistentvolumeclaims,persistentvolumes',
    `${GLW} | | nodes`,
    'patch,update | | nodes/status',
    'list,watch | | pods',
    EVENTS,
    'create,delete,get,list,watch | storage.k8s.io | volumeattachments',
    `${GLW} | storage.k8s.io | csidrivers`,
    `${GLW} | storage.k8s.io | csinodes`,
  ],
  'certificate-controller': [
    'delete,get,list,watch | certificates.k8s.io | certificatesigningrequests',
    'update | certificates.k8s.io | certificatesigningrequests/approval,certificatesigningrequests/status',
    'approve | certificates.k8s.io | signers | kubernetes.io/kube-apiserver-client-kubelet',
    'sign | certificates.k8s.io | signers | kubernetes.io/kube-apiserver-client,kubernetes.io/kube-apiserver-client-kubelet,kubernetes.io/kubelet-serving,kubernetes.io/legacy-unknown',
    'create | authorization.k8s.io | subjectaccessreviews',
    EVENTS,
  ],
  'clusterrole-aggregation-controller': [`escalate,get,list,patch,update,watch | ${GROUP} | clusterroles`],
  'cronjob-controller': [
    'get,list,update,watch | batch | cronjobs',
    'create,delete,get,list,patch,update,watch | batch | jobs',
    'update | batch | cronjobs/status',
    'update | batch | cronjobs/finalizers',
    'delete,list,watch | | pods',
    EVENTS,
  ],
  'daemon-set-controller': [
    `${GLW} | apps,extensions | daemonsets`,
    'update | apps,extensions | daemonsets/status',
    'update | apps,extensions | daemonsets/finalizers',
    'list,watch | | nodes',
    'create,delete,list,patch,watch | | pods',
    'create | | pods/binding',
    'create,delete,get,list,patch,update,watch | apps | controllerrevisions',
    EVENTS,
  ],
  'deployment-controller': [
    'get,list,update,watch | apps,extensions | deployments',
    'update | apps,extensions | deployments/status',
    'update | apps,extensions | deployments/finalizers',
    'create,delete,get,list,patch,update,watch | apps,extensions | replicasets',
    'get,list,update,watch | | pods',
    EVENTS,
  ],
  'disruption-controller': [
    `${GLW} | apps,extensions | deployments`,
    `${GLW} | apps,extensions | replicasets`,
    `${GLW} | | replicationcontrollers`,
    `${GLW} | policy | poddisruptionbudgets`,
    `${GLW} | apps | statefulsets`,
    'update | policy | poddisruptionbudgets/status',
    'patch,update | | pods/status',
    'get | * | */scale',
    EVENTS,
  ],
  'endpoint-controller': [`${GLW} | | pods,services`, 'create,delete,get,list,update,watch | | endpoints', 'create | | endpoints/restricted', EVENTS],
  'endpointslice-controller': [
    `${GLW} | | nodes,pods,services`,
    'update | | services/finalizers',
    'create,delete,get,list,update,watch | discovery.k8s.io | endpointslices',
    EVENTS,
  ],
  'endpointslicemirroring-controller': [
    `${GLW} | | endpoints,services`,
    'update | | services/finalizers',
    'update | | endpoints/finalizers',
    'create,delete,get,list,update,watch | discovery.k8s.io | endpointslices',
    EVENTS,
  ],
  'ephemeral-volume-controller': [`${GLW} | | pods`, 'update | | pods/finalizers', 'create,get,list,watch | | persistentvolumeclaims', EVENTS],
  'expand-controller': ['get,list,patch,update,watch | | persistentvolumes', 'patch,update | | persistentvolumeclaims/status', `${GLW} | | persistentvolumeclaims`, EVENTS],
  'generic-garbage-collector': ['delete,get,list,patch,update,watch | * | *', EVENTS],
  'horizontal-pod-autoscaler': [
    `${GLW} | autoscaling | horizontalpodautoscalers`,
    'update | autoscaling | horizontalpodautoscalers/status',
    'get,update | * | */scale',
    'list,watch | | pods',
    'list,watch | metrics.k8s.io | pods',
    `${GLW} | custom.metrics.k8s.io | *`,
    `${GLW} | external.metrics.k8s.io | *`,
    EVENTS,
  ],
  'job-controller': [
    'get,list,patch,update,watch | batch | jobs',
    'update | batch | jobs/status',
    'update | batch | jobs/finalizers',
    'create,delete,list,patch,watch | | pods',
    EVENTS,
  ],
  'legacy-service-account-token-cleaner': ['get | | configmaps | kube-apiserver-legacy-service-account-token-tracking', 'delete,patch | | secrets'],
  'namespace-controller': ['delete,get,list,watch | | namespaces', 'update | | namespaces/finalize,namespaces/status', 'delete,deletecollection,get,list,watch | * | *'],
  'node-controller': ['delete,get,list,patch,update,watch | | nodes', 'patch,update | | nodes/status', 'patch,update | | pods/status', 'delete,get,list,watch | | pods', EVENTS],
  'persistent-volume-binder': [
    'create,delete,get,list,update,watch | | persistentvolumes',
    'update | | persistentvolumes/status',
    'get,list,update,watch | | persistentvolumeclaims',
    'update | | persistentvolumeclaims/status',
    'create,delete,get,list,watch | | pods',
    `${GLW} | storage.k8s.io | storageclasses`,
    'list,watch | | nodes',
    EVENTS,
    'watch | | events',
  ],
  'pod-garbage-collector': ['delete,list,watch | | pods', `${GLW} | | nodes`, 'patch | | pods/status'],
  'pv-protection-controller': ['get,list,update,watch | | persistentvolumes', EVENTS],
  'pvc-protection-controller': ['get,list,update,watch | | persistentvolumeclaims', `${GLW} | | pods`, EVENTS],
  'replicaset-controller': [
    'get,list,update,watch | apps,extensions | replicasets',
    'update | apps,extensions | replicasets/status',
    'update | apps,extensions | replicasets/finalizers',
    'create,delete,list,patch,watch | | pods',
    EVENTS,
  ],
  'replication-controller': [
    'get,list,update,watch | | replicationcontrollers',
    'update | | replicationcontrollers/status',
    'update | | replicationcontrollers/finalizers',
    'create,delete,list,patch,watch | | pods',
    EVENTS,
  ],
  'resourcequota-controller': ['list,watch | * | *', 'update | | resourcequotas/status', EVENTS],
  'root-ca-cert-publisher': ['create,update | | configmaps', EVENTS],
  'route-controller': ['list,watch | | nodes', 'patch | | nodes/status', EVENTS],
  'service-account-controller': ['create | | serviceaccounts', EVENTS],
  'service-controller': [`${GLW} | | services`, 'patch,update | | services/status', 'list,watch | | nodes', EVENTS],
  'statefulset-controller': [
    'list,watch | | pods',
    `${GLW} | apps | statefulsets`,
    'update | apps | statefulsets/status',
    'update | apps | statefulsets/finalizers',
    'create,delete,get,patch,update | | pods',
    'create,delete,get,list,patch,update,watch | apps | controllerrevisions',
    'create,get,list,watch | | persistentvolumeclaims',
    'delete,update | | persistentvolumeclaims',
    'update | | pods/finalizers',
    EVENTS,
  ],
  'ttl-after-finished-controller': ['delete,get,list,watch | batch | jobs', EVENTS],
  'ttl-controller': ['list,patch,update,watch | | nodes', EVENTS],
  'validatingadmissionpolicy-status-controller': [
    `${GLW} | admissionregistration.k8s.io | validatingadmissionpolicies`,
    'get,patch,update | admissionregistration.k8s.io | validatingadmissionpolicies/status',
    EVENTS,
  ],
};

export const CONTROLLER_ROLE_PREFIX = 'system:controller:';

export const BOOTSTRAP_CLUSTER_ROLES: readonly KubeObject[] = [
  ...CORE_CLUSTER_ROLES,
  ...Object.entries(CONTROLLER_ROLES).map(([name, rules]) => clusterRole(CONTROLLER_ROLE_PREFIX + name, rules)),
];

export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: readonly KubeObject[] = [
  clusterRoleBinding('cluster-admin', 'cluster-admin', ['Group:system:masters']),
  clusterRoleBinding('system:basic-user', 'system:basic-user', ['Group:system:authenticated']),
  clusterRoleBinding('system:discovery', 'system:discovery', ['Group:system:authenticated']),
  clusterRoleBinding('system:kube-controller-manager', 'system:kube-controller-manager', ['User:system:kube-controller-manager']),
  clusterRoleBinding('system:kube-dns', 'system:kube-dns', ['ServiceAccount:kube-system/kube-dns']),
  clusterRoleBinding('system:kube-scheduler', 'system:kube-scheduler', ['User:system:kube-scheduler']),
  clusterRoleBinding('system:monitoring', 'system:monitoring', ['Group:system:monitoring']),
  clusterRoleBinding('system:node', 'system:node', []),
  clusterRoleBinding('system:node-proxier', 'system:node-proxier', ['User:system:kube-proxy']),
  clusterRoleBinding('system:public-info-viewer', 'system:public-info-viewer', ['Group:system:authenticated', 'Group:system:unauthenticated']),
  clusterRoleBinding('system:service-account-issuer-discovery', 'system:service-account-issuer-discovery', ['Group:system:serviceaccounts']),
  clusterRoleBinding('system:volume-scheduler', 'system:volume-scheduler', ['User:system:kube-scheduler']),
  ...Object.keys(CONTROLLER_ROLES).map((name) => clusterRoleBinding(CONTROLLER_ROLE_PREFIX + name, CONTROLLER_ROLE_PREFIX + name, [`ServiceAccount:kube-system/${name}`])),
];

function role(namespace: string, name: string, rules: string[]): KubeObject {
  return { apiVersion: V1, kind: 'Role', metadata: meta(name, {}, namespace), rules: rules.map(rule) };
}

function roleBinding(namespace: string, name: string, roleName: string, subjects: SubjectSpec[]): KubeObject {
  return { apiVersion: V1, kind: 'RoleBinding', metadata: meta(name, {}, namespace), roleRef: { apiGroup: GROUP, kind: 'Role', name: roleName }, subjects: subjects.map(subject) };
}

const LEADER_LOCKING = `create,get,list,update,watch | coordination.k8s.io | leases`;

export const BOOTSTRAP_ROLES: readonly KubeObject[] = [
  role('kube-public', 'system:controller:bootstrap-signer', [`${GLW} | | configmaps`, 'update | | configmaps | cluster-info', EVENTS]),
  role('kube-system', 'extension-apiserver-authentication-reader', [`${GLW} | | configmaps | extension-apiserver-authentication`]),
  role('kube-system', 'system::leader-locking-kube-controller-manager', [LEADER_LOCKING]),
  role('kube-system', 'system::leader-locking-kube-scheduler', [LEADER_LOCKING]),
  role('kube-system', 'system:controller:bootstrap-signer', [`${GLW} | | secrets`]),
  role('kube-system', 'system:controller:cloud-provider', ['create,get,list,watch | | configmaps']),
  role('kube-system', 'system:controller:token-cleaner', ['delete,get,list,watch | | secrets', EVENTS]),
];

export const BOOTSTRAP_ROLE_BINDINGS: readonly KubeObject[] = [
  roleBinding('kube-public', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', ['ServiceAccount:kube-system/bootstrap-signer']),
  roleBinding('kube-system', 'system::extension-apiserver-authentication-reader', 'extension-apiserver-authentication-reader', [
    'User:system:kube-controller-manager',
    'User:system:kube-scheduler',
  ]),
  roleBinding('kube-system', 'system::leader-locking-kube-controller-manager', 'system::leader-locking-kube-controller-manager', [
    'User:system:kube-controller-manager',
    'ServiceAccount:kube-system/kube-controller-manager',
    'ServiceAccount:kube-system/leader-election-controller',
  ]),
  roleBinding('kube-system', 'system::leader-locking-kube-scheduler', 'system::leader-locking-kube-scheduler', ['User:system:kube-scheduler', 'ServiceAccount:kube-system/kube-scheduler']),
  roleBinding('kube-system', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', ['ServiceAccount:kube-system/bootstrap-signer']),
  roleBinding('kube-system', 'system:controller:cloud-provider', 'system:controller:cloud-provider', ['ServiceAccount:kube-system/cloud-provider']),
  roleBinding('kube-system', 'system:controller:token-cleaner', 'system:controller:token-cleaner', ['ServiceAccount:kube-system/token-cleaner']),
];
