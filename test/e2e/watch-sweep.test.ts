// Watch and list as kubectl and controllers use them, against one Capstan with simulated workloads: the column
// definitions of Table watches (the first event only; built-in and custom resources described as kube describes
// them: ObjectMeta's documentation for Name and Age, "Custom resource definition column (in JSONPath format): ..."
// for an undocumented custom column), kubectl get -w --output-watch-events -o wide on a custom resource,
// kubectl wait (jsonpath, condition, delete, a timeout, an object that does not exist), and kubectl rollout status -w
// on a slow rollout.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, test } from 'node:test';
import { startTestServer, until, type TestServer } from './helpers.ts';
import { call, namespace, rvOf, type Json } from './stream.ts';

// Capstan's own descriptions of the Name and Age columns (kube quotes ObjectMeta's documentation there).
const NAME_DOC = 'Name is unique within a namespace and identifies the object.';
const CREATION_DOC = 'Time since the object was created.';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

const crd = (plural: string, kind: string, columns: Json[] | undefined): Json => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.sweep.example.com` },
  spec: {
    group: 'sweep.example.com',
    scope: 'Namespaced',
    names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        ...(columns ? { additionalPrinterColumns: columns } : {}),
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
              status: {
                type: 'object',
                properties: { phase: { type: 'string' }, conditions: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
              },
            },
          },
        },
      },
    ],
  },
});

const GADGETS = crd('gadgets', 'Gadget', [
  { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
  { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'The phase of the gadget.' },
  { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
]);
const PLAIN = crd('plains', 'Plain', undefined);

const gadgets = (ns: string, name = '') => `/apis/sweep.example.com/v1/namespaces/${ns}/gadgets${name ? `/${name}` : ''}`;
const mergePatch = (s: TestServer, path: string, body: unknown) => call(s, 'PATCH', path, body, 'application/merge-patch+json');

/** A watch as the admin with an Accept header: its events as they arrive; close() ends it. */
function watchAs(s: TestServer, path: string, accept: string): Promise<{ status: number; waitFor(n: number): Promise<Json[]>; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port: s.port, path, ca: s.caCert, cert: s.clientCert, key: s.clientKey, agent: false, headers: { accept } }, (res) => {
      const events: Json[] = [];
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
          if (buffered.slice(0, nl).trim()) events.push(JSON.parse(buffered.slice(0, nl)) as Json);
          buffered = buffered.slice(nl + 1);
        }
      });
      resolve({
        status: res.statusCode ?? 0,
        async waitFor(n) {
          const deadline = Date.now() + 10000;
          while (events.length < n) {
            if (Date.now() > deadline) throw new Error(`expected ${n} events, got ${JSON.stringify(events)}`);
            await new Promise((r) => setTimeout(r, 20));
          }
          return events;
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Runs kubectl with -v=6 until it printed `lines` non-empty stdout lines (then kills it) or exits; `act` runs once
 * kubectl's watch request has its response (kubectl logs "...watch=true... 200 OK").
 */
function kubectlWatching(kubeconfig: string, args: string[], lines: number, act: () => Promise<void>): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('kubectl', ['--kubeconfig', kubeconfig, '-v=6', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let acted = false;
    const complete = () => out.split('\n').slice(0, -1).filter((l) => l.trim());
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kubectl ${args.join(' ')}: expected ${lines} lines, got ${JSON.stringify(out)}\n${err}`));
    }, 15000);
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (!acted && /watch=true\S* 200 OK/.test(err)) {
        acted = true;
        act().catch((e) => {
          clearTimeout(timer);
          child.kill('SIGKILL');
          reject(e);
        });
      }
    });
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (complete().length >= lines) {
        clearTimeout(timer);
        child.kill('SIGKILL');
        resolve(complete().slice(0, lines));
      }
    });
  });
}

