// Shared end-to-end helpers: start a real Capstan (port 0, temp data dir, memory or sqlite storage), write
// kubeconfigs that name 127.0.0.1, run kubectl with a timeout, and make raw HTTPS requests.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCapstan } from '../../src/index.ts';
import type { Capstan, CapstanOptions } from '../../src/index.ts';
import type { ApiServer } from '../../src/server/types.ts';
import { createLogger, silentLogger } from '../../src/server/log.ts';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface TestServer extends Capstan {
  /** Runs kubectl with the admin kubeconfig (or opts.kubeconfig). */
  kubectl(args: readonly string[], opts?: KubectlOptions): Promise<CommandResult>;
  /** Runs kubectl, fails the test unless it exits 0 (with its stderr in the message), returns its stdout. */
  kubectlOk(args: readonly string[], opts?: KubectlOptions): Promise<string>;
  /** Runs kubectl, fails the test unless it exits 1 (a refused request), returns its stderr trimmed. */
  kubectlRefused(args: readonly string[], opts?: KubectlOptions): Promise<string>;
  /** Writes a kubeconfig for this server authenticating with a bearer token (or nothing); returns its path. */
  writeKubeconfig(name: string, user: { token?: string; clientCert?: string; clientKey?: string }): Promise<string>;
  /** A raw HTTPS request (HTTP/1.1) trusting the server's CA, optionally with a bearer token or client cert. */
  request(path: string, opts?: RawRequestOptions): Promise<RawResponse>;
  /** request() with the admin client certificate (capstan-admin, system:masters). */
  adminRequest(path: string, opts?: RawRequestOptions): Promise<RawResponse>;
}

export interface KubectlOptions {
  kubeconfig?: string;
  input?: string;
  timeoutMs?: number;
  /** Extra environment variables (e.g. EDITOR for kubectl edit). */
  env?: Record<string, string>;
}

export interface RawRequestOptions {
  method?: string;
  token?: string;
  clientCert?: string;
  clientKey?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const KUBECTL_TIMEOUT_MS = 20_000;

/**
 * Polls probe until it answers (anything but undefined or false), every `intervalMs` (50) for at most `timeoutMs`
 * (15 s); then fails with what was awaited.
 */
export async function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 50));
  }
}

/** Runs a command with a timeout (the process is killed, by its PID, past it); its exit code and output. */
export function runCommand(
  command: string,
  args: readonly string[],
  opts: { input?: string; timeoutMs: number; env?: NodeJS.ProcessEnv; cwd?: string },
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: opts.env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      stderr += `\n[helpers] ${command} timed out after ${opts.timeoutMs}ms`;
    }, opts.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    // A child that exits without reading its input (openssl) closes the pipe: the write's EPIPE is no failure.
    child.stdin.on('error', () => {});
    if (opts.input) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}

/** A `capstan` command a test started, and what it has written so far. */
export interface CliProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
}

/**
 * Spawns `node args` in cwd (args naming the CLI's entry and its flags) and waits up to 30 s for the one line the CLI
 * prints on stdout once it serves (the kubectl command); whether it came is for the test to assert. The test stops the
 * child, by its PID.
 */
