import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import type { BuiltinStrategy } from '../generic.ts';
import { builtinTypeFacts } from '../index.ts';
import { testContext as ctx } from '../test-context.ts';
import { podUpdateForbiddenText } from './pod-update-validation.ts';

const pods = builtinTypeFacts('', 'pods').strategy as BuiltinStrategy;
const deployments = builtinTypeFacts('apps', 'deployments').strategy as BuiltinStrategy;

type Spec = Record<string, unknown>;

function created(strategy: BuiltinStrategy, obj: KubeObject): KubeObject {
  strategy.defaults?.(obj);
  strategy.prepareForCreate?.(obj, ctx);
  return obj;
}

const pod = (spec: Spec, meta: Record<string, unknown> = {}): KubeObject =>
  created(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u', resourceVersion: '1', ...meta }, spec });

/** The errors of an update of `old` to what `change` makes of a copy, first lines only (the diff after them is ours). */
function updateErrors(old: KubeObject, change: (spec: Spec, obj: KubeObject) => void): string[] {
  const next = structuredClone(old);
  change(next.spec as Spec, next);
  pods.prepareForUpdate?.(next, old, ctx);
  return (pods.validateUpdate?.(next, old, ctx) ?? []).map((e) => fieldErrorString(e).split('\n')[0]);
}

function statusErrors(old: KubeObject, status: Record<string, unknown>): string[] {
  const sub = pods.subresources?.status;
  assert.ok(sub);
  const written = sub.prepareForUpdate({ ...structuredClone(old), status }, old, ctx);
  return sub.validateUpdate?.(written, old, ctx).map(fieldErrorString) ?? [];
}

const FORBIDDEN = `spec: Forbidden: ${podUpdateForbiddenText(false)}`;
const container = (extra: Spec = {}) => ({ name: 'app', image: 'nginx', ...extra });

test('the forbidden text names the fields an update may change, with resources when pods resize in place', () => {
  assert.equal(
    podUpdateForbiddenText(false),
    'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
  );
  assert.ok(podUpdateForbiddenText(true).endsWith(',`spec.containers[*].resources` (for CPU/memory only)'));
});

test('a pod update may not change its QoS class', () => {
  const old = pod({ containers: [container()] });
  assert.deepEqual(
    updateErrors(old, (spec) => {
      (spec.containers as Spec[])[0].resources = { requests: { cpu: '100m' } };
    }),
    ['metadata: Invalid value: "BestEffort": Pod QoS is immutable', FORBIDDEN],
  );
});

test('an update validates the tolerations twice once the old ones are kept, and stops at one that changed', () => {
  const old = pod({ containers: [container()], tolerations: [{ key: 'a', operator: 'Exists' }] });
  const bad = 'spec.tolerations[1].operator: Invalid value: core.Toleration{Key:"b", Operator:"Exists", Value:"x", Effect:"", TolerationSeconds:(*int64)(nil)}: value must be empty when `operator` is \'Exists\'';
  assert.deepEqual(
    updateErrors(old, (spec) => {
      (spec.tolerations as Spec[]).push({ key: 'b', operator: 'Exists', value: 'x' });
    }),
    [bad, bad],
  );
  assert.deepEqual(
    updateErrors(old, (spec) => {
      spec.tolerations = [{ key: 'c', operator: 'Exists' }];
    }),
    ['spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds'],
  );
});

test('scheduling gates may only be removed; a repeated new gate is reported once, at its last index', () => {
  const old = pod({ containers: [container()], schedulingGates: [{ name: 'a' }] });
  assert.deepEqual(
    updateErrors(old, (spec) => {
      spec.schedulingGates = [{ name: 'b' }, { name: 'a' }, { name: 'b' }];
    }),
    ['spec.schedulingGates[2]: Duplicate value: "b"', "spec.schedulingGates[2].name: Forbidden: only deletion is allowed, but found new scheduling gate 'b'"],
  );
});

test('a gated pod may add to its node selector and required node affinity, nothing else', () => {
  const term = { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] };
  const old = pod({
    containers: [container()],
    schedulingGates: [{ name: 'g' }],
    nodeSelector: { disk: 'ssd' },
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } } },
  });
  assert.deepEqual(
    updateErrors(old, (spec) => {
      spec.nodeSelector = { disk: 'ssd', gpu: 'yes' };
      (((spec.affinity as Spec).nodeAffinity as Spec).requiredDuringSchedulingIgnoredDuringExecution as Spec).nodeSelectorTerms = [
        { matchExpressions: [...term.matchExpressions, { key: 'rack', operator: 'Exists' }] },
      ];
    }),
    [],
  );
  assert.deepEqual(
    updateErrors(old, (spec) => {
      spec.nodeSelector = { disk: 'hdd' };
      (((spec.affinity as Spec).nodeAffinity as Spec).requiredDuringSchedulingIgnoredDuringExecution as Spec).nodeSelectorTerms = [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }];
    }),
    [
      'spec.nodeSelector: Invalid value: map[string]string{"disk":"hdd"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)',
      'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]: Invalid value: core.NodeSelectorTerm{MatchExpressions:[]core.NodeSelectorRequirement{core.NodeSelectorRequirement{Key:"zone", Operator:"In", Values:[]string{"b"}}}, MatchFields:[]core.NodeSelectorRequirement(nil)}: only additions are allowed (no mutations or deletions)',
    ],
  );
  assert.deepEqual(
    updateErrors(old, (spec) => {
      delete spec.affinity;
    }),
    ['spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Invalid value: []core.NodeSelectorTerm(nil): no additions/deletions to non-empty NodeSelectorTerms list are allowed'],
  );
  const ungated = pod({ containers: [container()], nodeSelector: { disk: 'ssd' } });
  assert.deepEqual(
    updateErrors(ungated, (spec) => {
      spec.nodeSelector = { disk: 'ssd', gpu: 'yes' };
    }),
    [FORBIDDEN],
  );
});

