import { startCapstan } from './src/index.ts';
import { runLoad } from './bench/load.ts';
const mu = (l: string) => { const m = process.memoryUsage(); console.log(l, 'rss', (m.rss / 2 ** 20).toFixed(0), 'heapUsed', (m.heapUsed / 2 ** 20).toFixed(0), 'heapTotal', (m.heapTotal / 2 ** 20).toFixed(0), 'external', (m.external / 2 ** 20).toFixed(0)); };
const hw = Number(process.argv[2] ?? 300);
const c = await startCapstan({ storageBackend: 'memory', historyWindowSeconds: hw });
const url = c.url; const tls = { ca: c.caCert, cert: c.clientCert, key: c.clientKey };
const ns = '/api/v1/namespaces/default/configmaps';
(globalThis as any).gc(); mu('before');
const body = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `m-${i % 200}`, labels: { app: 'bench' } }, data: { payload: 'y'.repeat(1000), n: String(i) } });
await runLoad({ url, tls, concurrency: 32, requests: 2000, okStatus: [200, 201, 404, 409], request: (i) => {
  switch (i % 6) {
    case 0: return { method: 'POST', path: ns, body: body(i) };
    case 1: return { method: 'GET', path: `${ns}/m-${i % 200}` };
    case 2: return { method: 'GET', path: `${ns}?labelSelector=app%3Dbench&limit=50` };
    case 3: return { method: 'PATCH', path: `${ns}/m-${i % 200}`, body: JSON.stringify({ data: { n: String(i) } }), headers: { 'content-type': 'application/merge-patch+json' } };
    case 4: return { method: 'PUT', path: `${ns}/m-${i % 200}`, body: body(i) };
    default: return { method: 'DELETE', path: `${ns}/m-${(i + 100) % 200}` };
  } } });
(globalThis as any).gc(); mu('after load, gc');
await new Promise((r) => setTimeout(r, Number(process.argv[3] ?? 3000)));
(globalThis as any).gc(); mu('later, gc');
await c.close();
