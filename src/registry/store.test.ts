import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrors } from '../apis/errors.ts';
import { ctx, definition, fixture, rejection, widgets } from './store-testing.ts';

test('create fills the system fields and stores without resourceVersion', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  const before = await f.storage.currentRevision();
  const out = await s.create(ctx(), { metadata: { name: 'w1', resourceVersion: '', deletionTimestamp: '2020-01-01T00:00:00Z' }, spec: { color: 'red' } });
  assert.equal(out.apiVersion, 'example.com/v1');
  assert.equal(out.kind, 'Widget');
  assert.equal(out.metadata.namespace, 'default');
  assert.match(out.metadata.uid!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.match(out.metadata.creationTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(out.metadata.resourceVersion, String(before + 1));
  assert.equal(out.metadata.generation, 1);
  assert.equal(out.metadata.deletionTimestamp, undefined);
  const { kv } = await f.storage.get('/registry/example.com/widgets/default/w1');
  const stored = JSON.parse(kv!.value);
  assert.equal(stored.metadata.resourceVersion, undefined);
  assert.equal(stored.metadata.uid, out.metadata.uid);
});

test('generateName makes a name with 5 characters of the alphabet', async () => {
  const f = await fixture();
  const out = await f.store(widgets()).create(ctx(), { metadata: { generateName: 'w-' } });
  assert.match(out.metadata.name!, /^w-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
});

test('create errors: AlreadyExists, namespace mismatch, missing and terminating namespace', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  await s.create(ctx(), { metadata: { name: 'a' } });
  assert.deepEqual(await rejection(s.create(ctx(), { metadata: { name: 'a' } })), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'widgets.example.com "a" already exists',
    reason: 'AlreadyExists',
    details: { name: 'a', group: 'example.com', kind: 'widgets' },
    code: 409,
  });
  const mismatch = await rejection(s.create(ctx(), { metadata: { name: 'b', namespace: 'other' } }));
  assert.equal(mismatch.code, 400);
  assert.equal(mismatch.message, 'the namespace of the provided object does not match the namespace sent on the request');
  const missing = await rejection(s.create(ctx('nope'), { metadata: { name: 'b' } }));
  assert.equal(missing.code, 404);
  assert.equal(missing.message, 'namespaces "nope" not found');
  await f.namespaces.create(ctx(''), { metadata: { name: 'dying' }, status: { phase: 'Terminating' } });
  assert.deepEqual(await rejection(s.create(ctx('dying'), { metadata: { generateName: 'x-' } })), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'widgets.example.com "x-" is forbidden: unable to create new content in namespace dying because it is being terminated',
    reason: 'Forbidden',
    details: {
      name: 'x-',
      group: 'example.com',
      kind: 'widgets',
      causes: [{ reason: 'NamespaceTerminating', message: 'namespace dying is being terminated', field: 'metadata.namespace' }],
    },
    code: 403,
  });
});

test('create runs defaults, prepareForCreate and validation, then the generic metadata checks', async () => {
  const f = await fixture();
  const calls: string[] = [];
  const s = f.store(
    widgets({
      defaults: (o) => {
        calls.push('defaults');
        (o.spec as Record<string, unknown>) ??= {};
        (o.spec as Record<string, unknown>).size ??= 1;
      },
      prepareForCreate: (o) => {
        calls.push('prepare');
        delete o.status;
      },
      validate: (o) => {
        calls.push('validate');
        return (o.spec as { size: number }).size < 0 ? [fieldErrors.invalid('spec.size', (o.spec as { size: number }).size, 'must be positive')] : [];
      },
    }),
  );
  const out = await s.create(ctx(), { metadata: { name: 'a' }, status: { x: 1 } });
  assert.deepEqual(calls, ['defaults', 'prepare', 'validate']);
  assert.deepEqual(out.spec, { size: 1 });
  assert.equal(out.status, undefined);
  const bad = await rejection(s.create(ctx(), { metadata: { name: 'b' }, spec: { size: -1 } }));
  assert.equal(bad.code, 422);
  assert.equal(bad.message, 'Widget.example.com "b" is invalid: spec.size: Invalid value: -1: must be positive');
  const noName = await rejection(s.create(ctx(), { metadata: {} }));
  assert.equal(noName.message, 'Widget.example.com "" is invalid: metadata.name: Required value: name or generateName is required');
  const slash = await rejection(s.create(ctx(), { metadata: { name: 'a%b' } }));
  assert.equal(slash.message, `Widget.example.com "a%b" is invalid: metadata.name: Invalid value: "a%b": may not contain '%'`);
});

