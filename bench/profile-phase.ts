// Profiling aid (not part of `npm run bench`): starts bench/serve.ts under --cpu-prof, drives one phase with the lean
// client and prints the hottest functions by self time. Profiles go to the directory given (keep them out of the repo).
//   node bench/profile-phase.ts <get|jwt|create|pod|vap|webhook|list|apply|update> <memory|sqlite> <outdir> [requests]
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { runLoad } from './load.ts';
import { benchPod } from './builtin-validation.ts';
import { bigDeployment } from './apply.ts';
import { benchPolicyWrites, noopWebhook, noopWebhookConfiguration } from './admission.ts';
import { parseScriptArgs } from '../scripts/script-args.ts';

const args = parseScriptArgs({
  command: 'node bench/profile-phase.ts [PHASE] [BACKEND] [OUTDIR] [REQUESTS]',
  summary: 'Starts bench/serve.ts under --cpu-prof, drives one phase with the lean client and prints the hottest functions by self time.',
  positionals: {
    PHASE: 'get, jwt (gets with a service account token, no client certificate), create, pod (Pod creates), vap (ConfigMap creates under the admission benchmark\'s 10 policies), webhook (ConfigMap creates its no-op webhook approves, served by this process), list, apply or update (PUTs of 32 copies of the apply benchmark\'s Deployment, their replicas changing each time) (default get)',
    BACKEND: 'memory or sqlite (default memory)',
    OUTDIR: 'where the profiles go, outside the repository (default /tmp/prof)',
    REQUESTS: 'how many requests to drive (default 40000)',
  },
});
const [phase = 'get', backend = 'memory', out = '/tmp/prof', n = '40000'] = args.positionals;
const requests = Number(n);
const root = new URL('..', import.meta.url).pathname;
// PROF_INTERVAL: the sampling interval in µs (--cpu-prof-interval; V8 default 1000).
// SERVE_OPTIONS: startCapstan options as JSON for the server, e.g. '{"audit":{"policyFile":"/tmp/p.yaml","logPath":"/tmp/a.log"}}'.
const child = spawn(process.execPath, [`--cpu-prof`, `--cpu-prof-dir=${out}`, ...(process.env.PROF_INTERVAL ? [`--cpu-prof-interval=${process.env.PROF_INTERVAL}`] : []), join(root, 'bench/serve.ts'), backend, ...(process.env.SERVE_OPTIONS ? [process.env.SERVE_OPTIONS] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
const info = JSON.parse(await new Promise<string>((r) => createInterface({ input: child.stdout! }).once('line', r))) as Record<string, string | number>;
const tls = { ca: info.caCert as string, cert: info.clientCert as string, key: info.clientKey as string };
const url = `https://127.0.0.1:${info.port}`;
const cm = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench', labels: { app: 'bench' } }, data: { payload: 'x'.repeat(1024 - 200) } });
await runLoad({ url, tls, concurrency: 1, requests: 1, request: () => ({ method: 'POST', path: '/api/v1/namespaces', body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }) }) });
const seed = phase === 'create' || phase === 'pod' || phase === 'vap' || phase === 'webhook' || phase === 'apply' || phase === 'update' ? 0 : 2000;
// jwt: gets as a service account, its token sent without a client certificate (which authentication would take first)
let jwt = '';
if (phase === 'jwt') {
  await runLoad({ url, tls, concurrency: 1, requests: 1, request: () => ({ method: 'POST', path: '/api/v1/namespaces/bench/serviceaccounts', body: JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bench' } }) }) });
  await runLoad({
    url, tls, concurrency: 1, requests: 1,
    request: () => ({ method: 'POST', path: '/api/v1/namespaces/bench/serviceaccounts/bench/token', body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} }) }),
    onBody: (body: string) => {
      jwt = (JSON.parse(body) as { status: { token: string } }).status.token;
    },
  });
  if (!jwt) throw new Error('no service account token');
}
const hook = phase === 'webhook' ? await noopWebhook() : undefined;
if (hook) await runLoad({ url, tls, concurrency: 1, requests: 1, request: () => ({ method: 'POST', path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', body: noopWebhookConfiguration(hook.port, hook.caBundle) }) });
if (phase === 'vap') for (const [path, body] of benchPolicyWrites()) await runLoad({ url, tls, concurrency: 1, requests: 1, request: () => ({ method: 'POST', path, body }) });
if (seed) await runLoad({ url, tls, concurrency: 32, requests: seed, request: (i) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: cm(`seed-${i}`) }) });
// apply: no-op server-side applies of the apply benchmark's Deployment, after the one that creates it
const applyRequest = () => ({ method: 'PATCH', path: '/apis/apps/v1/namespaces/default/deployments/big?fieldManager=bench&force=true', body: JSON.stringify(bigDeployment(1)), headers: { 'content-type': 'application/apply-patch+yaml' } });
if (phase === 'apply') await runLoad({ url, tls, concurrency: 1, requests: 1, request: applyRequest });
// update: unconditional PUTs (no resourceVersion) of 32 copies of that Deployment, each time another replica count
const deployment = (n: number, replicas: number) => {
  const d = bigDeployment(replicas);
  return JSON.stringify({ ...d, metadata: { ...(d.metadata as object), name: `big-${n}` } });
};
if (phase === 'update') await runLoad({ url, tls, concurrency: 1, requests: 32, request: (i) => ({ method: 'POST', path: '/apis/apps/v1/namespaces/default/deployments', body: deployment(i, 1) }) });
const t0 = performance.now();
const r = await runLoad({
  url, tls: jwt ? { ca: tls.ca } : tls, concurrency: 32, requests,
  request: (i) => phase === 'apply'
    ? applyRequest()
    : phase === 'update'
    ? { method: 'PUT', path: `/apis/apps/v1/namespaces/default/deployments/big-${i % 32}`, body: deployment(i % 32, 1 + (Math.floor(i / 32) % 50)) }
    : phase === 'pod'
    ? { method: 'POST', path: '/api/v1/namespaces/bench/pods', body: benchPod(`web-${i}`) }
    : phase === 'create' || phase === 'vap' || phase === 'webhook'
    ? { method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: cm(`${phase === 'vap' ? 'r' : 'cm'}-${i}`) }
    : phase === 'list' ? { method: 'GET', path: '/api/v1/namespaces/bench/configmaps?limit=100' }
    : { method: 'GET', path: `/api/v1/namespaces/bench/configmaps/seed-${i % seed}`, ...(jwt ? { headers: { authorization: `Bearer ${jwt}` } } : {}) },
});
process.stdout.write(`${phase} ${backend}: ${Math.round(r.perSecond)}/s p99 ${r.p99Ms.toFixed(1)} ms errors ${r.errors} (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
child.kill('SIGTERM');
await hook?.close();
await new Promise((r) => child.once('exit', r));
const files = (await readdir(out)).filter((f) => f.endsWith('.cpuprofile')).sort();
const prof = JSON.parse(await readFile(join(out, files.at(-1)!), 'utf8')) as { nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[]; samples: number[]; timeDeltas: number[] };
const self = new Map<number, number>();
prof.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
const byFn = new Map<string, number>();
let total = 0;
for (const node of prof.nodes) {
  const t = self.get(node.id) ?? 0;
  total += t;
  const f = node.callFrame;
  const key = `${f.functionName || '(anon)'} ${f.url.replace(/^.*\/(src|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
  byFn.set(key, (byFn.get(key) ?? 0) + t);
}
const top = [...byFn].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 45));
for (const [k, t] of top) process.stdout.write(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}\n`);
// Inclusive time of our own functions (each counted once per sample, however deep the recursion).
if (process.env.INCLUSIVE) {
  const parent = new Map<number, number>();
  for (const node of prof.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const byId = new Map(prof.nodes.map((x) => [x.id, x]));
  const incl = new Map<string, number>();
  prof.samples.forEach((id, i) => {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      if (!f.url.includes('/src/') && !f.url.startsWith('node:')) continue;
      const key = `${f.functionName || '(anon)'} ${f.url.replace(/^.*\/(src)\//, '$1/')}:${f.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      incl.set(key, (incl.get(key) ?? 0) + (prof.timeDeltas[i] ?? 0));
    }
  });
  process.stdout.write('--- inclusive ---\n');
  for (const [k, t] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.INCLUSIVE))) process.stdout.write(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}\n`);
}
