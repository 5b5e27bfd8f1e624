// Simulated workloads: 1,000 pods across 100 Deployments settling (every Deployment available) on 10 simulated
// nodes, against the raw limit of the same work without controllers: 1,000 pods created directly over HTTPS in
// the same run.

import { request } from 'node:https';
import { runLoad } from './load.ts';
import type { TlsClientOptions } from './load.ts';

export interface SimulationFigures {
  /** ms from the first Deployment POST until every Deployment reports 10 available replicas. */
  settleMs: number;
  /** ms to create 1,000 pods directly (32 concurrent clients). */
  directPodsMs: number;
}

function getJson(port: number, tls: TlsClientOptions, path: string): Promise<{ items: { status?: { availableReplicas?: number } }[] }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, ca: tls.ca, cert: tls.cert, key: tls.key, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    });
    req.on('error', reject);
    req.end();
  });
}

const pod = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}`, labels: { app: 'direct' } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] } });
const deployment = (i: number) =>
  JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `d-${i}` },
    spec: { replicas: 10, selector: { matchLabels: { app: `d-${i}` } }, template: { metadata: { labels: { app: `d-${i}` } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] } } },
  });

export async function benchSimulation(simulated: { port: number; tls: TlsClientOptions }, plain: { port: number; tls: TlsClientOptions }): Promise<SimulationFigures> {
  const direct = await runLoad({ url: `https://127.0.0.1:${plain.port}`, tls: plain.tls, concurrency: 32, requests: 1000, request: (i) => ({ method: 'POST', path: '/api/v1/namespaces/default/pods', body: pod(i) }) });
  if (direct.errors) throw new Error(`${direct.errors} pod creates failed`);
  const t0 = performance.now();
  const created = await runLoad({ url: `https://127.0.0.1:${simulated.port}`, tls: simulated.tls, concurrency: 32, requests: 100, request: (i) => ({ method: 'POST', path: '/apis/apps/v1/namespaces/default/deployments', body: deployment(i) }) });
  if (created.errors) throw new Error(`${created.errors} deployment creates failed`);
  for (;;) {
    const list = await getJson(simulated.port, simulated.tls, '/apis/apps/v1/namespaces/default/deployments');
    if (list.items.length === 100 && list.items.every((d) => d.status?.availableReplicas === 10)) break;
    if (performance.now() - t0 > 300_000) throw new Error('the Deployments did not settle within 5 minutes');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { settleMs: performance.now() - t0, directPodsMs: direct.seconds * 1000 };
}
