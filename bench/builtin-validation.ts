// Built-in types with heavy validation: the cost of a Pod create and of a Service create (kube's defaulting and
// validation, a cluster IP and node ports allocated) against a ConfigMap create of about the same size in the same
// server (the raw limit of the write path), CPU per request measured on the server process.

import type { ChildProcess } from 'node:child_process';
import { cpuMs } from './crd.ts';
import { runLoad } from './load.ts';
import type { TlsClientOptions } from './load.ts';

/** The Pod the creates send: one container with ports, env, resources, a probe and a mount, a volume, a toleration. */
export function benchPod(name: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'bench', labels: { app: 'bench' } },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          ports: [{ containerPort: 80, name: 'http' }],
          env: [{ name: 'MODE', value: 'fast' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
          volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
        },
      ],
      volumes: [{ name: 'cache', emptyDir: {} }],
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
    },
  });
}

function service(name: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'bench', labels: { app: 'bench' } },
    spec: { type: 'ClusterIP', selector: { app: 'bench' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }, { name: 'https', port: 443, targetPort: 8443 }] },
  });
}

function configMap(name: string): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench', labels: { app: 'bench' } }, data: { payload: 'x'.repeat(700) } });
}

export interface CreateFigure {
  perSecond: number;
  cpuMsPerRequest: number;
}

export interface BuiltinFigures {
  configMap: CreateFigure;
  pod: CreateFigure;
  service: CreateFigure;
}

export async function benchBuiltinCreates(server: ChildProcess, port: number, tls: TlsClientOptions, requests: number): Promise<BuiltinFigures> {
  const pid = server.pid ?? 0;
  const url = `https://127.0.0.1:${port}`;
  await runLoad({ url, tls, concurrency: 1, requests: 1, request: () => ({ method: 'POST', path: '/api/v1/namespaces', body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }) }) });
  const measure = async (path: string, body: (i: number) => string): Promise<CreateFigure> => {
    await runLoad({ url, tls, concurrency: 32, requests: Math.max(50, requests / 10), request: (i) => ({ method: 'POST', path, body: body(1_000_000 + i) }) });
    const before = await cpuMs(pid);
    const r = await runLoad({ url, tls, concurrency: 32, requests, request: (i) => ({ method: 'POST', path, body: body(i) }) });
    if (r.errors) throw new Error(`${r.errors} creates of ${path} failed`);
    return { perSecond: r.perSecond, cpuMsPerRequest: ((await cpuMs(pid)) - before) / requests };
  };
  const configMapFigure = await measure('/api/v1/namespaces/bench/configmaps', (i) => configMap(`cm-${i}`));
  const podFigure = await measure('/api/v1/namespaces/bench/pods', (i) => benchPod(`web-${i}`));
  const serviceFigure = await measure('/api/v1/namespaces/bench/services', (i) => service(`svc-${i}`));
  return { configMap: configMapFigure, pod: podFigure, service: serviceFigure };
}
