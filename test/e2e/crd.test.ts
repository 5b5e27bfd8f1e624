// CustomResourceDefinitions end to end with kubectl and @kubernetes/client-node: a CRD applied and Established,
// its custom resources served with printer columns, categories, short names, status and scale subresources,
// every patch type kube accepts, versions, deprecation warnings, name conflicts, validation of the CRD itself,
// deletion that removes every instance, a restart on sqlite, and the installCRDs library call.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { startTestServer, type TestServer } from './helpers.ts';

const CRONTAB_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
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
              cronSpec: {type: string}
              image: {type: string}
              replicas: {type: integer}
          status:
            type: object
            properties:
              replicas: {type: integer}
              labelSelector: {type: string}
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.labelSelector
    additionalPrinterColumns:
    - {name: Spec, type: string, jsonPath: .spec.cronSpec}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Image, type: string, jsonPath: .spec.image, priority: 1}
`;

function cronTab(name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name }, spec });
}

describe('CustomResourceDefinitions', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await s.kubectlOk(['apply', '-f', '-'], { input: CRONTAB_CRD });
    await s.kubectlOk(['wait', '--for=condition=established', 'crd/crontabs.stable.example.com', '--timeout=10s']);
  });
  after(async () => s.close());

  test('the CRD reports kube status: accepted names, NamesAccepted and Established, stored versions', async () => {
    const crd = JSON.parse(await s.kubectlOk(['get', 'crd', 'crontabs.stable.example.com', '-o', 'json']));
    assert.deepEqual(crd.status.acceptedNames, { plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList', categories: ['all'] });
    const conditions = Object.fromEntries(crd.status.conditions.map((c: { type: string }) => [c.type, c]));
    assert.equal(conditions.NamesAccepted.status, 'True');
    assert.equal(conditions.NamesAccepted.reason, 'NoConflicts');
    assert.equal(conditions.NamesAccepted.message, 'no conflicts found');
    assert.equal(conditions.Established.status, 'True');
    assert.equal(conditions.Established.reason, 'InitialNamesAccepted');
    assert.deepEqual(crd.status.storedVersions, ['v1']);
    assert.deepEqual(crd.spec.conversion, { strategy: 'None' });
    assert.equal(crd.metadata.generation, 1);
  });

  test('custom resources: create, printer columns (wide too), short name, category, explain', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: cronTab('tab', { cronSpec: '* * * * */5', image: 'img:1', replicas: 2 }) });
    const table = await s.kubectlOk(['get', 'ct']);
    assert.match(table, /^NAME\s+SPEC\s+REPLICAS\n/);
    assert.match(table, /^tab\s+\* \* \* \* \*\/5\s+2\n$/m);
    const wide = await s.kubectlOk(['get', 'crontabs', '-o', 'wide']);
    assert.match(wide, /^NAME\s+SPEC\s+REPLICAS\s+IMAGE\n/);
    assert.match(wide, /img:1/);
    const all = await s.kubectlOk(['get', 'all']);
    assert.match(all, /crontab\.stable\.example\.com\/tab/);
    const explain = await s.kubectlOk(['explain', 'crontab.spec']);
    assert.match(explain, /KIND:\s+CronTab/);
    assert.match(explain, /cronSpec\s+<string>/);
    assert.match(explain, /replicas\s+<integer>/);
  });

  test('status subresource: main writes keep status, status writes keep spec, generation counts spec changes only', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: cronTab('st', { cronSpec: 'a', replicas: 1 }) });
    await s.kubectlOk(['patch', 'ct', 'st', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":1},"spec":{"cronSpec":"ignored"}}']);
    let obj = JSON.parse(await s.kubectlOk(['get', 'ct', 'st', '-o', 'json']));
    assert.deepEqual(obj.status, { replicas: 1 });
    assert.equal(obj.spec.cronSpec, 'a');
    assert.equal(obj.metadata.generation, 1);
    await s.kubectlOk(['patch', 'ct', 'st', '--type=merge', '-p', '{"spec":{"cronSpec":"b"},"status":{"replicas":9}}']);
    obj = JSON.parse(await s.kubectlOk(['get', 'ct', 'st', '-o', 'json']));
    assert.equal(obj.spec.cronSpec, 'b');
    assert.deepEqual(obj.status, { replicas: 1 });
    assert.equal(obj.metadata.generation, 2);
  });

  test('scale subresource: kubectl scale and the Scale object from the CRD paths', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: cronTab('sc', { cronSpec: 'a', replicas: 1 }) });
    await s.kubectlOk(['patch', 'ct', 'sc', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":1,"labelSelector":"app=sc"}}']);
    assert.match(await s.kubectlOk(['scale', 'ct/sc', '--replicas=4']), /crontab.stable.example.com\/sc scaled/);
    const scale = JSON.parse((await s.adminRequest('/apis/stable.example.com/v1/namespaces/default/crontabs/sc/scale')).body);
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.apiVersion, 'autoscaling/v1');
    assert.deepEqual(scale.spec, { replicas: 4 });
    assert.deepEqual(scale.status, { replicas: 1, selector: 'app=sc' });
    const obj = JSON.parse(await s.kubectlOk(['get', 'ct', 'sc', '-o', 'json']));
    assert.equal(obj.spec.replicas, 4);
  });

  test('patches: merge and JSON patch apply, strategic merge patch is 415 as for every custom resource', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: cronTab('p', { cronSpec: 'a', image: 'x' }) });
    await s.kubectlOk(['patch', 'ct', 'p', '--type=json', '-p', '[{"op":"replace","path":"/spec/image","value":"y"}]']);
    await s.kubectlOk(['patch', 'ct', 'p', '--type=merge', '-p', '{"spec":{"replicas":3}}']);
    const obj = JSON.parse(await s.kubectlOk(['get', 'ct', 'p', '-o', 'json']));
    assert.deepEqual(obj.spec, { cronSpec: 'a', image: 'y', replicas: 3 });
    const smp = await s.adminRequest('/apis/stable.example.com/v1/namespaces/default/crontabs/p', {
      method: 'PATCH',
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: '{"spec":{"image":"z"}}',
    });
    assert.equal(smp.status, 415);
    assert.equal(JSON.parse(smp.body).reason, 'UnsupportedMediaType');
  });

  test('server-side apply creates and updates a custom resource with managed fields', async () => {
    const manifest = `apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: ssa\nspec:\n  cronSpec: "1"\n  image: a\n`;
    await s.kubectlOk(['apply', '--server-side', '--field-manager=tester', '-f', '-'], { input: manifest });
    await s.kubectlOk(['apply', '--server-side', '--field-manager=tester', '-f', '-'], { input: manifest.replace('image: a', 'image: b') });
    const obj = JSON.parse(await s.kubectlOk(['get', 'ct', 'ssa', '-o', 'json', '--show-managed-fields']));
    assert.equal(obj.spec.image, 'b');
    assert.equal(obj.metadata.managedFields[0].manager, 'tester');
    assert.equal(obj.metadata.managedFields[0].operation, 'Apply');
    assert.deepEqual(obj.metadata.managedFields[0].fieldsV1, { 'f:spec': { 'f:cronSpec': {}, 'f:image': {} } });
  });

  test('a PUT without resourceVersion is refused for custom resources (kube: no unconditional update)', async () => {
    const r = await s.adminRequest('/apis/stable.example.com/v1/namespaces/default/crontabs/tab', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: cronTab('tab', { cronSpec: 'z' }),
    });
    assert.equal(r.status, 422);
    assert.match(JSON.parse(r.body).message, /metadata.resourceVersion: Invalid value: 0x0: must be specified for an update/);
  });

  test('client-node: CustomObjectsApi create, list and an informer that sees changes', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromString(s.kubeconfig);
    const api = kc.makeApiClient(k8s.CustomObjectsApi);
    const seen: string[] = [];
    const informer = k8s.makeInformer(kc, '/apis/stable.example.com/v1/namespaces/default/crontabs', () =>
      api.listNamespacedCustomObject({ group: 'stable.example.com', version: 'v1', namespace: 'default', plural: 'crontabs' }) as never,
    );
    informer.on('add', (o: k8s.KubernetesObject) => seen.push(`add ${o.metadata?.name}`));
    informer.on('update', (o: k8s.KubernetesObject) => seen.push(`update ${o.metadata?.name}`));
    await informer.start();
    try {
      await api.createNamespacedCustomObject({ group: 'stable.example.com', version: 'v1', namespace: 'default', plural: 'crontabs', body: JSON.parse(cronTab('cn', { cronSpec: 'c' })) });
      await api.patchNamespacedCustomObject(
        { group: 'stable.example.com', version: 'v1', namespace: 'default', plural: 'crontabs', name: 'cn', body: { spec: { image: 'i' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      for (let i = 0; i < 200 && !seen.includes('update cn'); i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(seen.includes('add cn'), seen.join(','));
      assert.ok(seen.includes('update cn'), seen.join(','));
    } finally {
      await informer.stop();
    }
  });
});

describe('CRD lifecycle', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.close());

  test('an invalid CRD is refused with kube field paths and messages, and nothing is stored', async () => {
    const bad = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'wrong.example.com' },
      spec: {
        group: 'example',
        scope: 'Somewhere',
        names: { plural: 'things', kind: 'Thing' },
        versions: [{ name: 'V1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    };
    const r = await s.kubectl(['create', '-f', '-'], { input: JSON.stringify(bad) });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /The CustomResourceDefinition "wrong.example.com" is invalid/);
    assert.match(r.stderr, /metadata.name: Invalid value: "wrong.example.com": must be spec.names.plural\+"."\+spec.group/);
    assert.match(r.stderr, /spec.group: Invalid value: "example": should be a domain with at least one dot/);
    assert.match(r.stderr, /spec.scope: Unsupported value: "Somewhere": supported values: "Cluster", "Namespaced"/);
    assert.match(r.stderr, /spec.versions\[0\].name: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters/);
    assert.match(r.stderr, /spec.versions: Invalid value: .*must have exactly one version marked as storage version/);
    assert.match(r.stderr, /status.storedVersions: Invalid value: .*must have at least one stored version/);
    const list = await s.kubectlOk(['get', 'crd', '-o', 'name']);
    assert.equal(list, '');
  });

  test('a schema inside items or additionalProperties is decoded as its own JSONSchemaProps: a wrong type there is the 400 of its UnmarshalJSON', async () => {
    const crd = (itemSchema: unknown, additionalProperties: unknown = true) =>
      JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'gizmos.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'gizmos', kind: 'Gizmo' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', additionalProperties, properties: { list: { type: 'array', items: itemSchema } } } } } } }],
        },
      });
    const refused = async (body: string) => {
      const r = await s.kubectl(['create', '-f', '-'], { input: body });
      assert.equal(r.code, 1, r.stdout);
      return r.stderr.trim();
    };
    assert.equal(
      await refused(crd({ type: 'object', required: { name: true } })),
      'Error from server (BadRequest): error when creating "STDIN": CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: json: cannot unmarshal object into Go struct field JSONSchemaProps.required of type []string',
    );
    assert.equal(
      await refused(crd([{ type: 'string', maxLength: 'ten' }])),
      'Error from server (BadRequest): error when creating "STDIN": CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: json: cannot unmarshal string into Go struct field JSONSchemaProps.maxLength of type int64',
    );
    assert.equal(
      await refused(crd({ type: 'string' }, 5)),
      'Error from server (BadRequest): error when creating "STDIN": CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: boolean or JSON schema expected',
    );
    assert.equal(await s.kubectlOk(['get', 'crd', '-o', 'name']), '');
  });

  test('two versions: each served, objects stored in the storage version, apiVersion rewritten (None), deprecation warned', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Cluster',
        names: { plural: 'widgets', kind: 'Widget' },
        versions: [
          { name: 'v1beta1', served: true, storage: false, deprecated: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
        ],
      },
    };
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(crd) });
    await s.kubectlOk(['wait', '--for=condition=established', 'crd/widgets.example.com', '--timeout=10s']);
    const created = await s.adminRequest('/apis/example.com/v1beta1/widgets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'example.com/v1beta1', kind: 'Widget', metadata: { name: 'w' }, size: 3 }),
    });
    assert.equal(created.status, 201, created.body);
    assert.equal(created.headers.warning, '299 - "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"');
    assert.equal(JSON.parse(created.body).apiVersion, 'example.com/v1beta1');
    const asV1 = JSON.parse((await s.adminRequest('/apis/example.com/v1/widgets/w')).body);
    assert.equal(asV1.apiVersion, 'example.com/v1');
    assert.equal(asV1.size, 3);
    const asBeta = await s.adminRequest('/apis/example.com/v1beta1/widgets/w');
    assert.equal(JSON.parse(asBeta.body).apiVersion, 'example.com/v1beta1');
    const discovery = JSON.parse((await s.adminRequest('/apis/example.com')).body);
    assert.deepEqual(discovery.versions.map((v: { version: string }) => v.version), ['v1', 'v1beta1']);
    assert.equal(discovery.preferredVersion.version, 'v1');
  });

  test('a CRD whose kind another CRD of the group holds is not accepted: the last conflict (ListKindConflict) is reported, not Established', async () => {
    const mk = (plural: string) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.conflict.example.com` },
      spec: {
        group: 'conflict.example.com',
        scope: 'Namespaced',
        names: { plural, kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    });
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(mk('gadgets')) });
    await s.kubectlOk(['wait', '--for=condition=established', 'crd/gadgets.conflict.example.com', '--timeout=10s']);
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(mk('gizmos')) });
    await s.kubectlOk(['wait', '--for=condition=NamesAccepted=False', 'crd/gizmos.conflict.example.com', '--timeout=10s']);
    const crd = JSON.parse(await s.kubectlOk(['get', 'crd', 'gizmos.conflict.example.com', '-o', 'json']));
    const conditions = Object.fromEntries(crd.status.conditions.map((c: { type: string }) => [c.type, c]));
    assert.deepEqual([conditions.NamesAccepted.reason, conditions.NamesAccepted.message], ['ListKindConflict', '"GadgetList" is already in use']);
    assert.deepEqual([conditions.Established.status, conditions.Established.reason], ['False', 'NotAccepted']);
    assert.equal((await s.adminRequest('/apis/conflict.example.com/v1/namespaces/default/gizmos')).status, 404);
  });

  test('updating a CRD takes effect on the next request: a new printer column, a new version', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'notes.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'notes', kind: 'Note' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { text: { type: 'string' } } } } }],
      },
    }) });
    await s.kubectlOk(['wait', '--for=condition=established', 'crd/notes.example.com', '--timeout=10s']);
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Note', metadata: { name: 'n' }, text: 'hello' }) });
    assert.match(await s.kubectlOk(['get', 'notes']), /^NAME\s+AGE\n/);
    await s.kubectlOk(['patch', 'crd', 'notes.example.com', '--type=json', '-p', JSON.stringify([
      { op: 'add', path: '/spec/versions/0/additionalPrinterColumns', value: [{ name: 'Text', type: 'string', jsonPath: '.text' }] },
      { op: 'add', path: '/spec/versions/-', value: { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', properties: { text: { type: 'string' } } } } } },
    ])]);
    assert.match(await s.kubectlOk(['get', 'notes.v1.example.com']), /^NAME\s+TEXT\nn\s+hello\n$/);
    const v2 = JSON.parse((await s.adminRequest('/apis/example.com/v2/namespaces/default/notes/n')).body);
    assert.deepEqual([v2.apiVersion, v2.text], ['example.com/v2', 'hello']);
  });

  test('a default added to a CRD later shows on reads of objects stored before it (the stored version\'s default), and is written back by the next update only', async () => {
    const version = (name: string, storage: boolean, mode?: string) => ({
      name,
      served: true,
      storage,
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, mode: { type: 'string', ...(mode ? { default: mode } : {}) } } } } } },
    });
    const crd = (v1Mode?: string, v2Mode?: string) => JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'tasks.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'tasks', kind: 'Task' }, versions: [version('v1', true, v1Mode), version('v2', false, v2Mode)] },
    });
    await s.kubectlOk(['apply', '-f', '-'], { input: crd() });
    await s.kubectlOk(['wait', '--for=condition=established', 'crd/tasks.example.com', '--timeout=10s']);
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Task', metadata: { name: 'old' }, spec: { size: 1 } }) });
    const get = async (v: string, name: string) => JSON.parse((await s.adminRequest(`/apis/example.com/${v}/namespaces/default/tasks/${name}`)).body);
    assert.deepEqual((await get('v1', 'old')).spec, { size: 1 });

    await s.kubectlOk(['apply', '-f', '-'], { input: crd('slow', 'fast') });
    const before = await get('v1', 'old');
    // Objects stored in v1 get v1's default, whichever version serves them (conversion None).
    assert.deepEqual(before.spec, { size: 1, mode: 'slow' });
    assert.deepEqual((await get('v2', 'old')).spec, { size: 1, mode: 'slow' });
    assert.equal(JSON.parse(await s.kubectlOk(['get', 'task', 'old', '-o', 'json'])).spec.mode, 'slow');
    // A create through v2 gets the request version's default, which is stored.
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'example.com/v2', kind: 'Task', metadata: { name: 'new' }, spec: { size: 2 } }) });
    const list = JSON.parse(await s.kubectlOk(['get', 'tasks.v1.example.com', '-o', 'json']));
    assert.deepEqual(list.items.map((t: { metadata: { name: string }; spec: unknown }) => [t.metadata.name, t.spec]), [['new', { size: 2, mode: 'fast' }], ['old', { size: 1, mode: 'slow' }]]);
    const watch = await s.adminRequest('/apis/example.com/v1/namespaces/default/tasks?watch=1&resourceVersion=0&timeoutSeconds=1');
    const events = watch.body.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string }; spec: unknown } });
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name, e.object.spec]), [['ADDED', 'new', { size: 2, mode: 'fast' }], ['ADDED', 'old', { size: 1, mode: 'slow' }]]);

    // Not written back: a changed default shows on the next read.
    await s.kubectlOk(['apply', '-f', '-'], { input: crd('slower', 'fast') });
    assert.equal((await get('v1', 'old')).spec.mode, 'slower');
    assert.equal((await get('v1', 'old')).metadata.resourceVersion, before.metadata.resourceVersion);
    // An update that changes nothing still writes (the stored bytes differ from the defaulted object), as kube's does;
    // from then on the default is stored.
    const current = await get('v1', 'old');
    const put = await s.adminRequest('/apis/example.com/v1/namespaces/default/tasks/old', { method: 'PUT', body: JSON.stringify(current), headers: { 'content-type': 'application/json' } });
    assert.equal(put.status, 200);
    assert.notEqual(JSON.parse(put.body).metadata.resourceVersion, current.metadata.resourceVersion);
    await s.kubectlOk(['apply', '-f', '-'], { input: crd('slowest', 'fast') });
    assert.equal((await get('v1', 'old')).spec.mode, 'slower');
    // Once stored, a further no-op update writes nothing.
    const stored = await get('v1', 'old');
    const again = await s.adminRequest('/apis/example.com/v1/namespaces/default/tasks/old', { method: 'PUT', body: JSON.stringify(stored), headers: { 'content-type': 'application/json' } });
    assert.equal(JSON.parse(again.body).metadata.resourceVersion, stored.metadata.resourceVersion);
  });

  test('a CRD spec change starts its resources\' storage afresh, as kube: open watches end, a new selectable field and a new default select stored objects', async () => {
    const crd = (selectable: boolean, color?: string) => JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'things', kind: 'Thing' },
        versions: [{
          name: 'v1',
          served: true,
          storage: true,
          ...(selectable ? { selectableFields: [{ jsonPath: '.spec.color' }] } : {}),
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string', ...(color ? { default: color } : {}) } } } } } },
        }],
      },
    });
    await s.kubectlOk(['apply', '-f', '-'], { input: crd(false) });
    await s.kubectlOk(['wait', '--for=condition=established', 'crd/things.example.com', '--timeout=10s']);
    for (const [name, spec] of [['red', { color: 'red' }], ['plain', {}]] as const) {
      await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name }, spec }) });
    }
    const kc = new k8s.KubeConfig();
    kc.loadFromString(s.kubeconfig);
    const seen: string[] = [];
    let ended!: () => void;
    const watchEnded = new Promise<void>((resolve) => (ended = resolve));
    const watch = await new k8s.Watch(kc).watch('/apis/example.com/v1/namespaces/default/things', {}, (type, obj: k8s.KubernetesObject) => seen.push(`${type} ${obj.metadata?.name}`), () => ended());
    for (let i = 0; i < 200 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(seen, ['ADDED plain', 'ADDED red']);

    await s.kubectlOk(['apply', '-f', '-'], { input: crd(true) });
    await Promise.race([watchEnded, new Promise((_, reject) => setTimeout(() => reject(new Error('the watch did not end')), 5000))]).finally(() => watch.abort());
    assert.equal(await s.kubectlOk(['get', 'things', '--field-selector', 'spec.color=red', '-o', 'name']), 'thing.example.com/red\n');
    assert.equal(await s.kubectlOk(['get', 'things', '--field-selector', 'spec.color=blue', '-o', 'name']), '');
    await s.kubectlOk(['apply', '-f', '-'], { input: crd(true, 'blue') });
    assert.equal(await s.kubectlOk(['get', 'things', '--field-selector', 'spec.color=blue', '-o', 'name']), 'thing.example.com/plain\n');
  });

  test('deleting a CRD deletes its instances (their finalizers honoured), then the CRD and its endpoints go', async () => {
    await s.kubectlOk(['apply', '-f', '-'], { input: CRONTAB_CRD });
    await s.kubectlOk(['wait', '--for=condition=established', 'crd/crontabs.stable.example.com', '--timeout=10s']);
    await s.kubectlOk(['create', '-f', '-'], { input: cronTab('a', { cronSpec: 'a' }) });
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ ...JSON.parse(cronTab('held', { cronSpec: 'b' })), metadata: { name: 'held', finalizers: ['example.com/hold'] } }) });
    await s.kubectlOk(['delete', 'crd', 'crontabs.stable.example.com', '--wait=false']);
    await s.kubectlOk(['wait', '--for=condition=Terminating', 'crd/crontabs.stable.example.com', '--timeout=10s']);
    const refused = await s.adminRequest('/apis/stable.example.com/v1/namespaces/default/crontabs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: cronTab('late', { cronSpec: 'c' }),
    });
    assert.equal(refused.status, 405);
    assert.equal(JSON.parse(refused.body).message, 'create not allowed while custom resource definition is terminating');
    // The instance with a finalizer keeps the CRD until it is released.
    const held = JSON.parse(await s.kubectlOk(['get', 'ct', 'held', '-o', 'json']));
    assert.ok(held.metadata.deletionTimestamp);
    await s.kubectlOk(['patch', 'ct', 'held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await s.kubectlOk(['wait', '--for=delete', 'crd/crontabs.stable.example.com', '--timeout=15s']);
    assert.equal((await s.adminRequest('/apis/stable.example.com/v1/namespaces/default/crontabs')).status, 404);
    const groups = JSON.parse((await s.adminRequest('/apis')).body);
    assert.ok(!groups.groups.some((g: { name: string }) => g.name === 'stable.example.com'));
  });
});