export async function startCliProcess(node: string, args: readonly string[], cwd: string): Promise<CliProcess> {
  const child = spawn(node, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const deadline = Date.now() + 30_000;
  while (!stdout.includes('\n') && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return { child, stdout: () => stdout, stderr: () => stderr };
}

/** Runs kubectl with a kubeconfig, a private cache dir and a timeout (the process is killed past it). */
export function runKubectl(kubeconfig: string, args: readonly string[], opts: { input?: string; timeoutMs?: number; cacheDir?: string; env?: Record<string, string> } = {}): Promise<CommandResult> {
  return runCommand('kubectl', ['--kubeconfig', kubeconfig, ...(opts.cacheDir ? ['--cache-dir', opts.cacheDir] : []), ...args], {
    input: opts.input,
    timeoutMs: opts.timeoutMs ?? KUBECTL_TIMEOUT_MS,
    env: { ...process.env, ...opts.env, KUBECONFIG: kubeconfig },
  });
}

/** A kubeconfig for https://127.0.0.1:<port> with the given credentials (none: anonymous). */
export function kubeconfigYaml(port: number, caPem: string, user: { token?: string; clientCert?: string; clientKey?: string }): string {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const userLines: string[] = [];
  if (user.token) userLines.push(`    token: ${user.token}`);
  if (user.clientCert) userLines.push(`    client-certificate-data: ${b64(user.clientCert)}`);
  if (user.clientKey) userLines.push(`    client-key-data: ${b64(user.clientKey)}`);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: test',
    '  cluster:',
    `    server: https://127.0.0.1:${port}`,
    `    certificate-authority-data: ${b64(caPem)}`,
    'users:',
    '- name: test',
    userLines.length ? '  user:' : '  user: {}',
    ...userLines,
    'contexts:',
    '- name: test',
    '  context:',
    '    cluster: test',
    '    user: test',
    'current-context: test',
    '',
  ].join('\n');
}

export function rawRequest(port: number, caPem: string, path: string, opts: RawRequestOptions = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const req = httpsRequest(
      { host: '127.0.0.1', port, path, method: opts.method ?? 'GET', ca: caPem, cert: opts.clientCert, key: opts.clientKey, headers, agent: false, timeout: 10_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request ${path} timed out`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A stand-in API answering every request with what it was given: the base for fault-injection tests of the server layer. */
export function echoApi(): ApiServer {
  return {
    readyChecks: [],
    liveChecks: [],
    close: async () => {},
    async handle(_req, res, info, user) {
      const body = JSON.stringify({ info, user });
      res.statusCode = 200;
      res.setHeader('Content-Type', 'application/json');
      res.end(body);
    },
  };
}

export interface TestServerOptions extends CapstanOptions {
  /** Default 'memory'. */
  storageBackend?: 'memory' | 'sqlite' | 'etcd3';
}

/** Starts Capstan on 127.0.0.1, port 0, in a fresh temp data dir (removed by close() unless dataDir was given). */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const scratch = await mkdtemp(join(tmpdir(), 'capstan-e2e-'));
  const cacheDir = join(scratch, 'kube-cache');
  let server: Capstan;
  try {
    // Quiet unless CAPSTAN_TEST_LOG=<verbosity> is set.
    const verbosity = process.env.CAPSTAN_TEST_LOG;
    const logger = verbosity === undefined ? silentLogger : createLogger({ verbosity: Number(verbosity) });
    server = await startCapstan({ storageBackend: 'memory', port: 0, bindAddress: '127.0.0.1', logger, ...options });
  } catch (e) {
    await rm(scratch, { recursive: true, force: true });
    throw e;
  }
  const kubeconfigFile = join(scratch, 'admin.kubeconfig');
  await writeFile(kubeconfigFile, server.kubeconfig, { mode: 0o600 });
  const kubectl = (args: readonly string[], opts: KubectlOptions = {}): Promise<CommandResult> =>
    runKubectl(opts.kubeconfig ?? kubeconfigFile, args, { input: opts.input, timeoutMs: opts.timeoutMs, cacheDir, env: opts.env });
  return {
    ...server,
    close: async () => {
      await server.close();
      await rm(scratch, { recursive: true, force: true });
    },
    kubectl,
    async kubectlOk(args, opts) {
      const r = await kubectl(args, opts);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      return r.stdout;
    },
    async kubectlRefused(args, opts) {
      const r = await kubectl(args, opts);
      if (r.code !== 1) throw new Error(`kubectl ${args.join(' ')} should fail but exited ${r.code}; stdout: ${r.stdout}`);
      return r.stderr.trim();
    },
    async writeKubeconfig(name, user) {
      const path = join(scratch, `${name}.kubeconfig`);
      await writeFile(path, kubeconfigYaml(server.port, server.caCert, user), { mode: 0o600 });
      return path;
    },
    request: (path, opts) => rawRequest(server.port, server.caCert, path, opts),
    adminRequest: (path, opts) => rawRequest(server.port, server.caCert, path, { clientCert: server.clientCert, clientKey: server.clientKey, ...opts }),
  };
}
