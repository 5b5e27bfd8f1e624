import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRequestInfo } from '../endpoints/request-info.ts';
import { createRecorder, microTime, queryFromParams, recordOf } from './recorder.ts';

function finished(method: string, path: string, code: number, extra: Partial<Parameters<typeof recordOf>[0]> = {}) {
  return recordOf({
    auditId: `id-${path}`,
    cluster: '',
    receivedMs: Date.parse('2030-01-01T00:00:00Z') + 0.25,
    durationMs: 1.5,
    info: parseRequestInfo(method, path, new URLSearchParams()),
    method,
    path,
    query: '',
    user: { name: 'u', groups: ['g'] },
    code,
    userAgent: 'ua',
    sourceIP: '127.0.0.1',
    ...extra,
  });
}

test('records are queried by their fields and exported as audit events', () => {
  const r = createRecorder();
  r.add(finished('POST', '/apis/apps/v1/namespaces/ns/deployments', 201, { requestBody: Buffer.from('{"metadata":{"name":"d"}}') }));
  r.add(finished('PUT', '/apis/apps/v1/namespaces/ns/deployments/d/status', 200));
  r.add(finished('GET', '/api/v1/namespaces/ns/pods/p', 404));
  assert.deepEqual(r.query({ verb: 'update', resource: 'deployments/status' }).map((x) => x.name), ['d']);
  assert.deepEqual(r.query({ group: 'apps' }).map((x) => x.seq), [1, 2]);
  assert.deepEqual(r.query({ code: 404 }).map((x) => x.resource), ['pods']);
  assert.deepEqual(r.query({ after: 2 }).map((x) => x.seq), [3]);
  const audit = r.auditEvents({ verb: 'create' });
  assert.deepEqual(audit.items[0], {
    level: 'RequestResponse',
    auditID: 'id-/apis/apps/v1/namespaces/ns/deployments',
    stage: 'ResponseComplete',
    requestURI: '/apis/apps/v1/namespaces/ns/deployments',
    verb: 'create',
    user: { username: 'u', groups: ['g'] },
    sourceIPs: ['127.0.0.1'],
    userAgent: 'ua',
    objectRef: { resource: 'deployments', namespace: 'ns', apiGroup: 'apps', apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 201 },
    requestObject: { metadata: { name: 'd' } },
    requestReceivedTimestamp: '2030-01-01T00:00:00.000250Z',
    stageTimestamp: '2030-01-01T00:00:00.001750Z',
  });
  r.configure({ enabled: false });
  r.add(finished('GET', '/api/v1/namespaces', 200));
  assert.equal(r.query().length, 3);
  r.clear();
  assert.deepEqual(r.query(), []);
  assert.equal(r.last(), 3);
});

test('query parameters from the HTTP door are checked', () => {
  assert.deepEqual(queryFromParams(new URLSearchParams('verb=get&code=200&after=5')), { verb: 'get', code: 200, after: 5 });
  assert.throws(() => queryFromParams(new URLSearchParams('kind=Pod')), /unknown request query parameter "kind"/);
  assert.throws(() => queryFromParams(new URLSearchParams('code=2x')), /code must be a non-negative integer/);
  assert.equal(microTime(Date.parse('2030-01-01T00:00:00Z') + 1.25), '2030-01-01T00:00:00.001250Z');
  assert.equal(microTime(Date.parse('2030-01-01T00:00:00Z') + 1.9999), '2030-01-01T00:00:00.002000Z');
});
