// `--only=auth`: what authorization and token authentication cost on the get path, each against its own raw
// limit measured in the same run:
// - RBAC with 1,000 RoleBindings and 200 ClusterRoles vs AlwaysAllow (the same build, the same token-file user);
// - a service account token (JWT, verified once then cached) vs the admin client certificate, on one server.

import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cpuMs } from './apply.ts';
import { runLoad, type LoadResult, type TlsClientOptions } from './load.ts';
import { stop } from './children.ts';
import { spawnNode } from './pinning.ts';

const root = new URL('..', import.meta.url).pathname;
const RBAC = 'rbac.authorization.k8s.io';
const CONCURRENCY = 32;
const USER_TOKEN = 'bench-user-token-0123456789abcdef';
const OBJECTS = 1000;

export interface AuthRow {
  what: string;
  capstan: string;
  raw: string;
  ratio: string;
}

interface Server {
  child: ChildProcess;
  port: number;
  admin: TlsClientOptions;
}

async function serve(options: Record<string, unknown>): Promise<Server> {
  const child = spawnNode('server', [join(root, 'bench/serve.ts'), 'memory', JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench/serve.ts exited with ${code}`)));
  });
  const info = JSON.parse(first) as { port: number; caCert: string; clientCert: string; clientKey: string };
  return { child, port: info.port, admin: { ca: info.caCert, cert: info.clientCert, key: info.clientKey } };
}

async function load(s: Server, tls: TlsClientOptions, requests: number, request: (i: number) => { method: string; path: string; body?: string; headers?: Record<string, string> }): Promise<LoadResult> {
  const r = await runLoad({ url: `https://127.0.0.1:${s.port}`, tls, concurrency: CONCURRENCY, requests, request });
  if (r.errors > 0) throw new Error(`${r.errors} of ${r.requests} requests failed (${request(0).method} ${request(0).path})`);
  return r;
}

const post = (path: string, obj: unknown) => ({ method: 'POST', path, body: JSON.stringify(obj) });

async function seedConfigMaps(s: Server): Promise<void> {
  await load(s, s.admin, 1, () => post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }));
  await load(s, s.admin, OBJECTS, (i) => post('/api/v1/namespaces/bench/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { payload: 'x'.repeat(900) } }));
}

/** 200 ClusterRoles and 1,000 RoleBindings (100 in the bench namespace, some to the user's group), the user's own last. */
async function seedRbac(s: Server): Promise<void> {
  const resources = ['pods', 'services', 'secrets', 'deployments', 'jobs', 'leases', 'events', 'endpoints'];
  await load(s, s.admin, 200, (i) =>
    post(`/apis/${RBAC}/v1/clusterroles`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: `bench-role-${i}` },
      rules: [
        { apiGroups: ['', 'apps'], resources: [resources[i % resources.length], `${resources[(i + 1) % resources.length]}/status`], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['batch'], resources: ['jobs'], verbs: ['create', 'delete'], resourceNames: [`job-${i}`] },
        { nonResourceURLs: [`/bench/${i}/*`], verbs: ['get'] },
      ],
    }),
  );
  await load(s, s.admin, 10, (i) => post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `team-${i}` } }));
  await load(s, s.admin, 999, (i) => {
    const namespace = i < 100 ? 'bench' : `team-${i % 10}`;
    // In the bench namespace every fifth binding names the user's group, with a role that does not allow the request.
    const subject = i < 100 && i % 5 === 0 ? { apiGroup: RBAC, kind: 'Group', name: 'bench-group' } : { apiGroup: RBAC, kind: 'User', name: `someone-${i}` };
    return post(`/apis/${RBAC}/v1/namespaces/${namespace}/rolebindings`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: { name: `bench-binding-${i}` },
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: `bench-role-${i % 200}` },
      subjects: [subject],
    });
  });
  await load(s, s.admin, 1, () =>
    post(`/apis/${RBAC}/v1/namespaces/bench/rolebindings`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'bench-user-view' },
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' },
      subjects: [{ apiGroup: RBAC, kind: 'User', name: 'bench-user' }],
    }),
  );
}

interface Run extends LoadResult {
  /** Server CPU time per request (user + system), ms: what the machine's other load disturbs least. */
  cpuMsPerRequest: number;
}

