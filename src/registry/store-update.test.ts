import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ctx, definition, deployments, fixture, rejection, widgets } from './store-testing.ts';
import type { KubeObject } from './types.ts';

const put = (o: KubeObject) => () => o;

test('update: optimistic concurrency with kube\'s Conflict message; unconditional updates succeed', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  const a = await s.create(ctx(), { metadata: { name: 'a' }, spec: { n: 1 } });
  const stale = { ...a, metadata: { ...a.metadata, resourceVersion: String(Number(a.metadata.resourceVersion) - 1) }, spec: { n: 2 } };
  assert.deepEqual(await rejection(s.update(ctx(), 'a', put(stale))), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Operation cannot be fulfilled on widgets.example.com "a": the object has been modified; please apply your changes to the latest version and try again',
    reason: 'Conflict',
    details: { name: 'a', group: 'example.com', kind: 'widgets' },
    code: 409,
  });
  const { object, created } = await s.update(ctx(), 'a', (cur) => ({ ...cur!, spec: { n: 2 } }));
  assert.equal(created, false);
  assert.deepEqual(object.spec, { n: 2 });
  assert.equal(object.metadata.uid, a.metadata.uid);
  assert.equal(object.metadata.creationTimestamp, a.metadata.creationTimestamp);
  const blind = await s.update(ctx(), 'a', put({ metadata: { name: 'a' }, spec: { n: 3 } }));
  assert.deepEqual(blind.object.spec, { n: 3 });
  assert.equal(blind.object.metadata.uid, a.metadata.uid, 'uid carried over');
});

test('update: uid precondition, immutable name, required resourceVersion, 404 and create-on-update', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  const a = await s.create(ctx(), { metadata: { name: 'a' } });
  // A PUT names its body's uid as a precondition, checked before the resourceVersion and before a missing object's 404.
  const uid = await rejection(s.update(ctx(), 'a', put({ metadata: { name: 'a', uid: 'other', resourceVersion: '1' } }), { preconditionUid: 'other' }));
  assert.equal(uid.message, `Operation cannot be fulfilled on widgets.example.com "a": Precondition failed: UID in precondition: other, UID in object meta: ${a.metadata.uid}`);
  const missing = await rejection(s.update(ctx(), 'nope', put({ metadata: { name: 'nope', uid: 'other' } }), { preconditionUid: 'other' }));
  assert.deepEqual([missing.code, missing.message], [409, 'Operation cannot be fulfilled on widgets.example.com "nope": Precondition failed: UID in precondition: other, UID in object meta: ']);
  // Without the precondition (a patch), the uid is a field like any other: immutable.
  const patched = await rejection(s.update(ctx(), 'a', put({ metadata: { name: 'a', uid: 'other' } })));
  assert.deepEqual([patched.code, patched.message], [422, 'Widget.example.com "a" is invalid: metadata.uid: Invalid value: "other": field is immutable']);
  // rest.BeforeUpdate keeps a deletion timestamp and grace period an object has, and lets one an update sets reach
  // validation, which refuses it.
  const deleting = await rejection(s.update(ctx(), 'a', put({ metadata: { name: 'a', deletionTimestamp: '2030-01-01T00:00:00.250Z' } })));
  assert.deepEqual([deleting.code, deleting.message], [422, 'Widget.example.com "a" is invalid: metadata.deletionTimestamp: Invalid value: 2030-01-01 00:00:00.25 +0000 UTC: field is immutable']);
  const grace = await rejection(s.update(ctx(), 'a', put({ metadata: { name: 'a', deletionGracePeriodSeconds: 5 } })));
  assert.deepEqual([grace.code, grace.message], [422, 'Widget.example.com "a" is invalid: metadata.deletionGracePeriodSeconds: Invalid value: 5: field is immutable']);
  const renamed = await rejection(s.update(ctx(), 'a', put({ metadata: { name: 'b' } })));
  assert.equal(renamed.code, 422);
  assert.equal(renamed.message, 'Widget.example.com "b" is invalid: metadata.name: Invalid value: "b": field is immutable');
  const strict = f.store(widgets({ allowUnconditionalUpdate: false }));
  const required = await rejection(strict.update(ctx(), 'a', put({ metadata: { name: 'a' } })));
  assert.equal(required.message, 'widgets.example.com "a" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
  assert.equal((await rejection(s.update(ctx(), 'zz', put({ metadata: { name: 'zz' } })))).code, 404);
  const upsert = f.store(widgets({ allowCreateOnUpdate: true }));
  const made = await upsert.update(ctx(), 'zz', (cur) => cur ?? { metadata: {}, spec: { made: true } });
  assert.equal(made.created, true);
  assert.equal(made.object.metadata.name, 'zz');
  assert.equal(made.object.metadata.generation, 1);
  const forced = await s.update(ctx(), 'yy', () => ({ metadata: { name: 'yy' } }), { forceAllowCreate: true });
  assert.equal(forced.created, true);
});

