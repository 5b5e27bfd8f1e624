// A bounded, seeded fuzz of the API (issue 16): a few thousand generated requests, over HTTP/2 and HTTP/1.1, with
// mangled paths, queries, headers and bodies. It fails on any 5xx outside the kube-identical list below, on any
// 5xx or API error without a Status body, on /readyz taking over a second to answer while it runs (with the
// process on the CPU for that second), and on any change to objects created before it. FUZZ_SEED and FUZZ_REQUESTS override the fixed seed and count.

import assert from 'node:assert/strict';
import { connect as http2Connect } from 'node:http2';
import type { ClientHttp2Session } from 'node:http2';
import { Agent, request as httpsRequest } from 'node:https';
import { after, before, describe, test } from 'node:test';
import { PANIC_ANSWER } from '../../src/apis/errors.ts';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 16);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3000);
const CONCURRENCY = 8;
const READYZ_STALL_MS = 1000;

/**
 * 5xx answers kube-apiserver gives itself for the same requests, matched on status and message (in whatever
 * encoding the Status was negotiated); each names its kube source. Anything else at 500 or above fails the test.
 */
const KUBE_IDENTICAL_5XX: readonly { code: number; message: RegExp; source: string }[] = [
  // fieldmanager: structured-merge-diff cannot type the applied object; a plain error, so 500 without a reason.
  { code: 500, message: /failed to create typed patch object \(/, source: 'k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager (TypeConverter.ObjectToTyped)' },
  // fieldmanager: the merged object holds a value its Go type cannot (a malformed time, quantity or base64).
  { code: 500, message: /failed to convert new object \(.*\) to proper version: unable to convert unstructured object to /, source: 'k8s.io/apimachinery/pkg/util/managedfields/internal/structuredmerge.go (structuredMergeManager.Apply, toVersioned)' },
  // A resourceVersion that is not a number: storage.NewInvalidError from APIObjectVersioner.ParseResourceVersion,
  // not an API status, so ErrorToAPIStatus makes it a 500 with the field error's text.
  { code: 500, message: /resourceVersion: Invalid value: "[^"]*": strconv\.ParseUint/, source: 'k8s.io/apiserver/pkg/storage/etcd3 (APIObjectVersioner.ParseResourceVersion)' },
  // DELETE bodies: the decoder's own errors and a body of another kind are plain errors in DeleteResource.
  { code: 500, message: /decoded object cannot be converted to DeleteOptions/, source: 'k8s.io/apiserver/pkg/endpoints/handlers/delete.go (DeleteResource, DeleteCollection)' },
  { code: 500, message: /couldn't get version\/kind; json parse error|error converting YAML to JSON|provided data does not appear to be a protobuf message|Object 'Kind' is missing|json: cannot unmarshal/, source: 'k8s.io/apiserver/pkg/endpoints/handlers/delete.go (DeleteOptions decode error)' },
  // A create naming a resourceVersion: the storage's plain ErrResourceVersionSetOnCreate, so a 500 without a reason.
  { code: 500, message: /^resourceVersion should not be set on objects to be created$/, source: 'k8s.io/apiserver/pkg/storage/etcd3/store.go (Create)' },
  // A resourceVersion ahead of the store: the cacher waits, then storage.NewTooLargeResourceVersionError (504).
  { code: 504, message: /Too large resource version: \d+, current: \d+/, source: 'k8s.io/apiserver/pkg/storage/cacher (waitUntilFreshAndBlock)' },
];

/** The Status in a response body, JSON, YAML or Protobuf, as text to match; undefined when it is not a Status. */
function statusText(body: Buffer, contentType: string): string | undefined {
  const text = body.toString('utf8');
  if (contentType.startsWith('application/json')) {
    try {
      const status = JSON.parse(text) as { kind?: string; message?: string };
      return status.kind === 'Status' ? (status.message ?? '') : undefined;
    } catch {
      return undefined;
    }
  }
  if (contentType.startsWith('application/yaml')) return /^kind: Status$/m.test(text) ? text : undefined;
  if (contentType.startsWith('application/vnd.kubernetes.protobuf')) return body.subarray(0, 4).toString('latin1') === 'k8s\0' && text.includes('Status') ? text : undefined;
  return undefined;
}

/** mulberry32: a small seeded PRNG, so a failing run is reproduced by its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  http2: boolean;
}

interface FuzzResponse {
  status: number;
  contentType: string;
  body: Buffer;
}

function generator(seed: number) {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const chance = (p: number): boolean => rnd() < p;
  const int = (n: number): number => Math.floor(rnd() * n);

  const names = ['fz-a', 'fz-b', 'fz-c', 'fz-d', 'Bad_Name', '', 'fz-' + 'x'.repeat(300), '..', 'fz-%2F', 'fz-ü'];
  const namespaces = ['fuzz', 'fuzz', 'default', 'fz-ns', 'Bad NS', 'missing'];
  const namespaced = ['configmaps', 'secrets', 'pods', 'services', 'serviceaccounts', 'events', 'deployments', 'jobs', 'roles', 'rolebindings', 'leases', 'widgets'];
  const groupOf: Record<string, string> = { deployments: '/apis/apps/v1', jobs: '/apis/batch/v1', roles: '/apis/rbac.authorization.k8s.io/v1', rolebindings: '/apis/rbac.authorization.k8s.io/v1', leases: '/apis/coordination.k8s.io/v1' };
  const kindOf: Record<string, [string, string]> = {
    configmaps: ['v1', 'ConfigMap'], secrets: ['v1', 'Secret'], pods: ['v1', 'Pod'], services: ['v1', 'Service'], serviceaccounts: ['v1', 'ServiceAccount'],
    events: ['v1', 'Event'], deployments: ['apps/v1', 'Deployment'], jobs: ['batch/v1', 'Job'], roles: ['rbac.authorization.k8s.io/v1', 'Role'],
    rolebindings: ['rbac.authorization.k8s.io/v1', 'RoleBinding'], leases: ['coordination.k8s.io/v1', 'Lease'], widgets: ['v1', 'Widget'],
  };
  const specs: Record<string, unknown> = {
    configmaps: { data: { a: 'b' } },
    secrets: { stringData: { k: 'v' }, type: 'Opaque' },
    pods: { spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }] } },
    services: { spec: { ports: [{ port: 80 }], selector: { app: 'x' } } },
    deployments: { spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
    jobs: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } },
    roles: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
    leases: { spec: { holderIdentity: 'h', leaseDurationSeconds: 10 } },
  };
  const queries = [
    'labelSelector=a%3Db', 'labelSelector=%21%21%21', 'labelSelector=a+in+(b', 'fieldSelector=metadata.name%3Dfz-a', 'fieldSelector=spec.nope%3D1', 'fieldSelector=%3D%3D',
    'resourceVersion=0', 'resourceVersion=abc', 'resourceVersion=99999999', 'resourceVersion=-1', 'resourceVersionMatch=Exact', 'resourceVersionMatch=NotOlderThan', 'resourceVersionMatch=bogus',
    'limit=1', 'limit=-5', 'limit=abc', 'limit=99999999999999999999', 'continue=abc', 'continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ6In0',
    'dryRun=All', 'dryRun=bogus', 'fieldManager=fuzzer', 'fieldManager=' + 'm'.repeat(200), 'fieldValidation=Strict', 'fieldValidation=Ignore', 'fieldValidation=bogus',
    'force=true', 'force=maybe', 'propagationPolicy=Foreground', 'propagationPolicy=Bogus', 'gracePeriodSeconds=-3', 'gracePeriodSeconds=x', 'pretty=true',
    'includeObject=Metadata', 'timeoutSeconds=1', 'allowWatchBookmarks=true', 'sendInitialEvents=true', 'orphanDependents=true', '%zz=1', 'a=%',
  ];
  const contentTypes = [
    'application/json', 'application/json', 'application/yaml', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/json-patch+json',
    'application/apply-patch+yaml', 'application/vnd.kubernetes.protobuf', 'text/plain', 'application/json; charset=utf-16', '',
  ];
  const accepts = [
    'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/json;as=Table;v=v1;g=meta.k8s.io', 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
    'text/html', '*/*', '', 'application/json;as=Table;v=v9;g=meta.k8s.io',
  ];

  const randomValue = (depth: number): unknown => {
    switch (int(depth > 4 ? 6 : 9)) {
      case 0: return null;
      case 1: return chance(0.5);
      case 2: return pick([0, -1, 1.5, 1e308, -0, 2 ** 63, 9007199254740993]);
      case 3: return pick(['', 'x', 'ü', '\u0000', '<script>', '${x}', 'a'.repeat(70), '2024-01-01T00:00:00Z', '100Mi', '-']);
      case 4: return pick(['yes', 'no', '~', '0755', '.inf']);
      case 5: return [];
      case 6: return Array.from({ length: int(4) }, () => randomValue(depth + 1));
      case 7: return Object.fromEntries(Array.from({ length: int(4) }, () => [pick(['a', 'name', 'metadata', 'spec', '$patch', '$retainKeys', 'x-y', '']), randomValue(depth + 1)]));
      default: return {};
    }
  };

  /** A valid object, then mutated: fields replaced by random values, deleted, or nested deep. */
  const objectFor = (resource: string, name: string): Record<string, unknown> => {
    const [apiVersion, kind] = kindOf[resource] ?? ['v1', 'ConfigMap'];
    const obj: Record<string, unknown> = { apiVersion, kind, metadata: { name, labels: { app: 'x' } }, ...(specs[resource] as object) };
    const mutations = int(4);
    for (let i = 0; i < mutations; i++) {
      const key = pick(['apiVersion', 'kind', 'metadata', 'spec', 'data', 'status', 'rules', 'x', 'metadata.name', 'metadata.labels', 'metadata.resourceVersion', 'metadata.namespace', 'metadata.finalizers', 'metadata.ownerReferences']);
      const value = chance(0.1) ? JSON.parse(nestedText(200 + int(300))) : randomValue(0);
      const [head, tail] = key.split('.');
      if (tail) {
        const meta = (obj[head] ??= {}) as Record<string, unknown>;
        if (typeof meta === 'object' && meta !== null) meta[tail] = chance(0.2) ? undefined : value;
      } else if (chance(0.2)) delete obj[key];
      else obj[key] = value;
    }
    return obj;
  };

  const deepText = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  function nestedText(depth: number): string {
    return '['.repeat(depth) + ']'.repeat(depth);
  }

  const bodyFor = (contentType: string, resource: string, name: string): Buffer | undefined => {
    if (chance(0.05)) return undefined;
    if (chance(0.05)) return Buffer.from(Array.from({ length: int(200) }, () => int(256)));
    const obj = objectFor(resource, name);
    let text: string;
    switch (contentType) {
      case 'application/json-patch+json':
        text = JSON.stringify(chance(0.8) ? Array.from({ length: 1 + int(3) }, () => ({ op: pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus']), path: pick(['/metadata/labels/a', '/data', '/data/x', '/spec', '/metadata/name', '', '/x/-', '/metadata/labels/~1']), from: pick(['/metadata', '/data', undefined]), value: randomValue(1) })) : randomValue(0));
        break;
      case 'application/yaml':
      case 'application/apply-patch+yaml':
        text = chance(0.3)
          ? pick([`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: &d {a: b}\nx: *d\n`, 'a: &a [*a]', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  name: dup\n`, '- a\n- b\n', ': :', 'a: [\n', '---\n---\n', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\n` + '---\n'.repeat(1000)])
          : JSON.stringify(obj);
        break;
      default:
        text = chance(0.05) ? `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"x":${deepText(pick([100, 3000, 9990, 10001]))}}` : JSON.stringify(obj);
    }
    if (chance(0.08)) text = text.slice(0, int(text.length));
    if (chance(0.03)) text = text.replace(/"/g, "'");
    return Buffer.from(text);
  };

  return (): FuzzRequest => {
    const resource = pick(namespaced);
    const ns = pick(namespaces);
    const name = pick(names);
    const prefix = groupOf[resource] ?? '/api/v1';
    const shape = int(20);
    let path: string;
    if (shape < 8) path = `${prefix}/namespaces/${encodeURIComponent(ns)}/${resource}`;
    else if (shape < 16) path = `${prefix}/namespaces/${encodeURIComponent(ns)}/${resource}/${name}`;
    else if (shape === 16) path = `${prefix}/namespaces/${encodeURIComponent(ns)}/${resource}/${name}/${pick(['status', 'scale', 'log', 'exec', 'bogus', 'ephemeralcontainers'])}`;
    else if (shape === 17) path = pick(['/api', '/apis', '/api/v1', '/apis/apps', '/openapi/v2', '/openapi/v3', '/version', '/healthz', '/livez?verbose', '/metrics', '/apis/nope/v1/things', '/%', '/api/v1/namespaces', `/api/v1/namespaces/fz-${int(3)}`, '/api/v1/nodes', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions']);
    else path = `${prefix}/${resource}`;
    const query = Array.from({ length: int(4) }, () => pick(queries)).join('&');
    if (query) path += `?${query}`;
    const method = pick(['GET', 'GET', 'GET', 'POST', 'POST', 'PUT', 'PATCH', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
    // Namespaces are cluster-scoped: only the fuzzer's own are written to.
    if (path.startsWith('/api/v1/namespaces') && !path.includes('/namespaces/fuzz') && !path.includes('/namespaces/fz-') && method !== 'GET' && method !== 'POST') path = '/api/v1/namespaces/fz-0';
    const headers: Record<string, string> = {};
    const ct = pick(contentTypes);
    if (ct) headers['content-type'] = ct;
    const accept = pick(accepts);
    if (accept) headers.accept = accept;
    if (chance(0.05)) headers['accept-encoding'] = 'gzip';
    if (chance(0.03)) headers['impersonate-user'] = pick(['system:anonymous', 'jane', '']);
    if (chance(0.02)) headers['audit-id'] = pick(['x'.repeat(200), 'ok-id', '\u00ff']);
    const body = method === 'GET' || method === 'HEAD' ? (chance(0.02) ? Buffer.from('{}') : undefined) : bodyFor(ct, resource, name);
    return { method, path, headers, body, http2: chance(0.7) };
  };
}

describe('fuzz', () => {
  let s: TestServer;
  let session: ClientHttp2Session;
  let agent: Agent;
  const protectedPaths = ['/api/v1/namespaces/protected/configmaps/keep', '/api/v1/namespaces/protected/secrets/keep', '/apis/apps/v1/namespaces/protected/deployments/keep', '/api/v1/namespaces/protected'];
  let before_: string[];

  const h1 = (r: FuzzRequest): Promise<FuzzResponse> =>
    new Promise((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port: s.port, path: r.path, method: r.method, headers: r.headers, ca: s.caCert, cert: s.clientCert, key: s.clientKey, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(r.body);
    });

  const h2 = (r: FuzzRequest): Promise<FuzzResponse> =>
    new Promise((resolve, reject) => {
      const stream = session.request({ ':method': r.method, ':path': r.path, ...r.headers }, { endStream: r.body === undefined });
      let status = 0;
      let contentType = '';
      const chunks: Buffer[] = [];
      stream.on('response', (h) => {
        status = Number(h[':status']);
        contentType = String(h['content-type'] ?? '');
      });
      stream.on('data', (d: Buffer) => chunks.push(d));
      stream.on('end', () => resolve({ status, contentType, body: Buffer.concat(chunks) }));
      stream.on('error', reject);
      if (r.body !== undefined) stream.end(r.body);
    });

  const admin = (method: string, path: string, body?: unknown) => s.adminRequest(path, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const snapshot = async (): Promise<string[]> => Promise.all(protectedPaths.map(async (p) => (await admin('GET', p)).body));

  before(async () => {
    s = await startTestServer();
    agent = new Agent({ keepAlive: true, maxSockets: 4 });
    session = http2Connect(s.url, { ca: s.caCert, cert: s.clientCert, key: s.clientKey });
    session.on('error', () => {});
    for (const [path, body] of [
      ['/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'protected' } }],
      ['/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fuzz' } }],
      ['/api/v1/namespaces/protected/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep', labels: { app: 'x' } }, data: { a: 'b' } }],
      ['/api/v1/namespaces/protected/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'keep' }, stringData: { k: 'v' } }],
      ['/apis/apps/v1/namespaces/protected/deployments', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'keep' }, spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } }],
    ] as const) {
      const r = await admin('POST', path, body);
      assert.equal(r.status, 201, r.body);
    }
    before_ = await snapshot();
  });
  after(async () => {
    session?.close();
    agent?.destroy();
    await s?.close();
  });

  test(`${REQUESTS} generated requests (seed ${SEED}): no unexpected 5xx, every error a Status, /readyz never stalls, prior objects intact`, async () => {
    const next = generator(SEED);
    const requests = Array.from({ length: REQUESTS }, next);
    const failures: string[] = [];
    const counts = new Map<number, number>();

    let stalls: string[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        const started = performance.now();
        const cpuBefore = process.cpuUsage();
        const r = await s.adminRequest('/readyz');
        const ms = performance.now() - started;
        const cpu = process.cpuUsage(cpuBefore);
        const cpuMs = (cpu.user + cpu.system) / 1000;
        // A stall is this process busy for over a second while /readyz waited; a machine that did not give the
        // process the CPU (other work on shared cores) is not one.
        if (r.status !== 200 || (ms > READYZ_STALL_MS && cpuMs > READYZ_STALL_MS)) stalls.push(`/readyz ${r.status} after ${Math.round(ms)} ms (${Math.round(cpuMs)} ms of CPU)`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    let index = 0;
    const worker = async (): Promise<void> => {
      while (index < requests.length) {
        const r = requests[index++];
        let res: FuzzResponse;
        try {
          res = await (r.http2 ? h2(r) : h1(r));
        } catch (e) {
          failures.push(`${r.method} ${r.path} (${r.http2 ? 'h2' : 'h1'}): transport error ${(e as Error).message}`);
          continue;
        }
        counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
        const where = `${r.method} ${r.path} [${r.headers['content-type'] ?? ''}] (${r.http2 ? 'h2' : 'h1'})`;
        // The patch libraries' Go runtime errors (json-patch's nil dereference, strategicpatch's unhashable or
        // uncomparable values) panic kube-apiserver: its panic filter answers in plain text.
        const patchPanic = r.method === 'PATCH' && /^application\/(json-patch|strategic-merge-patch)\+json/.test(r.headers['content-type'] ?? '');
        if (patchPanic && res.status === 500 && res.contentType === 'text/plain; charset=utf-8' && res.body.toString('utf8') === PANIC_ANSWER) continue;
        if (res.status >= 500) {
          const message = statusText(res.body, res.contentType);
          if (message === undefined) {
            failures.push(`${where}: ${res.status} without a Status body (${res.contentType}): ${JSON.stringify(res.body.subarray(0, 120).toString('utf8'))}`);
            continue;
          }
          if (!KUBE_IDENTICAL_5XX.some((k) => k.code === res.status && k.message.test(message))) failures.push(`${where}: ${res.status} ${message.slice(0, 200)}`);
        } else if (res.status >= 400 && r.method !== 'HEAD' && res.contentType.startsWith('application/json') && res.body.length === 0) {
          failures.push(`${where}: ${res.status} with an empty body`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    probing = false;
    await prober;

    assert.deepEqual(failures, [], `status counts: ${JSON.stringify([...counts].sort())}`);
    assert.deepEqual(stalls, []);
    assert.deepEqual(await snapshot(), before_);
    assert.equal((await s.adminRequest('/readyz')).status, 200);
    // The run exercised the server: successes and client errors both occurred.
    assert.ok((counts.get(200) ?? 0) > 0 && (counts.get(400) ?? 0) > 0, JSON.stringify([...counts]));
    stalls = [];
  });
});
