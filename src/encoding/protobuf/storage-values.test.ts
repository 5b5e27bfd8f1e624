// The stored bytes of --storage-media-type, checked against bytes assembled by hand from the field numbers of the
// k8s 1.31 .proto files (runtime.Unknown, meta.v1.ObjectMeta/Time, core.v1.ConfigMap), not from our encoder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { storageValueCodec } from './storage-values.ts';
import { bytes, envelope, kubeConfigMapBytes, num, str } from './test-bytes.ts';

const UID = '6f1c7d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f';
const CREATED = '2024-08-13T10:00:00Z';

/** A ConfigMap as the generic store stores it: no resourceVersion, kind and apiVersion first. */
const configMap = {
  kind: 'ConfigMap',
  apiVersion: 'v1',
  metadata: { name: 'game', namespace: 'default', uid: UID, creationTimestamp: CREATED, labels: { b: '2', a: '1' } },
  data: { z: 'last', k: 'v' },
  immutable: true,
};

function expectedConfigMapBytes(): Buffer {
  return kubeConfigMapBytes({ name: 'game', namespace: 'default', uid: UID, creationTimestamp: CREATED, labels: { b: '2', a: '1' }, data: { z: 'last', k: 'v' }, immutable: true });
}

const protobuf = storageValueCodec('application/vnd.kubernetes.protobuf');
const json = storageValueCodec('application/json');

test('with application/vnd.kubernetes.protobuf a ConfigMap is stored as the k8s\\0 envelope kube-apiserver writes', () => {
  const stored = protobuf.encode(JSON.stringify(configMap));
  assert.equal(Buffer.from(stored).toString('hex'), expectedConfigMapBytes().toString('hex'));
});

test('stored protobuf reads back as the JSON the generic store writes, under either media type', () => {
  const expected = JSON.stringify({
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name: 'game', namespace: 'default', uid: UID, creationTimestamp: CREATED, labels: { a: '1', b: '2' } },
    data: { k: 'v', z: 'last' },
    immutable: true,
  });
  assert.equal(protobuf.decode(expectedConfigMapBytes()), expected);
  assert.equal(json.decode(expectedConfigMapBytes()), expected);
});

test('a master lease as kube writes it (Endpoints without name or creationTimestamp) reads back', () => {
  // GuaranteedUpdate on an empty Endpoints: ObjectMeta has only generation; creationTimestamp is the zero Time.
  const meta = [...str(1, ''), ...str(2, ''), ...str(3, ''), ...str(4, ''), ...str(5, ''), ...str(6, ''), ...num(7, 3), ...bytes(8, [])];
  // subsets (2) of one EndpointSubset whose addresses (1) hold one EndpointAddress {ip 1, hostname 3}.
  const subset = bytes(2, bytes(1, [...str(1, '192.0.2.10'), ...str(3, '')]));
  const raw = [...bytes(1, meta), ...subset];
  const value = envelope('v1', 'Endpoints', raw);
  assert.deepEqual(JSON.parse(json.decode(value)), {
    kind: 'Endpoints',
    apiVersion: 'v1',
    metadata: { generation: 3, creationTimestamp: null },
    subsets: [{ addresses: [{ ip: '192.0.2.10' }] }],
  });
});

test('custom resources, CRDs, APIServices and values without a kind stay JSON; JSON mode writes JSON', () => {
  const values = [
    { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } },
    { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' }, spec: { group: 'example.com' } },
    { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.example.com' }, spec: { group: 'example.com' } },
    { owner: 'x', expires: 1 },
  ];
  for (const v of values) {
    const text = JSON.stringify(v);
    assert.equal(Buffer.from(protobuf.encode(text)).toString('utf8'), text);
    assert.equal(protobuf.decode(protobuf.encode(text)), text);
  }
  const text = JSON.stringify(configMap);
  assert.equal(Buffer.from(json.encode(text)).toString('utf8'), text);
  assert.equal(json.decode(json.encode(text)), text);
});

test('bytes with the magic but a broken message are an error, not a value', () => {
  assert.throws(() => json.decode(Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x05, 0x01])), /unexpected EOF/);
});
