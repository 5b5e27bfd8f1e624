import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { issueCertificate } from './certificates.ts';
import { whenClosed } from './response-close.ts';

// A client that opens HTTP/2 streams, reads them slowly (its windows fill, the server's answers pile up in its
// buffers), then resets them and exits, as a watcher's process does.
const CLIENT = `
import http2 from 'node:http2';
const [url, ca, n] = JSON.parse(process.argv[1]);
const session = http2.connect(url, { ca });
session.on('error', () => {});
const streams = [];
for (let i = 0; i < n; i++) {
  const s = session.request({ ':path': '/' });
  s.on('error', () => {});
  s.on('data', () => { s.pause(); setTimeout(() => s.resume(), 200); });
  streams.push(s);
}
setTimeout(() => {
  for (const s of streams) s.close();
  session.close();
  setTimeout(() => process.exit(0), 300);
}, 1000);
`;

test('HTTP/2: a stream the client resets while answers wait in its buffer still closes the response', async () => {
  const now = Date.now();
  const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000) };
  const ca = await issueCertificate({ subject: { commonName: 'test-ca' }, isCa: true, ...validity });
  const serving = await issueCertificate({ subject: { commonName: 'localhost' }, isCa: false, usage: 'server', altNames: ['127.0.0.1'], ...validity }, ca);
  const open = new Set<http2.Http2ServerResponse>();
  let started = 0;
  let closed = 0;
  const server = http2.createSecureServer({ cert: serving.certPem, key: serving.keyPem, settings: { initialWindowSize: 16384 } }, (_req, res) => {
    started++;
    res.writeHead(200);
    open.add(res);
    whenClosed(res, () => {
      closed++;
      open.delete(res);
    });
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => sessions.add(s));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  // A watch's events: written whatever the peer reads.
  const writer = setInterval(() => {
    for (const res of open) res.write('x'.repeat(1200) + '\n');
  }, 5);
  try {
    const n = 50;
    const client = spawn(process.execPath, ['--input-type=module', '-e', CLIENT, JSON.stringify([`https://127.0.0.1:${(server.address() as AddressInfo).port}`, ca.certPem, n])], { stdio: 'ignore' });
    await once(client, 'exit');
    for (let i = 0; i < 300 && closed < n; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(started, n);
    assert.equal(closed, n, 'every reset stream closed its response');
    assert.equal(open.size, 0);
  } finally {
    clearInterval(writer);
    for (const s of sessions) s.destroy();
    server.close();
  }
});
