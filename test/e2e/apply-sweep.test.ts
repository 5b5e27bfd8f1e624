// How kubectl's apply workflows meet what kube-apiserver writes for itself: the system namespaces and a CRD's
// status carry managedFields under kube-apiserver (its loopback client's user agent), so a server-side apply to
// them meets that manager (no before-first-apply entry); a new CRD's status.conditions is null, as kube stores it,
// so the controllers' first status write adds no "." for the list. Also a multi-document manifest of a CRD and its
// custom resource applied server-side, with defaults and x-kubernetes-preserve-unknown-fields.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, until } from './helpers.ts';
import type { TestServer } from './helpers.ts';

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: unknown;
  subresource?: string;
}

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s?.close();
});

const getJson = async (args: string[]) => JSON.parse(await s.kubectlOk(['get', ...args, '-o', 'json', '--show-managed-fields']));
/** Each entry without its time, which is checked to be an RFC 3339 second. */
const untimed = (entries: Entry[]) =>
  entries.map(({ time, ...rest }) => {
    assert.match(time ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    return rest;
  });

const CONDITION_FIELDS = { '.': {}, 'f:lastTransitionTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} };

const crdAndCr = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.sweep.example.com
spec:
  group: sweep.example.com
  names: {kind: Gadget, plural: gadgets, singular: gadget, listKind: GadgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string, default: blue}
              extra:
                type: object
                x-kubernetes-preserve-unknown-fields: true
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port, protocol]
                items:
                  type: object
                  required: [port]
                  properties:
                    port: {type: integer}
                    protocol: {type: string, default: TCP}
---
apiVersion: sweep.example.com/v1
kind: Gadget
metadata:
  name: g1
spec:
  extra: {nested: {a: 1}, list: [1, 2]}
  ports:
  - {port: 80}
`;

test('the system namespaces are kube-apiserver\'s: a server-side apply to one adds its own manager and no before-first-apply', async () => {
  const ns = await getJson(['ns', 'default']);
  assert.deepEqual(untimed(ns.metadata.managedFields), [
    { manager: 'kube-apiserver', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } } },
  ]);
  const manifest = JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } });
  assert.equal(await s.kubectlOk(['apply', '--server-side', '-f', '-'], { input: manifest }), 'namespace/default serverside-applied\n');
  const applied = await getJson(['ns', 'default']);
  assert.deepEqual(untimed(applied.metadata.managedFields), [
    { manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:pod-security.kubernetes.io/enforce': {} } } } },
    { manager: 'kube-apiserver', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } } },
  ]);
  for (const name of ['kube-system', 'kube-public', 'kube-node-lease']) {
    assert.deepEqual((await getJson(['ns', name])).metadata.managedFields.map((e: Entry) => `${e.manager} ${e.operation}`), ['kube-apiserver Update'], name);
  }
});

test('a new CRD\'s status.conditions is null until its names are accepted', async () => {
  const crd = JSON.parse(await s.kubectlOk(['create', '--dry-run=server', '-o', 'json', '-f', '-'], { input: crdAndCr.split('---\n')[0] }));
  assert.deepEqual(crd.status, { acceptedNames: { kind: '', plural: '' }, conditions: null, storedVersions: ['v1'] });
});

test('a CRD and its custom resource in one manifest, applied server-side: the status is kube-apiserver\'s, the defaults nobody\'s', async () => {
  // kubectl resolves every document before applying: the custom resource waits for its CRD, as on a cluster.
  const first = await s.kubectl(['apply', '--server-side', '-f', '-'], { input: crdAndCr });
  assert.equal(first.code, 1);
  assert.equal(first.stdout, 'customresourcedefinition.apiextensions.k8s.io/gadgets.sweep.example.com serverside-applied\n');
  assert.match(first.stderr, /no matches for kind "Gadget" in version "sweep.example.com\/v1"\nensure CRDs are installed first/);
  await until('the CRD is established', async () => {
    const crd = await getJson(['crd', 'gadgets.sweep.example.com']);
    return crd.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True') ? crd : undefined;
  });
  const crd = await getJson(['crd', 'gadgets.sweep.example.com']);
  const status = (crd.metadata.managedFields as Entry[]).filter((e) => e.subresource === 'status');
  assert.deepEqual(untimed(status), [
    {
      manager: 'kube-apiserver',
      operation: 'Update',
      apiVersion: 'apiextensions.k8s.io/v1',
      fieldsType: 'FieldsV1',
      subresource: 'status',
      fieldsV1: {
        'f:status': {
          'f:acceptedNames': { 'f:kind': {}, 'f:listKind': {}, 'f:plural': {}, 'f:singular': {} },
          'f:conditions': { 'k:{"type":"Established"}': CONDITION_FIELDS, 'k:{"type":"NamesAccepted"}': CONDITION_FIELDS },
        },
      },
    },
  ]);
  assert.deepEqual((crd.metadata.managedFields as Entry[]).map((e) => `${e.manager} ${e.operation}`), ['kubectl Apply', 'kube-apiserver Update']);

  await until('the custom resource is served', async () => ((await s.kubectl(['get', 'gadgets'])).code === 0 ? true : undefined));
  assert.equal(
    await s.kubectlOk(['apply', '--server-side', '-f', '-'], { input: crdAndCr }),
    'customresourcedefinition.apiextensions.k8s.io/gadgets.sweep.example.com serverside-applied\ngadget.sweep.example.com/g1 serverside-applied\n',
  );
  const g = await getJson(['gadget', 'g1']);
  assert.deepEqual(g.spec, { color: 'blue', extra: { list: [1, 2], nested: { a: 1 } }, ports: [{ port: 80, protocol: 'TCP' }] });
  // Defaults are owned by nobody; keys under preserve-unknown-fields are map items ("." each), lists atomic.
  assert.deepEqual(untimed(g.metadata.managedFields), [
    {
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'sweep.example.com/v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:extra': { 'f:list': {}, 'f:nested': { '.': {}, 'f:a': {} } }, 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {} } } } },
    },
  ]);
  const same = await s.kubectl(['diff', '--server-side', '-f', '-'], { input: crdAndCr });
  assert.deepEqual([same.code, same.stdout, same.stderr], [0, '', '']);
});
