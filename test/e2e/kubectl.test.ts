// Everyday kubectl against a real Capstan: the proof list of the first slice.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { enabledGroupVersions } from '../../src/apis/model.ts';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

const configMapYaml = (name: string, ns: string, labels = 'app: web', extra = '') => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: ${ns}
  labels:
    ${labels}
data:
  color: blue
${extra}`;

describe('kubectl against Capstan', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const ok = (args: string[], input?: string) => s.kubectlOk(args, { input });

  test('api-resources lists every default-enabled 1.31 resource', async () => {
    const out = await ok(['api-resources', '--no-headers']);
    const lines = out.trim().split('\n');
    const expected = new Set<string>();
    for (const gv of enabledGroupVersions('')) {
      for (const r of gv.resources) expected.add(r.resource);
    }
    const listed = new Set(lines.map((l) => l.split(/\s+/)[0]));
    assert.deepEqual([...listed].sort(), [...expected].sort());
    assert.match(out, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
    assert.match(out, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    assert.match(out, /^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
    const wide = await ok(['api-resources', '-o', 'wide', '--api-group=apps']);
    assert.match(wide, /deployments\s+deploy\s+apps\/v1\s+true\s+Deployment\s+create,delete,deletecollection,get,list,patch,update,watch\s+all/);
  });

  test('the default namespaces exist', async () => {
    const out = await ok(['get', 'ns', '-o', 'name']);
    assert.deepEqual(out.trim().split('\n').sort(), ['namespace/default', 'namespace/kube-node-lease', 'namespace/kube-public', 'namespace/kube-system']);
    const table = await ok(['get', 'ns', 'default']);
    assert.match(table, /^NAME\s+STATUS\s+AGE\n/);
    assert.match(table, /^default\s+Active\s+\d+s\n$/m);
  });

  test('create from YAML, then get in every output format', async () => {
    await ok(['create', 'namespace', 'shop']);
    assert.equal(await ok(['create', '-f', '-'], configMapYaml('front', 'shop')), 'configmap/front created\n');
    const y = await ok(['get', 'cm', 'front', '-n', 'shop', '-o', 'yaml']);
    assert.match(y, /^kind: ConfigMap$/m);
    assert.match(y, /^ {2}color: blue$/m);
    assert.match(y, /^ {2}resourceVersion: "\d+"$/m);
    assert.match(y, /^ {2}uid: [0-9a-f-]{36}$/m);
    const j = JSON.parse(await ok(['get', 'cm', 'front', '-n', 'shop', '-o', 'json']));
    assert.equal(j.metadata.namespace, 'shop');
    assert.match(j.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(await ok(['get', 'cm', 'front', '-n', 'shop', '-o', 'name']), 'configmap/front\n');
    assert.equal(await ok(['get', 'cm', 'front', '-n', 'shop', '-o', 'jsonpath={.data.color}']), 'blue');
    const table = await ok(['get', 'cm', '-n', 'shop']);
    assert.match(table, /^NAME\s+DATA\s+AGE\n/);
    assert.match(table, /^front\s+1\s+\d+s$/m);
    const wide = await ok(['get', 'cm', 'front', '-n', 'shop', '-o', 'wide', '--show-labels']);
    assert.match(wide, /app=web/);
  });

  test('lists across namespaces, with label and field selectors', async () => {
    await ok(['create', 'namespace', 'blue']);
    await ok(['create', '-f', '-'], configMapYaml('a', 'blue', 'tier: front'));
    await ok(['create', '-f', '-'], configMapYaml('b', 'blue', 'tier: back'));
    await ok(['create', '-f', '-'], configMapYaml('a', 'default', 'tier: back'));
    const all = await ok(['get', 'cm', '-A', '-l', 'tier', '-o', 'custom-columns=NS:.metadata.namespace,NAME:.metadata.name', '--no-headers', '--sort-by=.metadata.name']);
    assert.deepEqual(all.trim().split('\n').map((l) => l.split(/\s+/).join('/')).sort(), ['blue/a', 'blue/b', 'default/a']);
    assert.equal(await ok(['get', 'cm', '-n', 'blue', '-l', 'tier=front', '-o', 'name']), 'configmap/a\n');
    assert.equal(await ok(['get', 'cm', '-n', 'blue', '-l', 'tier in (back,middle)', '-o', 'name']), 'configmap/b\n');
    assert.equal(await ok(['get', 'cm', '-n', 'blue', '-l', 'tier!=front,tier', '-o', 'name']), 'configmap/b\n');
    assert.equal(await ok(['get', 'cm', '-A', '--field-selector', 'metadata.namespace=default,metadata.name=a', '-o', 'name']), 'configmap/a\n');
    const none = await s.kubectl(['get', 'cm', '-n', 'blue', '--field-selector', 'metadata.name=zzz']);
    assert.equal(none.code, 0);
    assert.match(none.stderr, /No resources found in blue namespace\./);
    const bad = await s.kubectl(['get', 'cm', '--field-selector', 'data.color=blue']);
    assert.equal(bad.code, 1);
    assert.equal(
      bad.stderr,
      'Error from server (BadRequest): Unable to find "/v1, Resource=configmaps" that match label selector "", field selector "data.color=blue": "data.color" is not a known field selector: only "metadata.name", "metadata.namespace"\n',
    );
  });

  test('replace with a stale resourceVersion is a conflict', async () => {
    await ok(['create', '-f', '-'], configMapYaml('stale', 'default'));
    const current = JSON.parse(await ok(['get', 'cm', 'stale', '-o', 'json']));
    const staleRv = current.metadata.resourceVersion;
    current.data.color = 'green';
    await ok(['replace', '-f', '-'], JSON.stringify(current));
    current.data.color = 'red';
    current.metadata.resourceVersion = staleRv;
    const r = await s.kubectl(['replace', '-f', '-'], { input: JSON.stringify(current) });
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /Error from server \(Conflict\): error when replacing "STDIN": Operation cannot be fulfilled on configmaps "stale": the object has been modified; please apply your changes to the latest version and try again/,
    );
    assert.equal(await ok(['get', 'cm', 'stale', '-o', 'jsonpath={.data.color}']), 'green');
  });

  test('delete, and delete of an object held by a finalizer', async () => {
    await ok(['create', '-f', '-'], configMapYaml('gone', 'default'));
    assert.equal(await ok(['delete', 'cm', 'gone']), 'configmap "gone" deleted\n');
    const missing = await s.kubectl(['get', 'cm', 'gone']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Error from server \(NotFound\): configmaps "gone" not found/);

    await ok(['create', '-f', '-'], configMapYaml('held', 'default', 'app: web\n  finalizers: ["example.com/hold"]'));
    assert.equal(await ok(['delete', 'cm', 'held', '--wait=false']), 'configmap "held" deleted\n');
    const held = JSON.parse(await ok(['get', 'cm', 'held', '-o', 'json']));
    assert.match(held.metadata.deletionTimestamp, /^\d{4}-/);
    assert.deepEqual(held.metadata.finalizers, ['example.com/hold']);
    held.metadata.finalizers = [];
    await ok(['replace', '-f', '-'], JSON.stringify(held));
    const after = await s.kubectl(['get', 'cm', 'held']);
    assert.equal(after.code, 1);
    assert.match(after.stderr, /NotFound/);
  });

  test('explain reads the OpenAPI v3 documents', async () => {
    const out = await ok(['explain', 'deployment.spec.replicas']);
    assert.match(out, /GROUP:\s+apps/);
    assert.match(out, /KIND:\s+Deployment/);
    assert.match(out, /FIELD: replicas <integer>/);
    const rec = await ok(['explain', 'configmap', '--recursive']);
    assert.match(rec, /binaryData\s+<map\[string\]string>/);
    assert.match(rec, /immutable\s+<boolean>/);
  });

  test('get --raw /readyz?verbose', async () => {
    const out = await ok(['get', '--raw', '/readyz?verbose']);
    assert.match(out, /^\[\+\]ping ok$/m);
    assert.match(out, /^\[\+\]etcd ok$/m);
    assert.match(out, /^readyz check passed$/m);
  });

  test('a namespace is deleted with its content', async () => {
    await ok(['create', 'namespace', 'doomed']);
    await ok(['create', '-f', '-'], configMapYaml('inside', 'doomed'));
    await ok(['delete', 'namespace', 'doomed', '--timeout=15s']);
    const r = await s.kubectl(['get', 'ns', 'doomed']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /namespaces "doomed" not found/);
    const r2 = await s.kubectl(['get', 'cm', 'inside', '-n', 'doomed']);
    assert.match(r2.stderr, /not found/);
  });

  test('creating in a missing namespace is a 404 for the namespace', async () => {
    const r = await s.kubectl(['create', '-f', '-'], { input: configMapYaml('x', 'nowhere') });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Error from server \(NotFound\): error when creating "STDIN": namespaces "nowhere" not found/);
  });
});
