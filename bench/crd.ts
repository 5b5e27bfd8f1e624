// Custom resources: the cost of a CR create whose schema carries 10 CEL rules, against a ConfigMap create of the
// same size in the same server (the raw limit of the write path), and the time from a CRD create to the first
// CR create that succeeds (envtest takes seconds for the same).

import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { runLoad } from './load.ts';
import type { TlsClientOptions } from './load.ts';

const CLK_TCK = 100;

export async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

const RULES = [
  { rule: 'self.replicas >= self.minReplicas', message: 'replicas below minimum' },
  { rule: 'self.replicas <= 100' },
  { rule: "self.name.startsWith('w-')" },
  { rule: 'self.name.size() <= 63' },
  { rule: "self.mode in ['fast', 'safe']" },
  { rule: 'self.ports.all(p, p > 0 && p < 65536)' },
  { rule: 'size(self.tags) <= 10' },
  { rule: "!has(self.owner) || self.owner != ''" },
  { rule: 'self.payload.size() < 4096' },
  { rule: "!('forbidden' in self.labels)" },
];

export function benchCrdManifest(plural: string): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.bench.example.com` },
    spec: {
      group: 'bench.example.com',
      scope: 'Namespaced',
      names: { plural, kind: `${plural[0].toUpperCase()}${plural.slice(1, -1)}` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  'x-kubernetes-validations': RULES,
                  properties: {
                    name: { type: 'string', maxLength: 63 },
                    mode: { type: 'string', maxLength: 8 },
                    replicas: { type: 'integer' },
                    minReplicas: { type: 'integer' },
                    owner: { type: 'string', maxLength: 63 },
                    ports: { type: 'array', maxItems: 8, items: { type: 'integer' } },
                    tags: { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 32 } },
                    labels: { type: 'object', maxProperties: 16, additionalProperties: { type: 'string', maxLength: 63 } },
                    payload: { type: 'string', maxLength: 4096 },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

function customResource(kind: string, name: string): string {
  return JSON.stringify({
    apiVersion: 'bench.example.com/v1',
    kind,
    metadata: { name, namespace: 'bench', labels: { app: 'bench' } },
    spec: { name: `w-${name}`, mode: 'fast', replicas: 3, minReplicas: 1, owner: 'bench', ports: [80, 443], tags: ['a', 'b'], labels: { team: 'core' }, payload: 'x'.repeat(700) },
  });
}

function configMap(name: string): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench', labels: { app: 'bench' } }, data: { payload: 'x'.repeat(900) } });
}

export interface CrdFigures {
  configMap: { perSecond: number; cpuMsPerRequest: number };
  customResource: { perSecond: number; cpuMsPerRequest: number };
  /** Median ms from the CRD POST to the first 201 of a CR POST. */
  crdToFirstCreateMs: number;
}

export async function benchCrd(server: ChildProcess, port: number, tls: TlsClientOptions, requests: number): Promise<CrdFigures> {
  const pid = server.pid ?? 0;
  const url = `https://127.0.0.1:${port}`;
  // One request from this process (onBody keeps runLoad in-process): the lean client's own process would add its
  // spawn to every call and hide the server's time.
  const one = async (method: string, path: string, body?: string) => runLoad({ url, tls, concurrency: 1, requests: 1, request: () => ({ method, path, body }), onBody: () => {} });
  await one('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }));

  const firstCreate: number[] = [];
  for (let i = 0; i < 5; i++) {
    const plural = `probes${String.fromCharCode(97 + i)}s`;
    const manifest = benchCrdManifest(plural);
    const kind = (manifest.spec as { names: { kind: string } }).names.kind;
    const t0 = performance.now();
    if ((await one('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', JSON.stringify(manifest))).errors) throw new Error('CRD create failed');
    for (;;) {
      const r = await one('POST', `/apis/bench.example.com/v1/namespaces/bench/${plural}`, customResource(kind, 'first'));
      if (r.errors === 0) break;
      if (performance.now() - t0 > 10_000) throw new Error('CR never accepted');
    }
    firstCreate.push(performance.now() - t0);
  }

  const manifest = benchCrdManifest('widgets');
  const kind = (manifest.spec as { names: { kind: string } }).names.kind;
  await one('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', JSON.stringify(manifest));
  for (let t0 = performance.now(); (await one('GET', '/apis/bench.example.com/v1/namespaces/bench/widgets')).errors; ) {
    if (performance.now() - t0 > 10_000) throw new Error('CRD never served');
  }
  const measure = async (path: string, body: (i: number) => string) => {
    await runLoad({ url, tls, concurrency: 32, requests: Math.max(50, requests / 10), request: (i) => ({ method: 'POST', path, body: body(1_000_000 + i) }) });
    const before = await cpuMs(pid);
    const r = await runLoad({ url, tls, concurrency: 32, requests, request: (i) => ({ method: 'POST', path, body: body(i) }) });
    if (r.errors) throw new Error(`${r.errors} creates failed`);
    return { perSecond: r.perSecond, cpuMsPerRequest: ((await cpuMs(pid)) - before) / requests };
  };
  const cm = await measure('/api/v1/namespaces/bench/configmaps', (i) => configMap(`cm-${i}`));
  const cr = await measure('/apis/bench.example.com/v1/namespaces/bench/widgets', (i) => customResource(kind, `w-${i}`));
  const sorted = [...firstCreate].sort((a, b) => a - b);
  return { configMap: cm, customResource: cr, crdToFirstCreateMs: sorted[Math.floor(sorted.length / 2)] };
}
