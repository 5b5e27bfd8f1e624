import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimSpecWarnings, jobSpecWarnings, persistentVolumeClaimWarnings, persistentVolumeWarnings, podTemplateWarnings, podWarnings, workloadNameWarnings } from './pod-warnings.ts';

const pod = (spec: object, metadata: object = {}) => ({ metadata: { name: 'p', ...metadata }, spec });
const container = (extra: object) => ({ name: 'c', image: 'nginx', ...extra });

test('a plain pod warns about nothing', () => {
  assert.deepEqual(podWarnings(pod({ containers: [container({ ports: [{ containerPort: 80, protocol: 'TCP' }] })] })), []);
});

test('duplicate env entries warn unless they build on the earlier value, as kube says', () => {
  const env = (n: string) => [
    { name: n, value: n },
    { name: n, value: n },
    { name: n, value: 'other' },
    { name: n, value: '' },
    { name: n, value: `$(${n})` },
    { name: n, valueFrom: {} },
    { name: n, value: `$(${n}) $(${n})` },
  ];
  const warnings = podWarnings(pod({ initContainers: [container({ name: 'i', env: env('a') })], containers: [container({ env: env('b') })] }));
  const hides = (path: string, n: string, i: number) => `${path}.env[${i}]: hides previous definition of "${n}", which may be dropped when using apply`;
  assert.deepEqual(warnings, [1, 2, 3, 4, 5].map((i) => hides('spec.initContainers[0]', 'a', i)).concat([1, 2, 3, 4, 5].map((i) => hides('spec.containers[0]', 'b', i))));
});

test('fractional byte quantities are named in their canonical form', () => {
  const warnings = podWarnings(
    pod({
      overhead: { memory: '1.5' },
      containers: [container({ resources: { limits: { memory: '100m', 'ephemeral-storage': '1Gi' }, requests: { memory: '0.5', 'ephemeral-storage': '2500m' } } })],
    }),
  );
  assert.deepEqual(warnings, [
    'spec.overhead[memory]: fractional byte value "1500m" is invalid, must be an integer',
    'spec.containers[0].resources.limits[memory]: fractional byte value "100m" is invalid, must be an integer',
    'spec.containers[0].resources.requests[memory]: fractional byte value "500m" is invalid, must be an integer',
    'spec.containers[0].resources.requests[ephemeral-storage]: fractional byte value "2500m" is invalid, must be an integer',
  ]);
});

test('ports: duplicates, overlaps, ambiguous host IPs and a host IP without a host port', () => {
  const warnings = podWarnings(
    pod({
      containers: [
        container({ ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 80, protocol: 'TCP' }] }),
        container({
          name: 'd',
          ports: [
            { containerPort: 80, protocol: 'TCP', hostPort: 8080 },
            { containerPort: 53, protocol: 'UDP', hostPort: 53 },
            { containerPort: 53, protocol: 'UDP', hostPort: 53, hostIP: '10.0.0.1' },
            { containerPort: 9, protocol: 'TCP', hostIP: '10.0.0.1', name: 'x' },
          ],
        }),
      ],
    }),
  );
  assert.deepEqual(warnings, [
    'spec.containers[0].ports[1]: duplicate port definition with spec.containers[0].ports[0]',
    'spec.containers[1].ports[0]: overlapping port definition with spec.containers[0].ports[0]',
    'spec.containers[1].ports[0]: overlapping port definition with spec.containers[0].ports[1]',
    'spec.containers[1].ports[2]: dangerously ambiguous port definition with spec.containers[1].ports[1]',
    'spec.containers[1].ports[3]: hostIP set without hostPort: {Name:x HostPort:0 ContainerPort:9 Protocol:TCP HostIP:10.0.0.1}',
  ]);
});

test('volumes: deprecated plugins, ephemeral claims and overlapping item paths', () => {
  const warnings = podWarnings(
    pod({
      containers: [container({})],
      volumes: [
        { name: 'g', gitRepo: { repository: 'r' } },
        { name: 'f', cephfs: { monitors: ['m'] } },
        { name: 'e', ephemeral: { volumeClaimTemplate: { spec: { resources: { requests: { storage: '1500m' } } } } } },
        { name: 'Test', configMap: { name: 'foo', items: [{ key: 'bar', path: 'test/app' }, { key: 'foo', path: 'test' }] } },
        { name: 's', secret: { secretName: 'sec', items: [{ key: 'a', path: 'same/' }, { key: 'b', path: 'same' }] } },
        { name: 'd', downwardAPI: { items: [{ path: 'a', fieldRef: { fieldPath: 'metadata.name' } }, { path: 'a/b', fieldRef: { fieldPath: 'metadata.name' } }] } },
        { name: 'p', projected: { sources: [{ configMap: { name: 'c1', items: [{ key: 'k', path: 'x' }] } }, { secret: { name: 's1', items: [{ key: 'k', path: 'x/y' }] } }] } },
      ],
    }),
  );
  assert.deepEqual(warnings, [
    'spec.volumes[0].gitRepo: deprecated in v1.11',
    'spec.volumes[1].cephfs: deprecated in v1.28, non-functional in v1.31+',
    'spec.volumes[2].ephemeral.volumeClaimTemplate.spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer',
    'volume "Test" (ConfigMap "foo"): overlapping paths: "test" with "test/app"',
    'volume "s" (Secret "sec"): overlapping paths: "same" with "same"',
    'volume "d" (DownwardAPI): overlapping paths: "a/b" with "a"',
    'volume "p" (Projected Secret "s1"): overlapping paths: "x/y" with "x"',
  ]);
});

