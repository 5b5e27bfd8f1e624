// Fault injection, the controllable clock and the recording, through both doors (the library handle and HTTP
// under /capstan/v1/), observed with kubectl (kube's messages), raw watches and a client-node informer; plus who
// may use the HTTP door and the 4xx answers to bad input.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestServer, type TestServer } from './helpers.ts';
import { call, cmPath, createCm, namespace, openWatch, until, type Json } from './stream.ts';

async function door(s: TestServer, method: string, path: string, body?: unknown, raw?: string): Promise<{ status: number; body: Json }> {
  const r = await s.adminRequest(`/capstan/v1${path}`, { method, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)), headers: { 'content-type': 'application/json' } });
  return { status: r.status, body: JSON.parse(r.body) as Json };
}

function status(code: number, reason: string, message: string, details?: Json): Json {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

describe('fault injection', () => {
  let s: TestServer;
  let ns: string;
  before(async () => {
    s = await startTestServer();
    ns = await namespace(s, 'faulty');
    await createCm(s, ns, 'a');
  });
  afterEach(() => s.faults.clear());
  after(async () => {
    await s?.close();
  });

  test('HTTP: a 503 on get, seen by kubectl with kube\'s message; the fault log and the recording name it', async () => {
    const added = await door(s, 'POST', '/faults', { verb: 'get', resource: 'configmaps', namespace: ns, name: 'a', action: { type: 'error', code: 503 } });
    assert.equal(added.status, 201);
    assert.match(added.body.id, /^fault-\d+$/);
    assert.equal(added.body.fired, 0);
    const r = await s.kubectl(['get', 'cm', 'a', '-n', ns]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), 'Error from server (ServiceUnavailable): the server is currently unable to handle the request');
    // Other names, verbs and namespaces are untouched.
    assert.equal((await s.kubectl(['get', 'cm', '-n', ns])).code, 0);
    assert.equal((await s.kubectl(['get', 'ns', ns])).code, 0);
    const log = await door(s, 'GET', '/faults/log');
    const mine = (log.body.items as Json[]).filter((e) => e.faultId === added.body.id);
    assert.ok(mine.length >= 1);
    assert.deepEqual({ ...mine[0], time: undefined }, { time: undefined, faultId: added.body.id, action: 'error', code: 503, verb: 'get', resource: 'configmaps', namespace: ns, name: 'a', user: 'capstan-admin', path: `/api/v1/namespaces/${ns}/configmaps/a` });
    const recorded = s.requests({ verb: 'get', resource: 'configmaps', name: 'a', code: 503 });
    assert.ok(recorded.length >= 1);
    assert.equal(recorded[0].fault, added.body.id);
    assert.deepEqual(await door(s, 'DELETE', `/faults/${added.body.id}`), { status: 200, body: { deleted: added.body.id } });
    assert.equal((await s.kubectl(['get', 'cm', 'a', '-n', ns])).code, 0);
  });

  test('library: every status code with kube\'s Status body; 429 and 503 carry Retry-After; count limits the firings', async () => {
    const path = cmPath(ns, 'a');
    const cases: Array<[number, Json, Record<string, string>?]> = [
      [409, status(409, 'Conflict', 'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again', { name: 'a', kind: 'configmaps' })],
      [410, status(410, 'Expired', 'The resourceVersion for the provided watch is too old.')],
      [429, status(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 1 }), { 'retry-after': '1' }],
      [500, status(500, 'InternalError', 'Internal error occurred: injected fault', { causes: [{ message: 'injected fault' }] })],
      [503, status(503, 'ServiceUnavailable', 'the server is currently unable to handle the request')],
      [504, status(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {})],
    ];
    for (const [code, body, headers] of cases) {
      const h = s.faults.add({ verb: 'get', resource: 'configmaps', name: 'a', count: 1, action: { type: 'error', code: code as 409 } });
      const r = await s.adminRequest(path);
      assert.equal(r.status, code);
      assert.deepEqual(JSON.parse(r.body), body, `code ${code}`);
      for (const [k, v] of Object.entries(headers ?? {})) assert.equal(r.headers[k], v);
      assert.equal(h.fired(), 1);
      // count: 1 is used up, the next request goes through.
      assert.equal((await s.adminRequest(path)).status, 200);
      h.remove();
    }
    const retry = s.faults.add({ verb: 'get', resource: 'configmaps', name: 'a', action: { type: 'error', code: 503, retryAfterSeconds: 7, message: 'maintenance' } });
    const r = await s.adminRequest(path);
    assert.equal(r.headers['retry-after'], '7');
    assert.deepEqual(JSON.parse(r.body), status(503, 'ServiceUnavailable', 'maintenance', { retryAfterSeconds: 7 }));
    retry.remove();
  });

  test('a 409 on update and a 410 on list, as kubectl reports them; user scoping', async () => {
    s.faults.add({ verb: 'patch', resource: 'configmaps', action: { type: 'error', code: 409 } });
    const r = await s.kubectl(['label', 'cm', 'a', '-n', ns, 'x=y']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), 'Error from server (Conflict): Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again');
    s.faults.clear();
    s.faults.add({ verb: 'list', resource: 'configmaps', action: { type: 'error', code: 410 } });
    const l = await s.kubectl(['get', 'cm', '-n', ns]);
    assert.equal(l.stderr.trim(), 'Error from server (Expired): The resourceVersion for the provided list is too old.');
    s.faults.clear();
    s.faults.add({ user: 'someone-else', action: { type: 'error', code: 500 } });
    assert.equal((await s.kubectl(['get', 'cm', '-n', ns])).code, 0);
  });

  test('a list answered with 410 on its continue token (kubectl --chunk-size)', async () => {
    await createCm(s, ns, 'b');
    await createCm(s, ns, 'c');
    await door(s, 'POST', '/faults', { verb: 'list', resource: 'configmaps', action: { type: 'expire-continue' } });
    // The first page (no token) is served.
    const first = await s.adminRequest(`${cmPath(ns)}?limit=1`);
    assert.equal(first.status, 200);
    const token = JSON.parse(first.body).metadata.continue as string;
    assert.ok(token);
    const second = await s.adminRequest(`${cmPath(ns)}?limit=1&continue=${encodeURIComponent(token)}`);
    assert.deepEqual(
      JSON.parse(second.body),
      status(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.'),
    );
    const r = await s.kubectl(['get', 'cm', '-n', ns, '--chunk-size=1']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Error from server \(Expired\): The provided continue parameter is too old to display a consistent list result\. You can start a new list without the continue parameter\./);
  });

  test('a dropped response: the client sees a timeout, the object exists', async () => {
    const h = s.faults.add({ verb: 'create', resource: 'configmaps', namespace: ns, count: 1, action: { type: 'drop-response' } });
    const r = await s.kubectl(['create', 'configmap', 'ambiguous', '-n', ns]);
    assert.equal(r.code, 1);
    // kubectl create's wording of a 504 Timeout Status.
    assert.equal(r.stderr.trim(), 'error: failed to create configmap: Timeout: request did not complete within requested timeout - context deadline exceeded');
    assert.equal(h.fired(), 1);
    const exists = await call(s, 'GET', cmPath(ns, 'ambiguous'));
    assert.equal(exists.metadata.name, 'ambiguous');
    const again = await s.kubectl(['create', 'configmap', 'ambiguous', '-n', ns]);
    assert.equal(again.stderr.trim(), 'error: failed to create configmap: configmaps "ambiguous" already exists');
  });

  test('closing watches: an ERROR event, a clean end, a cut stream; an informer relists after the ERROR', async () => {
    s.faults.add({ verb: 'watch', resource: 'configmaps', namespace: ns, count: 1, action: { type: 'close-watch', how: 'error' } });
    const w = await openWatch(s, `${cmPath(ns)}?watch=true&resourceVersion=0`);
    await w.ended;
    const last = w.events[w.events.length - 1];
    assert.equal(last.type, 'ERROR');
    assert.deepEqual(last.object, status(410, 'Expired', 'The resourceVersion for the provided watch is too old.'));
    s.faults.add({ verb: 'watch', resource: 'configmaps', namespace: ns, count: 1, action: { type: 'close-watch', how: 'end', after: '50ms' } });
    const ended = await openWatch(s, `${cmPath(ns)}?watch=true&resourceVersion=0`);
    await ended.ended;
    assert.ok(ended.events.every((e) => e.type === 'ADDED'));
    s.faults.add({ verb: 'watch', resource: 'configmaps', namespace: ns, count: 1, action: { type: 'close-watch', how: 'cut' } });
    const cut = await openWatch(s, `${cmPath(ns)}?watch=true&resourceVersion=0`);
    await cut.ended;

    // An informer whose watch ends with that ERROR lists again.
    const h = s.faults.add({ verb: 'watch', resource: 'configmaps', namespace: ns, count: 1, action: { type: 'close-watch', how: 'error' } });
    const kc = new k8s.KubeConfig();
    kc.loadFromString(s.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    let lists = 0;
    const informer = k8s.makeInformer(kc, cmPath(ns), () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: ns });
    });
    await informer.start();
    try {
      await until(() => h.fired() === 1 && lists === 2, 8000, 'the informer to relist after the ERROR event');
      await createCm(s, ns, 'poke');
      await until(() => informer.list(ns).some((o) => o.metadata?.name === 'poke'), 5000, 'the informer to see poke');
    } finally {
      informer.stop();
    }
  });

  test('latency and bad rules: 4xx, nothing added', async () => {
    const h = s.faults.add({ verb: 'get', resource: 'configmaps', name: 'a', count: 1, action: { type: 'latency', delay: '20ms' } });
    assert.equal((await s.adminRequest(cmPath(ns, 'a'))).status, 200);
    assert.equal(h.fired(), 1);
    const before = await door(s, 'GET', '/faults');
    const bad: Array<[unknown, string]> = [
      [{ verb: 'fly', action: { type: 'error', code: 503 } }, 'fault rule: unknown verb "fly" (known: get, list, watch, create, update, patch, delete, deletecollection)'],
      [{ action: { type: 'error', code: 418 } }, 'fault rule: action.code must be one of 409, 410, 429, 500, 503, 504'],
      [{ verb: 'create', action: { type: 'close-watch', how: 'error' } }, 'fault rule: a close-watch fault applies to watch requests only'],
      [{ verb: 'get', action: { type: 'expire-continue' } }, 'fault rule: a expire-continue fault applies to list requests only'],
      [{ verb: 'get', action: { type: 'drop-response' } }, 'fault rule: a drop-response fault applies to create or update or patch or delete or deletecollection requests only'],
      [{ action: { type: 'latency', delay: 'soon' } }, 'fault rule: action.delay: time: invalid duration "soon"'],
      [{ action: { type: 'explode' } }, 'fault rule: unknown action type "explode" (known: error, latency, close-watch, drop-response, expire-continue)'],
      [{ probability: 2, action: { type: 'error', code: 500 } }, 'fault rule: probability must be a number with 0 < probability <= 1'],
      [{ count: 0, action: { type: 'error', code: 500 } }, 'fault rule: count must be an integer > 0'],
      [{ resources: 'pods', action: { type: 'error', code: 500 } }, 'fault rule: unknown field "resources" (known: verb, group, resource, namespace, name, user, count, probability, action)'],
      [{ verb: 'get' }, 'fault rule: action is required, an object whose type is one of error, latency, close-watch, drop-response, expire-continue'],
      [[1], 'the request body must be a JSON object'],
    ];
    for (const [rule, message] of bad) assert.deepEqual(await door(s, 'POST', '/faults', rule), { status: 400, body: status(400, 'BadRequest', message) });
    assert.deepEqual(await door(s, 'POST', '/faults', undefined, '{"verb":'), { status: 400, body: status(400, 'BadRequest', 'the request body is not valid JSON: Unexpected end of JSON input') });
    assert.throws(() => s.faults.add({ verb: 'fly' as 'get', action: { type: 'error', code: 503 } }), /unknown verb "fly"/);
    assert.equal((await door(s, 'DELETE', '/faults/fault-999')).status, 404);
    assert.deepEqual(await door(s, 'GET', '/faults'), before);
    assert.deepEqual(await door(s, 'DELETE', '/faults'), { status: 200, body: { cleared: true } });
    assert.deepEqual((await door(s, 'GET', '/faults')).body, { items: [] });
  });
});

