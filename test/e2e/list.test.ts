// Lists against a real Capstan: kube 1.31's resourceVersion / resourceVersionMatch / limit / continue table,
// its errors, kubectl --chunk-size, continue tokens after compaction, and cache-served lists byte-identical to
// storage-served ones. Paging while writers write is in list-paging.test.ts.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from './helpers.ts';
import { call, cmPath, createCm, namespace, patchCm, rvOf, type Json } from './stream.ts';

async function get(s: TestServer, path: string): Promise<{ status: number; body: Json; headers: Record<string, unknown>; raw: string }> {
  const r = await s.adminRequest(path);
  return { status: r.status, body: JSON.parse(r.body) as Json, headers: r.headers, raw: r.body };
}

async function list(s: TestServer, path: string): Promise<Json> {
  const r = await get(s, path);
  assert.equal(r.status, 200, `${path}: ${r.raw}`);
  return r.body;
}

const names = (l: Json) => (l.items as Json[]).map((i) => i.metadata.name as string);

describe('list', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  test('resourceVersion, resourceVersionMatch and limit: which state each row serves', async () => {
    const ns = await namespace(s, 'l-table');
    const a = await createCm(s, ns, 'a');
    const b = await createCm(s, ns, 'b');
    await createCm(s, ns, 'c');
    const a2 = await patchCm(s, ns, 'a', { data: { k: 'new' } });
    const base = cmPath(ns);

    // Unset: the newest state (a consistent read), whole.
    const newest = await list(s, base);
    assert.deepEqual(names(newest), ['a', 'b', 'c']);
    assert.ok(Number(newest.metadata.resourceVersion) >= Number(rvOf(a2)));
    assert.equal(newest.items[0].data.k, 'new');
    assert.equal(newest.metadata.continue, undefined);

    // "0": any state, and the cache ignores limit (no continue).
    const any = await list(s, `${base}?resourceVersion=0&limit=1`);
    assert.deepEqual(names(any), ['a', 'b', 'c']);
    assert.equal(any.metadata.continue, undefined);
    assert.deepEqual(names(await list(s, `${base}?resourceVersion=0&resourceVersionMatch=NotOlderThan&limit=1`)), ['a', 'b', 'c']);

    // N, or NotOlderThan N: a state at least as new as N.
    for (const q of [`resourceVersion=${rvOf(b)}`, `resourceVersion=${rvOf(b)}&resourceVersionMatch=NotOlderThan`]) {
      const l = await list(s, `${base}?${q}`);
      assert.ok(Number(l.metadata.resourceVersion) >= Number(rvOf(b)), q);
      assert.deepEqual(names(l), ['a', 'b', 'c'], q);
    }

    // Exact N: the state at N.
    const exact = await list(s, `${base}?resourceVersion=${rvOf(b)}&resourceVersionMatch=Exact`);
    assert.equal(exact.metadata.resourceVersion, rvOf(b));
    assert.deepEqual(names(exact), ['a', 'b']);
    assert.equal(exact.items[0].data.k, 'v');
    assert.equal(exact.items[0].metadata.resourceVersion, rvOf(a));

    // limit with N (legacy): exact at N, paged.
    const legacy = await list(s, `${base}?resourceVersion=${rvOf(b)}&limit=1`);
    assert.deepEqual(names(legacy), ['a']);
    assert.equal(legacy.metadata.resourceVersion, rvOf(b));
    assert.equal(legacy.metadata.remainingItemCount, 1);
    const legacy2 = await list(s, `${base}?limit=1&continue=${legacy.metadata.continue}`);
    assert.deepEqual(names(legacy2), ['b']);
    assert.equal(legacy2.metadata.resourceVersion, rvOf(b));
    assert.equal(legacy2.metadata.continue, undefined);

    // limit without resourceVersion: pages of the newest state, one resourceVersion throughout.
    const p1 = await list(s, `${base}?limit=2`);
    assert.deepEqual(names(p1), ['a', 'b']);
    assert.equal(p1.metadata.remainingItemCount, 1);
    await createCm(s, ns, 'b2');
    const p2 = await list(s, `${base}?limit=2&continue=${p1.metadata.continue}`);
    assert.deepEqual(names(p2), ['c'], 'b2 came after the snapshot');
    assert.equal(p2.metadata.resourceVersion, p1.metadata.resourceVersion);
    assert.equal(p2.metadata.continue, undefined);
    assert.equal(p2.metadata.remainingItemCount, undefined);
    // A selector makes the remaining count unknowable.
    const selected = await list(s, `${base}?limit=1&fieldSelector=metadata.name!%3Dzzz`);
    assert.ok(selected.metadata.continue);
    assert.equal(selected.metadata.remainingItemCount, undefined);
  });

  test('a future resourceVersion: cache reads wait, then 504 with Retry-After; storage reads answer at once', async () => {
    const ns = await namespace(s, 'l-future');
    const made = await createCm(s, ns, 'a');
    const future = Number(rvOf(made)) + 1000;
    const t0 = Date.now();
    const [l, g] = await Promise.all([get(s, `${cmPath(ns)}?resourceVersion=${future}`), get(s, `${cmPath(ns, 'a')}?resourceVersion=${future}`)]);
    const waited = Date.now() - t0;
    assert.ok(waited >= 2900 && waited < 4500, `waited ${waited} ms`);
    for (const r of [l, g]) {
      assert.equal(r.status, 504);
      assert.equal(r.headers['retry-after'], '1');
      assert.equal(r.body.reason, 'Timeout');
      assert.match(r.body.message, new RegExp(`^Timeout: Too large resource version: ${future}, current: \\d+$`));
      assert.deepEqual(r.body.details, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 });
    }
    // Served by storage (a limit, or Exact): no wait, no retry hint.
    for (const q of [`resourceVersion=${future}&resourceVersionMatch=NotOlderThan&limit=5`, `resourceVersion=${future}&resourceVersionMatch=Exact`]) {
      const t1 = Date.now();
      const r = await get(s, `${cmPath(ns)}?${q}`);
      assert.ok(Date.now() - t1 < 1000, q);
      assert.equal(r.status, 504, q);
      assert.equal(r.headers['retry-after'], undefined, q);
      assert.deepEqual(r.body.details, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] }, q);
    }
  });

  test('invalid combinations are refused with kube messages', async () => {
    const ns = await namespace(s, 'l-invalid');
    await createCm(s, ns, 'a');
    await createCm(s, ns, 'b');
    const token = (await list(s, `${cmPath(ns)}?limit=1`)).metadata.continue as string;
    const cases: Array<[string, number, string]> = [
      ['resourceVersionMatch=Exact', 422, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
      ['resourceVersionMatch=Exact&resourceVersion=0', 422, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
      ['resourceVersionMatch=Newest&resourceVersion=1', 422, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""'],
      [`continue=${token}&resourceVersionMatch=NotOlderThan&resourceVersion=0`, 422, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided'],
      ['sendInitialEvents=true', 422, 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
      [`continue=${token}&resourceVersion=5`, 400, 'specifying resource version is not allowed when using continue'],
      ['continue=abc!', 400, 'invalid continue token: continue key is not valid: illegal base64 data at input byte 3'],
      ['resourceVersion=abc&limit=5', 400, 'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'],
      ['resourceVersion=abc', 500, 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'],
      ['watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan', 422, 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'],
    ];
    for (const [q, code, message] of cases) {
      const r = await get(s, `${cmPath(ns)}?${q}`);
      assert.equal(r.status, code, `${q}: ${r.raw}`);
      assert.equal(r.body.message, message, q);
    }
    // A continue token keeps working with resourceVersion "0" (kube allows it).
    assert.deepEqual(names(await list(s, `${cmPath(ns)}?continue=${token}&resourceVersion=0`)), ['b']);
  });

  test('a list served from the cache is byte-identical to the same list read from storage', async () => {
    const ns = await namespace(s, 'l-bytes');
    await createCm(s, ns, 'a', { app: 'x' }, { text: '<b>&"quoted"\u2028</b>', more: 'ü' });
    await call(s, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      metadata: { name: 'd', labels: { app: 'x' } },
      spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    for (const path of [cmPath(ns), `/apis/apps/v1/namespaces/${ns}/deployments`]) {
      const cached = await s.adminRequest(`${path}?resourceVersion=0`);
      const rv = (JSON.parse(cached.body) as Json).metadata.resourceVersion;
      const stored = await s.adminRequest(`${path}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
      assert.equal(cached.body, stored.body, path);
      assert.ok(cached.body.endsWith('\n'));
      // The same as the decoding path (a pretty response is re-encoded object by object).
      const pretty = await s.adminRequest(`${path}?resourceVersion=${rv}&resourceVersionMatch=Exact&pretty=true`);
      assert.deepEqual(JSON.parse(pretty.body), JSON.parse(cached.body));
    }
  });

  test('kubectl get --chunk-size=3 pages through the list', async () => {
    const ns = await namespace(s, 'l-kubectl');
    for (let i = 0; i < 8; i++) await createCm(s, ns, `cm-${i}`);
    const r = await s.kubectl(['get', 'configmaps', '-n', ns, '--chunk-size=3', '-o', 'name', '-v=6']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), Array.from({ length: 8 }, (_, i) => `configmap/cm-${i}`));
    const pageRequests = r.stderr.split('\n').filter((l) => /GET .*\/configmaps\?.*limit=3/.test(l));
    assert.equal(pageRequests.length, 3, r.stderr);
    assert.equal(pageRequests.filter((l) => l.includes('continue=')).length, 2);
  });
});

describe('list continue tokens and compaction', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ historyWindowSeconds: 1 });
  });
  after(async () => {
    await s?.close();
  });

  test('a token whose snapshot was compacted is 410 Expired with a token that continues at the newest state', async () => {
    const ns = await namespace(s, 'c-expired');
    for (const n of ['a', 'b', 'c']) await createCm(s, ns, n);
    const first = await list(s, `${cmPath(ns)}?limit=1`);
    const rv = first.metadata.resourceVersion as string;
    await createCm(s, ns, 'd');
    // Compaction keeps about one second of history here.
    await new Promise((r) => setTimeout(r, 1600));
    const expired = await get(s, `${cmPath(ns)}?limit=1&continue=${first.metadata.continue}`);
    assert.equal(expired.status, 410);
    assert.equal(expired.body.reason, 'Expired');
    assert.equal(
      expired.body.message,
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue value from the response body.',
    );
    const fresh = expired.body.metadata.continue as string;
    assert.ok(fresh);
    const resumed = await list(s, `${cmPath(ns)}?limit=10&continue=${fresh}`);
    assert.deepEqual(names(resumed), ['b', 'c', 'd']);
    assert.ok(Number(resumed.metadata.resourceVersion) > Number(rv));
    const old = await get(s, `${cmPath(ns)}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.equal(old.status, 410);
    assert.equal(old.body.message, 'The resourceVersion for the provided list is too old.');
  });
});
