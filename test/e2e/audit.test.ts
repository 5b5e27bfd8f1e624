// Audit (--audit-policy-file, --audit-log-path, --audit-webhook-config-file) and deprecated built-in versions
// (Warning header, apiserver_requested_deprecated_apis, k8s.io/deprecated audit annotations).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers.ts';
import { parseAuditLog } from '../../src/server/audit/log-backend.ts';
import type { AuditEvent } from '../../src/server/audit/types.ts';

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*", "/metrics"]
- level: Metadata
  resources:
  - group: ""
    resources: ["secrets"]
- level: RequestResponse
  namespaces: ["rr"]
- level: Request
  namespaces: ["req"]
- level: None
  users: ["system:apiserver"]
- level: Metadata
  omitStages: [ResponseStarted]
`;

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('audit log and webhook', () => {
  let s: TestServer;
  let dir: string;
  let logPath: string;
  let hook: Server;
  const received: AuditEvent[] = [];
  const batches: unknown[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-audit-'));
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const list = JSON.parse(body) as { kind: string; apiVersion: string; items: AuditEvent[] };
        batches.push({ kind: list.kind, apiVersion: list.apiVersion });
        received.push(...list.items);
        res.end('{}');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const port = (hook.address() as { port: number }).port;
    await writeFile(join(dir, 'policy.yaml'), POLICY);
    await writeFile(join(dir, 'hook.kubeconfig'), `apiVersion: v1\nkind: Config\nclusters:\n- name: hook\n  cluster:\n    server: http://127.0.0.1:${port}/audit\ncontexts:\n- name: hook\n  context: {cluster: hook, user: hook}\ncurrent-context: hook\nusers:\n- name: hook\n  user: {}\n`);
    logPath = join(dir, 'audit.log');
    s = await startTestServer({ audit: { policyFile: join(dir, 'policy.yaml'), logPath, webhookConfigFile: join(dir, 'hook.kubeconfig'), webhookBatchMaxWaitMs: 50 } });
    for (const ns of ['rr', 'req']) await s.kubectlOk(['create', 'namespace', ns]);
  });
  after(async () => {
    await s.close();
    await new Promise((r) => hook.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  const logged = async (): Promise<AuditEvent[]> => parseAuditLog(await readFile(logPath, 'utf8').catch(() => ''));
  const find = (events: AuditEvent[], verb: string, namespace: string, name: string, stage = 'ResponseComplete') =>
    events.find((e) => e.verb === verb && e.objectRef?.namespace === namespace && e.objectRef?.name === name && e.stage === stage);

  test('each level logs what it asks: Metadata no bodies, Request the request, RequestResponse both', async () => {
    const create = (ns: string, name: string) =>
      s.adminRequest(`/api/v1/namespaces/${ns}/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'audit-test/1.0' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } }) });
    const r1 = await create('default', 'meta');
    const r2 = await create('req', 'req');
    const r3 = await create('rr', 'rr');
    assert.deepEqual([r1.status, r2.status, r3.status], [201, 201, 201]);
    const events = await waitFor('three audit events', async () => {
      const all = await logged();
      return find(all, 'create', 'default', 'meta') && find(all, 'create', 'req', 'req') && find(all, 'create', 'rr', 'rr') ? all : undefined;
    });
    const meta = find(events, 'create', 'default', 'meta')!;
    assert.equal(meta.kind, 'Event');
    assert.equal(meta.apiVersion, 'audit.k8s.io/v1');
    assert.equal(meta.level, 'Metadata');
    assert.equal(meta.auditID, r1.headers['audit-id']);
    assert.equal(meta.requestURI, '/api/v1/namespaces/default/configmaps');
    assert.equal(meta.user.username, 'capstan-admin');
    assert.ok(meta.user.groups?.includes('system:masters'));
    assert.deepEqual(meta.sourceIPs, ['127.0.0.1']);
    assert.equal(meta.userAgent, 'audit-test/1.0');
    assert.deepEqual(meta.objectRef, { resource: 'configmaps', namespace: 'default', name: 'meta', apiVersion: 'v1' });
    assert.deepEqual(meta.responseStatus, { metadata: {}, code: 201 });
    assert.equal(meta.requestObject, undefined);
    assert.equal(meta.responseObject, undefined);
    assert.equal(meta.annotations?.['authorization.k8s.io/decision'], 'allow');
    assert.match(meta.requestReceivedTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.match(meta.stageTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    // omitStages at the policy level: no RequestReceived events at all.
    assert.equal(events.filter((e) => e.stage === 'RequestReceived').length, 0);

    const req = find(events, 'create', 'req', 'req')!;
    assert.equal(req.level, 'Request');
    assert.deepEqual((req.requestObject as { data: unknown }).data, { k: 'v' });
    assert.equal(req.responseObject, undefined);

    const rr = find(events, 'create', 'rr', 'rr')!;
    assert.equal(rr.level, 'RequestResponse');
    assert.deepEqual((rr.requestObject as { data: unknown }).data, { k: 'v' });
    assert.equal((rr.responseObject as { metadata: { name: string; uid: string } }).metadata.name, 'rr');
    assert.ok((rr.responseObject as { metadata: { uid: string } }).metadata.uid);
  });

  test('a Secret at Metadata level never has its data logged; failures carry the Status', async () => {
    await s.kubectlOk(['create', 'secret', 'generic', 'topsecret', '-n', 'rr', '--from-literal=password=hunter2']);
    const miss = await s.adminRequest('/api/v1/namespaces/default/configmaps/absent');
    assert.equal(miss.status, 404);
    const events = await waitFor('secret and 404 events', async () => {
      const all = await logged();
      return find(all, 'create', 'rr', 'topsecret') && find(all, 'get', 'default', 'absent') ? all : undefined;
    });
    const text = await readFile(logPath, 'utf8');
    assert.ok(!text.includes('hunter2') && !text.includes(Buffer.from('hunter2').toString('base64')));
    assert.equal(find(events, 'create', 'rr', 'topsecret')!.level, 'Metadata');
    assert.deepEqual(find(events, 'get', 'default', 'absent')!.responseStatus, { metadata: {}, status: 'Failure', message: 'configmaps "absent" not found', reason: 'NotFound', details: { name: 'absent', kind: 'configmaps' }, code: 404 });
  });

  test('a watch logs ResponseStarted only where the rule does not omit it', async () => {
    const r = await s.adminRequest('/api/v1/namespaces/rr/configmaps?watch=1&timeoutSeconds=1');
    assert.equal(r.status, 200);
    const events = await waitFor('watch events', async () => {
      const all = (await logged()).filter((e) => e.verb === 'watch' && e.objectRef?.namespace === 'rr');
      return all.some((e) => e.stage === 'ResponseComplete') ? all : undefined;
    });
    assert.deepEqual(events.map((e) => e.stage), ['ResponseStarted', 'ResponseComplete']);
    const other = await s.adminRequest('/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1');
    assert.equal(other.status, 200);
    const defaults = await waitFor('default watch', async () => {
      const all = (await logged()).filter((e) => e.verb === 'watch' && e.objectRef?.namespace === 'default');
      return all.some((e) => e.stage === 'ResponseComplete') ? all : undefined;
    });
    assert.deepEqual(defaults.map((e) => e.stage), ['ResponseComplete']);
  });

  test('the webhook receives the same events as EventLists', async () => {
    const ids = new Set((await logged()).map((e) => `${e.auditID}/${e.stage}`));
    const has = () => new Set(received.map((e) => `${e.auditID}/${e.stage}`));
    await waitFor('webhook events', async () => ([...ids].every((id) => has().has(id)) ? true : undefined));
    assert.deepEqual(batches[0], { kind: 'EventList', apiVersion: 'audit.k8s.io/v1' });
    assert.ok(received.some((e) => e.objectRef?.name === 'rr' && e.level === 'RequestResponse'));
  });

  test('a deprecated built-in version warns, is counted in /metrics and annotated in the audit log', async () => {
    const r = await s.adminRequest('/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas');
    assert.equal(r.status, 200);
    assert.equal(r.headers.warning, '299 - "flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema is deprecated in v1.29+, unavailable in v1.32+; use flowcontrol.apiserver.k8s.io/v1 FlowSchema"');
    const ok = await s.adminRequest('/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas');
    assert.equal(ok.headers.warning, undefined);
    const metrics = await s.adminRequest('/metrics');
    assert.match(metrics.body, /^apiserver_requested_deprecated_apis\{group="flowcontrol.apiserver.k8s.io",version="v1beta3",resource="flowschemas",subresource="",removed_release="1.32"\} 1$/m);
    assert.doesNotMatch(metrics.body, /apiserver_requested_deprecated_apis\{[^}]*version="v1"/);
    const event = await waitFor('deprecated list event', async () => (await logged()).find((e) => e.auditID === r.headers['audit-id'] && e.stage === 'ResponseComplete'));
    assert.equal(event.annotations?.['k8s.io/deprecated'], 'true');
    assert.equal(event.annotations?.['k8s.io/removed-release'], '1.32');
    const plain = await waitFor('v1 list event', async () => (await logged()).find((e) => e.auditID === ok.headers['audit-id'] && e.stage === 'ResponseComplete'));
    assert.equal(plain.annotations?.['k8s.io/deprecated'], undefined);
    const kubectl = await s.kubectl(['get', 'flowschemas.v1beta3.flowcontrol.apiserver.k8s.io']);
    assert.match(kubectl.stderr, /Warning: flowcontrol.apiserver.k8s.io\/v1beta3 FlowSchema is deprecated in v1.29\+, unavailable in v1.32\+; use flowcontrol.apiserver.k8s.io\/v1 FlowSchema/);
  });
  test('PodSecurity annotates the pods it evaluates: the enforced policy, audit violations, exemptions', async () => {
    await s.kubectlOk(['create', 'namespace', 'psa']);
    await s.kubectlOk(['label', 'namespace', 'psa', 'pod-security.kubernetes.io/enforce=baseline', 'pod-security.kubernetes.io/audit=restricted']);
    const pod = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
    const plain = await s.adminRequest('/api/v1/namespaces/default/pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: pod('plain') });
    const audited = await s.adminRequest('/api/v1/namespaces/psa/pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: pod('audited') });
    assert.deepEqual([plain.status, audited.status], [201, 201]);
    const annotations = async (id: unknown) =>
      (await waitFor(`event ${String(id)}`, async () => (await logged()).find((e) => e.auditID === id && e.stage === 'ResponseComplete'))).annotations ?? {};
    const podSecurity = (a: Record<string, string>) => Object.fromEntries(Object.entries(a).filter(([k]) => k.startsWith('pod-security.kubernetes.io/')));
    // a namespace without labels is privileged on all three modes: kube records that and evaluates nothing
    assert.deepEqual(podSecurity(await annotations(plain.headers['audit-id'])), { 'pod-security.kubernetes.io/enforce-policy': 'privileged:latest' });
    assert.deepEqual(podSecurity(await annotations(audited.headers['audit-id'])), {
      'pod-security.kubernetes.io/enforce-policy': 'baseline:latest',
      'pod-security.kubernetes.io/audit-violations':
        'would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    });
  });
});
