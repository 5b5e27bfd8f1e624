// kubectl port-forward to pods on a simulated cluster: the containers test control's `ports` say where a pod's port
// is served (a real HTTP server this test runs on loopback), and every client's way in reaches it: kubectl's SPDY
// tunneled through a WebSocket (its default), kubectl's SPDY (KUBECTL_PORT_FORWARD_WEBSOCKETS=false), client-node's
// and the Python client's WebSocket channels. A port nothing serves gets the container runtime's refusal.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, get, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import { runCommand, startTestServer, type TestServer, until } from './helpers.ts';

/** GET over the forwarded port: the status and body. */
function fetchText(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

describe('port-forward to simulated pods', () => {
  let s: TestServer;
  let backend: Server;
  let backendPort: number;
  let scratch: string;
  let kubeconfig: string;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 1, podStartupMs: 20 } });
    backend = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => res.end(`served ${req.url} for ${req.headers['x-from'] ?? 'a client'}${body ? ` with ${body}` : ''}${req.headers.authorization ? ' (with credentials!)' : ''}\n`));
    });
    backend.listen(0, '127.0.0.1');
    await once(backend, 'listening');
    backendPort = (backend.address() as { port: number }).port;
    scratch = await mkdtemp(join(tmpdir(), 'capstan-pf-'));
    kubeconfig = join(scratch, 'admin.kubeconfig');
    await writeFile(kubeconfig, s.kubeconfig, { mode: 0o600 });
    s.containers.add({ pod: 'web', ports: { 8080: backendPort } });
    await s.kubectlOk(['run', 'web', '--image=nginx', '--port=8080']);
    await until('the pod to run', async () => (JSON.parse(await s.kubectlOk(['get', 'pod', 'web', '-o', 'json'])).status.phase === 'Running' ? true : undefined), { timeoutMs: 20_000 });
  });
  after(async () => {
    backend.close();
    await s.close();
    await rm(scratch, { recursive: true, force: true });
  });

  /** Starts `kubectl port-forward`, returns its local port once it listens; the test stops it by its PID. */
  async function portForward(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; port: number; stderr: () => string }> {
    const child = spawn('kubectl', ['--kubeconfig', kubeconfig, 'port-forward', ...args], { env: { ...process.env, ...env, KUBECONFIG: kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const port = await until('kubectl to listen', async () => {
      const m = /Forwarding from 127\.0\.0\.1:(\d+) ->/.exec(out);
      if (!m && child.exitCode !== null) throw new Error(`kubectl port-forward exited ${child.exitCode}: ${err}`);
      return m ? Number(m[1]) : undefined;
    }, { timeoutMs: 20_000 });
    return { child, port, stderr: () => err };
  }

  const stop = async (child: ChildProcess) => {
    if (child.exitCode === null) {
      process.kill(child.pid!, 'SIGTERM');
      await once(child, 'exit');
    }
  };

  test("kubectl's default, SPDY through a WebSocket: each connection reaches the pod's port as the test serves it", async () => {
    const pf = await portForward(['pod/web', ':8080']);
    try {
      assert.deepEqual(await fetchText(pf.port, '/one'), { status: 200, body: 'served /one for a client\n' });
      assert.deepEqual(await fetchText(pf.port, '/two'), { status: 200, body: 'served /two for a client\n' });
    } finally {
      await stop(pf.child);
    }
  });

  test("kubectl over SPDY (KUBECTL_PORT_FORWARD_WEBSOCKETS=false), to a Service's target port", async () => {
    await s.kubectlOk(['expose', 'pod', 'web', '--port=80', '--target-port=8080']);
    const pf = await portForward(['service/web', ':80'], { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' });
    try {
      assert.deepEqual(await fetchText(pf.port, '/spdy'), { status: 200, body: 'served /spdy for a client\n' });
    } finally {
      await stop(pf.child);
      await s.kubectlOk(['delete', 'service', 'web']);
    }
  });

  test("a port nothing serves: the container runtime's refusal on the error stream, as kubectl reports it", async () => {
    const pf = await portForward(['pod/web', ':9999']);
    try {
      await assert.rejects(fetchText(pf.port, '/'));
      const message = await until('the refusal', async () => (/error forwarding port 9999/.test(pf.stderr()) ? pf.stderr() : undefined), { timeoutMs: 10_000 });
      const uid = JSON.parse(await s.kubectlOk(['get', 'pod', 'web', '-o', 'json'])).metadata.uid as string;
      const sandbox = createHash('sha256').update(uid).digest('hex');
      assert.ok(
        message.includes(`an error occurred forwarding ${pf.port} -> 9999: error forwarding port 9999 to pod ${sandbox}, uid : failed to execute portforward in network namespace \\"/var/run/netns/cni-${sandbox.slice(0, 32)}\\": failed to connect to localhost:9999 inside namespace \\"${sandbox}\\", IPv4: dial tcp4 127.0.0.1:9999: connect: connection refused IPv6 dial tcp6 [::1]:9999: connect: connection refused `),
        message,
      );
    } finally {
      await stop(pf.child);
    }
  });

  test('the pod and service proxies reach the served port too: path, query and body go on; a port nothing serves is the refused dial', async () => {
    assert.equal(await s.kubectlOk(['get', '--raw', '/api/v1/namespaces/default/pods/web:8080/proxy/metrics?format=text']), 'served /metrics?format=text for a client\n');
    await s.kubectlOk(['expose', 'pod', 'web', '--name=web-proxied', '--port=80', '--target-port=8080']);
    const viaService = await until('the service proxy', async () => {
      const r = await s.kubectl(['get', '--raw', '/api/v1/namespaces/default/services/web-proxied:80/proxy/healthz']);
      return r.code === 0 ? r.stdout : undefined;
    }, { timeoutMs: 20_000 });
    assert.equal(viaService, 'served /healthz for a client\n');
    // A body goes on; the caller's credentials do not.
    const posted = await s.adminRequest('/api/v1/namespaces/default/pods/web:8080/proxy/hook', { method: 'POST', body: 'ping', headers: { 'content-type': 'text/plain', authorization: 'Bearer not-passed-on' } });
    assert.deepEqual([posted.status, posted.body], [200, 'served /hook for a client with ping\n']);
    const refused = await s.kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/web:9999/proxy/']);
    const podIP = JSON.parse(await s.kubectlOk(['get', 'pod', 'web', '-o', 'json'])).status.podIP as string;
    assert.deepEqual([refused.code, refused.stderr.trim()], [1, `Error from server (ServiceUnavailable): error trying to reach service: dial tcp ${podIP}:9999: connect: connection refused`]);
    await s.kubectlOk(['delete', 'service', 'web-proxied']);
  });

  test("client-node's PortForward (WebSocket channels, v4.channel.k8s.io)", async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromString(s.kubeconfig);
    const output = new PassThrough();
    let received = '';
    output.on('data', (d: Buffer) => (received += d.toString()));
    const input = new PassThrough();
    const ws = await new k8s.PortForward(kc).portForward('default', 'web', [8080], output, null, input);
    try {
      input.write('GET /node HTTP/1.1\r\nHost: web\r\nX-From: client-node\r\nConnection: close\r\n\r\n');
      const body = await until('the answer', async () => (received.endsWith('\n') && received.includes('\r\n\r\n') ? received.split('\r\n\r\n')[1] : undefined), { timeoutMs: 10_000 });
      assert.match(received, /^HTTP\/1\.1 200 OK\r\n/);
      assert.equal(body, 'served /node for client-node\n');
    } finally {
      (ws as { close(): void }).close();
    }
  });

  test("the Python client's portforward, and the kubelet's 400 for a WebSocket port-forward without ports", async () => {
    const script = [
      'import sys',
      'from kubernetes import config, client',
      'from kubernetes.stream import portforward',
      'config.load_kube_config(sys.argv[1])',
      "pf = portforward(client.CoreV1Api().connect_get_namespaced_pod_portforward, 'web', 'default', ports='8080')",
      'sock = pf.socket(8080)',
      'sock.setblocking(True)',
      "sock.sendall(b'GET /python HTTP/1.1\\r\\nHost: web\\r\\nX-From: python\\r\\nConnection: close\\r\\n\\r\\n')",
      "data = b''",
      'while True:',
      '    chunk = sock.recv(1024)',
      '    if not chunk: break',
      '    data += chunk',
      "print(data.decode().split('\\r\\n\\r\\n', 1)[1], end='')",
      'pf.close()',
    ].join('\n');
    const r = await runCommand('/usr/bin/python3', ['-c', script, kubeconfig], { timeoutMs: 60_000, env: process.env });
    assert.deepEqual([r.code, r.stdout], [0, 'served /python for python\n'], r.stderr);
    const url = new URL(s.url);
    const status = await new Promise<{ code: number; body: string }>((resolve, reject) => {
      const req = httpsRequest({
        host: url.hostname,
        port: url.port,
        path: '/api/v1/namespaces/default/pods/web/portforward',
        ca: s.caCert,
        cert: s.clientCert,
        key: s.clientKey,
        headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Protocol': 'v4.channel.k8s.io' },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
      });
      req.on('upgrade', (res, socket) => {
        socket.destroy();
        resolve({ code: res.statusCode ?? 0, body: '' });
      });
      req.on('error', reject);
      req.end();
    });
    assert.deepEqual(status, { code: 400, body: 'query parameter "port" is required\n' });
  });
});
