import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listFromStorage } from './store-read.ts';
import { ctx, fixture, widgets } from './store-testing.ts';

test('which lists go to storage: kube 1.31 shouldDelegateList', () => {
  const rows: Array<[Record<string, unknown>, boolean]> = [
    [{}, false],
    [{ resourceVersion: '0' }, false],
    [{ resourceVersion: '0', limit: 5 }, false],
    [{ resourceVersion: '7' }, false],
    [{ resourceVersion: '7', resourceVersionMatch: 'NotOlderThan' }, false],
    [{ resourceVersion: '0', resourceVersionMatch: 'NotOlderThan', limit: 5 }, false],
    [{ limit: 5 }, true],
    [{ resourceVersion: '7', limit: 5 }, true],
    [{ resourceVersion: '7', resourceVersionMatch: 'NotOlderThan', limit: 5 }, true],
    [{ resourceVersion: '7', resourceVersionMatch: 'Exact' }, true],
    [{ continue: 'x' }, true],
    [{ continue: 'x', resourceVersion: '0' }, true],
  ];
  for (const [options, storage] of rows) assert.equal(listFromStorage(options, true), storage, JSON.stringify(options));
  assert.equal(listFromStorage({}, false), true, 'without ConsistentListFromCache a consistent read goes to storage');
  assert.equal(listFromStorage({ resourceVersion: '0' }, false), false);
});

test('a consistent list from the cache sees a write made just before it, even one to another resource', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  for (let i = 0; i < 20; i++) {
    await s.create(ctx(), { metadata: { name: `w${i}` } });
    const l = await s.list(ctx(), {});
    assert.equal(l.items.length, i + 1);
    await f.namespaces.create(ctx(''), { metadata: { name: `ns${i}` } });
    const again = await s.list(ctx(), {});
    assert.equal(again.metadata.resourceVersion, String(await f.storage.currentRevision()), 'the list revision is storage\'s current one');
  }
});

test('without the ConsistentListFromCache gate, and without a cache, reads still answer the newest state', async () => {
  const f = await fixture();
  for (const extra of [{ featureGates: { ConsistentListFromCache: false } }, { watchCache: false as const }]) {
    const s = f.store(widgets(), extra);
    const made = await s.create(ctx(), { metadata: { name: `x${Object.keys(extra)[0]}` } });
    const l = await s.list(ctx(), {});
    assert.ok(l.items.some((i) => i.metadata.name === made.metadata.name));
    assert.equal((await s.get(ctx(), made.metadata.name!, { resourceVersion: made.metadata.resourceVersion })).metadata.uid, made.metadata.uid);
  }
});
