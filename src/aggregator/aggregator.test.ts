import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../registry/types.ts';
import { servedGroups } from '../endpoints/discovery-documents.ts';
import { backendTls, describeNetworkError, externalApiService, resolveBackend, type ServiceLookup } from './backend.ts';
import { resourcesFromList } from './discovery.ts';
import { escapeExtraKey, forwardedHeaders, forwardedPath } from './proxy.ts';

const apiService = (spec: Record<string, unknown>, conditions: unknown[] = []): KubeObject => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name: `${String(spec.version)}.${String(spec.group)}` },
  spec: { groupPriorityMinimum: 100, versionPriority: 10, ...spec },
  status: { conditions },
});

test('an APIService is external only with a service; its port defaults to 443 and caBundle is decoded', () => {
  assert.equal(externalApiService(apiService({ group: 'apps', version: 'v1' })), undefined);
  const api = externalApiService(
    apiService({ group: 'metrics.k8s.io', version: 'v1beta1', service: { namespace: 'kube-system', name: 'metrics-server' }, caBundle: Buffer.from('PEM').toString('base64') }, [{ type: 'Available', status: 'True' }]),
  )!;
  assert.deepEqual(api.service, { namespace: 'kube-system', name: 'metrics-server', port: 443 });
  assert.equal(api.caPem, 'PEM');
  assert.equal(api.available, true);
  assert.equal(externalApiService(apiService({ group: 'g', version: 'v1', service: { namespace: 'n', name: 's' } }, [{ type: 'Available', status: 'False' }]))!.available, false);
  const { servername, rejectUnauthorized } = backendTls({ ...api, caPem: '' }, undefined);
  assert.deepEqual({ servername, rejectUnauthorized }, { servername: 'metrics-server.kube-system.svc', rejectUnauthorized: true });
  assert.equal(backendTls({ ...api, caPem: '', insecureSkipTLSVerify: true }, undefined).rejectUnauthorized, false);
  assert.equal(backendTls({ ...api, caPem: '' }, undefined, false).rejectUnauthorized, false);
});

function lookupOf(services: KubeObject[], endpoints: KubeObject[]): ServiceLookup {
  const find = (list: KubeObject[]) => (ns: string, name: string) => list.find((o) => o.metadata.namespace === ns && o.metadata.name === name);
  return { service: find(services), endpoints: find(endpoints) };
}

test('a ClusterIP Service resolves to a ready endpoint of the port named like the service port; ExternalName to its name', () => {
  const svc = (name: string, spec: Record<string, unknown>): KubeObject => ({ metadata: { namespace: 'ns', name }, spec });
  const eps: KubeObject = {
    metadata: { namespace: 'ns', name: 'api' },
    subsets: [
      { addresses: [{ ip: '10.0.0.9' }], ports: [{ name: 'metrics', port: 9000 }] },
      { addresses: [{ ip: '10.0.0.7' }], notReadyAddresses: [{ ip: '10.0.0.8' }], ports: [{ name: 'https', port: 6443 }] },
    ],
  } as KubeObject;
  const lookup = lookupOf(
    [svc('api', { type: 'ClusterIP', clusterIP: '10.96.0.10', ports: [{ name: 'https', port: 443, targetPort: 6443 }] }), svc('ext', { type: 'ExternalName', externalName: 'localhost' }), svc('lb', { type: 'Other' })],
    [eps],
  );
  assert.deepEqual(resolveBackend(lookup, { namespace: 'ns', name: 'api', port: 443 }), { host: '10.0.0.7', port: 6443 });
  assert.deepEqual(resolveBackend(lookup, { namespace: 'ns', name: 'ext', port: 8443 }), { host: 'localhost', port: 8443 });
  assert.throws(() => resolveBackend(lookup, { namespace: 'ns', name: 'gone', port: 443 }), { message: 'service "gone" not found' });
  assert.throws(() => resolveBackend(lookup, { namespace: 'ns', name: 'api', port: 8443 }), { message: 'no service port 8443 found for service "api"' });
  assert.throws(() => resolveBackend(lookup, { namespace: 'ns', name: 'lb', port: 443 }), { message: 'unsupported service type "Other"' });
  const empty = lookupOf([svc('api', { ports: [{ port: 443 }] })], [{ metadata: { namespace: 'ns', name: 'api' }, subsets: [{ notReadyAddresses: [{ ip: '10.0.0.8' }], ports: [{ port: 443 }] }] } as KubeObject]);
  assert.throws(() => resolveBackend(empty, { namespace: 'ns', name: 'api', port: 443 }), { message: 'no endpoints available for service "api"' });
});

