import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runStorageConformance } from '../conformance.ts';
import { StorageError } from '../types.ts';
import { COMPACT_REV_KEY, compactOnce } from './etcd-compactor.ts';
import { openEtcdStorage } from './etcd-storage.ts';
import { startEtcdCluster, type EtcdCluster } from './test-cluster.ts';

let cluster: EtcdCluster;
before(async () => {
  cluster = await startEtcdCluster(1);
});
after(async () => {
  await cluster?.close();
});

let n = 0;
const fresh = () => openEtcdStorage({ servers: cluster.clientUrls, localPrefix: '', remotePrefix: `/conformance-${n++}`, relativeRevisions: true });

runStorageConformance('etcd', fresh);

test('etcd: keys live under --etcd-prefix in place of the registry root', async () => {
  const s = await openEtcdStorage({ servers: cluster.clientUrls, localPrefix: '/registry', remotePrefix: '/other-root' });
  try {
    const made = await s.create('/registry/configmaps/default/a', '{"a":1}');
    const res = await s.connection.kv.range({ key: Buffer.from('/other-root/configmaps/default/a') });
    assert.equal(res.kvs[0].value.toString(), '{"a":1}');
    assert.equal(Number(res.kvs[0].mod_revision), made.modRevision, 'revisions are etcd revisions');
    assert.deepEqual((await s.range('/registry/configmaps/')).kvs.map((k) => k.key), ['/registry/configmaps/default/a']);
    await assert.rejects(s.create('/elsewhere/x', 'v'), /lies outside/);
  } finally {
    await s.close();
  }
});

test("etcd: kube's compactor: of two instances one compacts per round, to the revision seen a round earlier", async () => {
  const open = () => openEtcdStorage({ servers: cluster.clientUrls, localPrefix: '/registry', remotePrefix: '/compact-test' });
  const a = await open();
  const b = await open();
  try {
    let sa = await compactOnce(a, { version: 0, revision: 0 });
    assert.equal(sa.version, 1, 'the first round only records a revision');
    assert.equal(a.compactedRevision(), 0);
    let sb = await compactOnce(b, { version: 0, revision: 0 });
    assert.equal(sb.version, 1, 'the loser learns the version');
    const first = await a.create('/registry/x/1', 'v1');
    await a.update('/registry/x/1', 'v2', first.modRevision);
    const target = sa.revision;
    sa = await compactOnce(a, sa);
    assert.equal(sa.version, 2);
    assert.equal(a.compactedRevision(), target);
    await assert.rejects(a.get('/registry/x/1', target - 1), (e: unknown) => e instanceof StorageError && e.code === 'Compacted');
    sb = await compactOnce(b, sb);
    assert.equal(sb.version, 2, 'b lost this round too');
    assert.equal(b.compactedRevision(), target, 'b learns the compacted revision from the key');
    assert.equal((await a.connection.kv.range({ key: Buffer.from(COMPACT_REV_KEY) })).kvs[0].value.toString(), String(target));
  } finally {
    await a.close();
    await b.close();
  }
});

test('etcd: two stores on one etcd see each other\'s writes through their feeds, and reads at etcd revisions', async () => {
  const open = () => openEtcdStorage({ servers: cluster.clientUrls, localPrefix: '/registry', remotePrefix: '/shared' });
  const a = await open();
  const b = await open();
  try {
    const seen: string[] = [];
    const from = await b.currentRevision();
    const w = b.watch('/registry/cm/', from, { onEvents: (evs) => seen.push(...evs.map((e) => `${e.type} ${e.kv.key} ${e.kv.modRevision}`)), onError: () => {} });
    const made = await a.create('/registry/cm/one', 'x');
    const gone = await a.delete('/registry/cm/one');
    assert.deepEqual((await b.get('/registry/cm/one', made.modRevision)).kv, made);
    await b.waitFeed(gone.modRevision, 3000);
    const progressed = new Promise<number>((resolve) => {
      const h = b.watch('/registry/cm/', gone.modRevision, { onEvents: () => {}, onError: () => {}, onProgress: (rev) => { h.stop(); resolve(rev); } });
      h.requestProgress?.();
    });
    assert.ok((await progressed) >= gone.modRevision, 'progress reaches the newest revision');
    assert.deepEqual(seen, [`put /registry/cm/one ${made.modRevision}`, `delete /registry/cm/one ${gone.modRevision}`]);
    w.stop();
  } finally {
    await a.close();
    await b.close();
  }
});
