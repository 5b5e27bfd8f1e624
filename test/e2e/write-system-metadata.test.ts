// The metadata a write may not set, as kube-apiserver 1.31 treats it. A uid: a PUT's body uid is a precondition (409
// before anything else, a missing object included), a patch that changes the uid is refused by validation (422: the
// field is immutable), and server-side apply may not create an object under a uid of its own; what `kubectl replace`,
// `kubectl diff` and `kubectl apply --server-side` print for a manifest saved from an object deleted and made again.
// A deletion timestamp or grace period: only a delete sets them, an update that does is refused (rest.BeforeUpdate).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.ts';

let s: TestServer;
let saved: string;
let oldUid: string;
let newUid: string;
before(async () => {
  s = await startTestServer();
  // A manifest saved from the first object, then the object made again under the same name.
  saved = await s.kubectlOk(['create', 'configmap', 'again', '--from-literal=a=1', '-o', 'yaml']);
  oldUid = /uid: (\S+)/.exec(saved)![1]!;
  await s.kubectlOk(['delete', 'configmap', 'again']);
  await s.kubectlOk(['create', 'configmap', 'again', '--from-literal=a=1']);
  newUid = (await s.kubectlOk(['get', 'configmap', 'again', '-o', 'jsonpath={.metadata.uid}'])).trim();
});
after(async () => s?.close());

const withoutResourceVersion = (manifest: string): string => manifest.replace(/^ {2}resourceVersion: .*\n/m, '');

test('kubectl replace of a manifest with the old uid: the uid precondition fails, with or without a resourceVersion', async () => {
  for (const manifest of [saved, withoutResourceVersion(saved)]) {
    const r = await s.kubectl(['replace', '-f', '-'], { input: manifest });
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on configmaps "again": Precondition failed: UID in precondition: ${oldUid}, UID in object meta: ${newUid}\n`,
    );
  }
  // A PUT to a name nobody holds fails on the precondition too, before the 404.
  const put = await s.adminRequest('/api/v1/namespaces/default/configmaps/nobody', {
    method: 'PUT',
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nobody', uid: oldUid } }),
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(put.status, 409);
  assert.equal(JSON.parse(put.body).message, `Operation cannot be fulfilled on configmaps "nobody": Precondition failed: UID in precondition: ${oldUid}, UID in object meta: `);
});

test('kubectl diff of that manifest: the dry-run patch changing the uid is invalid (kubectl diff exits 2)', async () => {
  const r = await s.kubectl(['diff', '-f', '-'], { input: saved.replace('a: "1"', 'a: "2"') });
  assert.equal(r.code, 2);
  assert.equal(r.stderr, `The ConfigMap "again" is invalid: metadata.uid: Invalid value: "${oldUid}": field is immutable\n`);
  const patch = await s.kubectl(['patch', 'configmap', 'again', '--type=merge', '-p', JSON.stringify({ metadata: { uid: oldUid } })]);
  assert.equal(patch.stderr, `The ConfigMap "again" is invalid: metadata.uid: Invalid value: "${oldUid}": field is immutable\n`);
  assert.equal((await s.kubectlOk(['get', 'configmap', 'again', '-o', 'jsonpath={.metadata.uid}'])).trim(), newUid);
});

test('server-side apply may not create an object under the uid it names', async () => {
  await s.kubectlOk(['delete', 'configmap', 'again']);
  const r = await s.kubectl(['apply', '--server-side', '-f', '-'], { input: withoutResourceVersion(saved) });
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr.split('\n')[0],
    `error: Operation cannot be fulfilled on configmaps "again": uid mismatch: the provided object specified uid ${oldUid}, and no existing object was found`,
  );
  assert.equal((await s.kubectl(['get', 'configmap', 'again'])).code, 1);
});

test('an update may not start a deletion: kubectl patch of deletionTimestamp or deletionGracePeriodSeconds is refused', async () => {
  await s.kubectlOk(['create', 'configmap', 'alive', '--from-literal=a=1']);
  const before = await s.kubectlOk(['get', 'configmap', 'alive', '-o', 'jsonpath={.metadata.resourceVersion}']);
  const stamp = await s.kubectl(['patch', 'configmap', 'alive', '--type=merge', '-p', '{"metadata":{"deletionTimestamp":"2030-01-01T00:00:00Z"}}']);
  assert.deepEqual([stamp.code, stamp.stderr], [1, 'The ConfigMap "alive" is invalid: metadata.deletionTimestamp: Invalid value: 2030-01-01 00:00:00 +0000 UTC: field is immutable\n']);
  const grace = await s.kubectl(['patch', 'configmap', 'alive', '--type=merge', '-p', '{"metadata":{"deletionGracePeriodSeconds":5}}']);
  assert.deepEqual([grace.code, grace.stderr], [1, 'The ConfigMap "alive" is invalid: metadata.deletionGracePeriodSeconds: Invalid value: 5: field is immutable\n']);
  // Nothing was written.
  assert.equal(await s.kubectlOk(['get', 'configmap', 'alive', '-o', 'jsonpath={.metadata.resourceVersion}']), before);
});
