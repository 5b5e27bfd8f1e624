// End to end on the oldest Node.js Capstan supports (package.json's engines: 22.13), which the rest of the suite, on
// the `node` dev dependency (Node 24), does not reach. node:sqlite, the default storage, changed under Capstan between
// the two: before Node 22.20 it bound no argument to a numbered parameter (`?1`), before 22.16 it had no
// `isTransaction`, and Node 22 prints an experimental warning when it loads. scripts/oldest-node.sh finds that Node in
// node_modules/.cache/, or installs it there from the npm registry on the first run (as the helm test fetches helm).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from '../../scripts/build.ts';
import { runCommand, runKubectl, startCliProcess, type CliProcess } from './helpers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Inside node_modules, so the bundle finds the packages it leaves outside, as it does in dist/.
const OUT = join(ROOT, 'node_modules', '.cache', `capstan-oldest-node-test-${process.pid}`);

let node: string;
let dir: string;
const children: ChildProcess[] = [];

before(async () => {
  const found = await runCommand('bash', [join(ROOT, 'scripts/oldest-node.sh')], { timeoutMs: 180_000 });
  assert.equal(found.code, 0, found.stderr);
  node = found.stdout.trim();
  dir = await mkdtemp(join(tmpdir(), 'capstan-oldest-node-'));
});

after(async () => {
  for (const child of children) {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(child.pid, 'SIGKILL');
    await exited;
  }
  await rm(OUT, { recursive: true, force: true });
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Starts the CLI on the oldest Node; fails unless it prints its kubectl line. */
async function startCli(args: string[]): Promise<CliProcess> {
  const cli = await startCliProcess(node, args, dir);
  children.push(cli.child);
  assert.ok(cli.stdout().includes('\n'), `no kubectl line on stdout (exit ${cli.child.exitCode}):\n${cli.stderr()}`);
  return cli;
}

/** Stops a started CLI with SIGTERM, by its PID, and returns its exit code. */
async function stopCli(s: CliProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => s.child.once('exit', (code) => resolve(code)));
  process.kill(s.child.pid!, 'SIGTERM');
  return exited;
}

/** The lines of stderr that are not Capstan's JSON log lines. */
function foreignLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => {
    if (line === '') return false;
    try {
      return typeof JSON.parse(line) !== 'object';
    } catch {
      return true;
    }
  });
}

test('oldest Node: the sqlite storage tests pass on it', async () => {
  const version = await runCommand(node, ['--version'], { timeoutMs: 10_000 });
  const engines = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  assert.equal(engines, '>=22.13');
  assert.equal(version.stdout.trim(), 'v22.13.0');
  // Without NODE_TEST_CONTEXT, which this runner sets for its own children: with it, the run reports to a parent
  // runner that is not there and exits 0 whatever its tests did.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = await runCommand(node, ['--experimental-strip-types', '--no-warnings', '--test', '--test-reporter=dot', join(ROOT, 'src/storage/sqlite/sqlite.test.ts')], { timeoutMs: 120_000, env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
});

test('oldest Node: capstan serves kubectl from sqlite (the bundle, then the sources on the same data), its stderr only its own log', async () => {
  await bundle(OUT);
  const data = join(dir, 'data');
  const kubeconfig = join(data, 'admin.kubeconfig');
  const kubectl = async (args: string[], input?: string) => {
    const r = await runKubectl(kubeconfig, args, { input, cacheDir: join(dir, 'kube-cache') });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };

  // As installed: the bundle, with no flags (nothing hides Node's warnings).
  const first = await startCli([join(OUT, 'cli.js'), '--secure-port=0', `--data-dir=${data}`]);
  assert.equal(first.stdout(), `kubectl --kubeconfig ${kubeconfig} get ns\n`);
  assert.equal((JSON.parse(first.stderr().split('\n')[0]!) as { storage: string }).storage, 'sqlite');
  await kubectl(['create', 'configmap', 'kept', '--from-literal=a=1']);
  await kubectl(['create', 'configmap', 'gone', '--from-literal=a=1']);
  await kubectl(['delete', 'configmap', 'gone']);
  await kubectl(['apply', '--server-side', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { b: '2' } }));
  assert.equal(await kubectl(['get', 'namespaces', '--chunk-size=1', '-o', 'name']), 'namespace/default\nnamespace/kube-node-lease\nnamespace/kube-public\nnamespace/kube-system\n');
  assert.equal(await stopCli(first), 0);
  assert.deepEqual(foreignLines(first.stderr()), []);

  // From a checkout on 22.13-22.17, bin/capstan.js runs the sources with these flags.
  const second = await startCli(['--experimental-strip-types', '--no-warnings=ExperimentalWarning', join(ROOT, 'src/cli/main.ts'), '--secure-port=0', `--data-dir=${data}`]);
  assert.equal(await kubectl(['get', 'configmaps', '-o', 'name']), 'configmap/applied\nconfigmap/kept\nconfigmap/kube-root-ca.crt\n');
  assert.equal(await kubectl(['get', 'configmaps', 'kept', 'applied', '-o', 'jsonpath={.items[*].data}']), '{"a":"1"} {"b":"2"}');
  await kubectl(['patch', 'configmap', 'kept', '--type=merge', '-p', '{"data":{"a":"3"}}']);
  assert.equal(await kubectl(['get', 'configmap', 'kept', '-o', 'jsonpath={.data.a}']), '3');
  const missing = await runKubectl(kubeconfig, ['get', 'configmap', 'gone'], { cacheDir: join(dir, 'kube-cache') });
  assert.equal(missing.stderr.trim(), 'Error from server (NotFound): configmaps "gone" not found');
  assert.equal(await stopCli(second), 0);
  assert.deepEqual(foreignLines(second.stderr()), []);
});