async function getRun(s: Server, tls: TlsClientOptions, requests: number, token?: string): Promise<Run> {
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  const before = await cpuMs(s.child.pid!);
  const r = await load(s, tls, requests, (i) => ({ method: 'GET', path: `/api/v1/namespaces/bench/configmaps/cm-${i % OBJECTS}`, headers }));
  return { ...r, cpuMsPerRequest: ((await cpuMs(s.child.pid!)) - before) / requests };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * One row from paired rounds (each of `runs` ran right after the `base` round of the same index): medians of each
 * side, and the costs as medians of the per-pair ratios, which a shared machine's drift disturbs least. The target is
 * judged on CPU.
 */
function compare(what: string, runs: Run[], base: Run[], baseName: string, target: number): AuthRow {
  const cpuCost = median(runs.map((r, i) => r.cpuMsPerRequest / base[i]!.cpuMsPerRequest)) - 1;
  const throughputCost = 1 - median(runs.map((r, i) => r.perSecond / base[i]!.perSecond));
  const side = (xs: Run[]) => `${fmt(median(xs.map((x) => x.perSecond)))}/s (p99 ${fmt(median(xs.map((x) => x.p99Ms)), 1)} ms), ${fmt(median(xs.map((x) => x.cpuMsPerRequest)) * 1000)} µs`;
  return {
    what,
    capstan: `${side(runs)} server CPU per request`,
    raw: `${baseName}: ${side(base)} CPU`,
    ratio: `CPU cost ${fmt(100 * cpuCost, 1)}%, throughput cost ${fmt(100 * throughputCost, 1)}%, medians of ${runs.length} paired rounds (target <= ${100 * target}%: ${cpuCost <= target ? 'met' : 'MISSED'} on CPU)`,
  };
}

export async function benchAuth(options: { quick: boolean }): Promise<AuthRow[]> {
  // Many short alternating rounds: on a shared machine the load drifts, and paired rounds see the same drift.
  const requests = options.quick ? 2000 : 8000;
  const rounds = options.quick ? 5 : 11;
  const rows: AuthRow[] = [];
  const scratch = await mkdtemp(join(tmpdir(), 'capstan-bench-auth-'));
  const tokenFile = join(scratch, 'tokens.csv');
  await writeFile(tokenFile, `${USER_TOKEN},bench-user,u-bench,"bench-group"\n`);
  const servers: Server[] = [];
  try {
    // API Priority and Fairness is off on both: it would send the admin (system:masters, exempt) and the other users
    // through different paths and blur what authentication and authorization cost; the observability section
    // measures it on its own.
    const allow = await serve({ authorizationMode: ['AlwaysAllow'], tokenAuthFile: tokenFile, enablePriorityAndFairness: false });
    servers.push(allow);
    const rbac = await serve({ authorizationMode: ['RBAC'], tokenAuthFile: tokenFile, enablePriorityAndFairness: false });
    servers.push(rbac);
    await seedConfigMaps(allow);
    await seedConfigMaps(rbac);
    await seedRbac(rbac);
    const userTls = { ca: allow.admin.ca };
    // Warm-up, then alternate rounds so both see the same machine.
    await getRun(allow, { ca: allow.admin.ca }, requests, USER_TOKEN);
    await getRun(rbac, { ca: rbac.admin.ca }, requests, USER_TOKEN);
    const a: Run[] = [];
    const r: Run[] = [];
    for (let i = 0; i < rounds; i++) {
      a.push(await getRun(allow, userTls, requests, USER_TOKEN));
      r.push(await getRun(rbac, { ca: rbac.admin.ca }, requests, USER_TOKEN));
    }
    rows.push(compare('get as a token-file user, RBAC (1,000 RoleBindings, 200 ClusterRoles) vs AlwaysAllow', r, a, 'AlwaysAllow', 0.1));
    await stop(rbac.child);
    servers.pop();

    // Service account token vs client certificate, on the AlwaysAllow server.
    await load(allow, allow.admin, 1, () => post('/api/v1/namespaces/bench/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bench' } }));
    let token = '';
    await runLoad({
      url: `https://127.0.0.1:${allow.port}`,
      tls: allow.admin,
      concurrency: 1,
      requests: 1,
      request: () => post('/api/v1/namespaces/bench/serviceaccounts/bench/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} }),
      onBody: (body: string) => {
        token = (JSON.parse(body) as { status: { token: string } }).status.token;
      },
    });
    if (!token) throw new Error('no service account token');
    await getRun(allow, allow.admin, requests);
    await getRun(allow, userTls, requests, token);
    const cert: Run[] = [];
    const jwt: Run[] = [];
    for (let i = 0; i < rounds; i++) {
      cert.push(await getRun(allow, allow.admin, requests));
      jwt.push(await getRun(allow, userTls, requests, token));
    }
    rows.push(compare('get with a service account token (JWT, cached) vs the admin client certificate, AlwaysAllow', jwt, cert, 'client certificate', 0.05));
  } finally {
    for (const s of servers) await stop(s.child);
    await rm(scratch, { recursive: true, force: true });
  }
  for (const row of rows) process.stdout.write(`  ${row.what}: ${row.capstan} | raw ${row.raw} | ${row.ratio}\n`);
  return rows;
}
