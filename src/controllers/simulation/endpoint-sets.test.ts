import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../registry/types.ts';
import { desiredSlices, endpointsLabels, endpointsSubsets, findPort, mirroredMetadata, mirroredSlices, shouldMirror, sliceLabels } from './endpoint-sets.ts';

function pod(name: string, ip: string | undefined, options: { ready?: boolean; ports?: { name: string; containerPort: number; protocol?: string }[]; deleting?: boolean; phase?: string; node?: string } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...(options.deleting ? { deletionTimestamp: '2026-11-30T00:00:00Z' } : {}) },
    spec: { nodeName: options.node ?? 'n1', containers: [{ name: 'c', ports: options.ports ?? [] }] },
    status: {
      phase: options.phase ?? 'Running',
      ...(ip ? { podIP: ip, podIPs: [{ ip }] } : {}),
      conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True' }],
    },
  };
}

function service(spec: Record<string, unknown>, labels?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', namespace: 'ns', uid: 'svc-uid', ...(labels ? { labels } : {}) }, spec: { clusterIP: '10.96.0.10', selector: { app: 'a' }, ...spec } };
}

const ref = (name: string) => ({ kind: 'Pod', namespace: 'ns', name, uid: `uid-${name}` });

test('findPort: a number as it is; a name from the containers, for the same protocol only', () => {
  const p = pod('p', '10.0.0.1', { ports: [{ name: 'http', containerPort: 8080 }, { name: 'dns', containerPort: 53, protocol: 'UDP' }] });
  assert.equal(findPort(p, { port: 80, targetPort: 9000 }), 9000);
  assert.equal(findPort(p, { port: 80 }), 80);
  assert.equal(findPort(p, { port: 80, targetPort: 'http' }), 8080);
  assert.equal(findPort(p, { port: 53, targetPort: 'dns', protocol: 'UDP' }), 53);
  assert.equal(findPort(p, { port: 53, targetPort: 'dns' }), undefined);
  assert.equal(findPort(p, { port: 80, targetPort: 'missing' }), undefined);
});

test("Endpoints subsets: ready and not-ready addresses sorted by IP; terminal, IP-less and terminating pods left out", () => {
  const svc = service({ ports: [{ name: 'web', port: 80, targetPort: 8080, protocol: 'TCP' }] });
  const pods = [
    pod('b', '10.0.0.9'),
    pod('a', '10.0.0.10'),
    pod('c', '10.0.0.2', { ready: false }),
    pod('done', '10.0.0.3', { phase: 'Succeeded' }),
    pod('pending', undefined),
    pod('going', '10.0.0.4', { deleting: true }),
  ];
  assert.deepEqual(endpointsSubsets(svc, pods), [
    {
      addresses: [
        { ip: '10.0.0.10', nodeName: 'n1', targetRef: ref('a') },
        { ip: '10.0.0.9', nodeName: 'n1', targetRef: ref('b') },
      ],
      notReadyAddresses: [{ ip: '10.0.0.2', nodeName: 'n1', targetRef: ref('c') }],
      ports: [{ name: 'web', port: 8080, protocol: 'TCP' }],
    },
  ]);
  // publishNotReadyAddresses: every pod that belongs (terminating ones too) is ready.
  const all = endpointsSubsets(service({ ports: [{ port: 80, protocol: 'TCP' }], publishNotReadyAddresses: true }), pods);
  assert.deepEqual(all.map((s) => [(s.addresses as { ip: string }[]).map((a) => a.ip), s.notReadyAddresses, s.ports]), [[['10.0.0.10', '10.0.0.2', '10.0.0.4', '10.0.0.9'], undefined, [{ port: 80, protocol: 'TCP' }]]]);
  assert.deepEqual(endpointsSubsets(svc, []), []);
});

test('Endpoints subsets are repacked: ports offered by the same addresses share a subset', () => {
  const svc = service({ ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }, { name: 'metrics', port: 9090, protocol: 'TCP' }] });
  const withHttp = pod('a', '10.0.0.1', { ports: [{ name: 'http', containerPort: 8080 }] });
  const without = pod('b', '10.0.0.2');
  assert.deepEqual(endpointsSubsets(svc, [withHttp, without]), [
    { addresses: [{ ip: '10.0.0.1', nodeName: 'n1', targetRef: ref('a') }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] },
    {
      addresses: [
        { ip: '10.0.0.1', nodeName: 'n1', targetRef: ref('a') },
        { ip: '10.0.0.2', nodeName: 'n1', targetRef: ref('b') },
      ],
      ports: [{ name: 'metrics', port: 9090, protocol: 'TCP' }],
    },
  ]);
  // A headless Service without ports lists its pods under none; one with a cluster IP and no ports lists nothing.
  assert.deepEqual(endpointsSubsets(service({ clusterIP: 'None', ports: [] }), [without]), [{ addresses: [{ ip: '10.0.0.2', nodeName: 'n1', targetRef: ref('b') }] }]);
  assert.deepEqual(endpointsSubsets(service({ ports: [] }), [without]), []);
});

