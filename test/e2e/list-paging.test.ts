// Paging with @kubernetes/client-node against a real Capstan: 1,000 objects in pages of 7 over one consistent
// snapshot while writers keep creating, updating and deleting.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestServer, type TestServer } from './helpers.ts';
import { cmPath, keepAliveClient, namespace } from './stream.ts';

describe('list paging', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  test('client-node: 1,000 objects in pages of 7, each exactly once, while writers keep writing', async () => {
    const ns = await namespace(s, 'l-paged');
    const total = 1000;
    const kc = new k8s.KubeConfig();
    kc.loadFromString(s.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const queue = Array.from({ length: total }, (_, i) => `o${String(i).padStart(4, '0')}`);
    const client = keepAliveClient(s);
    await Promise.all(Array.from({ length: 8 }, async () => {
      for (let n = queue.shift(); n !== undefined; n = queue.shift()) await client.send('POST', cmPath(ns), { metadata: { name: n }, data: { k: 'v' } });
    }));

    let writing = true;
    let writes = 0;
    let writers: Promise<void>[] = [];
    const startWriters = () => Array.from({ length: 3 }, async (_, w) => {
      for (let i = 0; writing; i++) {
        const target = `o${String((i * 37 + w * 101) % total).padStart(4, '0')}`;
        if (i % 3 === 0) await client.send('POST', cmPath(ns), { metadata: { name: `new-${w}-${i}` } });
        else if (i % 3 === 1) await client.send('PUT', cmPath(ns, target), { metadata: { name: target }, data: { w: String(i) } });
        else await client.send('DELETE', cmPath(ns, target));
        writes++;
      }
    });

    const seen = new Map<string, number>();
    let cont: string | undefined;
    let rv: string | undefined;
    let pages = 0;
    try {
    do {
      const page = await core.listNamespacedConfigMap({ namespace: ns, limit: 7, _continue: cont });
      pages++;
      // The writers start once the snapshot is fixed by the first page.
      if (pages === 1) writers = startWriters();
      rv ??= page.metadata?.resourceVersion;
      assert.equal(page.metadata?.resourceVersion, rv, 'one resourceVersion for every page');
      for (const item of page.items) seen.set(item.metadata!.name!, (seen.get(item.metadata!.name!) ?? 0) + 1);
      cont = page.metadata?._continue || undefined;
      if (cont) assert.equal(page.metadata?.remainingItemCount, total - seen.size);
    } while (cont);
    } finally {
      writing = false;
      await Promise.all(writers);
      client.close();
    }
    assert.ok(writes > 20, `writers wrote ${writes} times meanwhile`);
    assert.equal(pages, Math.ceil(total / 7));
    assert.equal(seen.size, total);
    assert.ok([...seen.values()].every((n) => n === 1), 'no object twice');
    assert.ok([...seen.keys()].every((n) => n.startsWith('o')), 'nothing written after the snapshot');
  });

});
