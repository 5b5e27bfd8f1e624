import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeProtobufObject } from '../encoding/protobuf/envelope.ts';
import { gunzipSync } from 'node:zlib';
import { createDiscoveryHandler, negotiateDiscovery } from './discovery.ts';
import {
  aggregatedDiscoveryDocument,
  compareKubeAwareVersions,
  servedGroups,
  apiGroupDocument,
  apiGroupListDocument,
  apiResourceListDocument,
  storageVersionHash,
} from './discovery-documents.ts';
import { builtInDefinition, customDefinition, fixtureRegistry, serve, smallRegistry } from './discovery-fixture.ts';

const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const KUBECTL_ACCEPT = `${AGGREGATED_V2},application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json`;
const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

type Doc = Record<string, unknown> & { resources?: Record<string, unknown>[] };

test('storageVersionHash is base64 of the first 8 bytes of sha256("<group>/<version>/<kind>")', () => {
  // Values a real kube-apiserver reports.
  assert.equal(storageVersionHash('', 'v1', 'ConfigMap'), 'qFsyl6wFWjQ=');
  assert.equal(storageVersionHash('apps', 'v1', 'Deployment'), '8aSe+NMegvE=');
  assert.equal(storageVersionHash('', 'v1', 'Pod'), 'xPOwRZ+Yhw8=');
});

test('core v1 resource list: no apiVersion, resources and the subresources served here sorted by name as kube registers them', () => {
  const doc = apiResourceListDocument(smallRegistry().all(), '', 'v1') as Doc;
  assert.equal(doc.kind, 'APIResourceList');
  assert.equal('apiVersion' in doc, false);
  assert.equal(doc.groupVersion, 'v1');
  assert.deepEqual(
    doc.resources!.map((r) => r.name),
    [
      'bindings',
      'configmaps',
      'events',
      'namespaces',
      'namespaces/finalize',
      'namespaces/status',
      'pods',
      'pods/attach',
      'pods/binding',
      'pods/ephemeralcontainers',
      'pods/eviction',
      'pods/exec',
      'pods/log',
      'pods/portforward',
      'pods/proxy',
      'pods/status',
    ],
  );
  const configmaps = doc.resources!.find((r) => r.name === 'configmaps');
  assert.equal(
    JSON.stringify(configmaps),
    JSON.stringify({
      name: 'configmaps',
      singularName: 'configmap',
      namespaced: true,
      kind: 'ConfigMap',
      verbs: ALL_VERBS,
      shortNames: ['cm'],
      storageVersionHash: 'qFsyl6wFWjQ=',
    }),
  );
  // Virtual resources have no storage version.
  assert.deepEqual(doc.resources!.find((r) => r.name === 'bindings'), {
    name: 'bindings',
    singularName: 'binding',
    namespaced: true,
    kind: 'Binding',
    verbs: ['create'],
  });
  assert.deepEqual(doc.resources!.find((r) => r.name === 'pods/eviction'), {
    name: 'pods/eviction',
    singularName: '',
    namespaced: true,
    group: 'policy',
    version: 'v1',
    kind: 'Eviction',
    verbs: ['create'],
  });
});