test('update: a no-op writes nothing; generation follows spec changes only', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  const a = await s.create(ctx(), { metadata: { name: 'a' }, spec: { n: 1 } });
  const rev = await f.storage.currentRevision();
  const same = await s.update(ctx(), 'a', (cur) => cur!);
  assert.equal(same.object.metadata.resourceVersion, a.metadata.resourceVersion);
  assert.equal(await f.storage.currentRevision(), rev);
  const labelled = await s.update(ctx(), 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { x: 'y' } } }));
  assert.equal(labelled.object.metadata.generation, 1);
  const respec = await s.update(ctx(), 'a', (cur) => ({ ...cur!, spec: { n: 2 } }));
  assert.equal(respec.object.metadata.generation, 2);
  const noGen = f.store(widgets({ trackGeneration: false }));
  // Without trackGeneration the strategy alone decides (kube: configmaps have no generation).
  const b = await noGen.create(ctx(), { metadata: { name: 'b' }, data: { k: 'v' } });
  assert.equal(b.metadata.generation, undefined);
  assert.equal((await noGen.update(ctx(), 'b', (cur) => ({ ...cur!, data: { k: 'w' } }))).object.metadata.generation, undefined);
});

test('update: the status subresource writes status only, the main resource everything but status', async () => {
  const f = await fixture();
  const s = f.store(deployments());
  await s.create(ctx(), { metadata: { name: 'd' }, spec: { replicas: 1 }, status: { replicas: 0 } });
  const main = await s.update(ctx(), 'd', (cur) => ({ ...cur!, spec: { replicas: 2 }, status: { replicas: 99 } }));
  // The spec as Go writes a Deployment's: the struct values and nil fields without omitempty are there.
  const written = { replicas: 2, selector: null, strategy: {}, template: { metadata: { creationTimestamp: null }, spec: { containers: null } } };
  assert.deepEqual(main.object.spec, written);
  assert.deepEqual(main.object.status, { replicas: 0 });
  assert.equal(main.object.metadata.generation, 2);
  const status = await s.update(ctx(), 'd', (cur) => ({ ...cur!, spec: { replicas: 7 }, status: { replicas: 2 }, metadata: { ...cur!.metadata, labels: { a: 'b' } } }), { subresource: 'status' });
  assert.deepEqual(status.object.spec, written);
  assert.deepEqual(status.object.status, { replicas: 2 });
  assert.equal(status.object.metadata.labels, undefined);
  assert.equal(status.object.metadata.generation, 2);
});

test('scale: the Scale of a deployment, and replicas written through it', async () => {
  const f = await fixture();
  const s = f.store(deployments());
  const d = await s.create(ctx(), {
    metadata: { name: 'd' },
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] } },
    status: { replicas: 2 },
  });
  const scale = await s.get(ctx(), 'd', { subresource: 'scale' });
  assert.deepEqual(scale, {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: 'd', namespace: 'default', uid: d.metadata.uid, resourceVersion: d.metadata.resourceVersion, creationTimestamp: d.metadata.creationTimestamp },
    spec: { replicas: 3 },
    status: { replicas: 2, selector: 'app=web,tier in (a,b)' },
  });
  const stale = await rejection(s.update(ctx(), 'd', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, resourceVersion: '1' }, spec: { replicas: 5 } }), { subresource: 'scale' }));
  assert.equal(stale.code, 409);
  const negative = await rejection(s.update(ctx(), 'd', (cur) => ({ ...cur!, spec: { replicas: -1 } }), { subresource: 'scale' }));
  assert.equal(negative.message, 'Scale.autoscaling "d" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
  const scaled = await s.update(ctx(), 'd', (cur) => ({ ...cur!, spec: { replicas: 5 } }), { subresource: 'scale' });
  assert.equal(scaled.object.kind, 'Scale');
  assert.deepEqual(scaled.object.spec, { replicas: 5 });
  const after = await s.get(ctx(), 'd');
  assert.equal((after.spec as { replicas: number }).replicas, 5);
  assert.equal(after.metadata.generation, 2);
  assert.equal(scaled.object.metadata.resourceVersion, after.metadata.resourceVersion);
  const zero = await s.update(ctx(), 'd', (cur) => ({ ...cur!, spec: {} }), { subresource: 'scale' });
  assert.deepEqual(zero.object.spec, {}, 'replicas 0 is omitted as in autoscaling/v1');
});