test('deprecated node labels, annotations and selectors that match no pod, in kube order', () => {
  const warnings = podWarnings(
    pod(
      {
        containers: [container({})],
        nodeSelector: { 'beta.kubernetes.io/os': 'linux', 'beta.kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux' },
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'failure-domain.beta.kubernetes.io/zone', operator: 'Exists' }] }] },
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'beta.kubernetes.io/instance-type', operator: 'Exists' }] } }],
          },
          podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'zone' } }] },
        },
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'failure-domain.beta.kubernetes.io/region', whenUnsatisfiable: 'ScheduleAnyway' }],
        terminationGracePeriodSeconds: -1,
        hostAliases: [{ ip: '1.1.1.1' }, { ip: '1.1.1.1' }],
        imagePullSecrets: [{ name: '' }],
      },
      { annotations: { 'security.alpha.kubernetes.io/sysctls': 'x', 'container.seccomp.security.alpha.kubernetes.io/c': 'runtime/default' } },
    ),
  );
  assert.deepEqual(warnings, [
    'spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead',
    'spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead',
    'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
    'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].key: beta.kubernetes.io/instance-type is deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
    'spec.topologySpreadConstraints[0].topologyKey: failure-domain.beta.kubernetes.io/region is deprecated since v1.17; use "topology.kubernetes.io/region" instead',
    'spec.topologySpreadConstraints[0].labelSelector: a null labelSelector results in matching no pod',
    'metadata.annotations[security.alpha.kubernetes.io/sysctls]: non-functional in v1.11+; use the "sysctls" field instead',
    'spec.hostAliases[1].ip: duplicate ip "1.1.1.1"',
    'spec.imagePullSecrets[0].name: invalid empty name ""',
    'metadata.annotations[container.seccomp.security.alpha.kubernetes.io/c]: non-functional in v1.27+; use the "seccompProfile" field instead',
    'spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1',
    'spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector: a null labelSelector results in matching no pod',
  ]);
});

test('pod templates: paths under the template; the AppArmor annotation is warned about in templates only', () => {
  const template = { metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/c': 'runtime/default' } }, spec: { containers: [container({})], nodeSelector: { 'beta.kubernetes.io/os': 'linux' } } };
  assert.deepEqual(podTemplateWarnings(template, 'spec.template'), [
    'spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead',
    'spec.template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since v1.30; use the "appArmorProfile" field instead',
  ]);
  assert.deepEqual(podWarnings({ metadata: template.metadata, spec: template.spec }), ['spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead']);
  // A profile field on the pod covers every container's annotation.
  assert.deepEqual(podTemplateWarnings({ ...template, spec: { ...template.spec, nodeSelector: {}, securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } } }, 'template'), []);
  assert.deepEqual(podTemplateWarnings(undefined, 'spec.template'), []);
});

test('jobs: an Indexed Job too large to track, and its template', () => {
  const spec = { completionMode: 'Indexed', completions: 100_001, parallelism: 10_001, template: { spec: { containers: [container({})], nodeSelector: { 'beta.kubernetes.io/arch': 'arm64' } } } };
  assert.deepEqual(jobSpecWarnings(spec, 'spec.jobTemplate.spec'), [
    'spec.jobTemplate.spec: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail',
    'spec.jobTemplate.spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead',
  ]);
  assert.deepEqual(jobSpecWarnings({ ...spec, completions: 100_000 }, 'spec').length, 1);
});

test('names that are not DNS labels, as the workloads that name pods after themselves warn', () => {
  // A valid subdomain that is no label has dots in it: kube says so rather than quoting the pattern.
  assert.deepEqual(workloadNameWarnings({ metadata: { name: 'web.v1' } }), [
    'metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]',
  ]);
  assert.deepEqual(workloadNameWarnings({ metadata: { name: 'p'.repeat(64) } }, "the Pod's hostname"), [
    "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must be no more than 63 characters]",
  ]);
  assert.deepEqual(workloadNameWarnings({ metadata: { name: 'web' } }), []);
});

test('claims and volumes: the beta storage class annotation, fractional sizes, deprecated plugins and node labels', () => {
  assert.deepEqual(persistentVolumeClaimWarnings({ metadata: { annotations: { 'volume.beta.kubernetes.io/storage-class': 'x' } }, spec: { resources: { requests: { storage: '1.5' }, limits: { storage: '2' } } } }), [
    'metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead',
    'spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer',
  ]);
  assert.deepEqual(claimSpecWarnings('spec.volumeClaimTemplates[0].Spec', { resources: { limits: { storage: '10m' } } }), [
    'spec.volumeClaimTemplates[0].Spec.resources.limits[storage]: fractional byte value "10m" is invalid, must be an integer',
  ]);
  assert.deepEqual(
    persistentVolumeWarnings({
      metadata: {},
      spec: {
        persistentVolumeReclaimPolicy: 'Recycle',
        rbd: { monitors: ['m'], image: 'i' },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'beta.kubernetes.io/os', operator: 'Exists' }] }] } },
      },
    }),
    [
      'spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.',
      'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key: beta.kubernetes.io/os is deprecated since v1.14; use "kubernetes.io/os" instead',
      'spec.rbd: deprecated in v1.28, non-functional in v1.31+',
    ],
  );
  // kube names the storageos field by its Go name in both warnings.
  assert.deepEqual(persistentVolumeWarnings({ metadata: {}, spec: { storageos: { volumeName: 'v' } } }), ['spec.storageOS: deprecated in v1.22, non-functional in v1.25+']);
  assert.ok(podWarnings({ metadata: {}, spec: { volumes: [{ name: 'v', storageos: { volumeName: 'v' } }] } }).includes('spec.volumes[0].storageOS: deprecated in v1.22, non-functional in v1.25+'));
});
