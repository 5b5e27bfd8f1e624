// End to end: the bundle (scripts/build.ts) that the installed package and `bin/capstan.js` run. The rest of the
// suite drives the sources; this file builds a bundle of them and checks what only a bundle can get wrong: the files
// modules find beside themselves at run time (the API model, the YAML worker, the CEL runtime loaded on first use),
// the packages left outside it (prom-client, yaml), and Node's built-ins as the bundle takes them (an HTTP/1.1
// upgrade loads node:http on first use).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { randomBytes } from 'node:crypto';
import { bundle, inlineBuiltinImports } from '../../scripts/build.ts';
import { rawRequest, runKubectl, startCliProcess } from './helpers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Laid out as the installed package is (bin/capstan.js beside dist/), inside node_modules: the bundle finds the packages
// it leaves outside, and the command runs the bundle without checking it against the sources.
const OUT = join(ROOT, 'node_modules', '.cache', `capstan-bundle-test-${process.pid}`);
const DIST = join(OUT, 'dist');
const BIN = join(OUT, 'bin', 'capstan.js');

let dir: string;
let child: ChildProcess | undefined;
let kubeconfig: string;
let port: number;
let ca: string;
let admin: { clientCert: string; clientKey: string };

before(async () => {
  const inputs = await bundle(DIST);
  assert.ok(inputs.includes('src/cli/main.ts') && inputs.includes('src/apis/generated/model.json'), inputs.join(' '));
  await mkdir(dirname(BIN), { recursive: true });
  await copyFile(join(ROOT, 'bin', 'capstan.js'), BIN);
  await writeFile(join(OUT, 'package.json'), '{ "type": "module" }\n');
  dir = await mkdtemp(join(tmpdir(), 'capstan-bundle-'));
  const cli = await startCliProcess(process.execPath, [BIN, '--secure-port=0', '--storage-backend=memory', `--data-dir=${join(dir, 'data')}`], dir);
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
  const files = (await readdir(DIST)).filter((f) => f.endsWith('.js'));
  assert.ok(files.length > 5, files.join(' '));
  for (const file of files) {
    const text = await readFile(join(DIST, file), 'utf8');
    const at = text.search(/[^\x00-\x7f]/);
    assert.equal(at, -1, `${file}: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 10))}`);
  }
});

