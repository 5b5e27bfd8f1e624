// The apiserver identity Lease in kube-system: one per running instance, labelled as kube labels it, renewed.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.ts';

describe('apiserver identity lease', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.close());

  test('a Lease apiserver-<hash> with the identity label and a holder identity', async () => {
    const out = JSON.parse(await s.kubectlOk(['get', 'leases', '-n', 'kube-system', '-l', 'apiserver.kubernetes.io/identity=kube-apiserver', '-o', 'json'])) as { items: { metadata: { name: string; labels: Record<string, string> }; spec: { holderIdentity: string; leaseDurationSeconds: number; renewTime: string } }[] };
    assert.equal(out.items.length, 1);
    const lease = out.items[0]!;
    assert.match(lease.metadata.name, /^apiserver-[a-z2-7]{26}$/);
    assert.equal(lease.metadata.labels['apiserver.kubernetes.io/identity'], 'kube-apiserver');
    assert.ok(lease.metadata.labels['kubernetes.io/hostname']);
    assert.match(lease.spec.holderIdentity, new RegExp(`^${lease.metadata.name}_[0-9a-f-]{36}$`));
    assert.equal(lease.spec.leaseDurationSeconds, 3600);
    assert.match(lease.spec.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });
});