test('apps/v1 resource list: apiVersion v1, deployments/scale names the autoscaling/v1 Scale kind', () => {
  const doc = apiResourceListDocument(smallRegistry().all(), 'apps', 'v1') as Doc;
  assert.equal(
    JSON.stringify(doc),
    JSON.stringify({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'apps/v1',
      resources: [
        {
          name: 'deployments',
          singularName: 'deployment',
          namespaced: true,
          kind: 'Deployment',
          verbs: ALL_VERBS,
          shortNames: ['deploy'],
          categories: ['all'],
          storageVersionHash: '8aSe+NMegvE=',
        },
        { name: 'deployments/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
        { name: 'deployments/status', singularName: '', namespaced: true, kind: 'Deployment', verbs: ['get', 'patch', 'update'] },
      ],
    }),
  );
  assert.equal(apiResourceListDocument(smallRegistry().all(), 'apps', 'v2'), undefined);
});

test('storage version: resources sharing storage hash the version listed first (events in core, HPA in autoscaling/v2)', () => {
  const defs = smallRegistry().all();
  const hashOf = (group: string, version: string, name: string) =>
    (apiResourceListDocument(defs, group, version) as Doc).resources!.find((r) => r.name === name)!.storageVersionHash;
  assert.equal(hashOf('events.k8s.io', 'v1', 'events'), storageVersionHash('', 'v1', 'Event'));
  assert.equal(hashOf('events.k8s.io', 'v1', 'events'), 'r2yiGXH7wu8=');
  assert.equal(hashOf('autoscaling', 'v1', 'horizontalpodautoscalers'), storageVersionHash('autoscaling', 'v2', 'HorizontalPodAutoscaler'));
});

test('group list and group: registry order, preferred version first, core group excluded', () => {
  const defs = smallRegistry().all();
  assert.deepEqual(apiGroupListDocument(defs), {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [
      { name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }], preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } },
      {
        name: 'events.k8s.io',
        versions: [{ groupVersion: 'events.k8s.io/v1', version: 'v1' }],
        preferredVersion: { groupVersion: 'events.k8s.io/v1', version: 'v1' },
      },
      {
        name: 'autoscaling',
        versions: [
          { groupVersion: 'autoscaling/v2', version: 'v2' },
          { groupVersion: 'autoscaling/v1', version: 'v1' },
        ],
        preferredVersion: { groupVersion: 'autoscaling/v2', version: 'v2' },
      },
    ],
  });
  assert.equal(
    JSON.stringify(apiGroupDocument(defs, 'autoscaling')),
    JSON.stringify({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'autoscaling',
      versions: [
        { groupVersion: 'autoscaling/v2', version: 'v2' },
        { groupVersion: 'autoscaling/v1', version: 'v1' },
      ],
      preferredVersion: { groupVersion: 'autoscaling/v2', version: 'v2' },
    }),
  );
  assert.equal(apiGroupDocument(defs, 'batch'), undefined);
  assert.equal(apiGroupDocument(defs, ''), undefined);
});

test('custom groups follow the built-in ones by name, their versions in kube-aware order', () => {
  assert.deepEqual(
    ['v1beta1', 'v1', 'v2alpha1', 'v2', 'foo', 'v1beta2', 'bar', 'v10'].sort(compareKubeAwareVersions),
    ['v10', 'v2', 'v1', 'v1beta2', 'v1beta1', 'v2alpha1', 'bar', 'foo'],
  );
  const defs = smallRegistry([
    customDefinition({ group: 'z.example.com' }),
    customDefinition({ group: 'a.example.com', version: 'v1beta1' }),
    customDefinition({ group: 'a.example.com', version: 'v1' }),
  ]).all();
  assert.deepEqual(servedGroups(defs), [
    { name: '', versions: ['v1'] },
    { name: 'apps', versions: ['v1'] },
    { name: 'events.k8s.io', versions: ['v1'] },
    { name: 'autoscaling', versions: ['v2', 'v1'] },
    { name: 'a.example.com', versions: ['v1', 'v1beta1'] },
    { name: 'z.example.com', versions: ['v1'] },
  ]);
  const group = apiGroupDocument(defs, 'a.example.com');
  assert.deepEqual(group?.preferredVersion, { groupVersion: 'a.example.com/v1', version: 'v1' });
});

