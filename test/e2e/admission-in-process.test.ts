// In-process admission: startCapstan({ admission: { mutate, validate } }) with JavaScript functions that get the
// AdmissionRequest and answer as a webhook would, with a webhook's ordering, errors and dry-run rule.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAuditLog } from '../../src/server/audit/log-backend.ts';
import { startTestServer, until, type TestServer } from './helpers.ts';

describe('in-process admission', () => {
  let s: TestServer;
  let dir: string;
  let core: k8s.CoreV1Api;
  const seen: { phase: string; operation: string; name: string; dryRun: boolean }[] = [];
  const connects: unknown[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-in-process-audit-'));
    await writeFile(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Request\n  resources: [{group: "", resources: [configmaps]}]\n- level: Metadata\n');
    s = await startTestServer({
      audit: { policyFile: join(dir, 'policy.yaml'), logPath: join(dir, 'audit.log') },
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
          if (req.operation === 'CONNECT') {
            connects.push(req.object);
            return { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'no exec here' } };
          }
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
    await rm(dir, { recursive: true, force: true });
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

  test('the audit log records each mutating hook called and, at level Request, its patch, as kube records its mutating webhooks', async () => {
    await s.kubectlOk(['create', 'configmap', 'audited', '--from-literal=a=1']);
    await s.kubectlOk(['create', 'secret', 'generic', 'untouched', '--from-literal=a=1']);
    const events = await until('the audit events of both creates', async () => {
      const all = parseAuditLog(await readFile(join(dir, 'audit.log'), 'utf8').catch(() => '')).filter((e) => e.verb === 'create' && e.stage === 'ResponseComplete');
      const cm = all.find((e) => e.objectRef?.name === 'audited');
      const secret = all.find((e) => e.objectRef?.name === 'untouched');
      return cm && secret ? [cm, secret] : undefined;
    });
    const key = 'mutation.webhook.admission.k8s.io/round_0_index_0';
    assert.deepEqual(
      events.map((e) => e.annotations?.[key]),
      ['{"configuration":"","webhook":"in-process.mutate.capstan.dev","mutated":true}', '{"configuration":"","webhook":"in-process.mutate.capstan.dev","mutated":false}'],
    );
    // the patch, at audit level Request (the ConfigMap's) only
    const patchKey = 'patch.webhook.admission.k8s.io/round_0_index_0';
    assert.deepEqual(
      events.map((e) => e.annotations?.[patchKey]),
      ['{"configuration":"","webhook":"in-process.mutate.capstan.dev","patch":[{"op":"add","path":"/metadata/annotations","value":{"in-process":"mutated"}}],"patchType":"JSONPatch"}', undefined],
    );
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

  test('CONNECT (pods/exec) is admitted with the exec options as the object', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'shell' }, spec: { containers: [{ name: 'sh', image: 'busybox' }] } }) });
    const r = await s.adminRequest('/api/v1/namespaces/default/pods/shell/exec?command=ls&command=-l&stdout=true&container=sh', { method: 'POST' });
    assert.equal(r.status, 403);
    assert.equal(JSON.parse(r.body).message, 'admission webhook "in-process.validate.capstan.dev" denied the request: no exec here');
    assert.deepEqual(connects.at(-1), { kind: 'PodExecOptions', apiVersion: 'v1', stdout: true, container: 'sh', command: ['ls', '-l'] });
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
