import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCorrelator } from './events.ts';

type Event = Parameters<ReturnType<typeof createCorrelator>>[0];

function event(name: string, reason: string, message: string, object = 'web-1'): Event {
  return {
    metadata: { name, namespace: 'default' },
    involvedObject: { kind: 'ReplicaSet', namespace: 'default', name: object, uid: `uid-${object}`, apiVersion: 'apps/v1' },
    reason,
    message,
    source: { component: 'replicaset-controller' },
    firstTimestamp: `2026-01-01T00:00:0${name.length % 10}Z`,
    lastTimestamp: '2026-01-01T00:01:00Z',
    count: 1,
    type: 'Normal',
    reportingComponent: 'replicaset-controller',
    reportingInstance: '',
  };
}

test('a repeated event counts on the Event written first (eventObserve)', () => {
  const correlate = createCorrelator(() => 0);
  const first = correlate(event('a', 'SuccessfulCreate', 'Created pod: p'))!;
  assert.deepEqual([first.repeat, first.event.count, first.event.metadata.name], [false, 1, 'a']);
  const again = correlate(event('bb', 'SuccessfulCreate', 'Created pod: p'))!;
  assert.deepEqual([again.repeat, again.event.count, again.event.metadata.name, again.event.firstTimestamp], [true, 2, 'a', first.event.firstTimestamp]);
  assert.equal(again.event.lastTimestamp, '2026-01-01T00:01:00Z');
});

test('the tenth similar event of one object and reason is combined, and later ones count on it (EventAggregate)', () => {
  const correlate = createCorrelator(() => 0);
  const messages: string[] = [];
  for (let i = 1; i <= 12; i++) {
    const w = correlate(event(`e${i}`, 'SuccessfulCreate', `Created pod: p${i}`))!;
    messages.push(`${w.event.message} x${w.event.count}`);
  }
  assert.deepEqual(messages.slice(0, 9), [1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `Created pod: p${i} x1`));
  assert.deepEqual(messages.slice(9), ['(combined from similar events): Created pod: p10 x1', '(combined from similar events): Created pod: p11 x2', '(combined from similar events): Created pod: p12 x3']);
  // Another reason of the same object, and another object, are counted apart.
  assert.equal(correlate(event('x', 'SuccessfulDelete', 'Deleted pod: p1'))!.event.message, 'Deleted pod: p1');
  assert.equal(correlate(event('y', 'SuccessfulCreate', 'Created pod: q1', 'web-2'))!.event.message, 'Created pod: q1');
});

test('the combining starts again after 10 minutes without similar events', () => {
  let now = 0;
  const correlate = createCorrelator(() => now);
  for (let i = 1; i <= 10; i++) correlate(event(`e${i}`, 'SuccessfulCreate', `Created pod: p${i}`));
  now = 600_001;
  assert.equal(correlate(event('late', 'SuccessfulCreate', 'Created pod: p99'))!.event.message, 'Created pod: p99');
});

test('an object gets 25 events from a source, then one per 5 minutes (the spam filter)', () => {
  let now = 0;
  const correlate = createCorrelator(() => now);
  const reasons = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O', 'P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z', 'AA'];
  const written = reasons.map((r) => correlate(event(r, r, 'same message')) !== undefined);
  assert.deepEqual(written, [...Array(25).fill(true), false, false]);
  now = 299_000;
  assert.equal(correlate(event('late', 'Late', 'm')), undefined);
  now = 301_000;
  assert.notEqual(correlate(event('later', 'Later', 'm')), undefined);
  assert.equal(correlate(event('latest', 'Latest', 'm')), undefined);
  // Another object has its own allowance.
  assert.notEqual(correlate(event('other', 'A', 'm', 'web-9')), undefined);
});