test('an update keeps host-namespaced sysctls the pod already had, and refuses new ones', () => {
  const sysctls = [{ name: 'net.ipv4.ip_forward', value: '1' }];
  const old = pod({ containers: [container()], hostNetwork: true, securityContext: { sysctls } });
  assert.deepEqual(
    updateErrors(old, (spec) => {
      (spec.containers as Spec[])[0].image = 'nginx:2';
    }),
    [],
  );
  const plain = pod({ containers: [container()], hostNetwork: true });
  assert.deepEqual(
    updateErrors(plain, (spec) => {
      spec.securityContext = { sysctls };
    }),
    ['spec.securityContext.sysctls[0].name: Invalid value: "net.ipv4.ip_forward": may not be specified when \'hostNetwork\' is true', FORBIDDEN],
  );
});

test('a workload template update keeps what the stored template already held', () => {
  const deployment = (sysctls: unknown[]): KubeObject =>
    created(deployments, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'default', uid: 'u', resourceVersion: '1' },
      spec: {
        selector: { matchLabels: { app: 'd' } },
        template: { metadata: { labels: { app: 'd' } }, spec: { hostNetwork: true, securityContext: { sysctls }, containers: [container()] } },
      },
    });
  const sysctl = { name: 'net.core.somaxconn', value: '1024' };
  const stored = deployment([sysctl]);
  assert.equal((deployments.validate?.(stored, ctx) ?? []).length, 1);
  const next = structuredClone(stored);
  ((next.spec as Spec).template as { spec: { containers: Spec[] } }).spec.containers[0].image = 'nginx:2';
  deployments.prepareForUpdate?.(next, stored, ctx);
  assert.deepEqual(deployments.validateUpdate?.(next, stored, ctx), []);
  const clean = deployment([]);
  const added = structuredClone(clean);
  ((added.spec as Spec).template as { spec: { securityContext: Spec } }).spec.securityContext.sysctls = [sysctl];
  deployments.prepareForUpdate?.(added, clean, ctx);
  assert.deepEqual((deployments.validateUpdate?.(added, clean, ctx) ?? []).map(fieldErrorString), [
    'spec.template.spec.securityContext.sysctls[0].name: Invalid value: "net.core.somaxconn": may not be specified when \'hostNetwork\' is true',
  ]);
});

test('a status write may not bring back a container that terminated for good', () => {
  const terminated = (exitCode: number) => ({ terminated: { exitCode } });
  const running = { running: {} };
  const never = pod({ containers: [container()], initContainers: [container({ name: 'init' }), container({ name: 'side', restartPolicy: 'Always' })], restartPolicy: 'Never' });
  never.status = {
    ...(never.status as Spec),
    containerStatuses: [{ name: 'app', state: terminated(1) }],
    initContainerStatuses: [{ name: 'init', state: terminated(0) }, { name: 'side', state: terminated(0) }],
  };
  assert.deepEqual(
    statusErrors(never, {
      containerStatuses: [{ name: 'app', state: running }],
      initContainerStatuses: [{ name: 'init', state: running }, { name: 'side', state: running }],
    }),
    ['status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state', 'status.initContainerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state'],
  );
  const onFailure = pod({ containers: [container(), container({ name: 'done' })], restartPolicy: 'OnFailure' });
  onFailure.status = { ...(onFailure.status as Spec), containerStatuses: [{ name: 'app', state: terminated(2) }, { name: 'done', state: terminated(0) }] };
  assert.deepEqual(statusErrors(onFailure, { containerStatuses: [{ name: 'app', state: running }, { name: 'done', state: running }] }), [
    'status.containerStatuses[1].state: Forbidden: may not be transitioned to non-terminated state',
  ]);
  const always = pod({ containers: [container()] });
  always.status = { ...(always.status as Spec), containerStatuses: [{ name: 'app', state: terminated(0) }] };
  assert.deepEqual(statusErrors(always, { containerStatuses: [{ name: 'app', state: running }] }), []);
});

