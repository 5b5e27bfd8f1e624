import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { UserInfo } from '../auth/user.ts';
import { parseRequestInfo } from '../endpoints/request-info.ts';
import { parseDuration } from './duration.ts';
import { createFaults, type FaultLogEntry } from './faults.ts';

const admin: UserInfo = { name: 'admin', groups: ['system:masters'] };
const alice: UserInfo = { name: 'alice', groups: [] };

function req(method: string, path: string, user = admin, query = '') {
  return { info: parseRequestInfo(method, path, new URLSearchParams(query)), user, hasContinue: new URLSearchParams(query).has('continue') };
}

test('rules match by verb, resource/subresource, namespace, name and user; latency adds up, the first terminal rule wins', () => {
  const logged: FaultLogEntry[] = [];
  const faults = createFaults((e) => logged.push(e));
  faults.add({ verb: ['update', 'patch'], resource: 'pods/status', namespace: 'ns', action: { type: 'error', code: 409 } });
  faults.add({ user: 'alice', action: { type: 'error', code: 503 } });
  faults.add({ resource: 'pods', action: { type: 'latency', delay: '5ms' } });
  faults.add({ resource: 'pods', action: { type: 'latency', delay: 10 } });
  // The main resource is not its status subresource: only the latency rules apply.
  assert.deepEqual(faults.plan(req('PUT', '/api/v1/namespaces/ns/pods/p')), { delayMs: 15, terminal: undefined });
  const status = faults.plan(req('PATCH', '/api/v1/namespaces/ns/pods/p/status'));
  assert.equal(status?.terminal?.status?.code, 409);
  assert.equal(status?.terminal?.status?.message, 'Operation cannot be fulfilled on pods "p": the object has been modified; please apply your changes to the latest version and try again');
  assert.equal(faults.plan(req('PATCH', '/api/v1/namespaces/other/pods/p/status')), undefined);
  const both = faults.plan(req('GET', '/api/v1/namespaces/ns/pods', alice));
  assert.equal(both?.delayMs, 15);
  assert.equal(both?.terminal?.status?.code, 503);
  // Non-resource requests never match.
  assert.equal(faults.plan(req('GET', '/healthz', alice)), undefined);
  assert.deepEqual(logged.map((e) => [e.action, e.verb, e.resource, e.user]), [
    ['latency', 'update', 'pods', 'admin'],
    ['latency', 'update', 'pods', 'admin'],
    ['error', 'patch', 'pods/status', 'admin'],
    ['error', 'list', 'pods', 'alice'],
    ['latency', 'list', 'pods', 'alice'],
    ['latency', 'list', 'pods', 'alice'],
  ]);
  assert.deepEqual(faults.log(), logged);
});

test('count and probability decide how often a rule fires; kind-specific actions only fire where they apply', () => {
  const draws = [0.9, 0.1, 0.5];
  const faults = createFaults(undefined, () => draws.shift() ?? 0);
  const counted = faults.add({ verb: 'get', count: 2, action: { type: 'error', code: 500 } });
  assert.ok(faults.plan(req('GET', '/api/v1/namespaces/a/configmaps/x')));
  assert.ok(faults.plan(req('GET', '/api/v1/namespaces/a/configmaps/x')));
  assert.equal(faults.plan(req('GET', '/api/v1/namespaces/a/configmaps/x')), undefined);
  assert.equal(counted.fired(), 2);
  assert.deepEqual(faults.list().map((f) => [f.id, f.exhausted]), [[counted.id, true]]);
  assert.equal(counted.remove(), true);
  const sometimes = faults.add({ verb: 'delete', probability: 0.5, action: { type: 'error', code: 500 } });
  const fired = [0, 1, 2].map(() => faults.plan(req('DELETE', '/api/v1/namespaces/a/configmaps/x')) !== undefined);
  assert.deepEqual(fired, [false, true, false]);
  assert.equal(sometimes.fired(), 1);
  faults.clear();
  faults.add({ action: { type: 'expire-continue' } });
  faults.add({ action: { type: 'close-watch', how: 'cut' } });
  faults.add({ action: { type: 'drop-response' } });
  assert.equal(faults.plan(req('GET', '/api/v1/configmaps', admin, 'limit=1')), undefined);
  assert.equal(faults.plan(req('GET', '/api/v1/configmaps', admin, 'limit=1&continue=abc'))?.terminal?.action.type, 'expire-continue');
  assert.equal(faults.plan(req('GET', '/api/v1/configmaps', admin, 'watch=true'))?.terminal?.action.type, 'close-watch');
  assert.equal(faults.plan(req('POST', '/api/v1/namespaces/a/configmaps'))?.terminal?.action.type, 'drop-response');
  assert.equal(faults.plan(req('GET', '/api/v1/namespaces/a/configmaps/x')), undefined);
});

test('durations read as Go writes them, or as milliseconds', () => {
  assert.equal(parseDuration('10m', 'd'), 600_000);
  assert.equal(parseDuration('1h30m', 'd'), 5_400_000);
  assert.equal(parseDuration('1.5s', 'd'), 1500);
  assert.equal(parseDuration('250ms', 'd'), 250);
  assert.equal(parseDuration('0', 'd'), 0);
  assert.equal(parseDuration(42, 'd'), 42);
  assert.throws(() => parseDuration('-5m', 'by'), /by: time: invalid duration "-5m"/);
  assert.throws(() => parseDuration('5 m', 'by'), /invalid duration/);
  assert.throws(() => parseDuration(-1, 'by'), /not a duration/);
  assert.throws(() => parseDuration(undefined, 'by'), /want a duration/);
});
