// Server-side apply cost: a 200-line Deployment applied with no change and with one changed field, against a plain
// PUT of the same object (the raw limit of the write path). Figures: requests per second and server CPU per request.
// The apply body is sent as `kubectl apply --server-side -f deploy.yaml` sends it: the manifest as JSON, in an
// application/apply-patch+yaml request (kubectl converts the file before sending). Both paths are warmed up first.

import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { runLoad } from './load.ts';
import type { TlsClientOptions } from './load.ts';

const CLK_TCK = 100;

/** User + system CPU time of a process so far, in ms (Linux /proc). */
export async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

/** A Deployment whose YAML is about 200 lines: 4 containers with env, ports, probes, resources and mounts. */
export function bigDeployment(replicas: number): Record<string, unknown> {
  const container = (i: number) => ({
    name: `c${i}`,
    image: `registry.example.com/app/c${i}:1.${i}.0`,
    args: ['--port=8080', `--name=c${i}`, '--verbose'],
    ports: [
      { name: `http${i}`, containerPort: 8080 + i, protocol: 'TCP' },
      { name: `metrics${i}`, containerPort: 9090 + i, protocol: 'TCP' },
    ],
    env: [
      { name: 'MODE', value: 'production' },
      { name: 'INDEX', value: String(i) },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'LOG_LEVEL', value: 'info' },
    ],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
    readinessProbe: { httpGet: { path: '/ready', port: 8080 + i }, periodSeconds: 5 },
    livenessProbe: { httpGet: { path: '/live', port: 8080 + i }, periodSeconds: 10 },
    volumeMounts: [{ name: 'config', mountPath: `/etc/c${i}` }],
  });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'big', namespace: 'default', labels: { app: 'big', tier: 'backend', team: 'core' }, annotations: { owner: 'bench' } },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'big' } },
      template: {
        metadata: { labels: { app: 'big', tier: 'backend' } },
        spec: {
          containers: [0, 1, 2, 3].map(container),
          volumes: [{ name: 'config', configMap: { name: 'big-config' } }],
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'backend', effect: 'NoSchedule' }],
        },
      },
    },
  };
}

export interface ApplyFigures {
  lines: number;
  put: { perSecond: number; cpuMsPerRequest: number };
  noopApply: { perSecond: number; cpuMsPerRequest: number };
  changedApply: { perSecond: number; cpuMsPerRequest: number };
}

export async function benchApply(server: ChildProcess, port: number, tls: TlsClientOptions, requests: number): Promise<ApplyFigures> {
  const pid = server.pid ?? 0;
  const url = `https://127.0.0.1:${port}`;
  const path = '/apis/apps/v1/namespaces/default/deployments/big';
  const applyBody = (replicas: number) => JSON.stringify(bigDeployment(replicas));
  const applyReq = (body: string) => ({ method: 'PATCH', path: `${path}?fieldManager=bench&force=true`, body, headers: { 'content-type': 'application/apply-patch+yaml' } });
  const first = await runLoad({ url, tls, concurrency: 1, requests: 1, request: () => applyReq(applyBody(1)) });
  if (first.errors) throw new Error('initial apply failed');

  type Request = (i: number) => { method: string; path: string; body?: string; headers?: Record<string, string> };
  type Figures = { perSecond: number; cpuMsPerRequest: number };
  const measureOnce = async (request: Request, n: number) => {
    const before = await cpuMs(pid);
    const r = await runLoad({ url, tls, concurrency: 8, requests: n, request });
    if (r.errors) throw new Error(`${r.errors} requests failed`);
    return { seconds: n / r.perSecond, cpuMs: (await cpuMs(pid)) - before };
  };
  const noopBody = applyBody(1);
  const warm = Math.min(500, requests);
  const warmPath = `${path}-warmup`;
  const warmBodies = [4, 5].map((replicas) => JSON.stringify({ ...bigDeployment(replicas), metadata: { name: 'big-warmup', namespace: 'default' } }));
  const created = await runLoad({ url, tls, concurrency: 1, requests: 1, request: () => ({ method: 'POST', path: path.slice(0, path.lastIndexOf('/')), body: warmBodies[0] }) });
  if (created.errors) throw new Error('warm-up create failed');
  await measureOnce(() => applyReq(noopBody), warm);
  await measureOnce((i) => ({ method: 'PUT', path: warmPath, body: warmBodies[i % 2] }), warm);
  const bodies = [applyBody(2), applyBody(3)];
  const putBodies = [JSON.stringify(bigDeployment(4)), JSON.stringify(bigDeployment(5))];
  const kinds: Record<'noopApply' | 'changedApply' | 'put', Request> = {
    noopApply: () => applyReq(noopBody),
    changedApply: (i) => applyReq(bodies[i % 2]),
    put: (i) => ({ method: 'PUT', path, body: putBodies[i % 2] }),
  };
  // The three kinds take turns in rounds, so that a drift of the host (another process, the heap's growth) weighs on
  // each alike; each figure is the sum over its rounds.
  const rounds = Math.max(1, Math.min(4, Math.floor(requests / 250)));
  const per = Math.floor(requests / rounds);
  const sums = { noopApply: { seconds: 0, cpuMs: 0 }, changedApply: { seconds: 0, cpuMs: 0 }, put: { seconds: 0, cpuMs: 0 } };
  for (let round = 0; round < rounds; round++) {
    for (const kind of ['noopApply', 'changedApply', 'put'] as const) {
      const m = await measureOnce(kinds[kind], per);
      sums[kind].seconds += m.seconds;
      sums[kind].cpuMs += m.cpuMs;
    }
  }
  const figures = (kind: keyof typeof sums): Figures => ({ perSecond: (per * rounds) / sums[kind].seconds, cpuMsPerRequest: sums[kind].cpuMs / (per * rounds) });
  const noopApply = figures('noopApply');
  const changedApply = figures('changedApply');
  const put = figures('put');
  return { lines: stringify(bigDeployment(1)).split('\n').length, put, noopApply, changedApply };
}
