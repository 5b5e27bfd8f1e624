// --storage-media-type=application/vnd.kubernetes.protobuf on a real etcd: what Capstan writes is kube's k8s\0
// envelope (custom resources stay JSON), an instance on the default JSON media type serves it, and so does an
// instance reading values put into etcd as kube-apiserver 1.31 writes them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcdCluster, type EtcdCluster } from '../../src/storage/etcd/test-cluster.ts';
import { kubeConfigMapBytes } from '../../src/encoding/protobuf/test-bytes.ts';
import { startTestServer, type TestServer } from './helpers.ts';

let etcd: EtcdCluster;
let writer: TestServer;
let reader: TestServer;

before(async () => {
  etcd = await startEtcdCluster(1);
  const etcdOptions = { servers: etcd.clientUrls, prefix: '/registry', compactionIntervalMs: 0 };
  writer = await startTestServer({ storageBackend: 'etcd3', etcd: { ...etcdOptions, mediaType: 'application/vnd.kubernetes.protobuf' } });
  reader = await startTestServer({ storageBackend: 'etcd3', etcd: etcdOptions });
});

after(async () => {
  await writer?.close();
  await reader?.close();
  await etcd?.close();
});

const storedValue = (key: string) => etcd.etcdctl(['get', key, '--print-value-only']);

const WIDGETS_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

async function waitEstablished(server: TestServer, name: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const r = await server.adminRequest(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    const conditions = (JSON.parse(r.body) as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? [];
    if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.fail(`${name} was not established`);
}

test('objects written with the protobuf media type are k8s\\0 envelopes in etcd and read back through kubectl on a JSON instance', async () => {
  await writer.kubectlOk(['create', 'configmap', 'pb-cm', '--from-literal=greeting=hello', '--from-literal=n=1']);
  await writer.kubectlOk(['create', 'secret', 'generic', 'pb-secret', '--from-literal=password=s3cret']);
  await writer.kubectlOk(['create', 'namespace', 'pb-ns']);
  const cm = await storedValue('/registry/configmaps/default/pb-cm');
  assert.equal(cm.subarray(0, 4).toString('latin1'), 'k8s\0');
  assert.ok(cm.includes(Buffer.from('\n\x02v1\x12\x09ConfigMap')), 'typeMeta names v1 ConfigMap');
  assert.equal((await storedValue('/registry/secrets/default/pb-secret')).subarray(0, 4).toString('latin1'), 'k8s\0');
  assert.equal((await storedValue('/registry/namespaces/pb-ns')).subarray(0, 4).toString('latin1'), 'k8s\0');

  const got = JSON.parse(await reader.kubectlOk(['get', 'configmap', 'pb-cm', '-o', 'json'])) as { data: Record<string, string>; metadata: { name: string; uid: string } };
  assert.deepEqual(got.data, { greeting: 'hello', n: '1' });
  const fromWriter = JSON.parse(await writer.kubectlOk(['get', 'configmap', 'pb-cm', '-o', 'json'])) as { metadata: { uid: string } };
  assert.equal(got.metadata.uid, fromWriter.metadata.uid);
  const secret = JSON.parse(await reader.kubectlOk(['get', 'secret', 'pb-secret', '-o', 'json'])) as { data: Record<string, string>; type: string };
  assert.deepEqual(secret.data, { password: Buffer.from('s3cret').toString('base64') });
  assert.equal(secret.type, 'Opaque');
  assert.match(await reader.kubectlOk(['get', 'namespace', 'pb-ns', '-o', 'name']), /^namespace\/pb-ns\n$/);
  // An update through the JSON instance is stored as JSON; the protobuf instance reads it.
  await reader.kubectlOk(['label', 'configmap', 'pb-cm', 'edited=by-json']);
  assert.equal((await storedValue('/registry/configmaps/default/pb-cm')).subarray(0, 1).toString(), '{');
  assert.match(await writer.kubectlOk(['get', 'configmap', 'pb-cm', '-o', 'jsonpath={.metadata.labels.edited}']), /^by-json$/);
});

test('custom resources and CRDs stay JSON under the protobuf media type', async () => {
  await writer.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(WIDGETS_CRD) });
  await waitEstablished(writer, 'widgets.example.com');
  await writer.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec: { size: 3 } }) });
  const crd = await storedValue('/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com');
  assert.equal(JSON.parse(crd.toString('utf8')).kind, 'CustomResourceDefinition');
  const widget = await storedValue('/registry/example.com/widgets/default/w1');
  assert.deepEqual(JSON.parse(widget.toString('utf8')).spec, { size: 3 });
  await waitEstablished(reader, 'widgets.example.com');
  assert.match(await reader.kubectlOk(['get', 'widgets', 'w1', '-o', 'jsonpath={.spec.size}']), /^3$/);
});

test('a ConfigMap put into etcd as kube-apiserver 1.31 writes it is served, listed and watched', async () => {
  const uid = '2d3c4b5a-6978-4a1b-9c2d-3e4f5a6b7c8d';
  const value = kubeConfigMapBytes({ name: 'from-kube', namespace: 'default', uid, creationTimestamp: '2024-08-13T10:00:00Z', labels: { app: 'legacy' }, data: { mode: 'kube' } });
  await etcd.etcdctl(['put', '/registry/configmaps/default/from-kube'], value);
  assert.ok((await storedValue('/registry/configmaps/default/from-kube')).equals(Buffer.concat([value, Buffer.from('\n')])), 'etcdctl stored the bytes as given');
  for (const server of [reader, writer]) {
    const got = JSON.parse(await server.kubectlOk(['get', 'configmap', 'from-kube', '-o', 'json'])) as { metadata: Record<string, unknown>; data: Record<string, string> };
    assert.deepEqual(got.data, { mode: 'kube' });
    assert.equal(got.metadata.uid, uid);
    assert.equal(got.metadata.creationTimestamp, '2024-08-13T10:00:00Z');
    assert.deepEqual(got.metadata.labels, { app: 'legacy' });
    assert.match(await server.kubectlOk(['get', 'configmaps', '-l', 'app=legacy', '-o', 'name']), /^configmap\/from-kube\n$/);
  }
  // Served from the watch cache fed by the etcd watch: a change made by kube (another put) reaches a watcher.
  const watch = reader.kubectl(['get', 'configmap', 'from-kube', '--watch', '--output-watch-events', '-o', 'jsonpath={.type} {.object.data.mode}{"\\n"}'], { timeoutMs: 6000 });
  await new Promise((res) => setTimeout(res, 1500));
  await etcd.etcdctl(['put', '/registry/configmaps/default/from-kube'], kubeConfigMapBytes({ name: 'from-kube', namespace: 'default', uid, creationTimestamp: '2024-08-13T10:00:00Z', labels: { app: 'legacy' }, data: { mode: 'changed' } }));
  const out = (await watch).stdout;
  assert.match(out, /^ADDED kube\nMODIFIED changed\n/);
});
