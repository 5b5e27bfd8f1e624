// In-process admission: startCapstan({ admission: { mutate, validate } }) with JavaScript functions that get the
// AdmissionRequest and answer as a webhook would, with a webhook's ordering, errors and dry-run rule.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestServer, type TestServer } from './helpers.ts';

describe('in-process admission', () => {
  let s: TestServer;
  let core: k8s.CoreV1Api;
  const seen: { phase: string; operation: string; name: string; dryRun: boolean }[] = [];

  before(async () => {
    s = await startTestServer({
      admission: {
        mutate(req) {
          seen.push({ phase: 'mutate', operation: req.operation as string, name: (req.name as string) ?? '', dryRun: req.dryRun as boolean });
          const obj = req.object as { kind?: string; metadata: { labels?: Record<string, string> } } | null;
          if (!obj || obj.kind !== 'ConfigMap') return { allowed: true };
          if (obj.metadata.labels?.replace === 'yes') return { allowed: true, object: { ...obj, data: { replaced: 'true' } } as never };
          return { allowed: true, patch: [{ op: 'add', path: '/metadata/annotations', value: { 'in-process': 'mutated' } }], warnings: ['in-process warning'] };
        },
        validate(req) {
          seen.push({ phase: 'validate', operation: req.operation as string, name: (req.name as string) ?? '', dryRun: req.dryRun as boolean });
          const obj = req.object as { data?: Record<string, string> } | null;
          if (obj?.data?.deny) return { allowed: false, status: { code: 422, reason: 'Invalid', message: `value ${obj.data.deny} refused` } };
          if (obj?.data?.throw) throw new Error('hook crashed');
          return { allowed: true };
        },
        sideEffects: 'NoneOnDryRun',
      },
    });
    const kc = new k8s.KubeConfig();
    kc.loadFromString(s.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
  });
  after(async () => {
    await s?.close();
  });

  test('mutate (patch or whole object) runs before validate; warnings reach the client', async () => {
    seen.length = 0;
    const created = await s.kubectl(['create', 'configmap', 'cm1', '--from-literal=a=1']);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stderr, /Warning: in-process warning/);
    assert.deepEqual(seen.map((x) => `${x.phase}:${x.operation}:${x.name}`), ['mutate:CREATE:cm1', 'validate:CREATE:cm1']);
    const cm = await core.readNamespacedConfigMap({ name: 'cm1', namespace: 'default' });
    assert.equal(cm.metadata?.annotations?.['in-process'], 'mutated');
    const replaced = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cm2', labels: { replace: 'yes' } }, data: { a: '1' } } });
    assert.deepEqual(replaced.data, { replaced: 'true' });
  });

  test('a refusal is a webhook refusal; a throwing hook is a failed call; nothing stored', async () => {
    const denied = await s.kubectl(['create', 'configmap', 'cm3', '--from-literal=deny=x']);
    assert.equal(denied.code, 1);
    assert.equal(denied.stderr.trim(), 'Warning: in-process warning\nerror: failed to create configmap: admission webhook "in-process.validate.capstan.dev" denied the request: value x refused');
    const thrown = await s.kubectl(['create', 'configmap', 'cm4', '--from-literal=throw=x']);
    assert.equal(thrown.code, 1);
    assert.equal(thrown.stderr.trim(), 'Warning: in-process warning\nerror: failed to create configmap: Internal error occurred: failed calling webhook "in-process.validate.capstan.dev": failed to call webhook: hook crashed');
    assert.equal((await s.kubectl(['get', 'configmap', 'cm3'])).code, 1);
    assert.equal((await s.kubectl(['get', 'configmap', 'cm4'])).code, 1);
  });

  test('updates and deletes reach the hooks; dry run is flagged and stores nothing', async () => {
    seen.length = 0;
    await s.kubectlOk(['label', 'configmap', 'cm1', 'x=y']);
    await s.kubectlOk(['delete', 'configmap', 'cm1', '--dry-run=server']);
    await s.kubectlOk(['get', 'configmap', 'cm1']);
    await s.kubectlOk(['delete', 'configmap', 'cm1']);
    assert.deepEqual(
      seen.map((x) => `${x.phase}:${x.operation}:${x.name}:${x.dryRun}`),
      ['mutate:UPDATE:cm1:false', 'validate:UPDATE:cm1:false', 'mutate:DELETE:cm1:true', 'validate:DELETE:cm1:true', 'mutate:DELETE:cm1:false', 'validate:DELETE:cm1:false'],
    );
  });
});

describe('in-process admission with side effects', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ admission: { validate: () => ({ allowed: true }), sideEffects: 'Some' } });
  });
  after(async () => {
    await s?.close();
  });

  test('a dry run that would reach a hook with side effects fails as kube fails it', async () => {
    const r = await s.kubectl(['create', 'configmap', 'dry', '--from-literal=a=1', '--dry-run=server']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), 'error: failed to create configmap: admission webhook "in-process.validate.capstan.dev" does not support dry run');
    await s.kubectlOk(['create', 'configmap', 'real', '--from-literal=a=1']);
  });
});