test('connection errors read as Go\'s, naming the address dialled', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 9 });
  assert.equal(describeNetworkError(refused, { host: 'localhost', port: 9 }), 'dial tcp 127.0.0.1:9: connect: connection refused');
  assert.equal(describeNetworkError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), { host: '::1', port: 9 }), 'dial tcp [::1]:9: connect: connection refused');
  assert.equal(describeNetworkError(Object.assign(new Error('x'), { code: 'ENOTFOUND' }), { host: 'nowhere.invalid', port: 1 }), 'dial tcp: lookup nowhere.invalid: no such host');
  assert.equal(describeNetworkError(Object.assign(new Error('self-signed'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), { host: 'h', port: 1 }), 'tls: failed to verify certificate: x509: certificate signed by unknown authority');
});

test('forwarded headers: hop-by-hop, pseudo and caller-sent front-proxy headers dropped; the identity added', () => {
  const out = forwardedHeaders(
    {
      ':path': '/x',
      host: 'capstan',
      connection: 'keep-alive',
      'transfer-encoding': 'chunked',
      accept: 'application/json',
      'x-remote-user': 'mallory',
      'x-remote-group': 'system:masters',
      'x-remote-extra-scopes': 'all',
      'x-forwarded-for': '10.1.1.1',
      'user-agent': 'kubectl',
    },
    { name: 'alice', groups: ['devs', 'system:authenticated'], extra: { 'acme.com/project': ['p1', 'p2'], empty: [] } },
    '127.0.0.1',
  );
  assert.deepEqual(out, {
    accept: 'application/json',
    'user-agent': 'kubectl',
    'X-Remote-User': 'alice',
    'X-Remote-Group': ['devs', 'system:authenticated'],
    'X-Remote-Extra-acme.com%2Fproject': ['p1', 'p2'],
    'x-forwarded-for': '10.1.1.1, 127.0.0.1',
  });
  assert.equal(escapeExtraKey('a b%/é'), 'a%20b%25%2F%C3%A9');
});

test('the forwarded query has its keys sorted (Go\'s url.Values.Encode), the path as sent', () => {
  assert.equal(forwardedPath('/apis/g/v/things'), '/apis/g/v/things');
  assert.equal(forwardedPath('/apis/g/v/things?watch=1&allowWatchBookmarks=true&labelSelector=a%3Db'), '/apis/g/v/things?allowWatchBookmarks=true&labelSelector=a%3Db&watch=1');
  assert.equal(forwardedPath('/apis/g/v/things?'), '/apis/g/v/things');
});

test('a backend\'s APIResourceList becomes aggregated discovery entries, subresources under their parent', () => {
  const list = {
    kind: 'APIResourceList',
    resources: [
      { name: 'pods/log', namespaced: true, kind: 'Pod', verbs: ['get'] },
      { name: 'nodes', singularName: 'node', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'], shortNames: [], categories: ['all'] },
      { name: 'orphans/status', namespaced: false, kind: '', verbs: ['get'] },
    ],
  };
  assert.deepEqual(resourcesFromList(JSON.stringify(list)), [
    { resource: 'nodes', responseKind: { group: '', version: '', kind: 'NodeMetrics' }, scope: 'Cluster', singularResource: 'node', verbs: ['get', 'list'], categories: ['all'] },
    { resource: 'pods', responseKind: { group: '', version: '', kind: '' }, scope: 'Namespaced', singularResource: '', verbs: [], subresources: [{ subresource: 'log', responseKind: { group: '', version: '', kind: 'Pod' }, verbs: ['get'] }] },
    { resource: 'orphans', responseKind: { group: '', version: '', kind: '' }, scope: 'Cluster', singularResource: '', verbs: [], subresources: [{ subresource: 'status', responseKind: { group: '', version: '', kind: '' }, verbs: ['get'] }] },
  ]);
  assert.deepEqual(resourcesFromList('not json'), []);
  assert.deepEqual(resourcesFromList('{"resources":3}'), []);
});

test('aggregated groups take their place among custom resource groups by priority, versions by version priority', () => {
  const def = (group: string, version: string, custom: boolean) => ({ group, version, custom }) as never;
  const ext = (group: string, version: string, groupPriorityMinimum: number, versionPriority: number) => ({ group, version, groupPriorityMinimum, versionPriority, resources: [], freshness: 'Current' as const });
  const groups = servedGroups(
    [def('', 'v1', false), def('apps', 'v1', false), def('stable.example.com', 'v1', true), def('stable.example.com', 'v2', true), def('alpha.example.com', 'v1', true)],
    [ext('metrics.k8s.io', 'v1beta1', 100, 100), ext('high.example.com', 'v1', 2000, 10), ext('high.example.com', 'v2beta1', 2000, 20), ext('zeta.example.com', 'v1', 1000, 1)],
  );
  assert.deepEqual(groups, [
    { name: '', versions: ['v1'] },
    { name: 'apps', versions: ['v1'] },
    { name: 'high.example.com', versions: ['v2beta1', 'v1'] },
    { name: 'alpha.example.com', versions: ['v1'] },
    { name: 'stable.example.com', versions: ['v2', 'v1'] },
    { name: 'zeta.example.com', versions: ['v1'] },
    { name: 'metrics.k8s.io', versions: ['v1beta1'] },
  ]);
});
