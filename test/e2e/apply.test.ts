// Every write path users meet through kubectl: client- and server-side apply, managed fields, diff, edit, label,
// annotate, patch of each type, scale, server dry run and strict field validation.

import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { clock } from '../../src/apis/clock.ts';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

const cm = (data: Record<string, string>, name = 'app') =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });

const deployment = (replicas: number, image = 'nginx:1.27') =>
  JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image, ports: [{ containerPort: 80 }] }] } },
    },
  });

describe('kubectl write paths', () => {
  let s: TestServer;
  let scratch: string;
  before(async () => {
    s = await startTestServer();
    scratch = await mkdtemp(join(tmpdir(), 'capstan-apply-'));
  });
  after(async () => {
    await s?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  const ok = (args: string[], input?: string, env?: Record<string, string>) => s.kubectlOk(args, { input, env });
  const get = async (args: string[]) => JSON.parse(await ok(['get', ...args, '-o', 'json', '--show-managed-fields']));

  test('client-side apply: create, change, remove a field, re-apply', async () => {
    assert.equal(await ok(['apply', '-f', '-'], cm({ color: 'blue', size: 'L' })), 'configmap/app created\n');
    assert.equal(await ok(['apply', '-f', '-'], cm({ color: 'red', size: 'L' })), 'configmap/app configured\n');
    assert.equal(await ok(['apply', '-f', '-'], cm({ color: 'red' })), 'configmap/app configured\n');
    assert.equal(await ok(['apply', '-f', '-'], cm({ color: 'red' })), 'configmap/app unchanged\n');
    const obj = await get(['cm', 'app']);
    assert.deepEqual(obj.data, { color: 'red' });
    assert.match(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], /"color":"red"/);
    const managers = (obj.metadata.managedFields as { manager: string; operation: string }[]).map((m) => `${m.manager}/${m.operation}`);
    assert.deepEqual(managers, ['kubectl-client-side-apply/Update']);
  });

  test('server-side apply with two managers: conflict, then --force-conflicts', async () => {
    assert.equal(await ok(['apply', '--server-side', '--field-manager=alice', '-f', '-'], cm({ owner: 'alice', shared: 'x' }, 'ssa')), 'configmap/ssa serverside-applied\n');
    // Same value: shared ownership, no conflict.
    assert.equal(await ok(['apply', '--server-side', '--field-manager=bob', '-f', '-'], cm({ shared: 'x' }, 'ssa')), 'configmap/ssa serverside-applied\n');
    const conflict = await s.kubectl(['apply', '--server-side', '--field-manager=bob', '-f', '-'], { input: cm({ owner: 'bob', shared: 'x' }, 'ssa') });
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "alice": \.data\.owner/);
    await ok(['apply', '--server-side', '--field-manager=bob', '--force-conflicts', '-f', '-'], cm({ owner: 'bob', shared: 'x' }, 'ssa'));
    const obj = await get(['cm', 'ssa']);
    assert.deepEqual(obj.data, { owner: 'bob', shared: 'x' });
    const yaml = await ok(['get', 'cm', 'ssa', '--show-managed-fields', '-o', 'yaml']);
    assert.match(yaml, /manager: alice\n {4}operation: Apply/);
    assert.match(yaml, /manager: bob\n {4}operation: Apply/);
    const byManager = Object.fromEntries((obj.metadata.managedFields as { manager: string; fieldsV1: unknown }[]).map((m) => [m.manager, m.fieldsV1]));
    assert.deepEqual(byManager.alice, { 'f:data': { 'f:shared': {} } });
    assert.deepEqual(byManager.bob, { 'f:data': { 'f:owner': {}, 'f:shared': {} } });
  });

  test('client-side apply can move to server-side apply', async () => {
    await ok(['apply', '-f', '-'], cm({ a: '1' }, 'migrate'));
    assert.equal(await ok(['apply', '--server-side', '-f', '-'], cm({ a: '2' }, 'migrate')), 'configmap/migrate serverside-applied\n');
    const obj = await get(['cm', 'migrate']);
    assert.deepEqual(obj.data, { a: '2' });
    assert.ok((obj.metadata.managedFields as { manager: string; operation: string }[]).some((m) => m.manager === 'kubectl' && m.operation === 'Apply'));
  });

  test('diff shows what apply would change', async () => {
    const same = await s.kubectl(['diff', '-f', '-'], { input: cm({ color: 'red' }) });
    assert.equal(same.code, 0, same.stderr);
    const changed = await s.kubectl(['diff', '-f', '-'], { input: cm({ color: 'green' }) });
    assert.equal(changed.code, 1, changed.stderr);
    assert.match(changed.stdout, /^-  color: red$/m);
    assert.match(changed.stdout, /^\+  color: green$/m);
  });

  test('edit with an EDITOR script', async () => {
    const editor = join(scratch, 'editor.sh');
    await writeFile(editor, '#!/bin/sh\nsed -i "s/color: red/color: purple/" "$1"\n');
    await chmod(editor, 0o755);
    assert.equal(await ok(['edit', 'cm', 'app'], undefined, { EDITOR: editor, KUBE_EDITOR: editor }), 'configmap/app edited\n');
    assert.equal((await get(['cm', 'app'])).data.color, 'purple');
  });

  test('label and annotate, with and without --overwrite', async () => {
    assert.equal(await ok(['label', 'cm', 'app', 'tier=web']), 'configmap/app labeled\n');
    const again = await s.kubectl(['label', 'cm', 'app', 'tier=db']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /'tier' already has a value \(web\), and --overwrite is false/);
    assert.equal(await ok(['label', 'cm', 'app', 'tier=db', '--overwrite']), 'configmap/app labeled\n');
    assert.equal(await ok(['annotate', 'cm', 'app', 'note=hello']), 'configmap/app annotated\n');
    const ann = await s.kubectl(['annotate', 'cm', 'app', 'note=bye']);
    assert.equal(ann.code, 1);
    assert.match(ann.stderr, /--overwrite is false but found the following declared annotation\(s\): 'note' already has a value \(hello\)/);
    await ok(['annotate', 'cm', 'app', 'note=bye', '--overwrite']);
    const obj = await get(['cm', 'app']);
    assert.equal(obj.metadata.labels.tier, 'db');
    assert.equal(obj.metadata.annotations.note, 'bye');
    assert.equal(await ok(['label', 'cm', 'app', 'tier-']), 'configmap/app unlabeled\n');
  });

  test('patch with each --type, and scale', async () => {
    await ok(['apply', '-f', '-'], deployment(1));
    assert.equal(await ok(['patch', 'cm', 'app', '--type', 'merge', '-p', '{"data":{"m":"1"}}']), 'configmap/app patched\n');
    assert.equal(await ok(['patch', 'cm', 'app', '--type', 'json', '-p', '[{"op":"add","path":"/data/j","value":"2"}]']), 'configmap/app patched\n');
    const failed = await s.kubectl(['patch', 'cm', 'app', '--type', 'json', '-p', '[{"op":"test","path":"/data/j","value":"nope"}]']);
    assert.equal(failed.code, 1);
    assert.equal(failed.stderr, 'The request is invalid: the server rejected our request due to an error in our request\n');
    assert.equal(
      await ok(['patch', 'deploy', 'web', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}}']),
      'deployment.apps/web patched\n',
    );
    const d = await get(['deploy', 'web']);
    assert.deepEqual(d.spec.template.spec.containers.map((c: { name: string }) => c.name), ['sidecar', 'nginx']);
    const data = (await get(['cm', 'app'])).data;
    assert.equal(data.m, '1');
    assert.equal(data.j, '2');
    assert.equal(await ok(['scale', 'deploy', 'web', '--replicas=3']), 'deployment.apps/web scaled\n');
    const scaled = JSON.parse(await ok(['get', 'deploy', 'web', '-o', 'json', '--show-managed-fields']));
    assert.equal(scaled.spec.replicas, 3);
    // The scale subresource's write is recorded on the parent as kube's ScaleHandler records it.
    const owners = (scaled.metadata.managedFields as { manager: string; subresource?: string; apiVersion: string; fieldsV1: { 'f:spec'?: Record<string, unknown> } }[])
      .filter((m) => m.fieldsV1['f:spec']?.['f:replicas'] !== undefined)
      .map((m) => [m.manager, m.subresource, m.apiVersion]);
    assert.deepEqual(owners, [['kubectl', 'scale', 'apps/v1']]);
  });

  test('server-side apply that changes nothing writes nothing, even seconds later; a change in a nested field, a label or only managedFields writes', async () => {
    const path = '/apis/apps/v1/namespaces/default/deployments/noop';
    // fieldRef is an atomic struct the server defaults apiVersion into: the merge changes it, defaulting restores it.
    const manifest = (image: string, labels: Record<string, string> = {}) =>
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'noop', namespace: 'default', labels: { app: 'noop', ...labels } },
        spec: {
          selector: { matchLabels: { app: 'noop' } },
          template: {
            metadata: { labels: { app: 'noop' } },
            spec: { containers: [{ name: 'c', image, env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }] },
          },
        },
      });
    const apply = async (body: string, manager = 'ci') => {
      // Forced: the merge changes the atomic fieldRef, so another manager applying the same value would conflict.
      const r = await s.adminRequest(`${path}?fieldManager=${manager}&force=true`, { method: 'PATCH', body, headers: { 'content-type': 'application/apply-patch+yaml' } });
      assert.ok(r.status === 200 || r.status === 201, r.body);
      const obj = JSON.parse(r.body);
      const stored = JSON.parse((await s.adminRequest(path)).body);
      assert.equal(obj.metadata.resourceVersion, stored.metadata.resourceVersion);
      const times = (obj.metadata.managedFields as { manager: string; time: string }[]).map((m) => `${m.manager}@${m.time}`);
      return { rv: obj.metadata.resourceVersion as string, times, obj };
    };
    const first = await apply(manifest('app:1'));
    assert.equal(first.obj.spec.template.spec.containers[0].env[0].valueFrom.fieldRef.apiVersion, 'v1');
    clock.advance(3000);
    const again = await apply(manifest('app:1'));
    assert.deepEqual([again.rv, again.times], [first.rv, first.times]);

    clock.advance(3000);
    const nested = await apply(manifest('app:2'));
    assert.notEqual(nested.rv, first.rv);
    assert.notDeepEqual(nested.times, first.times);
    assert.equal(nested.obj.spec.template.spec.containers[0].image, 'app:2');

    clock.advance(3000);
    const labelled = await apply(manifest('app:2', { tier: 'web' }));
    assert.notEqual(labelled.rv, nested.rv);
    assert.equal(labelled.obj.metadata.labels.tier, 'web');

    // Another manager applying the same values changes nothing but managedFields: that is still a write.
    clock.advance(3000);
    const shared = await apply(manifest('app:2', { tier: 'web' }), 'other');
    assert.notEqual(shared.rv, labelled.rv);
    assert.deepEqual(shared.times.map((t) => t.split('@')[0]).sort(), ['ci', 'other']);
    const { managedFields: _a, resourceVersion: _b, ...before } = labelled.obj.metadata;
    const { managedFields: _c, resourceVersion: _d, ...after } = shared.obj.metadata;
    assert.deepEqual(after, before);
    assert.deepEqual(shared.obj.spec, labelled.obj.spec);
  });

  test("a create's managedFields hold what the client sent (with the defaults), not what admission adds; a binding leaves them as they are", async () => {
    await s.kubectlOk(['run', 'owned', '--image=nginx', '--restart=Never']);
    const pod = JSON.parse(await s.kubectlOk(['get', 'pod', 'owned', '-o', 'json', '--show-managed-fields']));
    // The Priority and DefaultTolerationSeconds admission plugins set these; kube's field manager runs before them.
    assert.equal(pod.spec.priority, 0);
    assert.equal(pod.spec.tolerations.length, 2);
    assert.deepEqual(pod.metadata.managedFields.map((m: { manager: string; operation: string }) => `${m.manager} ${m.operation}`), ['kubectl-run Update']);
    assert.deepEqual(pod.metadata.managedFields[0].fieldsV1, {
      'f:metadata': { 'f:labels': { '.': {}, 'f:run': {} } },
      'f:spec': {
        'f:containers': { 'k:{"name":"owned"}': { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:resources': {}, 'f:terminationMessagePath': {}, 'f:terminationMessagePolicy': {} } },
        'f:dnsPolicy': {},
        'f:enableServiceLinks': {},
        'f:restartPolicy': {},
        'f:schedulerName': {},
        'f:securityContext': {},
        'f:terminationGracePeriodSeconds': {},
      },
    });
    // kube's binding writes the pod in storage directly: nodeName and PodScheduled change, managedFields do not.
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'owned' }, target: { kind: 'Node', name: 'node-a' } };
    await s.kubectlOk(['create', '--raw', '/api/v1/namespaces/default/pods/owned/binding', '-f', '-'], { input: JSON.stringify(binding) });
    const bound = JSON.parse(await s.kubectlOk(['get', 'pod', 'owned', '-o', 'json', '--show-managed-fields']));
    assert.equal(bound.spec.nodeName, 'node-a');
    assert.deepEqual(bound.metadata.managedFields, pod.metadata.managedFields);
    await s.kubectlOk(['delete', 'pod', 'owned', '--now']);
  });

  test('create and delete with --dry-run=server change nothing', async () => {
    assert.equal(await ok(['create', 'cm', 'dry', '--from-literal=a=b', '--dry-run=server']), 'configmap/dry created (server dry run)\n');
    const missing = await s.kubectl(['get', 'cm', 'dry']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /NotFound/);
    assert.equal(await ok(['delete', 'cm', 'app', '--dry-run=server']), 'configmap "app" deleted (server dry run)\n');
    assert.equal((await get(['cm', 'app'])).metadata.name, 'app');
  });

  test('--validate=strict rejects an unknown field; --validate=warn warns', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strict' }, data: { a: 'b' }, spec: { x: 1 } });
    const strict = await s.kubectl(['create', '--validate=strict', '-f', '-'], { input: body });
    assert.equal(strict.code, 1);
    assert.match(strict.stderr, /Error from server \(BadRequest\): error when creating "STDIN": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"/);
    const warn = await s.kubectl(['create', '--validate=warn', '-f', '-'], { input: body });
    assert.equal(warn.code, 0, warn.stderr);
    assert.match(warn.stderr, /Warning: unknown field "spec"/);
  });
});
