// Admission: the cost of a ConfigMap create that one no-op validating webhook (HTTPS on loopback, served by this
// process) must approve, and of one that 10 ValidatingAdmissionPolicies check, against the plain create measured
// in the same server in the same run (the raw limit of the write path).

import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { issueCertificate } from '../src/server/certificates.ts';
import { runLoad } from './load.ts';
import type { TlsClientOptions } from './load.ts';

const CLK_TCK = 100;

async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

export interface CreateFigure {
  perSecond: number;
  cpuMsPerRequest: number;
  p50Ms: number;
}

export interface AdmissionFigures {
  /** Plain creates measured just before the webhook run, and just before the policies run. */
  plain: CreateFigure;
  webhook: CreateFigure;
  plainBeforePolicies: CreateFigure;
  policies: CreateFigure;
}

function configMap(name: string): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench', labels: { app: 'bench' } }, data: { payload: 'x'.repeat(900) } });
}

export async function noopWebhook(): Promise<{ port: number; caBundle: string; close: () => Promise<void> }> {
  const now = Date.now();
  const ca = await issueCertificate({ subject: { commonName: 'bench-webhook-ca' }, notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000), isCa: true });
  const leaf = await issueCertificate({ subject: { commonName: 'bench-webhook' }, notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000), isCa: false, usage: 'server', altNames: ['127.0.0.1'] }, ca);
  const server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const configMapRule = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] };

/** The ValidatingWebhookConfiguration that sends every ConfigMap write to the no-op webhook. */
export function noopWebhookConfiguration(port: number, caBundle: string): string {
  return JSON.stringify({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'noop' },
    webhooks: [{ name: 'noop.bench.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: `https://127.0.0.1:${port}/validate`, caBundle }, rules: [configMapRule] }],
  });
}

/** The 10 ValidatingAdmissionPolicies (and their Deny bindings) on ConfigMap writes: [path, body] of each POST. */
export function benchPolicyWrites(): [string, string][] {
  const validations = [
    "object.metadata.name.startsWith('r')",
    'size(object.data) <= 16',
    "!has(object.metadata.labels) || object.metadata.labels.all(k, k.size() < 64)",
    "object.data.payload.size() < 4096",
    "request.operation in ['CREATE', 'UPDATE']",
    "!('forbidden' in object.data)",
    "object.metadata.namespace == 'bench'",
    'object.data.all(k, k.size() <= 253)',
    "!has(object.metadata.annotations) || !('deny' in object.metadata.annotations)",
    "request.userInfo.username != ''",
  ];
  return validations.flatMap((expression, i) => {
    const name = `p${i}.bench.example.com`;
    return [
      ['/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', JSON.stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { matchConstraints: { resourceRules: [configMapRule] }, validations: [{ expression }] } })],
      ['/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', JSON.stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName: name, validationActions: ['Deny'] } })],
    ] as [string, string][];
  });
}

export async function benchAdmission(server: ChildProcess, port: number, tls: TlsClientOptions, requests: number): Promise<AdmissionFigures> {
  const pid = server.pid ?? 0;
  const url = `https://127.0.0.1:${port}`;
  const one = async (method: string, path: string, body?: string) => {
    const r = await runLoad({ url, tls, concurrency: 1, requests: 1, request: () => ({ method, path, body }) });
    if (r.errors) throw new Error(`${method} ${path} failed`);
  };
  await one('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }));
  let run = 0;
  const measure = async (): Promise<CreateFigure> => {
    const prefix = `r${run++}`;
    await runLoad({ url, tls, concurrency: 16, requests: Math.max(50, requests / 10), request: (i) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: configMap(`${prefix}-warm-${i}`) }) });
    const before = await cpuMs(pid);
    const r = await runLoad({ url, tls, concurrency: 16, requests, request: (i) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: configMap(`${prefix}-${i}`) }) });
    if (r.errors) throw new Error(`${r.errors} creates failed`);
    return { perSecond: r.perSecond, cpuMsPerRequest: ((await cpuMs(pid)) - before) / requests, p50Ms: r.p50Ms };
  };

  const plain = await measure();

  const hook = await noopWebhook();
  let webhook: CreateFigure;
  try {
    await one('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', noopWebhookConfiguration(hook.port, hook.caBundle));
    webhook = await measure();
    await one('DELETE', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/noop');
  } finally {
    await hook.close();
  }

  const plainBeforePolicies = await measure();
  for (const [path, body] of benchPolicyWrites()) await one('POST', path, body);
  const policies = await measure();
  return { plain, webhook, plainBeforePolicies, policies };
}
