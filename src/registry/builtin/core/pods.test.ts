import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString, invalid } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import type { BuiltinStrategy } from '../generic.ts';
import { builtinTypeFacts } from '../index.ts';
import { testContext as ctx } from '../test-context.ts';
import { defaultPullPolicy, imageTag } from './pod-defaults.ts';
import { podQOSClass } from './qos.ts';
import { summarizePod } from './pods.ts';

const facts = builtinTypeFacts('', 'pods');
const strategy = facts.strategy as BuiltinStrategy;

function created(spec: Record<string, unknown>, extraMeta: Record<string, unknown> = {}): KubeObject {
  const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', ...extraMeta }, spec };
  strategy.defaults?.(pod);
  strategy.prepareForCreate?.(pod, ctx);
  return pod;
}

function createErrors(spec: Record<string, unknown>): string[] {
  return (strategy.validate?.(created(spec), ctx) ?? []).map(fieldErrorString);
}

test('defaults kubectl users see on a pod', () => {
  const pod = created({ containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }] }] });
  assert.deepEqual(pod.spec, {
    containers: [
      {
        name: 'web',
        image: 'nginx',
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        imagePullPolicy: 'Always',
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
      },
    ],
    dnsPolicy: 'ClusterFirst',
    restartPolicy: 'Always',
    securityContext: {},
    terminationGracePeriodSeconds: 30,
    schedulerName: 'default-scheduler',
    enableServiceLinks: true,
  });
  assert.deepEqual(pod.status, { phase: 'Pending', qosClass: 'BestEffort' });
  assert.deepEqual(strategy.validate?.(pod, ctx), []);
});

test('image pull policy follows the tag', () => {
  assert.equal(imageTag('nginx'), 'latest');
  assert.equal(imageTag('nginx:1.25'), '1.25');
  assert.equal(imageTag('registry.local:5000/team/app:v2'), 'v2');
  assert.equal(imageTag('nginx@sha256:' + 'a'.repeat(64)), '');
  assert.equal(defaultPullPolicy('nginx:latest'), 'Always');
  assert.equal(defaultPullPolicy('nginx'), 'Always');
  assert.equal(defaultPullPolicy('localhost:5000/app'), 'Always');
  assert.equal(defaultPullPolicy('nginx:1.25'), 'IfNotPresent');
  assert.equal(defaultPullPolicy('nginx@sha256:' + 'a'.repeat(64)), 'IfNotPresent');
  assert.equal(defaultPullPolicy('Not/Valid'), 'IfNotPresent');
});

test('requests default to limits on pods; QoS classes', () => {
  const pod = created({ containers: [{ name: 'a', image: 'i', resources: { limits: { cpu: '1', memory: '1Gi' } } }] });
  const c = (pod.spec as { containers: { resources: unknown }[] }).containers[0];
  assert.deepEqual(c.resources, { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } });
  assert.equal((pod.status as { qosClass: string }).qosClass, 'Guaranteed');
  assert.equal(podQOSClass({ containers: [{ resources: { requests: { cpu: '100m' } } }] }), 'Burstable');
  assert.equal(podQOSClass({ containers: [{ resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '2Gi' } } }] }), 'Burstable');
  assert.equal(podQOSClass({ containers: [{ resources: { requests: { 'example.com/gpu': '1' } } }] }), 'BestEffort');
});

