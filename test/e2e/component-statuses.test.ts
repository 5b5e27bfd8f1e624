// `kubectl get componentstatuses` as on kube-apiserver 1.31: the deprecated v1 kind warns on every request, each
// get and list checks the components then (Capstan's own controllers; the simulated scheduler, or kube's probe of
// https://127.0.0.1:10259/healthz when Capstan runs none), an unknown name is kube's plain 500, and nothing else is
// served. The etcd-0 entry is checked in etcd-endpoints.test.ts.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import { once } from 'node:events';
import { issueCertificate } from '../../src/server/certificates.ts';
import { startTestServer, type TestServer } from './helpers.ts';

let s: TestServer;
let simulated: TestServer;
before(async () => {
  [s, simulated] = await Promise.all([startTestServer(), startTestServer({ simulateWorkloads: { nodes: 1 } })]);
});
after(async () => {
  await s?.close();
  await simulated?.close();
});

const WARNING = 'Warning: v1 ComponentStatus is deprecated in v1.19+\n';

test('the simulated scheduler and the controllers report healthy', async () => {
  const r = await simulated.kubectl(['get', 'cs']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, WARNING);
  assert.equal(r.stdout, 'NAME                 STATUS    MESSAGE   ERROR\ncontroller-manager   Healthy   ok        \nscheduler            Healthy   ok        \n');
  const one = JSON.parse(await simulated.kubectlOk(['get', 'componentstatus', 'scheduler', '-o', 'json'])) as unknown;
  assert.deepEqual(one, { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'scheduler', creationTimestamp: null }, conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] });
});

test('without a simulated scheduler, kube\'s port is probed: a scheduler listening there is healthy, none is not', async (t) => {
  const now = Date.now();
  const pair = await issueCertificate({ subject: { commonName: 'kube-scheduler' }, notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000), isCa: false, usage: 'server', altNames: ['127.0.0.1'] });
  const scheduler = createServer({ key: pair.keyPem, cert: pair.certPem }, (req, res) => res.end(req.url === '/healthz' ? 'ok' : 'no'));
  scheduler.listen(10259, '127.0.0.1');
  const bound = await Promise.race([once(scheduler, 'listening').then(() => true), once(scheduler, 'error').then(() => false)]);
  if (!bound) {
    t.skip('port 10259 is taken on this machine');
    return;
  }
  try {
    assert.equal(await s.kubectlOk(['get', 'cs', 'scheduler', '--no-headers']), 'scheduler   Healthy   ok    \n');
  } finally {
    scheduler.close();
    scheduler.closeAllConnections();
  }
  await once(scheduler, 'close');
  const down = JSON.parse(await s.kubectlOk(['get', 'cs', '-o', 'json'])) as { items: { metadata: { name: string }; conditions: unknown[] }[] };
  assert.deepEqual(
    down.items.map((i) => [i.metadata.name, i.conditions]),
    [
      ['controller-manager', [{ type: 'Healthy', status: 'True', message: 'ok' }]],
      ['scheduler', [{ type: 'Healthy', status: 'False', message: 'Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused' }]],
    ],
  );
});

test('an unknown component is kube\'s plain 500; selectors filter; no other verb is served', async () => {
  const r = await s.kubectl(['get', 'cs', 'etcd-0']);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, `${WARNING}Error from server: Component not found: etcd-0\n`);
  assert.equal(await s.kubectlOk(['get', 'cs', '--field-selector', 'metadata.name=controller-manager', '-o', 'name']), 'componentstatus/controller-manager\n');
  assert.equal((await s.kubectl(['get', 'cs', '-l', 'a=b'])).stderr, `${WARNING}No resources found\n`);
  const del = await s.kubectl(['delete', 'cs', 'scheduler']);
  // The route does not exist, so the request reaches no handler that would warn.
  assert.equal(del.stderr, `Error from server (MethodNotAllowed): the server does not allow this method on the requested resource\n`);
  const raw = await s.adminRequest('/api/v1/componentstatuses/controller-manager');
  assert.equal(raw.status, 200);
  assert.equal(raw.headers.warning, '299 - "v1 ComponentStatus is deprecated in v1.19+"');
});
