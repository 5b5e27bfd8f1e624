import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRequestInfo } from './request-info.ts';

const info = (method: string, url: string) => {
  const [path, query = ''] = url.split('?');
  const r = parseRequestInfo(method, path!, new URLSearchParams(query));
  return { resource: r.isResourceRequest, verb: r.verb, group: r.apiGroup, version: r.apiVersion, ns: r.namespace, res: r.resource, sub: r.subresource, name: r.name };
};

test('collection and object verbs', () => {
  assert.deepEqual(info('GET', '/api/v1/namespaces/default/configmaps'), { resource: true, verb: 'list', group: '', version: 'v1', ns: 'default', res: 'configmaps', sub: '', name: '' });
  assert.deepEqual(info('GET', '/api/v1/namespaces/default/configmaps?watch=true'), { resource: true, verb: 'watch', group: '', version: 'v1', ns: 'default', res: 'configmaps', sub: '', name: '' });
  assert.equal(info('GET', '/api/v1/namespaces/default/configmaps?watch=0').verb, 'list');
  assert.equal(info('GET', '/api/v1/namespaces/default/configmaps/x?watch=1').verb, 'get');
  assert.equal(info('DELETE', '/api/v1/namespaces/default/configmaps').verb, 'deletecollection');
  assert.equal(info('DELETE', '/api/v1/namespaces/default/configmaps/x').verb, 'delete');
  assert.equal(info('POST', '/apis/apps/v1/namespaces/ns1/deployments').verb, 'create');
  assert.equal(info('PUT', '/apis/apps/v1/namespaces/ns1/deployments/web/scale').sub, 'scale');
  assert.equal(info('PATCH', '/apis/apps/v1/namespaces/ns1/deployments/web').verb, 'patch');
});

test('namespaces address themselves; the deprecated /watch/ prefix is a watch', () => {
  assert.deepEqual(info('GET', '/api/v1/namespaces/team'), { resource: true, verb: 'get', group: '', version: 'v1', ns: 'team', res: 'namespaces', sub: '', name: 'team' });
  assert.equal(info('PUT', '/api/v1/namespaces/team/finalize').sub, 'finalize');
  assert.deepEqual(info('GET', '/api/v1/namespaces'), { resource: true, verb: 'list', group: '', version: 'v1', ns: '', res: 'namespaces', sub: '', name: '' });
  assert.equal(info('GET', '/api/v1/watch/namespaces/default/pods').verb, 'watch');
});

test('discovery and other paths are not resource requests', () => {
  assert.equal(info('GET', '/apis').resource, false);
  assert.equal(info('GET', '/apis/apps').resource, false);
  assert.equal(info('GET', '/apis/apps/v1').resource, false);
  assert.deepEqual(info('GET', '/healthz'), { resource: false, verb: 'get', group: '', version: '', ns: '', res: '', sub: '', name: '' });
});
