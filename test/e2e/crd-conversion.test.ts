// A two-version CRD with conversion strategy Webhook: the test serves the ConversionReview webhook itself on
// loopback (its own CA, reached through an ExternalName Service naming localhost, as kube resolves one), and kubectl,
// raw requests and a watch see each version's shape; a failing webhook is kube's 500.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.ts';
import { startWebhookServer, type WebhookServer } from './webhook-server.ts';
import { openWatch } from './stream.ts';

type Obj = Record<string, any>;

/** v1 keeps spec.cronSpec, v2 calls it spec.schedule. */
function convert(obj: Obj, desired: string): Obj {
  const out = structuredClone(obj);
  out.apiVersion = desired;
  const spec = out.spec ?? {};
  if (desired.endsWith('/v2') && 'cronSpec' in spec) {
    spec.schedule = spec.cronSpec;
    delete spec.cronSpec;
  }
  if (desired.endsWith('/v1') && 'schedule' in spec) {
    spec.cronSpec = spec.schedule;
    delete spec.schedule;
  }
  // What some webhooks do to the metadata, picked by the object's name.
  const meta = out.metadata;
  if (meta.name === 'lean') out.metadata = { name: meta.name, namespace: meta.namespace, uid: meta.uid, labels: { converted: 'yes' } };
  if (meta.name === 'numeric-label') meta.labels = { n: 5 };
  if (meta.name === 'bad-label') meta.labels = { 'not a key!': 'x' };
  if (meta.name === 'renamed') meta.name = 'other';
  return out;
}

function crd(caBundle: string, port: number) {
  const schema = (field: string) => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { [field]: { type: 'string' } } } } } });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab' },
      conversion: {
        strategy: 'Webhook',
        webhook: { conversionReviewVersions: ['v1'], clientConfig: { caBundle, service: { namespace: 'default', name: 'conv', path: '/convert', port } } },
      },
      versions: [
        { name: 'v1', served: true, storage: true, schema: schema('cronSpec') },
        { name: 'v2', served: true, storage: false, schema: schema('schedule') },
      ],
    },
  };
}

