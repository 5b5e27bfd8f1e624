import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runStorageConformance } from '../conformance.ts';
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