test('create with a resourceVersion is refused as kube refuses it; dry-run writes nothing', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  const err = await rejection(s.create(ctx(), { metadata: { name: 'a', resourceVersion: '5' } }));
  assert.equal(err.code, 500);
  assert.equal(err.message, 'resourceVersion should not be set on objects to be created');
  // One that is not a uint64 (or is 0) is not refused by kube's etcd3 store: the written revision replaces it.
  for (const [name, resourceVersion] of [['b', '~'], ['c', '0'], ['d', '18446744073709551616']]) {
    const created = await s.create(ctx(), { metadata: { name, resourceVersion } });
    assert.equal(created.metadata.resourceVersion, String(await f.storage.currentRevision()));
  }
  const rev = await f.storage.currentRevision();
  const dry = await s.create(ctx('default', { dryRun: true }), { metadata: { name: 'a' } });
  assert.equal(dry.metadata.name, 'a');
  assert.equal(dry.metadata.resourceVersion, undefined);
  assert.equal(await f.storage.currentRevision(), rev);
  assert.equal((await rejection(s.get(ctx(), 'a'))).code, 404);
});

test('generateName retries on a clash and reports kube\'s conflict when every name is taken', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  const clash = await rejection(s.create(ctx(), { metadata: { name: 'same', generateName: 'g-' } }).then(() => s.create(ctx(), { metadata: { name: 'same', generateName: 'g-' } })));
  assert.equal(clash.message, 'widgets.example.com "same" already exists, the server was not able to generate a unique name for the object');
  assert.deepEqual(clash.details, { name: 'same', group: 'example.com', kind: 'widgets', retryAfterSeconds: 1 });
});

test('get: NotFound, invalid and future resourceVersions', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  assert.deepEqual(await rejection(s.get(ctx(), 'x')), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'widgets.example.com "x" not found',
    reason: 'NotFound',
    details: { name: 'x', group: 'example.com', kind: 'widgets' },
    code: 404,
  });
  const made = await s.create(ctx(), { metadata: { name: 'x' } });
  // Not older than the create: the cache waits until it has seen it; "0" then serves any state it holds.
  assert.equal((await s.get(ctx(), 'x', { resourceVersion: made.metadata.resourceVersion })).metadata.uid, made.metadata.uid);
  assert.equal((await s.get(ctx(), 'x', { resourceVersion: '0' })).metadata.uid, made.metadata.uid);
  const bad = await rejection(s.get(ctx(), 'x', { resourceVersion: 'abc' }));
  assert.equal(bad.code, 500);
  assert.equal(bad.message, 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax');
  const future = Number(made.metadata.resourceVersion) + 100;
  const tooLarge = await rejection(s.get(ctx(), 'x', { resourceVersion: String(future) }));
  assert.equal(tooLarge.code, 504);
  assert.equal(tooLarge.reason, 'Timeout');
  assert.equal(tooLarge.message, `Timeout: Too large resource version: ${future}, current: ${made.metadata.resourceVersion}`);
  assert.deepEqual(tooLarge.details, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 });
});