const DATABASE_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'databases.db.example.com' },
  spec: {
    group: 'db.example.com',
    scope: 'Namespaced',
    names: { plural: 'databases', kind: 'Database' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['engine'],
                'x-kubernetes-validations': [
                  { rule: 'self.minReplicas <= self.replicas', message: 'replicas must be at least minReplicas' },
                  { rule: "self.engine != 'mysql' || self.version.startsWith('8')", messageExpression: "'mysql needs version 8, got ' + self.version", reason: 'FieldValueForbidden', fieldPath: '.version' },
                ],
                properties: {
                  engine: { type: 'string', enum: ['postgres', 'mysql'] },
                  version: { type: 'string', default: '16', pattern: '^[0-9]+(\\.[0-9]+)*$' },
                  replicas: { type: 'integer', minimum: 1, maximum: 9, default: 1 },
                  minReplicas: { type: 'integer', default: 1 },
                  storage: { 'x-kubernetes-int-or-string': true },
                  tags: { type: 'array', maxItems: 2, items: { type: 'string', maxLength: 5 } },
                  extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  immutable: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'is immutable' }] },
                },
              },
              status: { type: 'object', properties: { phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

function database(name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'db.example.com/v1', kind: 'Database', metadata: { name }, spec });
}

describe('custom resource validation, pruning, defaulting and CEL rules', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(DATABASE_CRD) });
    await s.kubectlOk(['wait', '--for=condition=established', 'crd/databases.db.example.com', '--timeout=10s']);
  });
  after(async () => s.close());

  test('schema violations are one 422 with kube messages and paths; nothing is stored', async () => {
    const r = await s.kubectl(['create', '-f', '-'], { input: database('bad', { engine: 'oracle', replicas: 12, tags: ['a', 'toolongtag', 'c'], version: 'x.y' }) });
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      'The Database "bad" is invalid: \n' +
        '* spec.engine: Unsupported value: "oracle": supported values: "postgres", "mysql"\n' +
        '* spec.replicas: Invalid value: 12: spec.replicas in body should be less than or equal to 9\n' +
        '* spec.tags[1]: Too long: may not be longer than 5\n' +
        '* spec.tags: Too many: 3: must have at most 2 items\n' +
        `* spec.version: Invalid value: "x.y": spec.version in body should match '^[0-9]+(\\.[0-9]+)*$'\n` +
        // An enum, size or required violation stops the CEL rules as a type error does (kube's hasBlockingErr).
        '* <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation\n',
    );
    assert.equal((await s.kubectl(['get', 'database', 'bad'])).code, 1);
  });

  test('CEL rules: message, messageExpression, reason and fieldPath as kube renders them', async () => {
    const r = await s.kubectl(['create', '-f', '-'], { input: database('cel', { engine: 'mysql', version: '5.7', minReplicas: 3, replicas: 2 }) });
    assert.equal(r.stderr, 'The Database "cel" is invalid: \n* spec: Invalid value: "object": replicas must be at least minReplicas\n* spec.version: Forbidden: mysql needs version 8, got 5.7\n');
  });

  test('a type error stops the CEL rules with kube\'s note', async () => {
    const r = await s.kubectl(['create', '-f', '-'], { input: database('typed', { engine: 'postgres', replicas: 'two' }) });
    assert.equal(
      r.stderr,
      'The Database "typed" is invalid: \n' +
        '* spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"\n' +
        '* <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation\n',
    );
  });

  test('a bound or pattern violation does not stop the CEL rules', async () => {
    const r = await s.kubectl(['create', '-f', '-'], { input: database('bounded', { engine: 'postgres', replicas: 12, minReplicas: 13 }) });
    assert.equal(
      r.stderr,
      'The Database "bounded" is invalid: \n' +
        '* spec.replicas: Invalid value: 12: spec.replicas in body should be less than or equal to 9\n' +
        '* spec: Invalid value: "object": replicas must be at least minReplicas\n',
    );
  });

  test('unknown fields are pruned (and reported under fieldValidation), preserved where the schema says, defaults filled', async () => {
    const warned = await s.kubectl(['create', '--validate=warn', '-f', '-'], { input: database('d', { engine: 'postgres', unknown: 1, extra: { anything: { goes: true } }, storage: '10Gi', immutable: 'a' }) });
    assert.equal(warned.code, 0, warned.stderr);
    assert.match(warned.stderr, /Warning: unknown field "spec.unknown"/);
    const obj = JSON.parse(await s.kubectlOk(['get', 'database', 'd', '-o', 'json']));
    assert.deepEqual(obj.spec, { engine: 'postgres', extra: { anything: { goes: true } }, immutable: 'a', minReplicas: 1, replicas: 1, storage: '10Gi', version: '16' });
    const strict = await s.kubectl(['create', '-f', '-'], { input: database('strict', { engine: 'postgres', unknown: 1 }) });
    assert.match(strict.stderr, /Database in version "v1" cannot be handled as a Database: strict decoding error: unknown field "spec.unknown"/);
  });

  test('transition rules compare with the stored object (oldSelf) on update', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: database('t', { engine: 'postgres', immutable: 'a' }) });
    const r = await s.kubectl(['patch', 'database', 't', '--type=merge', '-p', '{"spec":{"immutable":"b"}}']);
    assert.equal(r.stderr, 'The Database "t" is invalid: spec.immutable: Invalid value: "string": is immutable\n');
    await s.kubectlOk(['patch', 'database', 't', '--type=merge', '-p', '{"spec":{"replicas":3}}']);
  });

  test('ratcheting: after a schema tightens, an unchanged invalid value passes, a changed one is refused', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: database('ratchet', { engine: 'postgres', version: '16.1.2.3' }) });
    await s.kubectlOk(['patch', 'crd', 'databases.db.example.com', '--type=json', '-p', JSON.stringify([{ op: 'add', path: '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/version/maxLength', value: 4 }])]);
    await s.kubectlOk(['patch', 'database', 'ratchet', '--type=merge', '-p', '{"spec":{"replicas":2}}']);
    const r = await s.kubectl(['patch', 'database', 'ratchet', '--type=merge', '-p', '{"spec":{"version":"17.0.0.1"}}']);
    assert.equal(
      r.stderr,
      'The Database "ratchet" is invalid: \n' +
        '* spec.version: Too long: may not be longer than 4\n' +
        '* <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation\n',
    );
  });

  test('selectable fields filter lists; a CR whose rule runs out of its cost budget is refused; a body over 3 MiB is 413', async () => {
    await s.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'paints.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'paints', kind: 'Paint' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              selectableFields: [{ jsonPath: '.spec.color' }],
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: {
                    spec: {
                      type: 'object',
                      properties: {
                        color: { type: 'string' },
                        items: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 4 }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x != y || true))' }] },
                      },
                    },
                  },
                },
              },
            },
          ],
        },
      }),
    });
    await s.kubectlOk(['wait', '--for=condition=established', 'crd/paints.example.com', '--timeout=10s']);
    const paint = (name: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Paint', metadata: { name }, spec });
    await s.kubectlOk(['create', '-f', '-'], { input: paint('red', { color: 'red' }) });
    await s.kubectlOk(['create', '-f', '-'], { input: paint('blue', { color: 'blue' }) });
    assert.equal(await s.kubectlOk(['get', 'paints', '--field-selector', 'spec.color=red', '-o', 'name']), 'paint.example.com/red\n');
    const unknown = await s.kubectl(['get', 'paints', '--field-selector', 'spec.size=1']);
    assert.match(unknown.stderr, /field label not supported: spec.size/);

    const items = Array.from({ length: 1000 }, (_, i) => String(i));
    const costly = await s.kubectl(['create', '-f', '-'], { input: paint('costly', { items }) });
    assert.equal(
      costly.stderr,
      `The Paint "costly" is invalid: spec.items: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, self.all(y, x != y || true))\n`,
    );
    const huge = await s.adminRequest('/apis/example.com/v1/namespaces/default/paints', { method: 'POST', headers: { 'content-type': 'application/json' }, body: paint('huge', { color: 'x'.repeat(3 * 1024 * 1024) }) });
    assert.equal(huge.status, 413);
    assert.equal(JSON.parse(huge.body).message, 'Request entity too large: limit is 3145728');
    assert.equal(await s.kubectlOk(['get', 'paints', '-o', 'name']), 'paint.example.com/blue\npaint.example.com/red\n');
  });

  test('a CRD whose rule does not compile or whose schema is not structural is refused; the server stays up', async () => {
    const bad = structuredClone(DATABASE_CRD) as typeof DATABASE_CRD & { metadata: { name: string } };
    bad.metadata.name = 'broken.db.example.com';
    (bad.spec as Record<string, unknown>).names = { plural: 'broken', kind: 'Broken' };
    const spec = bad.spec.versions[0].schema.openAPIV3Schema.properties.spec as Record<string, unknown>;
    spec['x-kubernetes-validations'] = [{ rule: 'self.nope >' }];
    (spec.properties as Record<string, unknown>).untyped = { description: 'no type' };
    const r = await s.kubectl(['create', '-f', '-'], { input: JSON.stringify(bad) });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /spec.validation.openAPIV3Schema.properties\[spec\].properties\[untyped\].type: Required value: must not be empty for specified object fields/);
    spec.properties = DATABASE_CRD.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
    const r2 = await s.kubectl(['create', '-f', '-'], { input: JSON.stringify(bad) });
    assert.match(r2.stderr, /spec.validation.openAPIV3Schema.properties\[spec\].x-kubernetes-validations\[0\].rule: Invalid value: .*compilation failed/);
    assert.equal((await s.adminRequest('/readyz')).status, 200);
  });
});

describe('installCRDs and restarts', () => {
  test('installCRDs applies a directory of CRDs and resolves once they are Established; a restart on sqlite serves them again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'capstan-crds-'));
    const dataDir = await mkdtemp(join(tmpdir(), 'capstan-data-'));
    try {
      await writeFile(join(dir, 'crontab.yaml'), CRONTAB_CRD);
      await writeFile(join(dir, 'notes.txt'), 'not a manifest');
      let s = await startTestServer({ storageBackend: 'sqlite', dataDir });
      try {
        const installed = await s.installCRDs(dir);
        assert.deepEqual(installed.map((c) => c.metadata.name), ['crontabs.stable.example.com']);
        await s.kubectlOk(['create', '-f', '-'], { input: cronTab('kept', { cronSpec: 'k' }) });
      } finally {
        await s.close();
      }
      s = await startTestServer({ storageBackend: 'sqlite', dataDir });
      try {
        const obj = JSON.parse(await s.kubectlOk(['get', 'ct', 'kept', '-o', 'json']));
        assert.equal(obj.spec.cronSpec, 'k');
      } finally {
        await s.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