test('aggregated discovery: built-in responseKind carries only the kind, subresources sorted, freshness Current', () => {
  const doc = aggregatedDiscoveryDocument(smallRegistry().all(), 'apis', 'v2') as { items: Record<string, unknown>[] };
  assert.equal(JSON.stringify(Object.keys(doc)), JSON.stringify(['kind', 'apiVersion', 'metadata', 'items']));
  assert.equal((doc as Record<string, unknown>).apiVersion, 'apidiscovery.k8s.io/v2');
  assert.deepEqual(
    doc.items.map((i) => (i.metadata as { name: string }).name),
    ['apps', 'events.k8s.io', 'autoscaling'],
  );
  assert.equal(
    JSON.stringify(doc.items[0]),
    JSON.stringify({
      metadata: { name: 'apps', creationTimestamp: null },
      versions: [
        {
          version: 'v1',
          resources: [
            {
              resource: 'deployments',
              responseKind: { group: '', version: '', kind: 'Deployment' },
              scope: 'Namespaced',
              singularResource: 'deployment',
              verbs: ALL_VERBS,
              shortNames: ['deploy'],
              categories: ['all'],
              subresources: [
                { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
                { subresource: 'status', responseKind: { group: '', version: '', kind: 'Deployment' }, verbs: ['get', 'patch', 'update'] },
              ],
            },
          ],
          freshness: 'Current',
        },
      ],
    }),
  );
  const autoscaling = doc.items[2] as { versions: { version: string }[] };
  assert.deepEqual(autoscaling.versions.map((v) => v.version), ['v2', 'v1']);

  const core = aggregatedDiscoveryDocument(smallRegistry().all(), 'api', 'v2beta1') as { apiVersion: string; items: Record<string, unknown>[] };
  assert.equal(core.apiVersion, 'apidiscovery.k8s.io/v2beta1');
  assert.equal(core.items.length, 1);
  assert.equal(JSON.stringify(core.items[0].metadata), '{"creationTimestamp":null}');
  const configmaps = (core.items[0] as { versions: { resources: Record<string, unknown>[] }[] }).versions[0].resources.find(
    (r) => r.resource === 'configmaps',
  );
  assert.equal(
    JSON.stringify(configmaps),
    JSON.stringify({
      resource: 'configmaps',
      responseKind: { group: '', version: '', kind: 'ConfigMap' },
      scope: 'Namespaced',
      singularResource: 'configmap',
      verbs: ALL_VERBS,
      shortNames: ['cm'],
    }),
  );
});

test('custom resources: listed as apiextensions lists them (status before scale, full responseKind)', () => {
  const defs = [customDefinition()];
  assert.equal(
    JSON.stringify(apiResourceListDocument(defs, 'stable.example.com', 'v1')),
    JSON.stringify({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'stable.example.com/v1',
      resources: [
        {
          name: 'crontabs',
          singularName: 'crontab',
          namespaced: true,
          kind: 'CronTab',
          verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
          shortNames: ['ct'],
          categories: ['all'],
          storageVersionHash: storageVersionHash('stable.example.com', 'v1', 'CronTab'),
        },
        { name: 'crontabs/status', singularName: '', namespaced: true, kind: 'CronTab', verbs: ['get', 'patch', 'update'] },
        { name: 'crontabs/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
      ],
    }),
  );
  const agg = aggregatedDiscoveryDocument(defs, 'apis', 'v2') as { items: { versions: { resources: Record<string, unknown>[] }[] }[] };
  assert.equal(
    JSON.stringify(agg.items[0].versions[0].resources[0]),
    JSON.stringify({
      resource: 'crontabs',
      responseKind: { group: 'stable.example.com', version: 'v1', kind: 'CronTab' },
      scope: 'Namespaced',
      singularResource: 'crontab',
      verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
      shortNames: ['ct'],
      categories: ['all'],
      subresources: [
        { subresource: 'status', responseKind: { group: 'stable.example.com', version: 'v1', kind: 'CronTab' }, verbs: ['get', 'patch', 'update'] },
        { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
      ],
    }),
  );
});

test('negotiation: aggregated only for an APIGroupDiscoveryList clause ranked before plain JSON', () => {
  assert.deepEqual(negotiateDiscovery(KUBECTL_ACCEPT, true), { aggregated: 'v2', mediaType: 'application/json', pretty: false });
  assert.deepEqual(negotiateDiscovery(KUBECTL_ACCEPT, false), { legacy: 'application/json', pretty: false });
  assert.deepEqual(negotiateDiscovery(`application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList`, true), {
    aggregated: 'v2beta1',
    mediaType: 'application/json',
    pretty: false,
  });
  assert.deepEqual(negotiateDiscovery(`application/json, ${AGGREGATED_V2}`, true), { legacy: 'application/json', pretty: false });
  // Aggregated discovery in protobuf when asked for first.
  assert.deepEqual(
    negotiateDiscovery(`application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,${AGGREGATED_V2}`, true),
    { aggregated: 'v2', mediaType: 'application/vnd.kubernetes.protobuf', pretty: false },
  );
  assert.deepEqual(negotiateDiscovery('application/json;as=Table;g=meta.k8s.io;v=v1, application/yaml', true), {
    legacy: 'application/yaml',
    pretty: false,
  });
  assert.deepEqual(negotiateDiscovery(undefined, true), { legacy: 'application/json', pretty: false });
  assert.deepEqual(negotiateDiscovery('application/vnd.kubernetes.protobuf', true), { legacy: 'application/vnd.kubernetes.protobuf', pretty: false });
  assert.equal(negotiateDiscovery('text/html', true), undefined);
  assert.equal(negotiateDiscovery(`application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList`, true), undefined);
});

test('HTTP: /api answers APIVersions with the address the client reached', async () => {
  const server = await serve(createDiscoveryHandler(smallRegistry()));
  try {
    const r = await server.get('/api', { Accept: 'application/json' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.text, `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1:${server.port}"}]}\n`);
  } finally {
    await server.close();
  }
});

test('HTTP: aggregated discovery with ETag, Vary, Cache-Control and 304 on If-None-Match', async () => {
  const server = await serve(createDiscoveryHandler(smallRegistry()));
  try {
    const r = await server.get('/apis', { Accept: KUBECTL_ACCEPT });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], AGGREGATED_V2);
    assert.equal(r.headers['vary'], 'Accept');
    assert.equal(r.headers['cache-control'], 'public');
    const etag = r.headers['etag'];
    assert.match(String(etag), /^"[0-9A-F]{128}"$/);
    const doc = JSON.parse(r.text) as { kind: string; items: unknown[] };
    assert.equal(doc.kind, 'APIGroupDiscoveryList');
    assert.equal(doc.items.length, 3);

    const again = await server.get('/apis', { Accept: KUBECTL_ACCEPT, 'If-None-Match': String(etag) });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    assert.equal(again.headers['etag'], etag);

    const stale = await server.get('/apis', { Accept: KUBECTL_ACCEPT, 'If-None-Match': '"0000"' });
    assert.equal(stale.status, 200);

    const core = await server.get('/api', { Accept: KUBECTL_ACCEPT });
    assert.equal(core.headers['content-type'], AGGREGATED_V2);
    assert.equal((JSON.parse(core.text) as { items: unknown[] }).items.length, 1);
  } finally {
    await server.close();
  }
});

test('HTTP: legacy group, version and YAML documents; unknown paths and other methods are declined', async () => {
  const server = await serve(createDiscoveryHandler(smallRegistry()));
  try {
    const list = await server.get('/apis', { Accept: 'application/json' });
    assert.equal((JSON.parse(list.text) as { kind: string }).kind, 'APIGroupList');
    assert.equal(list.headers['etag'], undefined);

    const group = await server.get('/apis/autoscaling');
    assert.equal((JSON.parse(group.text) as { preferredVersion: { version: string } }).preferredVersion.version, 'v2');

    const yaml = await server.get('/apis/apps/v1', { Accept: 'application/yaml' });
    assert.equal(yaml.headers['content-type'], 'application/yaml');
    assert.match(yaml.text, /^apiVersion: v1\ngroupVersion: apps\/v1\nkind: APIResourceList\n/);

    const core = await server.get('/api/v1/');
    assert.equal((JSON.parse(core.text) as { groupVersion: string }).groupVersion, 'v1');

    const pretty = await server.get('/apis/apps/v1?pretty=true');
    assert.match(pretty.text, /^\{\n {2}"kind": "APIResourceList",/);

    assert.equal((await server.get('/apis/batch')).text, 'declined');
    assert.equal((await server.get('/apis/apps/v2')).text, 'declined');
    assert.equal((await server.get('/api/v2')).text, 'declined');
    assert.equal((await server.get('/apis/apps/v1/deployments')).text, 'declined');
    assert.equal((await server.get('/apis', {}, 'POST')).text, 'declined');

    const head = await server.get('/apis/apps/v1', {}, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
    assert.ok(Number(head.headers['content-length']) > 0);
  } finally {
    await server.close();
  }
});

test('HTTP: 406 Status when no acceptable media type is asked for', async () => {
  const server = await serve(createDiscoveryHandler(smallRegistry()));
  try {
    const r = await server.get('/apis/apps/v1', { Accept: 'text/html' });
    assert.equal(r.status, 406);
    assert.deepEqual(JSON.parse(r.text), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      reason: 'NotAcceptable',
      code: 406,
    });
  } finally {
    await server.close();
  }
});

test('HTTP: legacy and aggregated documents in protobuf decode to the JSON ones', async () => {
  const server = await serve(createDiscoveryHandler(smallRegistry()));
  try {
    const pb = 'application/vnd.kubernetes.protobuf';
    for (const path of ['/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1']) {
      const r = await server.get(path, { Accept: pb });
      assert.equal(r.status, 200, path);
      assert.equal(r.headers['content-type'], pb, path);
      assert.deepEqual(decodeProtobufObject(r.body), JSON.parse((await server.get(path, { Accept: 'application/json' })).text), path);
    }
    const aggregated = await server.get('/apis', { Accept: `${pb};g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList` });
    assert.equal(aggregated.headers['content-type'], `${pb};g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`);
    const json = JSON.parse((await server.get('/apis', { Accept: AGGREGATED_V2 })).text) as Record<string, unknown>;
    // Go's APIGroupDiscoveryList holds ListMeta as a value: {} in JSON, an empty message here.
    assert.deepEqual(decodeProtobufObject(aggregated.body), json);
  } finally {
    await server.close();
  }
});

test('HTTP: documents above 128 KiB are gzipped for clients that accept it', async () => {
  const many = Array.from({ length: 700 }, (_, i) => ({ ...customDefinition({ group: `g${i}.example.com` }) }));
  const server = await serve(createDiscoveryHandler(fixtureRegistry(many)));
  try {
    const plain = await server.get('/apis', { Accept: AGGREGATED_V2 });
    assert.ok(plain.body.length > 128 * 1024);
    assert.equal(plain.headers['content-encoding'], undefined);
    const zipped = await server.get('/apis', { Accept: AGGREGATED_V2, 'Accept-Encoding': 'gzip' });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.equal(zipped.headers['vary'], 'Accept, Accept-Encoding');
    assert.deepEqual(gunzipSync(zipped.body), plain.body);

    const small = await server.get('/apis/g1.example.com/v1', { 'Accept-Encoding': 'gzip' });
    assert.equal(small.headers['content-encoding'], undefined);
  } finally {
    await server.close();
  }
  // --feature-gates=APIResponseCompression=false
  const uncompressed = await serve(createDiscoveryHandler(fixtureRegistry(many), { compress: false }));
  try {
    const r = await uncompressed.get('/apis', { Accept: AGGREGATED_V2, 'Accept-Encoding': 'gzip' });
    assert.ok(r.body.length > 128 * 1024);
    assert.equal(r.headers['content-encoding'], undefined);
  } finally {
    await uncompressed.close();
  }
});

test('registry changes (CRDs added or removed) are served at once, with a new ETag', async () => {
  const registry = smallRegistry();
  const server = await serve(createDiscoveryHandler(registry));
  try {
    const before = await server.get('/apis', { Accept: AGGREGATED_V2 });
    assert.equal((await server.get('/apis/stable.example.com/v1')).text, 'declined');
    registry.set([...registry.all(), customDefinition()]);
    const after = await server.get('/apis', { Accept: AGGREGATED_V2 });
    assert.notEqual(after.headers['etag'], before.headers['etag']);
    const names = (JSON.parse(after.text) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name);
    assert.deepEqual(names, ['apps', 'events.k8s.io', 'autoscaling', 'stable.example.com']);
    const crontabs = await server.get('/apis/stable.example.com/v1');
    assert.equal((JSON.parse(crontabs.text) as { resources: unknown[] }).resources.length, 3);
    registry.set(registry.all().filter((d) => !d.custom));
    assert.equal((await server.get('/apis/stable.example.com')).text, 'declined');
  } finally {
    await server.close();
  }
});

test('subresources sort after their resource, as kube registers them', () => {
  const defs = ['configmaps', 'endpoints', 'pods', 'services'].map((r) => builtInDefinition('', 'v1', r));
  const names = ((apiResourceListDocument(defs, '', 'v1') as Doc).resources ?? []).map((r) => r.name);
  assert.deepEqual(names, ['configmaps', 'endpoints', 'pods', 'pods/attach', 'pods/binding', 'pods/ephemeralcontainers', 'pods/eviction', 'pods/exec', 'pods/log', 'pods/portforward', 'pods/proxy', 'pods/status', 'services', 'services/proxy', 'services/status']);
});
