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

test('a consistent get answers from the cache once it has seen storage\'s revision, from storage while it lags: always the newest state', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  const fromCache = async (name: string) => {
    const answer = await s.getStored!(ctx(), name);
    return 'stored' in answer && answer.layout === undefined;
  };
  const caughtUp = async () => {
    for (let i = 0; i < 100 && !(await fromCache('w0')); i++) await new Promise((r) => setImmediate(r));
    return fromCache('w0');
  };
  for (let i = 0; i < 10; i++) {
    const made = await s.create(ctx(), { metadata: { name: `w${i}` }, spec: { n: i } });
    assert.equal((await s.get(ctx(), `w${i}`)).metadata.resourceVersion, made.metadata.resourceVersion, 'the write just made');
    assert.equal(await caughtUp(), true, 'served from the cache once it has seen the write');
    const updated = await s.update(ctx(), `w${i}`, (o) => ({ ...o!, spec: { n: -i - 1 } }));
    const got = await s.get(ctx(), `w${i}`);
    assert.deepEqual([got.metadata.resourceVersion, got.spec], [updated.object.metadata.resourceVersion, { n: -i - 1 }], 'the update just made');
    // A write outside the cache's prefix: the cache cannot know it has seen everything until storage says so.
    await f.namespaces.create(ctx(''), { metadata: { name: `ns${i}` } });
    assert.equal(await fromCache('w0'), false, 'read from storage while the cache lags');
    assert.equal(await caughtUp(), true, 'the cache catches up by itself');
  }
  await f.storage.delete('/registry/example.com/widgets/default/w3');
  await assert.rejects(s.get(ctx(), 'w3'), /not found/, 'a delete made directly in storage');
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

test('paged lists answered by the watch cache are the pages storage gives: items, continue tokens, remainingItemCount', async () => {
  const f = await fixture();
  const cached = f.store(widgets());
  const direct = f.store(widgets(), { watchCache: false });
  for (let i = 0; i < 23; i++) await cached.create(ctx(), { metadata: { name: `w${String(i).padStart(2, '0')}`, labels: { odd: String(i % 2 === 1) } } });
  await cached.create(ctx('kube-system'), { metadata: { name: 'elsewhere' } }).catch(() => undefined);
  const { rawListItems } = await import('./list-json.ts');
  const show = (l: Awaited<ReturnType<typeof cached.list>>) => JSON.stringify({ metadata: l.metadata, items: Buffer.from(rawListItems(l) ?? []).toString() });
  const walk = async (store: typeof cached, options: Record<string, unknown>, writeAfterFirst: boolean) => {
    const pages: string[] = [];
    let token: string | undefined;
    do {
      const list = await store.list(ctx(), { ...options, limit: 5, ...(token ? { continue: token } : {}) });
      pages.push(show(list));
      token = list.metadata.continue;
      if (writeAfterFirst && pages.length === 1) await cached.create(ctx(), { metadata: { name: `late-${options.labelSelector ?? ''}` } });
    } while (token);
    return pages;
  };
  // The cache applies storage events once per event-loop turn.
  await new Promise((r) => setTimeout(r, 10));
  const pageAt = cached.core.cache!.pageAt.bind(cached.core.cache);
  let fromCache = 0;
  cached.core.cache!.pageAt = (...args) => {
    const page = pageAt(...args);
    if (page) fromCache++;
    return page;
  };
  for (const options of [{}, { labelSelector: 'odd=true' }]) {
    const want = await walk(direct, options, false);
    assert.deepEqual(await walk(cached, options, false), want);
    assert.ok(want.length > 1 && want[0].includes('remainingItemCount') === !('labelSelector' in options));
  }
  // A write during the walk: later pages read storage at the token's revision, as before.
  const rv = (await direct.list(ctx(), {})).metadata.resourceVersion;
  const pagesDuring = await walk(cached, {}, true);
  assert.ok(pagesDuring.every((p) => JSON.parse(p).metadata.resourceVersion === rv));
  assert.ok(!pagesDuring.join('').includes('late-'));
  assert.ok(fromCache >= 10, `${fromCache} pages from the cache`);

  // A write to another resource moves storage's revision past what this cache has heard: the walk waits for the
  // cache to catch up rather than reading storage, and gets the same pages.
  await f.namespaces.create(ctx(''), { metadata: { name: 'elsewhere-moved' } });
  fromCache = 0;
  const want = await walk(direct, {}, false);
  const got = await walk(cached, {}, false);
  assert.deepEqual(got, want);
  assert.equal(fromCache, got.length, 'every page from the cache');
});