describe('the clock', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    s.clock.reset();
    await s?.close();
  });

  test('frozen, advanced and set: creationTimestamps, managedFields, deletionTimestamps and ages follow it', async () => {
    const frozen = await door(s, 'POST', '/clock/freeze', { at: '2030-01-01T00:00:00Z' });
    assert.equal(frozen.status, 200);
    assert.deepEqual({ now: frozen.body.now, frozen: frozen.body.frozen }, { now: '2030-01-01T00:00:00.000Z', frozen: true });
    await s.kubectlOk(['create', 'configmap', 'first', '--from-literal=k=v']);
    const first = JSON.parse(await s.kubectlOk(['get', 'cm', 'first', '-o', 'json', '--show-managed-fields']));
    assert.equal(first.metadata.creationTimestamp, '2030-01-01T00:00:00Z');
    assert.equal(first.metadata.managedFields[0].time, '2030-01-01T00:00:00Z');
    s.clock.advance('10m');
    await s.kubectlOk(['create', 'configmap', 'second']);
    assert.equal((await s.kubectlOk(['get', 'cm', 'second', '-o', 'jsonpath={.metadata.creationTimestamp}'])).trim(), '2030-01-01T00:10:00Z');
    // kubectl's AGE column comes from the server's Table, computed on the same clock.
    const table = await s.kubectlOk(['get', 'cm', 'first', 'second', '--no-headers']);
    assert.deepEqual(table.trim().split('\n').map((l) => l.split(/\s+/)), [['first', '1', '10m'], ['second', '0', '0s']]);
    const advanced = await door(s, 'POST', '/clock/advance', { by: '1h30m' });
    assert.equal(advanced.body.now, '2030-01-01T01:40:00.000Z');
    await call(s, 'POST', cmPath('default'), { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    await s.kubectlOk(['delete', 'cm', 'held', '--wait=false']);
    assert.equal((await s.kubectlOk(['get', 'cm', 'held', '-o', 'jsonpath={.metadata.deletionTimestamp}'])).trim(), '2030-01-01T01:40:00Z');
    await call(s, 'PATCH', cmPath('default', 'held'), { metadata: { finalizers: null } }, 'application/merge-patch+json');
    // A pod's grace period runs on the clock: moving it past the period finishes the deletion (a scheduled pod:
    // unscheduled ones go at once, as in kube).
    await call(s, 'POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'graceful' }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] } });
    await s.kubectlOk(['delete', 'pod', 'graceful', '--grace-period=600', '--wait=false']);
    const marked = JSON.parse(await s.kubectlOk(['get', 'pod', 'graceful', '-o', 'json']));
    assert.equal(marked.metadata.deletionTimestamp, '2030-01-01T01:50:00Z');
    s.clock.advance('601s');
    let gone = 0;
    for (let i = 0; i < 100 && gone !== 404; i++) {
      gone = (await s.adminRequest('/api/v1/namespaces/default/pods/graceful')).status;
      if (gone !== 404) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(gone, 404, 'the pod is deleted once the clock passed its grace period');
    // Service-account tokens expire on the clock too.
    await call(s, 'POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'robot' } });
    const tr = await call(s, 'POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } });
    assert.equal(tr.status.expirationTimestamp, '2030-01-01T02:50:01Z');
    const who = await s.request('/apis/authentication.k8s.io/v1/selfsubjectreviews', { method: 'POST', token: tr.status.token, body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }), headers: { 'content-type': 'application/json' } });
    assert.equal(JSON.parse(who.body).status.userInfo.username, 'system:serviceaccount:default:robot');
    s.clock.advance('2h');
    const expired = await s.request('/api/v1/namespaces', { token: tr.status.token });
    assert.equal(expired.status, 401);
    s.clock.set('2031-06-01T12:00:00Z');
    await s.kubectlOk(['create', 'configmap', 'third']);
    assert.equal((await s.kubectlOk(['get', 'cm', 'third', '-o', 'jsonpath={.metadata.creationTimestamp}'])).trim(), '2031-06-01T12:00:00Z');
    // Resumed: the clock runs again from where it stood (a year ahead of real time).
    const resumed = await door(s, 'POST', '/clock/resume');
    assert.equal(resumed.body.frozen, false);
    assert.ok(Date.parse(resumed.body.now) >= Date.parse('2031-06-01T12:00:00Z'));
    const reset = await door(s, 'POST', '/clock/reset');
    assert.deepEqual({ frozen: reset.body.frozen, offsetMs: reset.body.offsetMs }, { frozen: false, offsetMs: 0 });
    // Bad input.
    assert.deepEqual(await door(s, 'POST', '/clock/advance', { by: '-5m' }), { status: 400, body: status(400, 'BadRequest', 'clock advance: time: invalid duration "-5m"') });
    assert.equal((await door(s, 'POST', '/clock/advance', {})).status, 400);
    assert.equal((await door(s, 'POST', '/clock/set', { to: 'yesterday' })).status, 400);
    assert.equal((await door(s, 'POST', '/clock/rewind', {})).status, 404);
    assert.equal((await door(s, 'POST', '/clock/freeze', { when: 1 })).status, 400);
    assert.equal((await door(s, 'GET', '/clock')).body.frozen, false);
  });
});

describe('the clock and the history window', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    s.clock.reset();
    await s?.close();
  });

  test('advancing past --history-window expires continue tokens and old resourceVersions at once', async () => {
    await createCm(s, 'default', 'p1');
    await createCm(s, 'default', 'p2');
    const page = await call(s, 'GET', `${cmPath('default')}?limit=1`);
    const token = page.metadata.continue as string;
    const rv = page.metadata.resourceVersion as string;
    await createCm(s, 'default', 'p3');
    s.clock.advance('10m');
    // The compactor looks again as soon as the clock moves; its run is asynchronous, so poll briefly.
    let next = await s.adminRequest(`${cmPath('default')}?limit=1&continue=${encodeURIComponent(token)}`);
    for (let i = 0; i < 50 && next.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      next = await s.adminRequest(`${cmPath('default')}?limit=1&continue=${encodeURIComponent(token)}`);
    }
    assert.equal(next.status, 410);
    const body = JSON.parse(next.body);
    assert.equal(body.reason, 'Expired');
    assert.equal(body.message, 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue value from the response body.');
    const old = await s.adminRequest(`${cmPath('default')}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.equal(old.status, 410);
    assert.equal(JSON.parse(old.body).message, 'The resourceVersion for the provided list is too old.');
  });
});

describe('recording', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  test('requests are queryable from both doors and export as audit.k8s.io/v1 events; bodies on request', async () => {
    const mark = s.controls!.requests().at(-1)?.seq ?? 0;
    await s.kubectlOk(['create', 'configmap', 'rec', '--from-literal=k=v']);
    await s.kubectlOk(['get', 'cm', 'rec']);
    const creates = s.requests({ verb: 'create', resource: 'configmaps', after: mark });
    assert.equal(creates.length, 1);
    const c = creates[0];
    assert.deepEqual(
      { user: c.user, groups: c.groups, verb: c.verb, group: c.group, version: c.version, resource: c.resource, namespace: c.namespace, code: c.code, path: c.path, cluster: c.cluster },
      { user: 'capstan-admin', groups: ['system:masters', 'system:authenticated'], verb: 'create', group: '', version: 'v1', resource: 'configmaps', namespace: 'default', code: 201, path: '/api/v1/namespaces/default/configmaps', cluster: '' },
    );
    assert.match(c.userAgent, /^kubectl\//);
    assert.ok(c.durationMs >= 0);
    assert.equal(c.requestBody, undefined);
    const viaHttp = await door(s, 'GET', `/requests?verb=get&resource=configmaps&name=rec&after=${mark}`);
    assert.equal(viaHttp.body.items.length, 1);
    assert.equal(viaHttp.body.items[0].code, 200);
    const audit = await door(s, 'GET', `/requests/audit?verb=create&resource=configmaps&after=${mark}`);
    assert.equal(audit.body.kind, 'EventList');
    assert.equal(audit.body.apiVersion, 'audit.k8s.io/v1');
    const ev = audit.body.items[0];
    assert.deepEqual(
      { level: ev.level, auditID: ev.auditID, stage: ev.stage, verb: ev.verb, user: ev.user, objectRef: ev.objectRef, responseStatus: ev.responseStatus, requestURI: ev.requestURI },
      {
        level: 'Metadata',
        auditID: c.auditId,
        stage: 'ResponseComplete',
        verb: 'create',
        user: { username: 'capstan-admin', groups: ['system:masters', 'system:authenticated'] },
        objectRef: { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' },
        responseStatus: { metadata: {}, code: 201 },
        requestURI: `${c.path}?${c.query}`,
      },
    );
    assert.match(ev.requestReceivedTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    // Bodies, opt-in.
    assert.deepEqual(await door(s, 'PUT', '/recording', { bodies: true }), { status: 200, body: { enabled: true, bodies: true } });
    await s.kubectlOk(['create', 'configmap', 'with-body', '--from-literal=k=v']);
    const withBody = s.requests({ verb: 'create', resource: 'configmaps' }).at(-1)!;
    assert.equal((withBody.requestBody as Json).metadata.name, 'with-body');
    assert.equal((withBody.responseBody as Json).kind, 'ConfigMap');
    const full = s.recording.auditEvents({ verb: 'create', resource: 'configmaps', after: withBody.seq - 1 });
    assert.equal(full.items[0].level, 'RequestResponse');
    assert.equal((full.items[0].requestObject as Json).data.k, 'v');
    s.recording.configure({ bodies: false });
    // The controls' own calls are not recorded; clearing empties the record.
    assert.equal(s.requests({ resource: '' }).filter((r) => r.path.startsWith('/capstan/')).length, 0);
    assert.equal((await door(s, 'GET', '/requests?verbs=get')).status, 400);
    assert.equal((await door(s, 'GET', '/requests?code=abc')).status, 400);
    assert.equal((await door(s, 'PUT', '/recording', { bodies: 'yes' })).status, 400);
    assert.deepEqual(await door(s, 'DELETE', '/requests'), { status: 200, body: { cleared: true } });
    assert.deepEqual(s.requests(), []);
  });
});

describe('the HTTP door', () => {
  let s: TestServer;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-door-'));
    const tokens = join(dir, 'tokens.csv');
    await writeFile(tokens, 'alice-token,alice,1001,"developers"\n');
    s = await startTestServer({ tokenAuthFile: tokens });
  });
  after(async () => {
    await s?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('only system:masters; unknown controls and wrong methods get 4xx Status answers', async () => {
    const denied = await s.request('/capstan/v1/snapshots', { method: 'POST', token: 'alice-token', body: '{}' });
    assert.equal(denied.status, 403);
    assert.deepEqual(JSON.parse(denied.body), status(403, 'Forbidden', 'forbidden: User "alice" cannot post path "/capstan/v1/snapshots": the test controls are for members of system:masters only', {}));
    assert.deepEqual(s.controls!.snapshots().length, 0);
    const index = await door(s, 'GET', '');
    assert.deepEqual(index.body.controls, ['snapshots', 'reset', 'forks', 'faults', 'clock', 'kubelets', 'usage', 'containers', 'requests', 'recording', 'clusters']);
    assert.deepEqual(await door(s, 'POST', '/teleport', {}), {
      status: 404,
      body: status(404, 'NotFound', 'unknown test control "teleport" (known: snapshots, reset, forks, faults, clock, kubelets, usage, containers, requests, recording, clusters)'),
    });
    // This server simulates no workloads: there are no kubelets to stop.
    const noKubelets = 'no simulated kubelets run on this server (start it with --simulate-workloads; with several instances, they run on the one that leads)';
    assert.deepEqual(await door(s, 'GET', '/kubelets'), { status: 404, body: status(404, 'NotFound', noKubelets) });
    assert.deepEqual(await door(s, 'POST', '/kubelets/n1/stop', {}), { status: 404, body: status(404, 'NotFound', noKubelets) });
    assert.deepEqual(await door(s, 'POST', '/kubelets/n1/reboot', {}), { status: 404, body: status(404, 'NotFound', 'unknown kubelet control "reboot" (known: stop, start)') });
    assert.deepEqual(await door(s, 'GET', '/kubelets/n1/stop'), { status: 405, body: status(405, 'MethodNotAllowed', 'GET is not supported on /capstan/v1/kubelets/n1/stop') });
    assert.deepEqual(await door(s, 'GET', '/reset'), { status: 405, body: status(405, 'MethodNotAllowed', 'GET is not supported on /capstan/v1/reset') });
    assert.equal((await door(s, 'POST', '/reset', { hard: true })).status, 400);
    assert.equal((await door(s, 'GET', '/faults/a/b/c')).status, 404);
  });

  test('off unless asked for: a server without test controls answers 404 and the handle refuses', async () => {
    const off = await startTestServer({ enableTestControls: false });
    try {
      const r = await off.adminRequest('/capstan/v1/snapshots', { method: 'POST', body: '{}' });
      // As any path the server does not serve.
      assert.deepEqual([r.status, r.body], [404, '404 page not found\n']);
      assert.equal(off.controls, undefined);
      await assert.rejects(off.snapshot(), /the test controls are off/);
      assert.equal((await off.adminRequest('/clusters/x/api/v1/namespaces')).status, 404);
    } finally {
      await off.close();
    }
  });
});
