import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResourcePrefix, namespacePrefix, objectKey, parseObjectKey, resourcePrefix } from './keys.ts';

test('resourcePrefix: the core group has no group segment', () => {
  assert.equal(resourcePrefix('', 'configmaps'), '/registry/configmaps');
  assert.equal(resourcePrefix('apps', 'deployments'), '/registry/apps/deployments');
  assert.equal(resourcePrefix('stable.example.com', 'crontabs'), '/registry/stable.example.com/crontabs');
});

test('objectKey and namespacePrefix build kube-apiserver style keys', () => {
  const cm = resourcePrefix('', 'configmaps');
  assert.equal(objectKey(cm, 'default', 'foo'), '/registry/configmaps/default/foo');
  assert.equal(objectKey(resourcePrefix('', 'namespaces'), '', 'foo'), '/registry/namespaces/foo');
  assert.equal(objectKey(cm + '/', 'default', 'foo'), '/registry/configmaps/default/foo', 'a trailing slash on the prefix is tolerated');
  assert.equal(namespacePrefix(cm, 'default'), '/registry/configmaps/default/');
  assert.equal(namespacePrefix(cm, ''), '/registry/configmaps/');
  assert.ok(objectKey(cm, 'default', 'foo').startsWith(namespacePrefix(cm, 'default')));
  assert.ok(!objectKey(cm, 'default-2', 'foo').startsWith(namespacePrefix(cm, 'default')), 'namespace prefixes end at the slash');
});

test('parseObjectKey inverts objectKey and rejects other shapes', () => {
  const cm = resourcePrefix('', 'configmaps');
  assert.deepEqual(parseObjectKey(cm, '/registry/configmaps/default/foo', true), { namespace: 'default', name: 'foo' });
  assert.deepEqual(parseObjectKey(resourcePrefix('', 'namespaces'), '/registry/namespaces/foo', false), { namespace: '', name: 'foo' });
  assert.equal(parseObjectKey(cm, '/registry/configmapsx/default/foo', true), undefined);
  assert.equal(parseObjectKey(cm, '/registry/configmaps/default', true), undefined);
  assert.equal(parseObjectKey(cm, '/registry/configmaps/a/b/c', true), undefined);
  assert.equal(parseObjectKey(cm, '/registry/configmaps/default/foo', false), undefined);
});

test('builtinResourcePrefix: kube-apiserver etcd layout with its historical names', () => {
  assert.equal(builtinResourcePrefix('', 'configmaps'), '/registry/configmaps');
  assert.equal(builtinResourcePrefix('apps', 'deployments'), '/registry/deployments');
  assert.equal(builtinResourcePrefix('rbac.authorization.k8s.io', 'clusterroles'), '/registry/clusterroles');
  assert.equal(builtinResourcePrefix('', 'nodes'), '/registry/minions');
  assert.equal(builtinResourcePrefix('', 'services'), '/registry/services/specs');
  assert.equal(builtinResourcePrefix('', 'endpoints'), '/registry/services/endpoints');
  assert.equal(builtinResourcePrefix('', 'replicationcontrollers'), '/registry/controllers');
  assert.equal(builtinResourcePrefix('', 'serviceaccounts'), '/registry/serviceaccounts');
  assert.equal(builtinResourcePrefix('networking.k8s.io', 'ingresses'), '/registry/ingress');
  assert.equal(builtinResourcePrefix('apiextensions.k8s.io', 'customresourcedefinitions'), '/registry/apiextensions.k8s.io/customresourcedefinitions');
  assert.equal(builtinResourcePrefix('apiregistration.k8s.io', 'apiservices'), '/registry/apiregistration.k8s.io/apiservices');
});
