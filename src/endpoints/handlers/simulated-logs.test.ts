import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clock } from '../../apis/clock.ts';
import { StatusError } from '../../apis/errors.ts';
import type { KubeObject } from '../../registry/types.ts';
import { simulatedLog, type LogOptions } from './simulated-logs.ts';

const pod = (phase: string | undefined, statuses?: Record<string, unknown>[]): KubeObject =>
  ({ metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'app' }] }, status: { ...(phase ? { phase } : {}), ...(statuses ? { containerStatuses: statuses } : {}) } }) as KubeObject;
const opts = (o: Partial<LogOptions> = {}): LogOptions => ({ previous: false, follow: false, timestamps: false, ...o });
const text = (log: { body: Uint8Array }) => Buffer.from(log.body).toString('utf8');
const refused = (f: () => unknown, message: string) =>
  assert.throws(f, (e: unknown) => e instanceof StatusError && e.code === 400 && e.reason === 'BadRequest' && e.message === message);

const PRINTED = 'one\ntwo\nthree\n';
const runningApp = { name: 'app', state: { running: { startedAt: '2026-11-30T10:00:05Z' } }, lastState: {}, containerID: 'capstan://u-app' };
const crashed = {
  name: 'app',
  state: { waiting: { reason: 'CrashLoopBackOff' } },
  lastState: { terminated: { exitCode: 1, startedAt: '2026-11-30T10:00:00Z', finishedAt: '2026-11-30T10:00:02Z', containerID: 'capstan://u-app' } },
};

test("the kubelet's answers for a run that is not there", () => {
  refused(() => simulatedLog(pod('Pending'), 'app', PRINTED, opts()), 'container "app" in pod "web" is waiting to start: ContainerCreating');
  refused(() => simulatedLog(pod('Running', [runningApp]), 'app', PRINTED, opts({ previous: true })), 'previous terminated container "app" in pod "web" not found');
  refused(() => simulatedLog(pod('Running', [{ name: 'app', state: { waiting: { reason: 'ImagePullBackOff' } }, lastState: {} }]), 'app', PRINTED, opts()), 'container "app" in pod "web" is waiting to start: ImagePullBackOff');
  refused(() => simulatedLog(pod('Running', []), 'app', PRINTED, opts()), 'container "app" in pod "web" is not available');
});

test('the current run, the last one while it waits to restart, and the previous one', () => {
  assert.equal(text(simulatedLog(pod('Running', [runningApp]), 'app', PRINTED, opts())), PRINTED);
  assert.equal(text(simulatedLog(pod('Running', [crashed]), 'app', PRINTED, opts())), PRINTED);
  assert.equal(text(simulatedLog(pod('Running', [crashed]), 'app', PRINTED, opts({ previous: true, timestamps: true, tailLines: 1 }))), '2026-11-30T10:00:00Z three\n');
  assert.equal(text(simulatedLog(pod('Running', [runningApp]), 'app', '', opts())), '');
});

test('tailLines, limitBytes, timestamps and since, as the kubelet applies them', () => {
  const p = pod('Running', [runningApp]);
  assert.equal(text(simulatedLog(p, 'app', PRINTED, opts({ tailLines: 2 }))), 'two\nthree\n');
  assert.equal(text(simulatedLog(p, 'app', PRINTED, opts({ tailLines: 0 }))), '');
  assert.equal(text(simulatedLog(p, 'app', 'no newline at the end', opts({ timestamps: true }))), '2026-11-30T10:00:05Z no newline at the end');
  assert.equal(text(simulatedLog(p, 'app', PRINTED, opts({ timestamps: true, limitBytes: 24 }))), '2026-11-30T10:00:05Z one');
  // A byte limit may cut a character: the bytes are sent as they are.
  assert.deepEqual([...simulatedLog(p, 'app', 'é\n', opts({ limitBytes: 1 })).body], [0xc3]);
  assert.equal(text(simulatedLog(p, 'app', PRINTED, opts({ sinceTime: '2026-11-30T10:00:06Z' }))), '');
  assert.equal(text(simulatedLog(p, 'app', PRINTED, opts({ sinceTime: '2026-11-30T10:00:05Z' }))), PRINTED);
  clock.freeze(Date.parse('2026-11-30T10:00:20Z'));
  try {
    assert.equal(text(simulatedLog(p, 'app', PRINTED, opts({ sinceSeconds: 10 }))), '');
    assert.equal(text(simulatedLog(p, 'app', PRINTED, opts({ sinceSeconds: 15 }))), PRINTED);
  } finally {
    clock.reset();
  }
});

test('a followed log stays open while the run it reads goes on; a finished run or a full byte limit ends it', () => {
  assert.equal(simulatedLog(pod('Running', [runningApp]), 'app', PRINTED, opts({ follow: true })).following, 'capstan://u-app');
  assert.equal(simulatedLog(pod('Running', [runningApp]), 'app', PRINTED, opts({ follow: true, limitBytes: 3 })).following, undefined);
  assert.equal(simulatedLog(pod('Running', [crashed]), 'app', PRINTED, opts({ follow: true })).following, undefined);
  assert.equal(simulatedLog(pod('Running', [runningApp]), 'app', PRINTED, opts()).following, undefined);
});