test('update: a custom resource\'s Scale without a resourceVersion keeps the parent\'s (no 422), one with a stale one conflicts', async () => {
  const f = await fixture();
  const gizmos = definition({
    group: 'example.com',
    version: 'v1',
    resource: 'gizmos',
    kind: 'Gizmo',
    custom: true,
    strategy: { trackGeneration: true, allowUnconditionalUpdate: false },
    subresources: [{ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] }],
    scale: { specReplicasPath: '.spec.count', statusReplicasPath: '.status.count' },
  });
  const s = f.store(gizmos);
  const g = await s.create(ctx(), { metadata: { name: 'g' }, spec: { count: 1 } });
  const blind = await s.update(ctx(), 'g', put({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'g' }, spec: { replicas: 4 } }), { subresource: 'scale' });
  assert.deepEqual(blind.object.spec, { replicas: 4 });
  assert.deepEqual((await s.get(ctx(), 'g')).spec, { count: 4 });
  const stale = await rejection(s.update(ctx(), 'g', put({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'g', resourceVersion: g.metadata.resourceVersion }, spec: { replicas: 5 } }), { subresource: 'scale' }));
  assert.equal(stale.code, 409);
});

test('update: dry-run answers the would-be object at the current resourceVersion and writes nothing', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  const a = await s.create(ctx(), { metadata: { name: 'a' }, spec: { n: 1 } });
  const rev = await f.storage.currentRevision();
  const dry = await s.update(ctx('default', { dryRun: true }), 'a', (cur) => ({ ...cur!, spec: { n: 2 } }));
  assert.deepEqual(dry.object.spec, { n: 2 });
  assert.equal(dry.object.metadata.resourceVersion, a.metadata.resourceVersion);
  assert.equal(await f.storage.currentRevision(), rev);
});

test('delete: gone at once with a Success Status, or the object when the type returns it', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  const a = await s.create(ctx(), { metadata: { name: 'a' } });
  const res = await s.delete(ctx(), 'a');
  assert.equal(res.deletedImmediately, true);
  assert.equal(res.object.metadata.uid, a.metadata.uid);
  assert.deepEqual(res.status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'a', group: 'example.com', kind: 'widgets', uid: a.metadata.uid } });
  assert.equal((await rejection(s.delete(ctx(), 'a'))).code, 404);
  const returning = f.store(widgets({ returnDeletedObject: true }));
  await returning.create(ctx(), { metadata: { name: 'b' } });
  assert.equal((await returning.delete(ctx(), 'b')).status, undefined);
});

test('delete: finalizers keep the object terminating until an update removes the last one', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  await s.create(ctx(), { metadata: { name: 'a', finalizers: ['example.com/hold'] } });
  const first = await s.delete(ctx(), 'a');
  assert.equal(first.deletedImmediately, false);
  assert.match(first.object.metadata.deletionTimestamp!, /Z$/);
  assert.equal(first.object.metadata.deletionGracePeriodSeconds, 0);
  assert.equal(first.object.metadata.generation, 2, 'generation bumped once when deletion starts');
  const rev = await f.storage.currentRevision();
  const again = await s.delete(ctx(), 'a');
  assert.equal(again.deletedImmediately, false);
  assert.equal(again.object.metadata.resourceVersion, first.object.metadata.resourceVersion, 'unchanged');
  assert.equal(await f.storage.currentRevision(), rev);
  const added = await rejection(s.update(ctx(), 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: ['example.com/hold', 'example.com/more'] } })));
  assert.equal(added.code, 422);
  const done = await s.update(ctx(), 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: [] } }));
  assert.equal(done.created, false);
  assert.equal((await rejection(s.get(ctx(), 'a'))).code, 404);
});

test('delete: propagation policies set the garbage collector finalizers; preconditions and options are checked', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  const a = await s.create(ctx(), { metadata: { name: 'a' } });
  const uid = await rejection(s.delete(ctx(), 'a', { preconditions: { uid: 'x' } }));
  assert.equal(uid.message, `Operation cannot be fulfilled on Widget.example.com "a": the UID in the precondition (x) does not match the UID in record (${a.metadata.uid}). The object might have been deleted and then recreated`);
  const rv = await rejection(s.delete(ctx(), 'a', { preconditions: { resourceVersion: '1' } }));
  assert.equal(rv.message, `Operation cannot be fulfilled on Widget.example.com "a": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${a.metadata.resourceVersion}). The object might have been modified`);
  const bad = await rejection(s.delete(ctx(), 'a', { propagationPolicy: 'Sideways' as 'Orphan' }));
  assert.equal(bad.message, 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"');
  const orphan = await s.delete(ctx(), 'a', { propagationPolicy: 'Orphan' });
  assert.equal(orphan.deletedImmediately, false);
  assert.deepEqual(orphan.object.metadata.finalizers, ['orphan']);
  await s.create(ctx(), { metadata: { name: 'b' } });
  const fg = await s.delete(ctx(), 'b', { propagationPolicy: 'Foreground' });
  assert.deepEqual(fg.object.metadata.finalizers, ['foregroundDeletion']);
  await s.create(ctx(), { metadata: { name: 'c' } });
  assert.equal((await s.delete(ctx(), 'c', { propagationPolicy: 'Background' })).deletedImmediately, true);
});

