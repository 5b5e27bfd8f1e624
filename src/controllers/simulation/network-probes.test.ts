import assert from 'node:assert/strict';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { networkProbeOf, runNetworkProbe, type NetworkProbe } from './network-probes.ts';

const POD_IP = '10.244.0.7';

async function listening<T extends http.Server | http2.Http2Server>(server: T): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  const port = await listening(s);
  await new Promise((r) => s.close(r));
  return port;
}

const httpProbe = (port: number, path = '/healthz', headers: [string, string][] = []): NetworkProbe => ({ target: { host: '127.0.0.1', port }, host: POD_IP, port: 8080, timeoutMs: 1000, http: { scheme: 'http', path, headers } });

describe('networkProbeOf', () => {
  const container = { name: 'app', ports: [{ name: 'web', containerPort: 8080 }] };
  const mapped = (port: number) => (port === 8080 ? { host: '127.0.0.1' as const, port: 40000 } : undefined);

  it('resolves named ports, defaults the path and timeout, and keeps the pod address for messages', () => {
    const { redirectTarget, ...web } = networkProbeOf({ httpGet: { port: 'web' } }, container, POD_IP, mapped)!;
    assert.equal(redirectTarget, mapped);
    assert.deepEqual(web, {
      target: { host: '127.0.0.1', port: 40000 },
      host: POD_IP,
      port: 8080,
      timeoutMs: 1000,
      http: { scheme: 'http', path: '/', headers: [] },
    });
    assert.deepEqual(networkProbeOf({ tcpSocket: { port: 8080 }, timeoutSeconds: 3 }, container, POD_IP, mapped), { target: { host: '127.0.0.1', port: 40000 }, host: POD_IP, port: 8080, timeoutMs: 3000 });
    assert.equal(networkProbeOf({ grpc: { port: 8080, service: 'db' } }, container, POD_IP, mapped)?.grpcService, 'db');
    assert.equal(networkProbeOf({ httpGet: { port: 8080, path: 'ready', scheme: 'HTTPS' } }, container, POD_IP, mapped)?.http?.path, '/ready');
  });

  it('leaves unmapped ports, other hosts and exec probes to the scripts', () => {
    assert.equal(networkProbeOf({ httpGet: { port: 9090 } }, container, POD_IP, mapped), undefined);
    assert.equal(networkProbeOf({ httpGet: { port: 'metrics' } }, container, POD_IP, mapped), undefined);
    assert.equal(networkProbeOf({ httpGet: { port: 8080, host: 'example.com' } }, container, POD_IP, mapped), undefined);
    assert.equal(networkProbeOf({ exec: { command: ['true'] } }, container, POD_IP, mapped), undefined);
  });
});

describe('runNetworkProbe', () => {
  let webPort = 0;
  let status = 200;
  let seen: http.IncomingHttpHeaders = {};
  const web = http.createServer((req, res) => {
    seen = req.headers;
    if (req.url === '/moved') res.writeHead(302, { location: '/healthz' }).end('see /healthz');
    else if (req.url === '/away') res.writeHead(301, { location: 'http://login.example/' }).end('gone');
    else res.writeHead(status).end('fine');
  });
  let grpcStatus = 1;
  let grpcService = '';
  const grpc = http2.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      grpcService = body.length > 7 ? body.subarray(7).toString('utf8') : '';
      res.addTrailers({ 'grpc-status': '0' });
      res.writeHead(200, { 'content-type': 'application/grpc' });
      res.end(Buffer.from([0, 0, 0, 0, 2, 0x08, grpcStatus]));
    });
  });
  after(() => {
    web.close();
    grpc.close();
  });

  it('passes an HTTP answer of 200-399 and fails others with the status code, sending the kubelet headers', async () => {
    const port = (webPort = await listening(web));
    assert.deepEqual(await runNetworkProbe(httpProbe(port, '/healthz', [['X-Probe', 'yes']])), { ok: true, output: 'fine' });
    assert.equal(seen['user-agent'], 'kube-probe/1.31');
    assert.equal(seen.host, `${POD_IP}:8080`);
    assert.equal(seen['x-probe'], 'yes');
    status = 302;
    assert.equal((await runNetworkProbe(httpProbe(port))).ok, true);
    status = 503;
    assert.deepEqual(await runNetworkProbe(httpProbe(port)), { ok: false, output: 'HTTP probe failed with statuscode: 503' });
    await runNetworkProbe(httpProbe(port, '/', [['Host', 'web.local']]));
    assert.equal(seen.host, 'web.local');
  });

  it('follows a redirect on the pod itself, and passes one to another host with a warning', async () => {
    status = 503;
    assert.deepEqual(await runNetworkProbe(httpProbe(webPort, '/moved')), { ok: false, output: 'HTTP probe failed with statuscode: 503' });
    status = 200;
    assert.deepEqual(await runNetworkProbe(httpProbe(webPort, '/moved')), { ok: true, output: 'fine' });
    assert.equal(seen.host, `${POD_IP}:8080`);
    assert.deepEqual(await runNetworkProbe(httpProbe(webPort, '/away')), { ok: true, warning: true, output: 'Probe terminated redirects, Response body: gone' });
  });

  it("reports a refused connection as Go's client does, with the pod's address", async () => {
    const port = await closedPort();
    assert.deepEqual(await runNetworkProbe(httpProbe(port)), { ok: false, output: `Get "http://${POD_IP}:8080/healthz": dial tcp ${POD_IP}:8080: connect: connection refused` });
    assert.deepEqual(await runNetworkProbe({ target: { host: '127.0.0.1', port }, host: POD_IP, port: 8080, timeoutMs: 1000 }), { ok: false, output: `dial tcp ${POD_IP}:8080: connect: connection refused` });
  });

  it('passes a TCP probe once the connection opens', async () => {
    assert.deepEqual(await runNetworkProbe({ target: { host: '127.0.0.1', port: webPort }, host: POD_IP, port: 8080, timeoutMs: 1000 }), { ok: true, output: '' });
  });

  it('asks grpc.health.v1.Health/Check for the service and fails any status but SERVING', async () => {
    const port = await listening(grpc);
    const probe: NetworkProbe = { target: { host: '127.0.0.1', port }, host: POD_IP, port: 9090, timeoutMs: 1000, grpcService: 'db' };
    assert.deepEqual(await runNetworkProbe(probe), { ok: true, output: 'service healthy' });
    assert.equal(grpcService, 'db');
    grpcStatus = 2;
    assert.deepEqual(await runNetworkProbe(probe), { ok: false, output: 'service unhealthy (responded with "NOT_SERVING")' });
    const closed = await closedPort();
    assert.deepEqual(await runNetworkProbe({ ...probe, target: { host: '127.0.0.1', port: closed } }), { ok: false, output: `timeout: failed to connect service "${POD_IP}:9090" within 1s: context deadline exceeded` });
  });
});
