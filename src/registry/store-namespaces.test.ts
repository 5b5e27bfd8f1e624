import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ctx, fixture, rejection } from './store-testing.ts';

test('the system namespaces may not be deleted', async () => {
  const f = await fixture();
  assert.deepEqual(await rejection(f.namespaces.delete(ctx(''), 'default')), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'namespaces "default" is forbidden: this namespace may not be deleted',
    reason: 'Forbidden',
    details: { name: 'default', kind: 'namespaces' },
    code: 403,
  });
  assert.equal((await rejection(f.namespaces.delete(ctx(''), 'kube-system'))).code, 403);
});

test('deleting a namespace starts termination; the finalize subresource ends it', async () => {
  const f = await fixture();
  await f.namespaces.create(ctx(''), { metadata: { name: 'team' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  const first = await f.namespaces.delete(ctx(''), 'team');
  assert.equal(first.deletedImmediately, false);
  assert.equal(first.status, undefined);
  assert.deepEqual(first.object.status, { phase: 'Terminating' });
  assert.ok(first.object.metadata.deletionTimestamp);
  assert.equal(first.object.metadata.deletionGracePeriodSeconds, undefined);
  const again = await f.namespaces.delete(ctx(''), 'team');
  assert.equal(again.deletedImmediately, false);
  assert.equal(again.object.metadata.resourceVersion, first.object.metadata.resourceVersion);
  const finalized = await f.namespaces.update(ctx(''), 'team', (cur) => ({ ...cur!, spec: { finalizers: [] } }), { subresource: 'finalize' });
  assert.deepEqual(finalized.object.spec, { finalizers: [] });
  assert.equal((await rejection(f.namespaces.get(ctx(''), 'team'))).code, 404);
});

test('a namespace delete honours preconditions and the orphan policy', async () => {
  const f = await fixture();
  const ns = await f.namespaces.create(ctx(''), { metadata: { name: 'team' }, spec: { finalizers: ['kubernetes'] } });
  const uid = await rejection(f.namespaces.delete(ctx(''), 'team', { preconditions: { uid: 'nope' } }));
  assert.equal(uid.message, `Operation cannot be fulfilled on namespaces "team": Precondition failed: UID in precondition: nope, UID in object meta: ${ns.metadata.uid}`);
  const res = await f.namespaces.delete(ctx(''), 'team', { propagationPolicy: 'Orphan' });
  assert.deepEqual(res.object.metadata.finalizers, ['orphan']);
});