test('scheduling gates give the SchedulingGated condition', () => {
  const pod = created({ containers: [{ name: 'a', image: 'i' }], schedulingGates: [{ name: 'example.com/wait' }] });
  assert.deepEqual((pod.status as { conditions: unknown }).conditions, [
    { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: null, reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' },
  ]);
  assert.equal(summarizePod(pod).reason, 'SchedulingGated');
});

test('container validation messages', () => {
  assert.deepEqual(createErrors({ containers: [] }), ['spec.containers: Required value']);
  assert.deepEqual(createErrors({ containers: [{ image: 'nginx' }, { name: 'Bad_Name', image: '' }] }), [
    'spec.containers[0].name: Required value',
    `spec.containers[1].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    'spec.containers[1].image: Required value',
  ]);
  assert.deepEqual(createErrors({ containers: [{ name: 'a', image: 'i', ports: [{ containerPort: 70000, protocol: 'HTTP' }], volumeMounts: [{ name: 'data', mountPath: '/d' }] }] }), [
    'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    'spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    'spec.containers[0].volumeMounts[0].name: Not found: "data"',
  ]);
  assert.deepEqual(createErrors({ containers: [{ name: 'a', image: 'i' }, { name: 'a', image: 'i' }], restartPolicy: 'Sometimes' }), [
    'spec.containers[1].name: Duplicate value: "a"',
    'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
  ]);
  assert.deepEqual(createErrors({ containers: [{ name: 'a', image: 'i', resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } }] }), [
    'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
  ]);
});

test('pod updates may change images but not other spec fields', () => {
  const old = created({ containers: [{ name: 'a', image: 'nginx:1' }] }, { resourceVersion: '4', uid: 'u' });
  const ok: KubeObject = structuredClone(old);
  (ok.spec as { containers: { image: string }[] }).containers[0].image = 'nginx:2';
  strategy.prepareForUpdate?.(ok, old, ctx);
  assert.deepEqual(strategy.validateUpdate?.(ok, old, ctx), []);

  const bad: KubeObject = structuredClone(old);
  (bad.spec as Record<string, unknown>).restartPolicy = 'Never';
  strategy.prepareForUpdate?.(bad, old, ctx);
  const errs = strategy.validateUpdate?.(bad, old, ctx) ?? [];
  assert.equal(errs.length, 1);
  assert.equal(errs[0].field, 'spec');
  assert.equal(
    fieldErrorString(errs[0]).split('\n')[0],
    'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
  );
  const more: KubeObject = structuredClone(old);
  (more.spec as { containers: unknown[] }).containers.push({ name: 'b', image: 'x', imagePullPolicy: 'Always', terminationMessagePolicy: 'File' });
  assert.deepEqual((strategy.validateUpdate?.(more, old, ctx) ?? []).map(fieldErrorString), ['spec.containers: Forbidden: pod updates may not add or remove containers']);
  assert.equal(
    invalid({ group: '', kind: 'Pod' }, 'p', strategy.validateUpdate?.(more, old, ctx) ?? []).message,
    'Pod "p" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers',
  );
});

test('main writes keep status; status writes keep spec and owner references', () => {
  const old = created({ containers: [{ name: 'a', image: 'i' }] }, { resourceVersion: '4', ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: '1' }] });
  const upd: KubeObject = { ...structuredClone(old), status: { phase: 'Running' } };
  strategy.prepareForUpdate?.(upd, old, ctx);
  assert.deepEqual(upd.status, old.status);
  const status = strategy.subresources?.status;
  assert.ok(status);
  const written = status.prepareForUpdate(
    { ...structuredClone(old), metadata: { ...old.metadata, ownerReferences: [] }, spec: { nodeName: 'n1' }, status: { phase: 'Running', qosClass: 'BestEffort' } },
    old,
    ctx,
  );
  assert.deepEqual(written.spec, old.spec);
  assert.deepEqual(written.metadata.ownerReferences, old.metadata.ownerReferences);
  assert.deepEqual(written.status, { phase: 'Running', qosClass: 'BestEffort' });
  // kube 1.31 lets a status write change the QoS class (kube 1.32 made it immutable).
  assert.deepEqual(status.validateUpdate?.({ ...written, status: { phase: 'Running', qosClass: 'Guaranteed' } }, old, ctx).map(fieldErrorString), []);
});

test('graceful deletion period', () => {
  const pod = created({ containers: [{ name: 'a', image: 'i' }] });
  assert.equal(strategy.gracefulDeletePeriod?.(pod, undefined), 0);
  (pod.spec as Record<string, unknown>).nodeName = 'n1';
  assert.equal(strategy.gracefulDeletePeriod?.(pod, undefined), 30);
  assert.equal(strategy.gracefulDeletePeriod?.(pod, 5), 5);
  (pod.status as Record<string, unknown>).phase = 'Succeeded';
  assert.equal(strategy.gracefulDeletePeriod?.(pod, 5), 0);
});

test('printer cells: READY, STATUS, RESTARTS and the wide columns', () => {
  const now = Date.now();
  const pod: KubeObject = {
    metadata: { name: 'p', creationTimestamp: new Date(now - 3 * 3600_000).toISOString() },
    spec: { nodeName: 'n1', containers: [{ name: 'a' }, { name: 'b' }], readinessGates: [{ conditionType: 'x.io/ready' }] },
    status: {
      phase: 'Running',
      podIPs: [{ ip: '10.0.0.5' }],
      conditions: [{ type: 'x.io/ready', status: 'True' }],
      containerStatuses: [
        { name: 'a', ready: true, restartCount: 2, state: { running: {} }, lastState: { terminated: { finishedAt: new Date(now - 5 * 60_000).toISOString() } } },
        { name: 'b', ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } },
      ],
    },
  };
  const cells = Object.fromEntries(facts.printerColumns.map((c) => [c.name, c.cell(pod)]));
  assert.deepEqual(cells, {
    Ready: '1/2',
    Status: 'CrashLoopBackOff',
    Restarts: '3 (5m ago)',
    Age: '3h',
    IP: '10.0.0.5',
    Node: 'n1',
    'Nominated Node': '<none>',
    'Readiness Gates': '1/1',
  });
  assert.deepEqual(
    facts.printerColumns.map((c) => [c.name, c.type, c.priority]),
    [
      ['Ready', 'string', 0],
      ['Status', 'string', 0],
      ['Restarts', 'string', 0],
      ['Age', 'string', 0],
      ['IP', 'string', 1],
      ['Node', 'string', 1],
      ['Nominated Node', 'string', 1],
      ['Readiness Gates', 'string', 1],
    ],
  );
  const init: KubeObject = {
    metadata: { name: 'q', deletionTimestamp: new Date().toISOString() },
    spec: { initContainers: [{ name: 'i' }], containers: [{ name: 'a' }] },
    status: { phase: 'Pending', initContainerStatuses: [{ name: 'i', state: { waiting: { reason: 'PodInitializing' } } }] },
  };
  assert.deepEqual(summarizePod(init), { ready: '0/1', reason: 'Terminating', restarts: '0' });
  delete init.metadata.deletionTimestamp;
  assert.equal(summarizePod(init).reason, 'Init:0/1');
});

test('selectable fields of pods', () => {
  const pod = created({ containers: [{ name: 'a', image: 'i' }], nodeName: 'n1', serviceAccountName: 'sa' });
  const fields = facts.selectableFields;
  assert.deepEqual(
    Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f(pod)])),
    {
      'spec.nodeName': 'n1',
      'spec.host': 'n1',
      'spec.restartPolicy': 'Always',
      'spec.schedulerName': 'default-scheduler',
      'spec.serviceAccountName': 'sa',
      'spec.hostNetwork': 'false',
      'status.phase': 'Pending',
      'status.podIP': '',
      'status.podIPs': '',
      'status.nominatedNodeName': '',
    },
  );
});

test('pods/ephemeralcontainers: only the ephemeral containers of the write are taken, defaulted, and only ever added', () => {
  const sub = strategy.subresources!.ephemeralcontainers!;
  const old = created({ containers: [{ name: 'web', image: 'nginx' }] }, { labels: { app: 'web' }, uid: 'u1', resourceVersion: '5' });
  old.status = { phase: 'Running' };
  const write = (ephemeralContainers: unknown[], extra: Partial<KubeObject> = {}): KubeObject => ({
    ...structuredClone(old),
    metadata: { ...structuredClone(old.metadata), labels: { app: 'changed' } },
    spec: { ...structuredClone(old.spec as object), containers: [{ name: 'web', image: 'changed' }], ephemeralContainers },
    status: { phase: 'Failed' },
    ...extra,
  });
  const next = sub.prepareForUpdate(write([{ name: 'dbg', image: 'busybox:1.36', stdin: true }]), old, ctx);
  // Everything but the ephemeral containers is the stored pod's: spec, status, labels.
  assert.deepEqual((next.spec as { containers: unknown }).containers, (old.spec as { containers: unknown }).containers);
  assert.deepEqual(next.status, { phase: 'Running' });
  assert.deepEqual(next.metadata.labels, { app: 'web' });
  assert.deepEqual((next.spec as { ephemeralContainers: unknown }).ephemeralContainers, [
    { name: 'dbg', image: 'busybox:1.36', stdin: true, imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' },
  ]);
  assert.deepEqual(sub.validateUpdate?.(next, old, ctx), []);

  const errors = (obj: KubeObject, from: KubeObject) => (sub.validateUpdate?.(sub.prepareForUpdate(obj, from, ctx), from, ctx) ?? []).map(fieldErrorString);
  assert.deepEqual(errors(write([{ name: 'web', image: 'busybox', targetContainerName: 'nope', ports: [{ containerPort: 80 }], readinessProbe: { exec: { command: ['true'] } }, volumeMounts: [{ name: 'v', mountPath: '/v', subPath: 'x' }] }]), old), [
    'spec.ephemeralContainers[0].volumeMounts[0].name: Not found: "v"',
    'spec.ephemeralContainers[0].name: Duplicate value: "web"',
    'spec.ephemeralContainers[0].targetContainerName: Not found: "nope"',
    'spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container',
    'spec.ephemeralContainers[0].readinessProbe: Forbidden: cannot be set for an Ephemeral Container',
    'spec.ephemeralContainers[0].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container',
  ]);
  // Added ones stay as they are: neither removed nor changed.
  assert.deepEqual(errors(write([]), next), ['spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed\n']);
  assert.deepEqual(errors(write([{ name: 'dbg', image: 'busybox:1.37', stdin: true }]), next), ['spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be changed\n']);
  assert.deepEqual(errors(write([{ name: 'dbg', image: 'busybox:1.36', stdin: true }, { name: 'dbg2', image: 'busybox' }]), next), []);
  // Static (mirror) pods take none.
  const mirror = { ...next, metadata: { ...next.metadata, annotations: { 'kubernetes.io/config.mirror': 'x' } } };
  assert.deepEqual(errors(write([{ name: 'dbg3', image: 'busybox' }]), mirror), [': Forbidden: static pods do not support ephemeral containers']);
  // A pod is still created without any.
  assert.deepEqual(createErrors({ containers: [{ name: 'web', image: 'nginx' }], ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] }), ['spec.ephemeralContainers: Forbidden: cannot be set on create']);
});

test('volume mounts and devices: subPathExpr, propagation, recursive read-only, raw block devices from claims; overhead as limits', () => {
  const errs = createErrors({
    volumes: [{ name: 'data', emptyDir: {} }, { name: 'claim', persistentVolumeClaim: { claimName: 'c' } }],
    containers: [
      {
        name: 'app',
        image: 'nginx',
        volumeMounts: [
          { name: 'data', mountPath: '/data', subPath: 'a', subPathExpr: '$(POD)/../x', mountPropagation: 'Bidirectional' },
          { name: 'claim', mountPath: '/dev/xvda', recursiveReadOnly: 'Enabled', mountPropagation: 'HostToContainer' },
          { name: 'data', mountPath: '/ro', recursiveReadOnly: 'Sometimes', readOnly: true },
        ],
        volumeDevices: [
          { name: 'data', devicePath: '/dev/a' },
          { name: 'claim', devicePath: '/dev/xvda' },
          { name: 'ghost', devicePath: '/dev/../b' },
        ],
      },
    ],
    overhead: { cpu: '-1' },
  });
  assert.deepEqual(errs, [
    'spec.containers[0].volumeMounts[0].name: Invalid value: "data": must not already exist in volumeDevices',
    'spec.containers[0].volumeMounts[0].subPathExpr: Invalid value: "$(POD)/../x": subPathExpr and subPath are mutually exclusive',
    `spec.containers[0].volumeMounts.subPathExpr: Invalid value: "$(POD)/../x": must not contain '..'`,
    'spec.containers[0].volumeMounts.mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers',
    'spec.containers[0].volumeMounts[1].name: Invalid value: "claim": must not already exist in volumeDevices',
    'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/dev/xvda": must not already exist as a path in volumeDevices',
    'spec.containers[0].volumeMounts.recursiveReadOnly: Forbidden: may only be specified when readOnly is true',
    'spec.containers[0].volumeMounts.recursiveReadOnly: Forbidden: may only be specified when mountPropagation is None or not specified',
    'spec.containers[0].volumeMounts[2].name: Invalid value: "data": must not already exist in volumeDevices',
    'spec.containers[0].volumeMounts.recursiveReadOnly: Unsupported value: "Sometimes": supported values: "Disabled", "Enabled", "IfPossible"',
    'spec.containers[0].volumeDevices[0].name: Invalid value: "data": can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode',
    'spec.containers[0].volumeDevices[0].name: Invalid value: "data": must not already exist in volumeMounts',
    'spec.containers[0].volumeDevices[1].name: Invalid value: "claim": must not already exist in volumeMounts',
    'spec.containers[0].volumeDevices[1].devicePath: Invalid value: "/dev/xvda": must not already exist as a path in volumeMounts',
    'spec.containers[0].volumeDevices[2].name: Not found: "ghost"',
    `spec.containers[0].volumeDevices[2].devicePath: Invalid value: "/dev/../b": can not contain backsteps ('..')`,
    'spec.overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0',
  ]);
});
