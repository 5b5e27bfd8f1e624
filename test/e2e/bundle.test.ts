// End to end: the bundle (scripts/build.ts) that the installed package and `bin/capstan.js` run. The rest of the
// suite drives the sources; this file builds a bundle of them and checks what only a bundle can get wrong: the files
// modules find beside themselves at run time (the API model, the YAML worker, the CEL runtime loaded on first use),
// the packages left outside it (prom-client, yaml), and Node's built-ins as the bundle takes them (an HTTP/1.1
// upgrade loads node:http on first use).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request as httpsRequest } from 'node:https';
import { randomBytes } from 'node:crypto';
import { bundle, inlineBuiltinImports } from '../../scripts/build.ts';
import { rawRequest, runKubectl, startCliProcess } from './helpers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Inside node_modules, so the bundle finds the packages it leaves outside, as it does in dist/.
const OUT = join(ROOT, 'node_modules', '.cache', `capstan-bundle-test-${process.pid}`);

let dir: string;
let child: ChildProcess | undefined;
let kubeconfig: string;
let port: number;
let ca: string;
let admin: { clientCert: string; clientKey: string };

before(async () => {
  const inputs = await bundle(OUT);
  assert.ok(inputs.includes('src/cli/main.ts') && inputs.includes('src/apis/generated/model.json'), inputs.join(' '));
  dir = await mkdtemp(join(tmpdir(), 'capstan-bundle-'));
  const cli = await startCliProcess(process.execPath, [join(OUT, 'cli.js'), '--secure-port=0', '--storage-backend=memory', `--data-dir=${join(dir, 'data')}`], dir);
  child = cli.child;
  kubeconfig = join(dir, 'data', 'admin.kubeconfig');
  const stderr = cli.stderr();
  assert.equal(cli.stdout(), `kubectl --kubeconfig ${kubeconfig} get ns\n`, stderr);
  port = (JSON.parse(stderr.split('\n')[0]!) as { port: number }).port;
  const pki = join(dir, 'data', 'pki');
  ca = await readFile(join(pki, 'ca.crt'), 'utf8');
  admin = { clientCert: await readFile(join(pki, 'admin.crt'), 'utf8'), clientKey: await readFile(join(pki, 'admin.key'), 'utf8') };
});

after(async () => {
  if (child?.pid !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    process.kill(child.pid, 'SIGKILL');
    await exited;
  }
  await rm(OUT, { recursive: true, force: true });
  if (dir) await rm(dir, { recursive: true, force: true });
});

const kubectl = (args: string[], input?: string) => runKubectl(kubeconfig, args, { input, cacheDir: join(dir, 'kube-cache') });

test('bundle: every file is ASCII (one character past Latin-1 makes V8 hold the whole chunk as two-byte text)', async () => {
  const files = (await readdir(OUT)).filter((f) => f.endsWith('.js'));
  assert.ok(files.length > 5, files.join(' '));
  for (const file of files) {
    const text = await readFile(join(OUT, file), 'utf8');
    const at = text.search(/[^\x00-\x7f]/);
    assert.equal(at, -1, `${file}: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 10))}`);
  }
});

