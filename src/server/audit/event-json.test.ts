import assert from 'node:assert/strict';
import { test } from 'node:test';
import { auditEventJson, auditEventListJson } from './event-json.ts';
import type { AuditEvent } from './types.ts';

const base: AuditEvent = {
  kind: 'Event',
  apiVersion: 'audit.k8s.io/v1',
  level: 'Metadata',
  auditID: '8a988077-8ef7-4437-9f22-a5bfcc273e2c',
  stage: 'ResponseComplete',
  requestURI: '/api/v1/namespaces/default/pods?watch=true&resourceVersion=12',
  verb: 'watch',
  user: { username: 'alice', groups: ['dev', 'system:authenticated'] },
  sourceIPs: ['127.0.0.1'],
  userAgent: 'kubectl/v1.31.0 (linux/amd64) kubernetes/abc',
  objectRef: { resource: 'pods', namespace: 'default', apiVersion: 'v1' },
  responseStatus: { metadata: {}, code: 200 },
  requestReceivedTimestamp: '2026-12-03T12:15:14.167783Z',
  stageTimestamp: '2026-12-03T12:15:14.201415Z',
  annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' },
};

test('an event is written as Go encodes it: & < > escaped, fields in the Go types order, map keys sorted', () => {
  const event: AuditEvent = {
    ...base,
    verb: 'create',
    requestURI: '/api/v1/namespaces/default/configmaps?fieldManager=<me>',
    // made as the auditor makes a create's reference: the name added last
    objectRef: { ...{ resource: 'configmaps', namespace: 'default', apiVersion: 'v1' }, name: 'a&b' },
    responseStatus: { metadata: {}, code: 409, status: 'Failure', message: 'configmaps "a&b" already exists', reason: 'AlreadyExists', details: { name: 'a&b', kind: 'configmaps' } },
    user: { username: 'bob', uid: 'u1', groups: ['g'], extra: { 'z.example.com/b': ['2'], 'a.example.com/a': ['1', '<x>'] } },
    annotations: { 'pod-security.kubernetes.io/enforce-policy': 'privileged:latest', 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "x"' },
  };
  assert.equal(
    auditEventJson(event),
    '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"8a988077-8ef7-4437-9f22-a5bfcc273e2c","stage":"ResponseComplete",' +
      '"requestURI":"/api/v1/namespaces/default/configmaps?fieldManager=\\u003cme\\u003e","verb":"create",' +
      '"user":{"username":"bob","uid":"u1","groups":["g"],"extra":{"a.example.com/a":["1","\\u003cx\\u003e"],"z.example.com/b":["2"]}},' +
      '"sourceIPs":["127.0.0.1"],"userAgent":"kubectl/v1.31.0 (linux/amd64) kubernetes/abc",' +
      '"objectRef":{"resource":"configmaps","namespace":"default","name":"a\\u0026b","apiVersion":"v1"},' +
      '"responseStatus":{"metadata":{},"status":"Failure","message":"configmaps \\"a\\u0026b\\" already exists","reason":"AlreadyExists","details":{"name":"a\\u0026b","kind":"configmaps"},"code":409},' +
      '"requestReceivedTimestamp":"2026-12-03T12:15:14.167783Z","stageTimestamp":"2026-12-03T12:15:14.201415Z",' +
      '"annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":"RBAC: allowed by ClusterRoleBinding \\"x\\"","pod-security.kubernetes.io/enforce-policy":"privileged:latest"}}',
  );
});

test('omitempty fields are left out; bodies and control characters are escaped as JSON and Go both do', () => {
  const event: AuditEvent = {
    ...base,
    level: 'RequestResponse',
    impersonatedUser: { username: 'system:serviceaccount:ns:sa', groups: [] },
    sourceIPs: [],
    userAgent: '',
    annotations: {},
    requestObject: { metadata: { name: 'x' }, data: { k: 'line\nnext\ttab\u0001 & \u2028' } },
    responseObject: undefined,
  };
  const json = auditEventJson(event);
  assert.match(json, /"user":\{"username":"alice","groups":\["dev","system:authenticated"\]\},"impersonatedUser":\{"username":"system:serviceaccount:ns:sa"\},"objectRef"/);
  assert.ok(json.includes('"requestObject":{"metadata":{"name":"x"},"data":{"k":"line\\nnext\\ttab\\u0001 \\u0026 \\u2028"}},"requestReceivedTimestamp"'), json);
  assert.ok(!json.includes('"annotations"') && !json.includes('"sourceIPs"') && !json.includes('"userAgent"') && !json.includes('"responseObject"'));
  assert.deepEqual(JSON.parse(json).requestObject, event.requestObject);
});

test('the webhook EventList holds the events as the log writes them', () => {
  const list = auditEventListJson([base, { ...base, stage: 'Panic' }]);
  assert.equal(list, `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[${auditEventJson(base)},${auditEventJson({ ...base, stage: 'Panic' })}]}`);
  assert.equal(JSON.parse(list).items[0].requestURI, base.requestURI);
  assert.ok(auditEventJson(base).includes('"requestURI":"/api/v1/namespaces/default/pods?watch=true\\u0026resourceVersion=12"'));
});