test('objects are stored in the version written and served in the version asked', async () => {
  const f = await fixture();
  const v1 = f.store(widgets());
  const v2def = { ...widgets(), version: 'v2' };
  const v2 = v1.forVersion(v2def);
  await v1.create(ctx(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'a' } });
  assert.equal((await v2.get(ctx(), 'a')).apiVersion, 'example.com/v2');
  assert.equal((await v1.get(ctx(), 'a')).apiVersion, 'example.com/v1');
  const list = await v2.list(ctx(), {});
  assert.equal(list.apiVersion, 'example.com/v2');
  assert.equal(list.items[0].apiVersion, 'example.com/v2');
  const { kv } = await f.storage.get('/registry/example.com/widgets/default/a');
  assert.equal(JSON.parse(kv!.value).apiVersion, 'example.com/v1');
});

async function seed(n: number) {
  const f = await fixture();
  await f.namespaces.create(ctx(''), { metadata: { name: 'other' } });
  const s = f.store(widgets());
  for (let i = 0; i < n; i++) {
    await s.create(ctx(i % 2 ? 'other' : 'default'), { metadata: { name: `w${i}`, labels: { parity: i % 2 ? 'odd' : 'even', idx: String(i) } }, spec: { color: i < 3 ? 'red' : 'blue' } });
  }
  return { f, s };
}

test('list: one namespace or all, with label and field selectors', async () => {
  const { s } = await seed(6);
  const names = (l: { items: { metadata: { name?: string } }[] }) => l.items.map((i) => i.metadata.name);
  const all = await s.list(ctx(''), {});
  assert.equal(all.kind, 'WidgetList');
  assert.deepEqual(names(all), ['w0', 'w2', 'w4', 'w1', 'w3', 'w5']);
  assert.deepEqual(names(await s.list(ctx('other'), {})), ['w1', 'w3', 'w5']);
  assert.deepEqual(names(await s.list(ctx(''), { labelSelector: 'parity=even,idx notin (2)' })), ['w0', 'w4']);
  assert.deepEqual(names(await s.list(ctx(''), { labelSelector: '!nothing,idx' })).length, 6);
  assert.deepEqual(names(await s.list(ctx(''), { fieldSelector: 'spec.color=red' })), ['w0', 'w2', 'w1']);
  assert.deepEqual(names(await s.list(ctx(''), { fieldSelector: 'metadata.namespace=other,metadata.name!=w3' })), ['w1', 'w5']);
  assert.deepEqual(names(await s.list(ctx(''), { fieldSelector: 'metadata.name=w4' })), ['w4']);
  const unsupported = await rejection(s.list(ctx(''), { fieldSelector: 'spec.size=1' }));
  assert.equal(unsupported.code, 400);
  assert.equal(unsupported.message, 'field label not supported: spec.size');
  const badLabel = await rejection(s.list(ctx(''), { labelSelector: 'a in' }));
  assert.equal(badLabel.code, 400);
  assert.equal(badLabel.message, "unable to parse requirement: found '' expected: '('");
});

test('list: limit and continue page through one consistent snapshot', async () => {
  const { s } = await seed(5);
  const p1 = await s.list(ctx(''), { limit: 2 });
  assert.deepEqual(p1.items.map((i) => i.metadata.name), ['w0', 'w2']);
  assert.equal(p1.metadata.remainingItemCount, 3);
  const token = JSON.parse(Buffer.from(p1.metadata.continue!, 'base64url').toString());
  assert.deepEqual(token, { v: 'meta.k8s.io/v1', rv: Number(p1.metadata.resourceVersion), start: 'default/w2\u0000' });
  // Changes after the first page are not seen by the following pages.
  await s.create(ctx(), { metadata: { name: 'w9' } });
  await s.delete(ctx('other'), 'w3');
  const p2 = await s.list(ctx(''), { limit: 2, continue: p1.metadata.continue });
  assert.deepEqual(p2.items.map((i) => i.metadata.name), ['w4', 'w1']);
  assert.equal(p2.metadata.resourceVersion, p1.metadata.resourceVersion);
  const p3 = await s.list(ctx(''), { limit: 2, continue: p2.metadata.continue });
  assert.deepEqual(p3.items.map((i) => i.metadata.name), ['w3']);
  assert.equal(p3.metadata.continue, undefined);
  assert.equal(p3.metadata.remainingItemCount, undefined);
  // With a selector the page is filled from further batches and no remaining count is given.
  const sel = await s.list(ctx(''), { limit: 1, labelSelector: 'parity=odd' });
  assert.deepEqual(sel.items.map((i) => i.metadata.name), ['w1']);
  assert.equal(sel.metadata.continue, undefined, 'w1 was the last key read');
  const sel2 = await s.list(ctx(''), { limit: 1, labelSelector: 'idx=4' });
  assert.deepEqual(sel2.items.map((i) => i.metadata.name), ['w4']);
  assert.ok(sel2.metadata.continue);
  assert.equal(sel2.metadata.remainingItemCount, undefined);
});