test("bundle: imports of Node's built-ins are reads of process.getBuiltinModule(), with no module of their own", async () => {
  assert.equal(
    inlineBuiltinImports("import { a, b as c, type T } from 'node:fs';\nimport path from 'node:path';\nimport * as os from 'node:os';\nimport type { Socket } from 'node:net';\nimport { type Only } from 'node:tls';\nimport { x } from './x.ts';\n"),
    'const { a, b: c } = process.getBuiltinModule("node:fs");\nconst path = process.getBuiltinModule("node:path");\nconst os = process.getBuiltinModule("node:os");\nimport type { Socket } from \'node:net\';\n\nimport { x } from \'./x.ts\';\n',
  );
  for (const file of (await readdir(OUT)).filter((f) => f.endsWith('.js'))) {
    const text = await readFile(join(OUT, file), 'utf8');
    assert.doesNotMatch(text, /^import [^;]*from "node:/m, file);
    assert.doesNotMatch(text, /node-builtin:/, file);
  }
});

test('bundle: what the command loads to start is a handful of chunks, not one per group of modules', async () => {
  // The chunks cli.js loads and those they import: few, so that a start resolves few imports (see startupPrelude).
  // cli.js turns the compile cache on, then import()s the rest; the chunks' own import() calls load lazily.
  const importsOf = (text: string, dynamic = false) => [...text.matchAll(dynamic ? /import\("\.\/([^"]+)"\)/g : /(?:from |^import )"\.\/([^"]+)"/gm)].map((m) => m[1]!);
  const cli = await readFile(join(OUT, 'cli.js'), 'utf8');
  const loaded = new Set<string>();
  const packages = new Set<string>();
  const todo = [...importsOf(cli), ...importsOf(cli, true)];
  let imports = todo.length;
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (loaded.has(file)) continue;
    loaded.add(file);
    const text = await readFile(join(OUT, file), 'utf8');
    const next = importsOf(text);
    imports += next.length;
    todo.push(...next);
    for (const m of text.matchAll(/(?:from |^import )"([^".][^"]*)"/gm)) packages.add(m[1]!);
  }
  assert.ok(loaded.size <= 12 && imports <= 40, `${loaded.size} chunks, ${imports} imports: ${[...loaded].join(' ')}`);
  // the CEL runtime (about 60 ms and 10 MB to load) comes with the first expression compiled, not with every start
  assert.deepEqual([...packages].filter((p) => p.startsWith('@bufbuild/')), [], [...packages].join(' '));
});

test('bundle: the functions a start runs are compiled with their chunk; the others when first called', async () => {
  const chunks = (await readdir(OUT)).filter((f) => f.startsWith('chunk-'));
  let eager = 0;
  const texts = new Map<string, string>();
  for (const file of chunks) {
    const text = await readFile(join(OUT, file), 'utf8');
    texts.set(file, text);
    eager += text.match(/^var [\w$]+ = \((?:async )?function\*? ?[\w$]+\(/gm)?.length ?? 0;
  }
  const holding = (pattern: RegExp) => [...texts].filter(([, text]) => pattern.test(text)).map(([file]) => file);
  // startCapstan runs at every start; the simulated scheduler's comparison of nodes only with --simulate-workloads
  assert.equal(holding(/^var startCapstan = \(async function startCapstan\(/m).length, 1);
  assert.equal(holding(/^function startCapstan\(/m).length, 0);
  assert.equal(holding(/^function betterCandidate\d*\(/m).length, 1);
  assert.ok(eager > 300, `${eager} functions compiled with their chunk`);
});

test('bundle: the API model is found (discovery and kubectl explain), kubectl works', async () => {
  const ns = await kubectl(['get', 'ns', 'default', '-o', 'jsonpath={.metadata.name}']);
  assert.deepEqual(ns, { code: 0, stdout: 'default', stderr: '' });
  const explain = await kubectl(['explain', 'configmap.data']);
  assert.equal(explain.code, 0, explain.stderr);
  assert.match(explain.stdout, /^KIND: +ConfigMap\nVERSION: +v1\n\nFIELD: +data <map\[string\]string>/);
});

test('bundle: a CRD validation rule loads the CEL runtime and rejects what it should', async () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.bundle.example.com' },
    spec: {
      group: 'bundle.example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { min: { type: 'integer' }, max: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.min <= self.max', message: 'min must not exceed max' }] } } } },
      }],
    },
  };
  const created = await kubectl(['create', '-f', '-'], JSON.stringify(crd));
  assert.equal(created.code, 0, created.stderr);
  const established = await kubectl(['wait', '--for=condition=Established', '--timeout=20s', 'crd/widgets.bundle.example.com']);
  assert.equal(established.code, 0, established.stderr);
  const widget = (name: string, min: number, max: number) => JSON.stringify({ apiVersion: 'bundle.example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec: { min, max } });
  const bad = await kubectl(['create', '-f', '-'], widget('bad', 3, 2));
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, 'The Widget "bad" is invalid: spec: Invalid value: "object": min must not exceed max\n');
  const good = await kubectl(['create', '-f', '-'], widget('good', 2, 3));
  assert.deepEqual(good, { code: 0, stdout: 'widget.bundle.example.com/good created\n', stderr: '' });
});

test('bundle: a large YAML body is read by the YAML worker; /metrics answers from prom-client', async () => {
  const data = Array.from({ length: 400 }, (_, i) => `  key${i}: "${'v'.repeat(40)}"`).join('\n');
  const body = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big-yaml\ndata:\n${data}\n`;
  assert.ok(body.length > 16 * 1024, 'over the off-thread size');
  const r = await rawRequest(port, ca, '/api/v1/namespaces/default/configmaps', { ...admin, method: 'POST', body, headers: { 'content-type': 'application/yaml' } });
  assert.equal(r.status, 201, r.body);
  assert.equal(Object.keys((JSON.parse(r.body) as { data: object }).data).length, 400);
  const metrics = await rawRequest(port, ca, '/metrics', admin);
  assert.equal(metrics.status, 200);
  assert.match(metrics.body, /^apiserver_request_total\{.*verb="POST".*\} \d+$/m);
});

test('bundle: a WebSocket watch (an HTTP/1.1 upgrade, which loads node:http on first use) is accepted; the server stays up', async () => {
  const key = randomBytes(16).toString('base64');
  const status = await new Promise<number>((resolve, reject) => {
    const req = httpsRequest({
      host: '127.0.0.1',
      port,
      path: '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1',
      ca,
      cert: admin.clientCert,
      key: admin.clientKey,
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Key': key, 'Sec-WebSocket-Version': '13', Origin: 'https://127.0.0.1' },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => resolve(res.statusCode ?? 0));
    req.on('error', reject);
    req.end();
  });
  assert.equal(status, 101);
  const ns = await kubectl(['get', 'ns', 'default', '-o', 'jsonpath={.metadata.name}']);
  assert.deepEqual(ns, { code: 0, stdout: 'default', stderr: '' });
});

test('bundle: SIGTERM stops it with exit code 0', async () => {
  const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
  process.kill(child!.pid!, 'SIGTERM');
  assert.equal(await exited, 0);
});
