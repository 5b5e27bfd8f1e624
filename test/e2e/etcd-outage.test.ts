// etcd fully down under load (real etcd started by the test): every request is answered with a Status (500, or
// 504 past the request timeout), never hangs and never crashes the server; /readyz fails while etcd is away; all of
// it recovers by itself once etcd is back. The outage lasts ~3 s here (the 10 s, scaled down for CI time):
// the behaviour does not depend on the length, since failed etcd calls fail fast and reconnection backoff is capped
// at 1 s.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcdCluster, type EtcdCluster } from '../../src/storage/etcd/test-cluster.ts';
import { startTestServer, type RawResponse, type TestServer } from './helpers.ts';

let etcd: EtcdCluster;
let server: TestServer;

before(async () => {
  etcd = await startEtcdCluster(1);
  server = await startTestServer({ storageBackend: 'etcd3', etcd: { servers: etcd.clientUrls, compactionIntervalMs: 0 }, requestTimeoutSeconds: 8 });
});

after(async () => {
  await server?.close();
  await etcd?.close();
});

const cm = (name: string) => JSON.stringify({ metadata: { name }, data: { k: name } });

interface Status {
  kind: string;
  status: string;
  code: number;
  reason?: string;
  message: string;
}

function assertStatusAnswer(r: RawResponse, what: string): void {
  assert.ok(r.status === 500 || r.status === 504, `${what}: ${r.status} ${r.body}`);
  const status = JSON.parse(r.body) as Status;
  assert.equal(status.kind, 'Status', what);
  assert.equal(status.status, 'Failure', what);
  assert.equal(status.code, r.status, what);
  assert.ok(status.reason === 'InternalError' || status.reason === 'Timeout', `${what}: reason ${status.reason}`);
}

test('etcd down under load: 500/504 Status answers, /readyz fails, everything recovers by itself', async () => {
  const first = await server.adminRequest('/api/v1/namespaces/default/configmaps', { method: 'POST', body: cm('before') });
  assert.equal(first.status, 201, first.body);
  assert.equal((await server.adminRequest('/readyz')).status, 200);

  await etcd.kill(0);
  const answers: { what: string; response: RawResponse }[] = [];
  const outageEnd = Date.now() + 3000;
  let n = 0;
  // Load from 4 clients at once: creates, consistent gets and lists; every answer is kept.
  await Promise.all(
    Array.from({ length: 4 }, async (_, client) => {
      while (Date.now() < outageEnd) {
        const i = n++;
        const [what, path, opts] =
          i % 3 === 0
            ? [`create ${i}`, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: cm(`during-${client}-${i}`) }]
            : i % 3 === 1
              ? [`get ${i}`, '/api/v1/namespaces/default/configmaps/before', {}]
              : [`list ${i}`, '/api/v1/namespaces/default/configmaps', {}];
        answers.push({ what, response: await server.adminRequest(path, opts) });
      }
    }),
  );
  assert.ok(answers.length >= 8, `only ${answers.length} requests were answered during the outage`);
  for (const { what, response } of answers) assertStatusAnswer(response, what);
  const ready = await server.adminRequest('/readyz?verbose');
  assert.equal(ready.status, 500);
  assert.match(ready.body, /^\[-\]etcd failed: reason withheld$/m);
  assert.equal((await server.adminRequest('/livez?exclude=etcd')).status, 200, 'the process itself is alive');

  await etcd.restart(0);
  // Recovery needs no help: poll until a write goes through again.
  let created: RawResponse | undefined;
  for (let i = 0; i < 100 && created?.status !== 201; i++) {
    created = await server.adminRequest('/api/v1/namespaces/default/configmaps', { method: 'POST', body: cm('after') });
    if (created.status !== 201) {
      assertStatusAnswer(created, 'create while reconnecting');
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  assert.equal(created?.status, 201, created?.body);
  const rv = (JSON.parse(created!.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  assert.equal((await server.adminRequest('/readyz')).status, 200);
  const list = await server.adminRequest('/api/v1/namespaces/default/configmaps');
  assert.equal(list.status, 200);
  const names = (JSON.parse(list.body) as { items: { metadata: { name: string } }[] }).items.map((o) => o.metadata.name);
  assert.deepEqual(names.filter((x) => !x.startsWith('during-')), ['after', 'before']);
  // The watch cache followed etcd through the outage: a watch from the new revision sees the next write.
  const next = await server.adminRequest('/api/v1/namespaces/default/configmaps', { method: 'POST', body: cm('later') });
  assert.equal(next.status, 201);
  const watched = await server.adminRequest(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}&timeoutSeconds=1`);
  assert.equal(watched.status, 200);
  const events = watched.body.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } });
  assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED later']);
});
