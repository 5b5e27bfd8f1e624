import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import etcd3 from 'etcd3';
import { retryable, unary } from './etcd-client.ts';
import { openEtcdStorage, type EtcdStorage } from './etcd-storage.ts';
import { startEtcdCluster, type EtcdCluster } from './test-cluster.ts';

// grpc-js's words for a call that found no connection, and etcd's for a member that lost its leader.
const refused = new etcd3.GRPCUnavailableError('14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED 127.0.0.1:2379');
const leaderChanged = new etcd3.GRPCUnavailableError('14 UNAVAILABLE: etcdserver: leader changed');

test("etcd retries: clientv3's rules, a write only when it never reached a member", () => {
  assert.equal(retryable('repeatable', refused), true);
  assert.equal(retryable('repeatable', leaderChanged), true);
  assert.equal(retryable('nonRepeatable', refused), true);
  assert.equal(retryable('nonRepeatable', leaderChanged), false, 'the write may have been applied');
  assert.equal(retryable('repeatable', new etcd3.GRPCDeadlineExceededError('4 DEADLINE_EXCEEDED: Deadline exceeded')), false);
  assert.equal(retryable('repeatable', new etcd3.EtcdError('etcdserver: mvcc: required revision has been compacted')), false);
});

let cluster: EtcdCluster;
let storage: EtcdStorage;
before(async () => {
  cluster = await startEtcdCluster(3);
  storage = await openEtcdStorage({ servers: cluster.clientUrls, localPrefix: '/registry', remotePrefix: '/registry' });
});
after(async () => {
  await storage?.close();
  await cluster?.close();
});

async function leaderIndex(): Promise<number> {
  const ids: string[] = [];
  let leader = '';
  for (const url of cluster.clientUrls) {
    const one = new etcd3.Etcd3({ hosts: url });
    try {
      const status = await one.maintenance.status();
      ids.push(status.header.member_id);
      leader = status.leader;
    } finally {
      one.close();
    }
  }
  const index = ids.indexOf(leader);
  assert.ok(index >= 0, `leader ${leader} is one of ${ids.join(', ')}`);
  return index;
}

test('etcd: a killed leader: the writes it held time out alone; reads and writes after the election answer', async () => {
  // Calls here have a 1 s deadline, so a write the dead leader held times out within the test.
  const quick = await openEtcdStorage({ servers: cluster.clientUrls, localPrefix: '/registry', remotePrefix: '/registry', callTimeoutMs: 1000 });
  const victim = await leaderIndex();
  try {
    const made = await quick.create('/registry/configmaps/default/election', 'v');
    await cluster.kill(victim);
    // Writes sent now may be on their way to the dead leader, or reach a member that forwards them to it: etcd loses
    // those proposals and the calls end at their deadline. They must not take the healthy members down with them.
    const held = Array.from({ length: 8 }, (_, i) => quick.create(`/registry/configmaps/default/held-${i}`, 'v').then(() => 'ok', (e: Error) => e.message));
    for (const outcome of await Promise.all(held)) assert.match(outcome, /^ok$|^context deadline exceeded$|^etcd: (etcdserver: request timed out(, possibly due to previous leader failure)?|etcdserver: leader changed|Connection dropped)$/);
    const failures: string[] = [];
    for (let wave = 0; wave < 10; wave++) {
      const reads = Array.from({ length: 10 }, () => quick.get('/registry/configmaps/default/election'));
      const writes = Array.from({ length: 4 }, (_, i) => quick.create(`/registry/configmaps/default/after-${wave}-${i}`, 'v'));
      for (const a of await Promise.allSettled([...reads, ...writes])) if (a.status === 'rejected') failures.push(String((a.reason as Error).message));
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(failures, []);
    assert.equal((await quick.get('/registry/configmaps/default/election')).kv?.modRevision, made.modRevision);
  } finally {
    await quick.close();
    await cluster.restart(victim);
  }
});

test('etcd: a dead follower: once the client has seen it gone, every write lands through the other members', async () => {
  // The member the test before restarted may still be in the client's reconnect backoff (up to 1 s): with it and the
  // dead follower both refusing, the first reads could find no connected member for longer than the client waits.
  await new Promise((r) => setTimeout(r, 1500));
  const follower = ((await leaderIndex()) + 1) % 3;
  await cluster.kill(follower);
  try {
    // A write sent on the dead member's connection before the client noticed it close ends "Connection dropped" and
    // is not retried (it may have been applied), as clientv3 does not retry it; reads are retried elsewhere, and
    // leave the client knowing.
    for (let i = 0; i < 6; i++) assert.equal((await storage.get('/registry/configmaps/default/dead-member-none')).kv, undefined);
    for (let i = 0; i < 40; i++) {
      const key = `/registry/configmaps/default/dead-member-${i}`;
      const made = await storage.create(key, 'a');
      const updated = await storage.update(key, 'b', made.modRevision);
      assert.ok(updated.modRevision > made.modRevision);
    }
  } finally {
    await cluster.restart(follower);
  }
});

test('etcd retries: a call that found no connection after a stall goes on to the next member; a cluster that never answers fails fast', async () => {
  const members = 3;
  // The first attempt is held past the no-member time (a stalled event loop, a slow dead member) and finds no
  // connection: the live member the next attempt reaches answers.
  let attempts = 0;
  const answer = await unary('nonRepeatable', async () => {
    attempts++;
    if (attempts === 1) {
      await new Promise((r) => setTimeout(r, 400));
      throw refused;
    }
    return 'written';
  }, Date.now() + 5000, members);
  assert.deepEqual([answer, attempts], ['written', 2]);

  // No member ever takes a connection: the call fails with grpc-js's error well before its deadline.
  const started = Date.now();
  let tries = 0;
  await assert.rejects(unary('repeatable', async () => {
    tries++;
    throw refused;
  }, Date.now() + 5000, members), refused);
  const took = Date.now() - started;
  assert.ok(took >= 300 && took < 2000, `failed after ${took} ms`);
  assert.ok(tries >= 4 * members, `${tries} attempts`);

  // A member that answers "leader changed" keeps a read waiting for the election, up to the deadline.
  let reads = 0;
  const read = await unary('repeatable', async () => {
    reads++;
    if (reads < 20) throw reads % 2 === 0 ? leaderChanged : refused;
    return 'read';
  }, Date.now() + 5000, members);
  assert.equal(read, 'read');
});