test('delete: dry-run removes nothing', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  await s.create(ctx(), { metadata: { name: 'a' } });
  const res = await s.delete(ctx('default', { dryRun: true }), 'a');
  assert.equal(res.deletedImmediately, true);
  assert.equal((await s.get(ctx(), 'a')).metadata.name, 'a');
});

test('deletecollection deletes what the list selects and returns it', async () => {
  const f = await fixture();
  await f.namespaces.create(ctx(''), { metadata: { name: 'other' } });
  const s = f.store(widgets());
  await s.create(ctx(), { metadata: { name: 'a', labels: { k: 'x' } } });
  await s.create(ctx(), { metadata: { name: 'b', labels: { k: 'y' } } });
  await s.create(ctx(), { metadata: { name: 'c', labels: { k: 'x' }, finalizers: ['example.com/f'] } });
  await s.create(ctx('other'), { metadata: { name: 'd', labels: { k: 'x' } } });
  const gone = await s.deleteCollection(ctx(), { labelSelector: 'k=x' }, {});
  assert.deepEqual(gone.items.map((i) => i.metadata.name), ['a', 'c']);
  const left = await s.list(ctx(''), {});
  assert.deepEqual(left.items.map((i) => i.metadata.name), ['b', 'c', 'd']);
  assert.ok(left.items[1].metadata.deletionTimestamp);
  await s.deleteCollection(ctx(''), { labelSelector: 'k=x' }, {});
  assert.deepEqual((await s.list(ctx(''), {})).items.map((i) => i.metadata.name), ['b', 'c']);
});

test('delete: a graceful strategy keeps the object for its grace period; a shorter one may follow', async () => {
  const f = await fixture();
  const s = f.store(widgets({ gracefulDeletePeriod: (o, requested) => requested ?? ((o.spec as { grace?: number })?.grace ?? 0), returnDeletedObject: true }));
  await s.create(ctx(), { metadata: { name: 'quick' }, spec: { grace: 0 } });
  assert.equal((await s.delete(ctx(), 'quick')).deletedImmediately, true);
  const a = await s.create(ctx(), { metadata: { name: 'a' }, spec: { grace: 30 } });
  const t0 = Date.now();
  const first = await s.delete(ctx(), 'a');
  assert.equal(first.deletedImmediately, false);
  assert.equal(first.object.metadata.deletionGracePeriodSeconds, 30);
  const due = Date.parse(first.object.metadata.deletionTimestamp!);
  assert.ok(due >= Math.floor(t0 / 1000) * 1000 + 29000 && due <= t0 + 31000);
  assert.equal(first.object.metadata.generation, (a.metadata.generation ?? 0) + 1);
  const longer = await s.delete(ctx(), 'a', { gracePeriodSeconds: 60 });
  assert.equal(longer.deletedImmediately, false);
  assert.equal(longer.object.metadata.resourceVersion, first.object.metadata.resourceVersion, 'a longer period changes nothing');
  const now = await s.delete(ctx(), 'a', { gracePeriodSeconds: 0, preconditions: { resourceVersion: first.object.metadata.resourceVersion } });
  assert.equal(now.deletedImmediately, true);
  assert.equal((await rejection(s.get(ctx(), 'a'))).code, 404);
});

test("update: ObjectMeta's empty maps and lists are left out, as Go's omitempty encodes them (the last finalizer removed)", async () => {
  const f = await fixture();
  const s = f.store(widgets());
  const a = await s.create(ctx(), { metadata: { name: 'a', labels: {}, annotations: { keep: 'me' }, finalizers: ['example.com/hold'], ownerReferences: [] }, spec: { n: 1, empty: [] } });
  assert.deepEqual([a.metadata.labels, a.metadata.ownerReferences, a.metadata.finalizers], [undefined, undefined, ['example.com/hold']]);
  const { object } = await s.update(ctx(), 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: [] } }));
  assert.equal('finalizers' in object.metadata, false);
  const read = await s.get(ctx(), 'a');
  assert.equal('finalizers' in read.metadata, false);
  assert.deepEqual(read.metadata.annotations, { keep: 'me' });
  // Only ObjectMeta's: a custom resource's own empty list stays.
  assert.deepEqual(read.spec, { n: 1, empty: [] });
});