describe('watch sweep', () => {
  let s: TestServer;
  let kubeconfig: string;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 1, podStartupMs: 20, podTerminationMs: 20 } });
    kubeconfig = await s.writeKubeconfig('watcher', { clientCert: s.clientCert, clientKey: s.clientKey });
    await s.installCRDs([GADGETS, PLAIN] as never);
  });
  after(async () => {
    await s?.close();
  });

  test('a Table watch of a custom resource: kube\'s column definitions on the first event, none after', async () => {
    const ns = await namespace(s, 'ws-table-cr');
    const g1 = await call(s, 'POST', gadgets(ns), { apiVersion: 'sweep.example.com/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 3, color: 'red' } });
    const w = await watchAs(s, `${gadgets(ns)}?watch=true&resourceVersion=${rvOf(g1)}&timeoutSeconds=30`, TABLE);
    assert.equal(w.status, 200);
    const g2 = await mergePatch(s, `${gadgets(ns, 'g1')}/status`, { status: { phase: 'Ready' } });
    const g3 = await mergePatch(s, gadgets(ns, 'g1'), { spec: { size: 5 } });
    const events = await w.waitFor(2);
    w.close();
    assert.deepEqual(
      events.map((e) => e.type),
      ['MODIFIED', 'MODIFIED'],
    );
    const [first, second] = events.map((e) => e.object as Json);
    assert.equal(first.kind, 'Table');
    assert.deepEqual(first.columnDefinitions, [
      { name: 'Name', type: 'string', format: 'name', description: NAME_DOC, priority: 0 },
      { name: 'Size', type: 'integer', format: '', description: 'Custom resource definition column (in JSONPath format): .spec.size', priority: 0 },
      { name: 'Phase', type: 'string', format: '', description: 'The phase of the gadget.', priority: 0 },
      { name: 'Color', type: 'string', format: '', description: 'Custom resource definition column (in JSONPath format): .spec.color', priority: 1 },
    ]);
    assert.deepEqual(first.metadata, { resourceVersion: rvOf(g2) });
    assert.deepEqual(first.rows.map((r: Json) => r.cells), [['g1', 3, 'Ready', 'red']]);
    assert.equal(second.columnDefinitions, null);
    assert.deepEqual(second.metadata, { resourceVersion: rvOf(g3) });
    assert.deepEqual(second.rows.map((r: Json) => r.cells), [['g1', 5, 'Ready', 'red']]);
    assert.deepEqual(second.rows[0].object.kind, 'PartialObjectMetadata');
  });

  test('a custom resource without printer columns gets Name and Age, described by ObjectMeta\'s documentation', async () => {
    const ns = await namespace(s, 'ws-table-plain');
    await call(s, 'POST', `/apis/sweep.example.com/v1/namespaces/${ns}/plains`, { apiVersion: 'sweep.example.com/v1', kind: 'Plain', metadata: { name: 'p' } });
    const r = await s.adminRequest(`/apis/sweep.example.com/v1/namespaces/${ns}/plains`, { headers: { accept: TABLE } });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual((JSON.parse(r.body) as Json).columnDefinitions, [
      { name: 'Name', type: 'string', format: 'name', description: NAME_DOC, priority: 0 },
      { name: 'Age', type: 'date', format: '', description: CREATION_DOC, priority: 0 },
    ]);
  });

  test('built-in Tables describe Name and Age, in watches and lists', async () => {
    const ns = await namespace(s, 'ws-table-builtin');
    const cm = await call(s, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c' }, data: { a: '1' } });
    const w = await watchAs(s, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=0&timeoutSeconds=30`, TABLE);
    const [added] = await w.waitFor(1);
    w.close();
    const defs = (added.object as Json).columnDefinitions as Json[];
    assert.deepEqual(defs.map((d) => d.name), ['Name', 'Data', 'Age']);
    assert.equal(defs[0].description, NAME_DOC);
    assert.equal(defs[2].description, CREATION_DOC);
    assert.deepEqual((added.object as Json).rows[0].cells.slice(0, 2), ['c', 1]);
    assert.deepEqual((added.object as Json).metadata, { resourceVersion: rvOf(cm) });
    // Events print their Name last, wide only, with the same description.
    const events = await s.adminRequest(`/api/v1/namespaces/${ns}/events`, { headers: { accept: TABLE } });
    const eventDefs = (JSON.parse(events.body) as Json).columnDefinitions as Json[];
    assert.deepEqual(eventDefs.at(-1), { name: 'Name', type: 'string', format: 'name', description: NAME_DOC, priority: 1 });
  });

  test('kubectl get -w --output-watch-events -o wide on a custom resource prints each event with every column', async () => {
    const ns = await namespace(s, 'ws-kubectl-cr');
    await call(s, 'POST', gadgets(ns), { apiVersion: 'sweep.example.com/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 1, color: 'blue' } });
    const lines = await kubectlWatching(kubeconfig, ['get', 'gadgets', '-n', ns, '-w', '--output-watch-events', '-o', 'wide'], 5, async () => {
      await mergePatch(s, `${gadgets(ns, 'g1')}/status`, { status: { phase: 'Ready' } });
      await call(s, 'POST', gadgets(ns), { apiVersion: 'sweep.example.com/v1', kind: 'Gadget', metadata: { name: 'g2' }, spec: { size: 2, color: 'green' } });
      await call(s, 'DELETE', gadgets(ns, 'g1'));
    });
    // Columns without their Age; an empty cell is blank.
    const words = lines.map((l) => l.split(/\s+/));
    assert.deepEqual(words[0], ['EVENT', 'NAME', 'SIZE', 'PHASE', 'COLOR']);
    assert.deepEqual(words.slice(1), [
      ['ADDED', 'g1', '1', 'blue'],
      ['MODIFIED', 'g1', '1', 'Ready', 'blue'],
      ['ADDED', 'g2', '2', 'green'],
      ['DELETED', 'g1', '1', 'Ready', 'blue'],
    ]);
  });

  test('kubectl wait: jsonpath and condition on a custom resource, delete by label, a timeout, a missing object', async () => {
    const ns = await namespace(s, 'ws-wait');
    await call(s, 'POST', gadgets(ns), { apiVersion: 'sweep.example.com/v1', kind: 'Gadget', metadata: { name: 'g1', labels: { app: 'w' } }, spec: { size: 1 } });
    const waiting = Promise.all([
      s.kubectl(['wait', '-n', ns, '--for=jsonpath={.status.phase}=Done', 'gadget/g1', '--timeout=15s']),
      s.kubectl(['wait', '-n', ns, '--for=condition=Ready', 'gadgets', '-l', 'app=w', '--timeout=15s']),
    ]);
    await new Promise((r) => setTimeout(r, 500));
    await mergePatch(s, `${gadgets(ns, 'g1')}/status`, { status: { phase: 'Done', conditions: [{ type: 'Ready', status: 'True' }] } });
    const [byPath, byCondition] = await waiting;
    assert.deepEqual([byPath.code, byPath.stdout], [0, 'gadget.sweep.example.com/g1 condition met\n'], byPath.stderr);
    assert.deepEqual([byCondition.code, byCondition.stdout], [0, 'gadget.sweep.example.com/g1 condition met\n'], byCondition.stderr);

    const timedOut = await s.kubectl(['wait', '-n', ns, '--for=jsonpath={.spec.size}=7', 'gadget/g1', '--timeout=1s']);
    assert.equal(timedOut.code, 1);
    assert.equal(timedOut.stderr, 'error: timed out waiting for the condition on gadgets/g1\n');

    const missing = await s.kubectl(['wait', '-n', ns, '--for=condition=Ready', 'gadget/nope', '--timeout=1s']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'Error from server (NotFound): gadgets.sweep.example.com "nope" not found\n');

    const deleting = s.kubectl(['wait', '-n', ns, '--for=delete', 'gadgets', '-l', 'app=w', '--timeout=15s']);
    // Deleted before kubectl lists, there would be nothing to wait for (and nothing printed): delete once it watches.
    await until('kubectl wait to watch the gadgets', async () =>
      (await s.adminRequest('/metrics')).body.split('\n').some((l) => l.startsWith('apiserver_longrunning_requests{verb="WATCH"') && l.includes('resource="gadgets"') && !l.endsWith(' 0')) ? true : undefined,
    );
    await call(s, 'DELETE', gadgets(ns, 'g1'));
    const deleted = await deleting;
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stdout, 'gadget.sweep.example.com/g1 condition met\n');
  });

  test('kubectl rollout status -w follows a slow rollout to its end', async () => {
    const ns = await namespace(s, 'ws-rollout');
    const labels = { app: 'web' };
    await call(s, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      metadata: { name: 'web' },
      spec: {
        replicas: 2,
        minReadySeconds: 1,
        strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
      },
    });
    const first = await s.kubectl(['rollout', 'status', '-n', ns, 'deployment/web', '-w', '--timeout=30s'], { timeoutMs: 40000 });
    assert.equal(first.code, 0, first.stderr);
    await mergePatch(s, `/apis/apps/v1/namespaces/${ns}/deployments/web`, { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } });
    const r = await s.kubectl(['rollout', 'status', '-n', ns, 'deployment/web', '-w', '--timeout=30s'], { timeoutMs: 40000 });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.at(-1), 'deployment "web" successfully rolled out');
    // kubectl's DeploymentStatusViewer messages while the rollout goes on.
    const waiting = [
      /^Waiting for deployment spec update to be observed\.\.\.$/,
      /^Waiting for deployment "web" rollout to finish: [0-2] out of 2 new replicas have been updated\.\.\.$/,
      /^Waiting for deployment "web" rollout to finish: [1-2] old replicas are pending termination\.\.\.$/,
      /^Waiting for deployment "web" rollout to finish: [0-1] of 2 updated replicas are available\.\.\.$/,
    ];
    assert.ok(lines.length > 1, `a slow rollout is followed, not only its end: ${r.stdout}`);
    for (const l of lines.slice(0, -1)) assert.ok(waiting.some((re) => re.test(l)), l);
    assert.ok(lines.some((l) => l.includes('1 out of 2 new replicas have been updated')), r.stdout);
  });
});