test("bundle: imports of Node's built-ins are reads of process.getBuiltinModule(), with no module of their own", async () => {
  assert.equal(
    inlineBuiltinImports("import { a, b as c, type T } from 'node:fs';\nimport path from 'node:path';\nimport * as os from 'node:os';\nimport type { Socket } from 'node:net';\nimport { type Only } from 'node:tls';\nimport { x } from './x.ts';\n"),
    'const { a, b: c } = process.getBuiltinModule("node:fs");\nconst path = process.getBuiltinModule("node:path");\nconst os = process.getBuiltinModule("node:os");\nimport type { Socket } from \'node:net\';\n\nimport { x } from \'./x.ts\';\n',
  );
  for (const file of (await readdir(DIST)).filter((f) => f.endsWith('.js'))) {
    const text = await readFile(join(DIST, file), 'utf8');
    assert.doesNotMatch(text, /^import [^;]*from "node:/m, file);
    assert.doesNotMatch(text, /node-builtin:/, file);
  }
});

test('bundle: what the command loads to start is a handful of chunks, not one per group of modules', async () => {
  // The chunks cli.js loads and those they import: few, so that a start resolves few imports (see startupPrelude).
  // cli.js turns the compile cache on, then import()s the rest; the chunks' own import() calls load lazily.
  const importsOf = (text: string, dynamic = false) => [...text.matchAll(dynamic ? /import\("\.\/([^"]+)"\)/g : /(?:from |^import )"\.\/([^"]+)"/gm)].map((m) => m[1]!);
  const cli = await readFile(join(DIST, 'cli.js'), 'utf8');
  const loaded = new Set<string>();
  const packages = new Set<string>();
  const todo = [...importsOf(cli), ...importsOf(cli, true)];
  let imports = todo.length;
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (loaded.has(file)) continue;
    loaded.add(file);
    const text = await readFile(join(DIST, file), 'utf8');
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
  const chunks = (await readdir(DIST)).filter((f) => f.startsWith('chunk-'));
  let eager = 0;
  const texts = new Map<string, string>();
  for (const file of chunks) {
    const text = await readFile(join(DIST, file), 'utf8');
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

/**
 * Runs the command (as installed) until it prints its kubectl line, gives it `use`, then stops it by its PID. Its
 * stdout is line-buffered (stdbuf), so what V8 prints there keeps its place beside that line.
 */
async function withCommand(nodeArgs: string[], env: Record<string, string>, backend: string, use: (out: { stdout: () => string; stderr: () => string; port: number; ca: string }) => Promise<void>): Promise<void> {
  const data = await mkdtemp(join(tmpdir(), 'capstan-bundle-cmd-'));
  const command = spawn('stdbuf', ['-oL', process.execPath, ...nodeArgs, BIN, '--secure-port=0', `--storage-backend=${backend}`, `--data-dir=${data}`], { env: { ...process.env, NODE_OPTIONS: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  command.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  command.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise((resolve) => command.once('exit', resolve));
  try {
    const deadline = Date.now() + 30_000;
    while (!stdout.includes(' get ns\n') && command.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const serving = stderr.split('\n').find((l) => l.includes('"Capstan serving"'));
    assert.ok(serving, `${stdout}\n${stderr}`);
    await use({ stdout: () => stdout, stderr: () => stderr, port: (JSON.parse(serving) as { port: number }).port, ca: await readFile(join(data, 'pki', 'ca.crt'), 'utf8') });
  } finally {
    if (command.exitCode === null) process.kill(command.pid!, 'SIGKILL');
    await exited;
    await rm(data, { recursive: true, force: true });
  }
}

test("bundle: the command loads the built-ins of its start with Node's code cache, though it changes V8's flags", async () => {
  await withCommand([], { NODE_DEBUG_NATIVE: 'CODE_CACHE' }, 'sqlite', async ({ stderr }) => {
    // Past the memory-reducing collection after start-up, which loads node:vm once the flags are back.
    const deadline = Date.now() + 10_000;
    while (!/^Code cache of vm /m.test(stderr()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.match(stderr(), /^Code cache of vm \(\w+\) is accepted$/m);
    const verdicts = [...stderr().matchAll(/^Code cache of (\S+) \(\w+\) is (accepted|rejected)$/gm)];
    assert.ok(verdicts.length > 100, stderr().slice(0, 2000));
    assert.deepEqual(verdicts.filter((v) => v[2] === 'rejected').map((v) => v[1]), []);
  });
});

test('bundle: V8 optimizes no function of the start, and optimizes hot ones once the command serves', async () => {
  await withCommand(['--trace-opt'], {}, 'memory', async ({ stdout, port, ca }) => {
    const optimized = (text: string) => [...text.matchAll(/^\[compiling method \S+ <JSFunction ([\w$]*) /gm)].map((m) => m[1]);
    const [beforeServing] = stdout().split(/^kubectl --kubeconfig .* get ns$/m);
    // What may be optimized before: Node's own module loading, not the command's code. Loading the built-ins before
    // the flags change makes its require hot, and so does a deep install path its path normalization (in both
    // processes: the command re-executes itself once to set the allocator's environment).
    const nodeLoader = new Set(['requireBuiltin', 'normalizeString', 'isPosixPathSeparator']);
    assert.deepEqual(optimized(beforeServing!).filter((name) => !nodeLoader.has(name!)), []);
    const agent = new HttpsAgent({ keepAlive: true, maxSockets: 1, ca });
    try {
      for (let i = 0; i < 2000 && optimized(stdout().slice(beforeServing!.length)).length === 0; i++) {
        await new Promise<void>((resolve, reject) => {
          const req = httpsRequest({ host: '127.0.0.1', port, path: '/readyz', agent }, (res) => res.resume().on('end', resolve));
          req.on('error', reject).end();
        });
      }
    } finally {
      agent.destroy();
    }
    assert.notDeepEqual(optimized(stdout().slice(beforeServing!.length)), []);
  });
});

test('bundle: SIGTERM stops it with exit code 0', async () => {
  const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
  process.kill(child!.pid!, 'SIGTERM');
  assert.equal(await exited, 0);
});