test("labels: the Service's, kube's headless mark, and on slices the two reserved labels the Service cannot set", () => {
  const labels = { team: 'x', 'kubernetes.io/service-name': 'other', 'service.kubernetes.io/headless': 'stale' };
  assert.deepEqual(endpointsLabels(service({}, labels)), { team: 'x', 'kubernetes.io/service-name': 'other' });
  assert.deepEqual(endpointsLabels(service({ clusterIP: 'None' }, { team: 'x' })), { team: 'x', 'service.kubernetes.io/headless': '' });
  assert.deepEqual(sliceLabels(service({}, labels)), { team: 'x', 'kubernetes.io/service-name': 'svc', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
  assert.deepEqual(sliceLabels(service({ clusterIP: 'None' })), { 'service.kubernetes.io/headless': '', 'kubernetes.io/service-name': 'svc', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
});

test("EndpointSlices: kube's conditions (terminating pods serve but are not ready), zones, slices of at most 100 per port set", () => {
  const svc = service({ ports: [{ name: '', port: 80, targetPort: 'http', protocol: 'TCP' }] });
  const pods = [
    pod('a', '10.0.0.1', { ports: [{ name: 'http', containerPort: 8080 }], node: 'zoned' }),
    pod('b', '10.0.0.2', { ports: [{ name: 'http', containerPort: 8080 }], deleting: true }),
    pod('c', '10.0.0.3', { ports: [{ name: 'http', containerPort: 8080 }], ready: false }),
    pod('d', '10.0.0.4'),
  ];
  const slices = desiredSlices(svc, pods, (node) => (node === 'zoned' ? 'zone-a' : undefined));
  assert.deepEqual(slices, [
    {
      ports: [{ name: '', port: 8080, protocol: 'TCP' }],
      endpoints: [
        { addresses: ['10.0.0.1'], conditions: { ready: true, serving: true, terminating: false }, targetRef: ref('a'), nodeName: 'zoned', zone: 'zone-a' },
        { addresses: ['10.0.0.2'], conditions: { ready: false, serving: true, terminating: true }, targetRef: ref('b'), nodeName: 'n1' },
        { addresses: ['10.0.0.3'], conditions: { ready: false, serving: false, terminating: false }, targetRef: ref('c'), nodeName: 'n1' },
      ],
    },
    // The pod without the named port: an endpoint under no ports, in a slice of its own.
    { ports: [], endpoints: [{ addresses: ['10.0.0.4'], conditions: { ready: true, serving: true, terminating: false }, targetRef: ref('d'), nodeName: 'n1' }] },
  ]);
  // No pod: one placeholder slice.
  assert.deepEqual(desiredSlices(svc, [], () => undefined), [{ ports: [], endpoints: [] }]);
  const many = Array.from({ length: 250 }, (_, i) => pod(`p${String(i).padStart(3, '0')}`, `10.1.${i >> 8}.${i & 255}`));
  assert.deepEqual(desiredSlices(service({ ports: [{ port: 80, protocol: 'TCP' }] }), many, () => undefined).map((s) => s.endpoints.length), [100, 100, 50]);
});

test("mirrored slices: an Endpoints' subsets by address type and ports, ready and not ready, kube's labels and annotations", () => {
  const endpoints: KubeObject = {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: {
      name: 'ext',
      namespace: 'ns',
      labels: { owner: 'me', 'endpointslice.kubernetes.io/managed-by': 'someone' },
      annotations: { note: 'hi', 'endpoints.kubernetes.io/last-change-trigger-time': 't', 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
    },
    subsets: [
      { addresses: [{ ip: '192.0.2.1', hostname: 'a', nodeName: 'n1' }, { ip: '2001:db8::1' }], notReadyAddresses: [{ ip: '192.0.2.2', targetRef: ref('p') }], ports: [{ name: 'https', port: 8443 }] },
      { addresses: [{ ip: '192.0.2.3' }, { ip: 'not-an-ip' }], ports: [{ name: 'https', port: 8443, protocol: 'TCP' }] },
    ],
  };
  assert.deepEqual(mirroredSlices(endpoints), [
    {
      addressType: 'IPv4',
      ports: [{ name: 'https', port: 8443, protocol: 'TCP' }],
      endpoints: [
        { addresses: ['192.0.2.1'], conditions: { ready: true }, hostname: 'a', nodeName: 'n1' },
        { addresses: ['192.0.2.2'], conditions: { ready: false }, targetRef: ref('p') },
        { addresses: ['192.0.2.3'], conditions: { ready: true } },
      ],
    },
    { addressType: 'IPv6', ports: [{ name: 'https', port: 8443, protocol: 'TCP' }], endpoints: [{ addresses: ['2001:db8::1'], conditions: { ready: true } }] },
  ]);
  assert.deepEqual(mirroredMetadata(endpoints), {
    labels: { owner: 'me', 'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io', 'kubernetes.io/service-name': 'ext' },
    annotations: { note: 'hi' },
  });
  assert.equal(shouldMirror(endpoints), true);
  assert.equal(shouldMirror({ ...endpoints, metadata: { ...endpoints.metadata, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } } }), false);
  assert.equal(shouldMirror({ ...endpoints, metadata: { ...endpoints.metadata, annotations: { 'control-plane.alpha.kubernetes.io/leader': '{}' } } }), false);
  assert.deepEqual(mirroredSlices({ ...endpoints, subsets: undefined }), []);
});