test('list: bad continue tokens, resourceVersion with continue, and an expired snapshot', async () => {
  const { f, s } = await seed(4);
  assert.equal((await rejection(s.list(ctx(''), { continue: 'xyz!' }))).message, 'invalid continue token: continue key is not valid: illegal base64 data at input byte 3');
  const p1 = await s.list(ctx(''), { limit: 1 });
  assert.equal((await rejection(s.list(ctx(''), { limit: 1, continue: p1.metadata.continue, resourceVersion: '3' }))).message, 'specifying resource version is not allowed when using continue');
  await s.create(ctx(), { metadata: { name: 'late' } });
  await f.storage.compact(await f.storage.currentRevision());
  const expired = await rejection(s.list(ctx(''), { limit: 1, continue: p1.metadata.continue }));
  assert.equal(expired.code, 410);
  assert.equal(expired.reason, 'Expired');
  assert.equal(
    expired.message,
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue value from the response body.',
  );
  const fresh = (expired.metadata as { continue: string }).continue;
  assert.deepEqual(JSON.parse(Buffer.from(fresh, 'base64url').toString()), { v: 'meta.k8s.io/v1', rv: -1, start: 'default/w0\u0000' });
  const resumed = await s.list(ctx(''), { limit: 10, continue: fresh });
  // At the newest revision, from the same key on: "late" sorts before it and is not seen.
  assert.deepEqual(resumed.items.map((i) => i.metadata.name), ['w2', 'w1', 'w3']);
  const exactOld = await rejection(s.list(ctx(''), { resourceVersion: '2', resourceVersionMatch: 'Exact' }));
  assert.equal(exactOld.message, 'The resourceVersion for the provided list is too old.');
});

test('list: exact reads at an old revision; ListOptions are validated as kube does', async () => {
  const { s } = await seed(2);
  const rv = (await s.list(ctx(''), {})).metadata.resourceVersion!;
  await s.create(ctx(), { metadata: { name: 'new' } });
  const exact = await s.list(ctx(''), { resourceVersion: rv, resourceVersionMatch: 'Exact' });
  assert.equal(exact.metadata.resourceVersion, rv);
  assert.equal(exact.items.length, 2);
  const legacy = await s.list(ctx(''), { resourceVersion: rv, limit: 10 });
  assert.equal(legacy.items.length, 2, 'limit with a resourceVersion reads exactly there');
  const notOlder = await s.list(ctx(''), { resourceVersion: rv });
  assert.ok(Number(notOlder.metadata.resourceVersion) >= Number(rv), 'not older than rv');
  assert.equal((await s.list(ctx(''), {})).items.length, 3, 'a consistent list: the newest state');
  const invalid = await rejection(s.list(ctx(''), { resourceVersionMatch: 'Exact' }));
  assert.equal(invalid.code, 422);
  assert.equal(invalid.message, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
});

test('cluster-scoped kinds clear a namespace and are keyed without one', async () => {
  const f = await fixture();
  const s = f.store(definition({ group: 'example.com', version: 'v1', resource: 'gadgets', kind: 'Gadget', namespaced: false }));
  const out = await s.create(ctx(''), { metadata: { name: 'g', namespace: 'default' } });
  assert.equal(out.metadata.namespace, undefined);
  assert.ok((await f.storage.get('/registry/example.com/gadgets/g')).kv);
});
