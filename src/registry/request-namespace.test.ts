import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchRequestNamespace } from './request-namespace.ts';
import { isStatusError } from '../apis/errors.ts';

test('an object without a namespace takes the request namespace', () => {
  const meta: { namespace?: string } = {};
  matchRequestNamespace(meta, 'team-a');
  assert.deepEqual(meta, { namespace: 'team-a' });
});

test('a cluster-scoped object loses the namespace it names, and an empty namespace is dropped', () => {
  const named: { namespace?: string } = { namespace: 'team-a' };
  matchRequestNamespace(named, '');
  assert.deepEqual(named, {});
  const empty: { namespace?: string } = { namespace: '' };
  matchRequestNamespace(empty, '');
  assert.deepEqual(empty, {});
});

test('the same namespace is kept; another one is a 400 with kube message', () => {
  const same = { namespace: 'team-a' };
  matchRequestNamespace(same, 'team-a');
  assert.deepEqual(same, { namespace: 'team-a' });
  const other = { namespace: 'team-b' };
  assert.throws(
    () => matchRequestNamespace(other, 'team-a'),
    (e: unknown) => isStatusError(e) && e.code === 400 && e.reason === 'BadRequest' && e.message === 'the namespace of the provided object does not match the namespace sent on the request',
  );
  assert.deepEqual(other, { namespace: 'team-b' });
});
