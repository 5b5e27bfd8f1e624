import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ruleMatches } from './rules.ts';
import { buildReview, deniedError, reviewVersion, verifyResponse } from './review.ts';
import type { AdmissionAttributes } from '../types.ts';
import type { KubeObject } from '../../registry/types.ts';

const attrs = (resource: string, subResource = '', namespace = 'default', operation: AdmissionAttributes['operation'] = 'CREATE') =>
  ({ operation, namespace, resource: { group: '', version: 'v1', resource }, subResource }) as AdmissionAttributes;

test('rules: resources with subresources, wildcards, operations and scope', () => {
  const rule = (resources: string[], extra: object = {}) => ({ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources, ...extra });
  assert.equal(ruleMatches(rule(['pods']), attrs('pods')), true);
  assert.equal(ruleMatches(rule(['pods']), attrs('pods', 'status')), false);
  assert.equal(ruleMatches(rule(['pods/*']), attrs('pods', 'status')), true);
  // kube's splitResource: the "*" of pods/* also matches the main resource (subresource "").
  assert.equal(ruleMatches(rule(['pods/*']), attrs('pods')), true);
  assert.equal(ruleMatches(rule(['*']), attrs('configmaps')), true);
  assert.equal(ruleMatches(rule(['*']), attrs('pods', 'exec')), false);
  assert.equal(ruleMatches(rule(['*/status']), attrs('pods', 'status')), true);
  assert.equal(ruleMatches(rule(['*/*']), attrs('deployments', 'scale')), true);
  assert.equal(ruleMatches(rule(['pods']), attrs('pods', '', 'default', 'UPDATE')), false);
  assert.equal(ruleMatches(rule(['pods'], { operations: ['*'] }), attrs('pods', '', 'default', 'DELETE')), true);
  assert.equal(ruleMatches(rule(['pods'], { scope: 'Cluster' }), attrs('pods')), false);
  assert.equal(ruleMatches(rule(['namespaces'], { scope: 'Cluster' }), attrs('namespaces', '', 'ns1')), true);
  assert.equal(ruleMatches(rule(['namespaces'], { scope: 'Namespaced' }), attrs('namespaces', '', 'ns1')), false);
  assert.equal(ruleMatches(rule(['nodes'], { scope: 'Namespaced' }), attrs('nodes', '', '')), false);
});

test('reviews: the version sent, the response checks with kube messages, refusals', () => {
  assert.equal(reviewVersion(['v2', 'v1beta1', 'v1']), 'v1beta1');
  assert.equal(reviewVersion(['v2']), undefined);
  const a = {
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subResource: '',
    name: 'p',
    namespace: 'ns',
    operation: 'CREATE',
    userInfo: { name: 'alice', groups: ['devs'] },
    object: { metadata: { name: 'p' } },
    oldObject: undefined,
    dryRun: false,
    options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    warnings: [],
    auditAnnotations: {},
  } as AdmissionAttributes;
  const inv = { resource: a.resource, kind: a.kind, convert: (o: KubeObject) => o, convertBack: (o: KubeObject) => o };
  const review = buildReview('v1beta1', 'u1', a, inv, a.object, undefined) as { apiVersion: string; request: Record<string, unknown> };
  assert.equal(review.apiVersion, 'admission.k8s.io/v1beta1');
  assert.deepEqual(review.request.userInfo, { username: 'alice', groups: ['devs'] });
  assert.equal(review.request.oldObject, null);
  const ok = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u1', allowed: true } };
  assert.equal(verifyResponse(ok, 'v1', 'u1', false).allowed, true);
  assert.throws(() => verifyResponse({ ...ok, response: { uid: 'x', allowed: true } }, 'v1', 'u1', false), { message: 'received invalid webhook response: expected response.uid="u1", got "x"' });
  assert.throws(() => verifyResponse({ ...ok, response: undefined }, 'v1', 'u1', false), { message: 'received invalid webhook response: webhook response was absent' });
  assert.throws(() => verifyResponse({ ...ok, kind: 'Other' }, 'v1', 'u1', false), { message: 'received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1, Kind=Other' });
  assert.throws(() => verifyResponse({ ...ok, response: { uid: 'u1', allowed: true, patch: 'W10=' } }, 'v1', 'u1', true), { message: 'received invalid webhook response: webhook returned response.patch but not response.patchType' });
  assert.throws(() => verifyResponse({ ...ok, response: { uid: 'u1', allowed: true, patch: 'W10=', patchType: 'JSONPatch' } }, 'v1', 'u1', false), { message: 'received invalid webhook response: validating webhooks may not return patches' });
  const denied = deniedError('x.example.com', { code: 200, message: 'no' });
  assert.deepEqual([denied.code, denied.message], [400, 'admission webhook "x.example.com" denied the request: no']);
  assert.equal(deniedError('x.example.com', undefined).message, 'admission webhook "x.example.com" denied the request without explanation');
  assert.equal(deniedError('x.example.com', { reason: 'Because' }).message, 'admission webhook "x.example.com" denied the request: Because');
});
