import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../registry/types.ts';
import { createContainerRuns } from './container-runs.ts';
import { PodRuleError } from './pod-rules.ts';

const pod = (name: string, labels: Record<string, string>, namespace = 'default'): KubeObject => ({ metadata: { name, namespace, labels } }) as KubeObject;

test('containers: the last matching rule setting a field wins, per container', () => {
  const runs = createContainerRuns();
  const web = pod('web-1', { app: 'web' });
  assert.deepEqual(runs.script(web, 'app'), {});
  runs.add({ selector: 'app=web', exitCode: 1, after: '30s', logs: 'boom\n' });
  runs.add({ pod: 'web-1', container: 'sidecar', exitCode: 0, reason: 'Completed' });
  runs.add({ namespace: 'other', exitCode: 9 });
  assert.deepEqual(runs.script(web, 'app'), { exitCode: 1, afterMs: 30_000, logs: 'boom\n' });
  assert.deepEqual(runs.script(web, 'sidecar'), { exitCode: 0, afterMs: 30_000, reason: 'Completed', logs: 'boom\n' });
  assert.deepEqual(runs.script(pod('db', { app: 'db' }), 'app'), {});
  assert.deepEqual(runs.script(pod('db', {}, 'other'), 'app'), { exitCode: 9 });
});

test('containers: bad rules are refused with the field named', () => {
  const runs = createContainerRuns();
  assert.throws(() => runs.add({}), /containers: a rule sets "exitCode", "after", "reason", "logs", "ready", "live", "started", "imagePull", "exec", "ports", "stopAfter" or several/);
  assert.throws(() => runs.add({ exitCode: 256 }), /"exitCode" must be an integer from 0 to 255/);
  assert.throws(() => runs.add({ exitCode: 1.5 }), PodRuleError);
  assert.throws(() => runs.add({ after: '5 minutes' }), /containers: "after": time: invalid duration "5 minutes"/);
  assert.throws(() => runs.add({ stopAfter: 'soon' }), /containers: "stopAfter": time: invalid duration "soon"/);
  assert.throws(() => runs.add({ logs: 3 as never }), /"logs" must be a string/);
  assert.throws(() => runs.add({ reason: '' }), /"reason" must be a non-empty string/);
  assert.throws(() => runs.add({ ready: 'no' as never }), /"ready" must be true or false/);
  assert.throws(() => runs.add({ live: 0 as never }), /containers: "live" must be true or false/);
  assert.throws(() => runs.add({ started: 'false' as never }), /containers: "started" must be true or false/);
  assert.throws(() => runs.add({ exitCode: 1, selector: 'a b' }), /containers: "selector": /);
  assert.throws(() => runs.add({ exitCode: 1, image: 'x' } as never), /containers: unknown field "image" \(known: namespace, selector, pod, container, exitCode, after, reason, logs, ready, live, started, imagePull, exec, ports, stopAfter\)/);
  assert.deepEqual(runs.list(), []);
  const a = runs.add({ after: 1500 });
  assert.deepEqual(runs.list(), [{ id: a.id, rule: { after: 1500 } }]);
  assert.equal(runs.remove(a.id), true);
  assert.equal(runs.remove(a.id), false);
});

test('containers: exec answers of every matching rule, the last whose command begins the command answering it', () => {
  const runs = createContainerRuns();
  const db = pod('db-0', { app: 'db' });
  assert.deepEqual(runs.exec(db, 'pg', ['ls']), { stdout: '', stderr: '', exitCode: 0 });
  runs.add({ selector: 'app=db', exec: { stdout: 'any\n' } });
  runs.add({ pod: 'db-0', exec: [{ command: ['pg_isready'], exitCode: 2, stderr: 'down\n' }, { command: ['psql', '-c'], stdout: 'psql\n' }] });
  assert.deepEqual(runs.exec(db, 'pg', ['ls']), { stdout: 'any\n', stderr: '', exitCode: 0 });
  assert.deepEqual(runs.exec(db, 'pg', ['pg_isready', '-h', 'localhost']), { stdout: '', stderr: 'down\n', exitCode: 2 });
  assert.deepEqual(runs.exec(db, 'pg', ['psql', '-c', 'select 1']), { stdout: 'psql\n', stderr: '', exitCode: 0 });
  assert.deepEqual(runs.exec(db, 'pg', ['psql']), { stdout: 'any\n', stderr: '', exitCode: 0 });
  assert.throws(() => runs.add({ exec: [{ command: 'ls' as never }] }), /containers: "exec"\[0\]\.command must be a list of strings/);
  assert.throws(() => runs.add({ exec: { exitCode: 300 } }), /containers: "exec"\.exitCode must be an integer from 0 to 255/);
  assert.throws(() => runs.add({ exec: { stdin: 'x' } as never }), /containers: "exec": unknown field "stdin" \(known: command, stdout, stderr, exitCode\)/);
});

test('containers: ports map a pod port to a loopback address, served by the first container of the pod that maps it', () => {
  const runs = createContainerRuns();
  const web = { ...pod('web-1', { app: 'web' }), spec: { containers: [{ name: 'app' }, { name: 'sidecar' }] } } as never;
  runs.add({ selector: 'app=web', container: 'sidecar', ports: { 9090: 38001 } });
  runs.add({ pod: 'web-1', ports: { '8080': 'localhost:38002', 9091: '[::1]:38003' } });
  runs.add({ pod: 'web-1', container: 'app', ports: { 8080: '127.0.0.1:38004' } });
  assert.deepEqual(runs.portTarget(web, 9090), { host: '127.0.0.1', port: 38001 });
  assert.deepEqual(runs.portTarget(web, 8080), { host: '127.0.0.1', port: 38004 });
  assert.deepEqual(runs.portTarget(web, 9091), { host: '::1', port: 38003 });
  assert.equal(runs.portTarget(web, 80), undefined);
  assert.throws(() => runs.add({ ports: { http: 80 } }), /containers: "ports": "http" is not a port \(1-65535\)/);
  assert.throws(() => runs.add({ ports: { 80: '10.0.0.1:80' } }), /containers: "ports"\."80": a port of 127\.0\.0\.1, or "127\.0\.0\.1:port", "\[::1\]:port" or "localhost:port" \(tests serve on loopback only\)/);
  assert.throws(() => runs.add({ ports: { 80: 70000 } }), PodRuleError);
  assert.throws(() => runs.add({ ports: [80] as never }), /"ports" must map container ports to loopback addresses/);
});
