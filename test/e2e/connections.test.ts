// Connection-level limits against hostile peers (issue 16, defects 3-6): idle and slow connections are closed as
// kube-apiserver's Go server closes them, oversized bodies get their 413 at once, headers up to kube's 1 MiB pass,
// and every error over HTTP/2 carries its Status body. The timeouts are shortened through the library options;
// what is asserted is that the connection closes, never how fast.

import assert from 'node:assert/strict';
import { connect as http2Connect, constants as h2 } from 'node:http2';
import type { ClientHttp2Session } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { startTestServer, until } from './helpers.ts';
import type { TestServer } from './helpers.ts';

const CM = '/api/v1/namespaces/default/configmaps';
const MiB = 1024 * 1024;

describe('connections', () => {
  let s: TestServer;

  before(async () => {
    s = await startTestServer({
      requestTimeoutSeconds: 0.5,
      connectionTimeouts: { readHeaderTimeoutMs: 300, idleTimeoutMs: 400, http2PrefaceTimeoutMs: 300 },
    });
  });
  after(async () => {
    await s?.close();
  });

  /** A TLS connection as the admin, speaking HTTP/1.1 (or offering only h2 when asked). */
  function tlsSocket(alpn: string[] = ['http/1.1']): Promise<TLSSocket> {
    return new Promise((resolve, reject) => {
      const socket = tlsConnect({ host: '127.0.0.1', port: s.port, ca: s.caCert, cert: s.clientCert, key: s.clientKey, ALPNProtocols: alpn, servername: 'localhost' }, () => resolve(socket));
      socket.once('error', reject);
    });
  }

  /** Everything the server sends until it closes the connection. */
  function untilClosed(socket: TLSSocket): Promise<string> {
    return new Promise((resolve) => {
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.on('error', () => {});
      socket.once('close', () => resolve(text));
    });
  }

  function h2Session(): Promise<ClientHttp2Session> {
    return new Promise((resolve, reject) => {
      const session = http2Connect(s.url, { ca: s.caCert, cert: s.clientCert, key: s.clientKey, maxSendHeaderBlockLength: 2 * MiB });
      session.once('connect', () => resolve(session));
      session.once('error', reject);
    });
  }

  function h2Request(session: ClientHttp2Session, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const stream = session.request(headers);
      let status = 0;
      let text = '';
      stream.on('response', (h) => (status = Number(h[':status'])));
      stream.setEncoding('utf8');
      stream.on('data', (d: string) => (text += d));
      stream.on('end', () => resolve({ status, body: text }));
      stream.on('error', reject);
      stream.end(body);
    });
  }

  test('a connection that never sends a request is closed after the header timeout', async () => {
    const socket = await tlsSocket();
    assert.equal(await untilClosed(socket), '');
  });

  test('HTTP/2 without a client preface is closed', async () => {
    const socket = await tlsSocket(['h2']);
    assert.equal(socket.alpnProtocol, 'h2');
    await untilClosed(socket);
  });

  test('an HTTP/2 connection without streams is closed after the idle timeout', async () => {
    const session = await h2Session();
    const r = await h2Request(session, { ':path': '/readyz' });
    assert.equal(r.status, 200);
    await new Promise<void>((resolve) => session.once('close', () => resolve()));
  });

  test('a body sent one byte at a time gets the 504 Timeout Status and the connection is closed', async () => {
    const socket = await tlsSocket();
    const closed = untilClosed(socket);
    socket.write(`POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
    const trickle = setInterval(() => socket.writable && socket.write(' '), 100);
    const text = await closed;
    clearInterval(trickle);
    assert.match(text, /^HTTP\/1\.1 504 /);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { reason: string; message: string; code: number; details: unknown };
    assert.deepEqual(body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
      reason: 'Timeout',
      details: {},
      code: 504,
    });
  });

  test('a small body answered before it arrived is read and dropped, and the connection serves the next request', async () => {
    // Python's http.client sends the headers and the body in two writes: a request refused on its headers alone (a
    // media type no patch takes here) is answered before the body comes, and the pooled connection is used again.
    const socket = await tlsSocket();
    const closed = untilClosed(socket);
    const body = '{"data":{"a":"b"}}';
    socket.write(`PATCH ${CM}/nothing HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n`);
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    await until('the 415', async () => (text.includes('"code":415}') ? true : undefined));
    assert.match(text, /^HTTP\/1\.1 415 /);
    assert.doesNotMatch(text, /\r\nConnection: close\r\n/i);
    socket.write(body);
    socket.write('GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const all = await closed;
    assert.match(all, /\}\nHTTP\/1\.1 200 OK\r\n[^]*"gitVersion": "v1\.31\.0"/);
  });

  test('an endless chunked body (chunk size ffffffffffffffff) gets its 413 once past 3 MiB, unread beyond', async () => {
    const socket = await tlsSocket();
    const closed = untilClosed(socket);
    socket.write(`POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n`);
    const block = Buffer.alloc(256 * 1024, 0x20);
    let sent = 0;
    // Keep sending while the server reads; it must answer without waiting for the (endless) rest.
    await new Promise<void>((resolve) => {
      const pump = (): void => {
        while (socket.writable && sent < 64 * MiB) {
          sent += block.length;
          if (!socket.write(block)) {
            socket.once('drain', pump);
            return;
          }
        }
        resolve();
      };
      socket.once('close', () => resolve());
      pump();
    });
    const text = await closed;
    assert.match(text, /^HTTP\/1\.1 413 /);
    assert.match(text, /"message":"Request entity too large: limit is 3145728"/);
    assert.ok(sent < 64 * MiB, 'the server read the whole body');
  });

  test('a declared Content-Length past 3 MiB is refused before the body is sent', async () => {
    const socket = await tlsSocket();
    const closed = untilClosed(socket);
    socket.write(`POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${200 * MiB}\r\n\r\n`);
    const text = await closed;
    assert.match(text, /^HTTP\/1\.1 413 /);
    assert.match(text, /"reason":"RequestEntityTooLarge"/);
  });

  test('an oversized HTTP/2 body gets its 413 Status and the stream is reset, the session lives on', async () => {
    const session = await h2Session();
    try {
      const r = await h2Request(session, { ':method': 'POST', ':path': CM, 'content-type': 'application/json' }, ' '.repeat(4 * MiB));
      assert.equal(r.status, 413);
      assert.equal((JSON.parse(r.body) as { message: string }).message, 'Request entity too large: limit is 3145728');
      const ok = await h2Request(session, { ':path': '/readyz' });
      assert.equal(ok.status, 200);
    } finally {
      session.close();
    }
  });

  test('a 600 KiB label selector is served over HTTP/1.1 (kube reads 1 MiB of headers); past 1 MiB is 431', async () => {
    const selector = Array.from({ length: 60_000 }, (_, i) => `k${i}!=v`).join(',');
    const path = `${CM}?labelSelector=${encodeURIComponent(selector).slice(0, 600 * 1024).replace(/%[0-9A-F]?$/, '')}`;
    const h1 = await s.adminRequest(path);
    assert.equal(h1.status, 200, h1.body.slice(0, 300));
    const huge = await s.adminRequest(CM, { headers: { 'x-big': 'a'.repeat(MiB + 8192) } });
    assert.equal(huge.status, 431);
  });

  // nghttp2 (Node's HTTP/2) caps one header field at 64 KiB and a header block at 8 CONTINUATION frames: those
  // limits are below kube's 1 MiB and cannot be raised from JavaScript.
  test('HTTP/2 takes header lists well past the old 64 KiB default', async () => {
    const selector = Array.from({ length: 6_000 }, (_, i) => `k${i}!=v`).join(',').slice(0, 40 * 1024).replace(/,[^,]*$/, '');
    const headers: Record<string, string> = { ':path': `${CM}?labelSelector=${encodeURIComponent(selector)}` };
    for (let i = 0; i < 2; i++) headers[`x-pad-${i}`] = 'p'.repeat(60 * 1024);
    const session = await h2Session();
    try {
      const r = await h2Request(session, headers);
      assert.equal(r.status, 200, r.body.slice(0, 300));
    } finally {
      session.close();
    }
  });

  test('every HTTP/2 error carries a Status body', async () => {
    const session = await h2Session();
    try {
      const cases: [Record<string, string>, string | undefined, number][] = [
        [{ ':method': 'PUT', ':path': `${CM}/nope`, 'content-type': 'application/json' }, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other"}}', 400],
        [{ ':method': 'DELETE', ':path': `${CM}/nope` }, undefined, 404],
        [{ ':path': `${CM}?resourceVersion=abc&resourceVersionMatch=Exact` }, undefined, 400],
        [{ ':method': 'PATCH', ':path': `${CM}/nope?fieldManager=x`, 'content-type': 'application/apply-patch+yaml' }, 'a: &a [*a]', 400],
      ];
      for (const [headers, body, code] of cases) {
        const r = await h2Request(session, headers, body);
        assert.equal(r.status, code, `${headers[':method'] ?? 'GET'} ${headers[':path']}: ${r.body}`);
        const status = JSON.parse(r.body) as { kind: string; code: number };
        assert.equal(status.kind, 'Status');
        assert.equal(status.code, code);
      }
    } finally {
      session.close();
    }
  });

  test('an HTTP/2 answer the client has not read yet does not refuse the connection\'s next streams', async () => {
    // client-go sends every request of a process over one HTTP/2 connection. Go's server holds back what the
    // client's flow control does not take yet and keeps opening streams; Node's refused new streams with
    // ENHANCE_YOUR_CALM once 10 MB of answers waited in the session.
    const session = await h2Session();
    const names: string[] = [];
    try {
      const data = 'x'.repeat(900 * 1024);
      for (let i = 0; i < 14; i++) {
        names.push(`unread-${i}`);
        const r = await h2Request(session, { ':method': 'POST', ':path': CM, 'content-type': 'application/json' }, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: names[i] }, data: { d: data } }));
        assert.equal(r.status, 201, r.body);
      }
      const list = session.request({ ':path': CM });
      list.pause();
      const listStatus = await new Promise<number>((resolve) => list.once('response', (h) => resolve(Number(h[':status']))));
      assert.equal(listStatus, 200);
      // The answer (about 12.6 MB) now waits in the session, the client window long used up.
      await new Promise((r) => setTimeout(r, 200));
      const next = await h2Request(session, { ':path': `${CM}/unread-0` });
      assert.equal(next.status, 200);
      assert.equal((JSON.parse(next.body) as { metadata: { name: string } }).metadata.name, 'unread-0');
      let listed = 0;
      list.on('data', (d: Buffer) => (listed += d.length));
      await new Promise((r) => list.once('end', r).resume());
      assert.ok(listed > 14 * 900 * 1024, `the list was read whole (${listed} bytes)`);
    } finally {
      for (const name of names) await h2Request(session, { ':method': 'DELETE', ':path': `${CM}/${name}` });
      session.close();
    }
  });

  test('after all of it the server is ready', async () => {
    const r = await s.adminRequest('/readyz');
    assert.equal(r.status, 200);
    assert.equal(h2.NGHTTP2_NO_ERROR, 0);
  });
});
