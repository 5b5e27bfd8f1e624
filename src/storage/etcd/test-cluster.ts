// Test helper: starts real etcd members (the `etcd` binary on PATH) on loopback ports with temporary data dirs, and
// stops or kills them by PID. Used by the etcd backend's tests, the e2e failure tests and the bench.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface EtcdMember {
  readonly name: string;
  /** http://127.0.0.1:<port> */
  readonly clientUrl: string;
  readonly peerUrl: string;
  readonly dataDir: string;
  /** The running process, undefined while stopped. */
  process: ChildProcess | undefined;
}

export interface EtcdCluster {
  readonly members: EtcdMember[];
  /** Every member's client URL (the --etcd-servers value). */
  readonly clientUrls: string[];
  /** SIGKILL one member (kill -9) and wait until it is gone. */
  kill(index: number): Promise<void>;
  /** SIGTERM one member and wait until it is gone. */
  stop(index: number): Promise<void>;
  /** Start a stopped member again with its data dir. */
  restart(index: number): Promise<void>;
  /** Stop every member and delete the data dirs. */
  close(): Promise<void>;
  /** Runs etcdctl (v3 API) against the first member, with `input` on stdin; its stdout as bytes. */
  etcdctl(args: readonly string[], input?: Uint8Array): Promise<Buffer>;
}

const MISSING = 'etcd is not installed: the etcd tests need the `etcd` binary on PATH (Debian: apt-get install -y etcd-server; .ci/run installs it)';

/** Throws a clear error when etcd is not on PATH (tests fail with it instead of skipping). */
export function requireEtcdBinary(): string {
  const probe = spawnSync('etcd', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) throw new Error(MISSING);
  return probe.stdout.split('\n')[0] ?? 'etcd';
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

function startProcess(member: EtcdMember, initialCluster: string, state: 'new' | 'existing'): ChildProcess {
  const args = [
    `--name=${member.name}`,
    `--data-dir=${member.dataDir}`,
    `--listen-client-urls=${member.clientUrl}`,
    `--advertise-client-urls=${member.clientUrl}`,
    `--listen-peer-urls=${member.peerUrl}`,
    `--initial-advertise-peer-urls=${member.peerUrl}`,
    `--initial-cluster=${initialCluster}`,
    `--initial-cluster-state=${state}`,
    '--initial-cluster-token=capstan-test',
    // Short raft timers so elections after a kill take well under a second (the defaults are 100 ms / 1 s).
    '--heartbeat-interval=50',
    '--election-timeout=400',
    '--logger=zap',
    '--log-level=error',
    '--enable-v2=false',
  ];
  const child = spawn('etcd', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-4000);
  });
  child.on('exit', (code, signal) => {
    if (code !== 0 && code !== null && signal === null) process.stderr.write(`etcd member ${member.name} exited with ${code}: ${tail}\n`);
  });
  return child;
}

async function waitHealthy(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      const body = (await res.json()) as { health?: string };
      if (body.health === 'true') return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`etcd at ${url} did not become healthy in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function waitExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
}

function runEtcdctl(endpoint: string, args: readonly string[], input?: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('etcdctl', [`--endpoints=${endpoint}`, ...args], { env: { ...process.env, ETCDCTL_API: '3' }, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`etcdctl ${args.join(' ')} exited ${code}: ${err}`))));
    // A command that reads no input may be gone before its (empty) stdin is written: EPIPE then; the exit code decides.
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? Buffer.alloc(0));
  });
}

/** Starts `size` members (1 or 3 in the tests) and waits until the cluster answers. */
export async function startEtcdCluster(size = 1): Promise<EtcdCluster> {
  requireEtcdBinary();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'capstan-etcd-'));
  const members: EtcdMember[] = [];
  for (let i = 0; i < size; i++) {
    members.push({
      name: `m${i}`,
      clientUrl: `http://127.0.0.1:${await freePort()}`,
      peerUrl: `http://127.0.0.1:${await freePort()}`,
      dataDir: path.join(root, `m${i}`),
      process: undefined,
    });
  }
  const initialCluster = members.map((m) => `${m.name}=${m.peerUrl}`).join(',');
  for (const m of members) m.process = startProcess(m, initialCluster, 'new');
  const cluster: EtcdCluster = {
    members,
    clientUrls: members.map((m) => m.clientUrl),
    async kill(index) {
      const child = members[index].process;
      if (child === undefined) return;
      child.kill('SIGKILL');
      await waitExit(child);
      members[index].process = undefined;
    },
    async stop(index) {
      const child = members[index].process;
      if (child === undefined) return;
      child.kill('SIGTERM');
      await waitExit(child);
      members[index].process = undefined;
    },
    async restart(index) {
      const m = members[index];
      if (m.process !== undefined) return;
      m.process = startProcess(m, initialCluster, 'existing');
      await waitHealthy(m.clientUrl, 15_000);
    },
    async close() {
      for (let i = 0; i < members.length; i++) await cluster.kill(i);
      fs.rmSync(root, { recursive: true, force: true });
    },
    etcdctl: (args, input) => runEtcdctl(members[0].clientUrl, args, input),
  };
  try {
    await Promise.all(members.map((m) => waitHealthy(m.clientUrl, 15_000)));
  } catch (err) {
    await cluster.close();
    throw err;
  }
  return cluster;
}