test('a status write checks pod IPs and host IPs', () => {
  const old = pod({ containers: [container()], nodeName: 'n1' });
  assert.deepEqual(statusErrors(old, { podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }], hostIP: '10.1.0.1', hostIPs: [{ ip: '10.1.0.1' }] }), []);
  assert.deepEqual(statusErrors(old, { podIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.1' }] }), [
    'status.podIPs: Invalid value: []core.PodIP{core.PodIP{IP:"10.0.0.1"}, core.PodIP{IP:"10.0.0.1"}}: may specify no more than one IP for each IP family',
    'status.podIPs[1]: Duplicate value: core.PodIP{IP:"10.0.0.1"}',
  ]);
  assert.deepEqual(statusErrors(old, { podIPs: [{ ip: 'nope' }] }), ['status.podIPs[0]: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
  assert.deepEqual(statusErrors(old, { hostIP: '10.1.0.2', hostIPs: [{ ip: '10.1.0.1' }, { ip: 'fd00::1' }, { ip: '10.1.0.1' }] }), [
    'status.hostIPs[0].ip: Invalid value: "10.1.0.1": must be equal to `hostIP`',
    'status.hostIPs[2]: Duplicate value: core.HostIP{IP:"10.1.0.1"}',
    'status.hostIPs: Invalid value: []core.HostIP{core.HostIP{IP:"10.1.0.1"}, core.HostIP{IP:"fd00::1"}, core.HostIP{IP:"10.1.0.1"}}: may specify no more than one IP for each IP family',
  ]);
});

test('a status write checks custom condition types, the nominated node and resource claim statuses', () => {
  const old = pod({ containers: [container()] });
  assert.deepEqual(
    statusErrors(old, {
      conditions: [{ type: 'Ready', status: 'True' }, { type: 'bad type', status: 'True' }],
      nominatedNodeName: 'Node_1',
      resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'Claim' }],
    }),
    [
      "metadata.conditions[1].Type: Invalid value: \"bad type\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      "status.nominatedNodeName: Invalid value: \"Node_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      'status.resourceClaimStatuses[0].name: Invalid value: "gpu": must match the name of an entry in `spec.resourceClaims`',
      "status.resourceClaimStatuses[0].name: Invalid value: \"Claim\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ],
  );
});

test('a status write may change the QoS class and keeps the status fields of disabled features', () => {
  const old = pod({ containers: [container()] });
  const sub = pods.subresources?.status;
  assert.ok(sub);
  const written = sub.prepareForUpdate({ ...structuredClone(old), status: { phase: 'Running', qosClass: 'Burstable', resize: 'Proposed' } }, old, ctx);
  assert.deepEqual(written.status, { phase: 'Running', qosClass: 'Burstable', resize: 'Proposed' });
  assert.deepEqual(sub.validateUpdate?.(written, old, ctx), []);
});

test('a pod with a negative grace period is deleted with 1 second, and an update may raise it to 1', () => {
  const old = pod({ containers: [container()], nodeName: 'n1', terminationGracePeriodSeconds: -5 });
  assert.equal(pods.gracefulDeletePeriod?.(old, undefined), 1);
  assert.deepEqual(
    updateErrors(old, (spec) => {
      spec.terminationGracePeriodSeconds = 1;
    }),
    [],
  );
  assert.deepEqual(
    updateErrors(old, (spec) => {
      spec.terminationGracePeriodSeconds = 2;
    }),
    [FORBIDDEN],
  );
});

test('hugepages limits must be whole pages, unless the old pod already held a value that is not', () => {
  const resources = (huge: string) => ({ limits: { memory: '64Mi', 'hugepages-2Mi': huge }, requests: { memory: '64Mi', 'hugepages-2Mi': huge } });
  const errors = (obj: KubeObject) => (pods.validate?.(obj, ctx) ?? []).map(fieldErrorString);
  assert.deepEqual(errors(pod({ containers: [container({ resources: resources('4Mi') })] })), []);
  assert.deepEqual(errors(pod({ containers: [container({ resources: resources('3Mi') })] })), [
    'spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi',
  ]);
  // A stored pod holding 3Mi (written before the rule) may still be updated, as kube's AllowIndivisibleHugePagesValues allows.
  const old = pod({ containers: [container({ resources: resources('3Mi') })] });
  assert.deepEqual(updateErrors(old, (_spec, obj) => (obj.metadata.labels = { a: 'b' })), []);
  // kube checks the overhead as a ResourceRequirements of limits, at spec.overhead.limits, and hugepages alone there
  // lack cpu or memory.
  assert.deepEqual(errors(pod({ containers: [container({ resources: resources('2Mi') })], overhead: { 'hugepages-2Mi': '1Mi' } })), [
    'spec.overhead.limits[hugepages-2Mi]: Invalid value: "1Mi": 1Mi is not positive integer multiple of hugepages-2Mi',
    'spec.overhead: Forbidden: HugePages require cpu or memory',
  ]);
});
