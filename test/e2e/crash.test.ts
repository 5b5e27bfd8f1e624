// kill -9 of the real server during a burst of creates over HTTPS: after a restart on the same data dir every
// acknowledged object is there, intact, and the server takes new writes with higher resourceVersions.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/capstan.js', import.meta.url));
let dataDir = '';

after(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  port: number;
}

/** Starts the CLI on a free port and waits for its "Capstan serving" log line. */
async function startCli(dir: string): Promise<Running> {
  const child = spawn(process.execPath, [bin, '--storage-backend=sqlite', `--data-dir=${dir}`, '--secure-port=0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const lines = createInterface({ input: child.stderr! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('capstan did not start in 15 s')), 15_000);
    lines.on('line', (line) => {
      if (!line.includes('Capstan serving')) return;
      clearTimeout(timer);
      resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`capstan exited with ${code}`)));
  });
  return { child, port };
}

test('acknowledged creates survive kill -9 of the server', async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'capstan-crash-'));
  let server = await startCli(dataDir);
  const pki = join(dataDir, 'pki');
  const [ca, cert, key] = await Promise.all(['ca.crt', 'admin.crt', 'admin.key'].map((f) => readFile(join(pki, f), 'utf8')));
  let agent = new Agent({ keepAlive: true, maxSockets: 8, ca, cert, key });
  const call = (port: number, method: string, path: string, body?: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve) => {
      const req = httpsRequest({ host: '127.0.0.1', port, method, path, agent, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', () => resolve({ status: 0, body: '' }));
      });
      req.on('error', () => resolve({ status: 0, body: '' }));
      req.end(body);
    });

  const acked = new Map<string, string>();
  let next = 0;
  let killed = false;
  const writer = async () => {
    while (!killed) {
      const name = `cm-${next++}`;
      const payload = `${name}:${'x'.repeat(500)}`;
      const r = await call(server.port, 'POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload } }));
      if (r.status === 201) acked.set(name, payload);
    }
  };
  const writers = Array.from({ length: 8 }, writer);
  while (acked.size < 300) await new Promise((r) => setTimeout(r, 10));
  server.child.kill('SIGKILL');
  killed = true;
  await Promise.all(writers);
  await new Promise((r) => server.child.once('exit', r));
  agent.destroy();

  server = await startCli(dataDir);
  agent = new Agent({ keepAlive: true, ca, cert, key });
  try {
    const list = await call(server.port, 'GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(list.status, 200);
    const parsed = JSON.parse(list.body) as { metadata: { resourceVersion: string }; items: { metadata: { name: string; resourceVersion: string }; data: { payload: string } }[] };
    // kube-root-ca.crt is the controller manager's, not the writers'.
    const stored = new Map(parsed.items.filter((i) => i.metadata.name !== 'kube-root-ca.crt').map((i) => [i.metadata.name, i.data.payload]));
    for (const [name, payload] of acked) assert.equal(stored.get(name), payload, `${name} was acknowledged but is missing or changed`);
    // Nothing half-written: every stored object is one the writers sent, whole.
    for (const [name, payload] of stored) assert.equal(payload, `${name}:${'x'.repeat(500)}`);

    const after = await call(server.port, 'POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-restart' } }));
    assert.equal(after.status, 201, after.body);
    assert.ok(Number(JSON.parse(after.body).metadata.resourceVersion) > Number(parsed.metadata.resourceVersion));
  } finally {
    agent.destroy();
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
  }
});