describe('CRD conversion webhook', () => {
  let s: TestServer;
  let hook: WebhookServer;
  before(async () => {
    hook = await startWebhookServer((body) => {
      const req = (body as Obj).request;
      return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: req.uid, result: { status: 'Success' }, convertedObjects: req.objects.map((o: Obj) => convert(o, req.desiredAPIVersion)) } };
    }, ['conv.default.svc']);
    s = await startTestServer();
    // The Service the CRD names: ExternalName localhost, so the webhook's port is the one the reference gives.
    await s.kubectlOk(['create', 'service', 'externalname', 'conv', '--external-name=localhost']);
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(crd(hook.caBundle, hook.port)) });
    await s.kubectlOk(['wait', '--for=condition=established', 'crd/crontabs.stable.example.com', '--timeout=10s']);
  });
  after(async () => {
    await s.close();
    await hook.close();
  });

  test('an object written in v2 is stored in v1 through the webhook and read back in either version', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'stable.example.com/v2', kind: 'CronTab', metadata: { name: 'x' }, spec: { schedule: '*/5' } }) });
    const v1 = JSON.parse((await s.adminRequest('/apis/stable.example.com/v1/namespaces/default/crontabs/x')).body);
    assert.deepEqual([v1.apiVersion, v1.spec], ['stable.example.com/v1', { cronSpec: '*/5' }]);
    const v2 = JSON.parse((await s.adminRequest('/apis/stable.example.com/v2/namespaces/default/crontabs/x')).body);
    assert.deepEqual([v2.apiVersion, v2.spec], ['stable.example.com/v2', { schedule: '*/5' }]);
    const list = JSON.parse((await s.adminRequest('/apis/stable.example.com/v2/namespaces/default/crontabs')).body);
    assert.deepEqual(list.items.map((i: Obj) => [i.apiVersion, i.spec.schedule]), [['stable.example.com/v2', '*/5']]);
    const requests = hook.received.map((b) => (b as Obj).request);
    assert.ok(requests.some((r) => r.desiredAPIVersion === 'stable.example.com/v1' && r.objects[0].spec.schedule === '*/5'));
    assert.equal((hook.received[0] as Obj).kind, 'ConversionReview');
    assert.equal((hook.received[0] as Obj).apiVersion, 'apiextensions.k8s.io/v1');
  });

  test('kubectl patch and a watch in v2 see v2 objects', async () => {
    const watch = await openWatch(s, '/apis/stable.example.com/v2/namespaces/default/crontabs?watch=true&resourceVersion=0');
    try {
      await s.kubectlOk(['patch', 'crontabs.v2.stable.example.com', 'x', '--type=merge', '-p', '{"spec":{"schedule":"*/7"}}']);
      const events = (await watch.waitFor(2)) as Obj[];
      assert.deepEqual(events.map((e) => [e.type, e.object.apiVersion, e.object.spec.schedule]), [
        ['ADDED', 'stable.example.com/v2', '*/5'],
        ['MODIFIED', 'stable.example.com/v2', '*/7'],
      ]);
    } finally {
      watch.close();
    }
    const v1 = JSON.parse((await s.adminRequest('/apis/stable.example.com/v1/namespaces/default/crontabs/x')).body);
    assert.deepEqual(v1.spec, { cronSpec: '*/7' });
  });

  test('the webhook may drop metadata, which the original restores; it may change only valid labels and annotations, and not the name', async () => {
    const create = (name: string) =>
      s.adminRequest('/apis/stable.example.com/v2/namespaces/default/crontabs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'stable.example.com/v2', kind: 'CronTab', metadata: { name, labels: { a: '1' } }, spec: { schedule: '2' } }) });
    const lean = await create('lean');
    assert.equal(lean.status, 201, lean.body);
    const stored = JSON.parse((await s.adminRequest('/apis/stable.example.com/v1/namespaces/default/crontabs/lean')).body);
    assert.deepEqual(stored.metadata.labels, { converted: 'yes' });
    assert.equal(typeof stored.metadata.creationTimestamp, 'string');
    assert.equal(stored.metadata.managedFields[0].manager, 'unknown');
    const message = async (name: string) => {
      const r = await create(name);
      assert.equal(r.status, 500);
      return (JSON.parse(r.body) as { message: string }).message;
    };
    const prefix = 'Internal error occurred: conversion webhook for stable.example.com/v2, Kind=CronTab';
    assert.equal(await message('numeric-label'), `${prefix} returned invalid metadata in object at index 0: metadata.labels[n] must be a string, but is int64 in converted object`);
    assert.match(await message('bad-label'), /returned invalid metadata in object at index 0: metadata\.labels: Invalid value: "not a key!": name part must consist of alphanumeric characters/);
    assert.equal(await message('renamed'), `${prefix} returned invalid converted object at index 0: must have the same name: renamed != other`);
    for (const name of ['numeric-label', 'bad-label', 'renamed']) assert.equal((await s.adminRequest(`/apis/stable.example.com/v1/namespaces/default/crontabs/${name}`)).status, 404);
  });

  test('a webhook that fails is a 500 naming the conversion, and nothing is written', async () => {
    await hook.close();
    const r = await s.adminRequest('/apis/stable.example.com/v2/namespaces/default/crontabs/x');
    assert.equal(r.status, 500);
    const status = JSON.parse(r.body);
    assert.equal(status.reason, 'InternalError');
    assert.match(status.message, /^Internal error occurred: conversion webhook for stable.example.com\/v1, Kind=CronTab failed: Post "https:\/\/localhost:\d+\/convert": /);
    const create = await s.adminRequest('/apis/stable.example.com/v2/namespaces/default/crontabs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'stable.example.com/v2', kind: 'CronTab', metadata: { name: 'y' }, spec: { schedule: '1' } }),
    });
    assert.equal(create.status, 500);
    assert.equal((await s.adminRequest('/apis/stable.example.com/v1/namespaces/default/crontabs/y')).status, 404);
  });
});
