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
});
