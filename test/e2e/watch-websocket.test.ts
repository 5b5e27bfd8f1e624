// Watch over WebSocket (Upgrade: websocket on a watch request), as kube serves it to browsers and dashboards:
// x/net/websocket's handshake, one message per event (text JSON or binary protobuf), pong for ping, a close frame
// at the end; the filters (authentication) apply as to any request.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import tls from 'node:tls';
import { startTestServer, type TestServer } from './helpers.ts';
import { decodeWatchEvent } from '../../src/encoding/protobuf/watch-frames.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s?.close();
});

interface Message {
  opcode: number;
  payload: Buffer;
}

interface WsClient {
  /** The HTTP response head (status line and headers), and the body when the upgrade was refused. */
  head: Promise<string>;
  messages: Message[];
  closed: Promise<void>;
  waitFor(pred: () => boolean): Promise<void>;
  send(opcode: number, payload: Buffer): void;
}

const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';

function connect(path: string, headers: Record<string, string>, withCert = true): WsClient {
  const sock = tls.connect({ host: '127.0.0.1', port: s.port, ca: s.caCert, ...(withCert ? { cert: s.clientCert, key: s.clientKey } : {}), ALPNProtocols: ['http/1.1'] });
  const lines = [`GET ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''];
  sock.once('secureConnect', () => sock.write(lines.join('\r\n')));
  const messages: Message[] = [];
  let buf = Buffer.alloc(0);
  let headDone = false;
  let resolveHead!: (h: string) => void;
  const head = new Promise<string>((resolve) => (resolveHead = resolve));
  let wake: (() => void) | undefined;
  sock.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    if (!headDone) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      headDone = true;
      const text = buf.subarray(0, end).toString('latin1');
      if (!text.startsWith('HTTP/1.1 101')) {
        resolveHead(buf.toString('latin1'));
        buf = Buffer.alloc(0);
        headDone = false;
        return;
      }
      resolveHead(text);
      buf = buf.subarray(end + 4);
    }
    for (;;) {
      if (buf.length < 2) break;
      assert.equal(buf[1]! & 0x80, 0, 'server frames are not masked');
      let len = buf[1]! & 0x7f;
      let offset = 2;
      if (len === 126) {
        if (buf.length < 4) break;
        len = buf.readUInt16BE(2);
        offset = 4;
      } else if (len === 127) {
        if (buf.length < 10) break;
        len = Number(buf.readBigUInt64BE(2));
        offset = 10;
      }
      if (buf.length < offset + len) break;
      assert.equal(buf[0]! & 0x80, 0x80, 'one frame per message');
      messages.push({ opcode: buf[0]! & 0x0f, payload: Buffer.from(buf.subarray(offset, offset + len)) });
      buf = buf.subarray(offset + len);
    }
    wake?.();
  });
  const closed = new Promise<void>((resolve) => sock.on('close', () => {
    resolveHead(buf.toString('latin1'));
    resolve();
  }));
  sock.on('error', () => {});
  return {
    head,
    messages,
    closed,
    async waitFor(pred) {
      const deadline = Date.now() + 10_000;
      while (!pred()) {
        if (Date.now() > deadline) assert.fail(`messages so far: ${messages.length}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 300);
        });
      }
    },
    send(opcode, payload) {
      const mask = Buffer.from([1, 2, 3, 4]);
      const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
      sock.write(Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | payload.length]), mask, masked]));
    },
  };
}

const upgrade = { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Key': KEY, 'Sec-WebSocket-Version': '13', Origin: 'https://dashboard.example.com' };

test('JSON watch over WebSocket: one text message per event, pong for ping, close frame on client close', async () => {
  const ws = connect('/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=30', upgrade);
  const head = await ws.head;
  assert.match(head, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
  assert.match(head, /\r\nUpgrade: websocket/);
  assert.ok(head.includes(`Sec-WebSocket-Accept: ${createHash('sha1').update(`${KEY}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64')}`));
  await s.kubectlOk(['create', 'configmap', 'ws-a', '-n', 'default', '--from-literal=a=1']);
  await s.kubectlOk(['delete', 'configmap', 'ws-a', '-n', 'default']);
  await ws.waitFor(() => ws.messages.length >= 2);
  assert.deepEqual(ws.messages.map((m) => m.opcode), [1, 1]);
  const events = ws.messages.map((m) => {
    const text = m.payload.toString('utf8');
    assert.ok(text.endsWith('}\n'), 'each message is one newline-terminated event');
    return JSON.parse(text) as { type: string; object: { metadata: { name: string } } };
  });
  assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED ws-a', 'DELETED ws-a']);

  ws.send(0x9, Buffer.from('hi'));
  await ws.waitFor(() => ws.messages.length >= 3);
  assert.deepEqual(ws.messages[2], { opcode: 0xa, payload: Buffer.from('hi') });
  ws.send(0x8, Buffer.from([0x03, 0xe8]));
  await ws.closed;
  assert.deepEqual(ws.messages[3], { opcode: 0x8, payload: Buffer.from([0x03, 0xe8]) });
});

test('protobuf watch over WebSocket: binary WatchEvent messages (no length prefix); the close frame at the timeout', async () => {
  const ws = connect('/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=2', { ...upgrade, Accept: 'application/vnd.kubernetes.protobuf;stream=watch' });
  assert.match(await ws.head, /^HTTP\/1\.1 101 /);
  await s.kubectlOk(['create', 'configmap', 'ws-pb', '-n', 'default']);
  await ws.closed;
  const data = ws.messages.filter((m) => m.opcode === 2);
  assert.equal(data.length, 1);
  const event = decodeWatchEvent(data[0]!.payload);
  assert.equal(event.type, 'ADDED');
  assert.equal((event.object.metadata as { name: string }).name, 'ws-pb');
  assert.deepEqual(ws.messages.at(-1), { opcode: 0x8, payload: Buffer.from([0x03, 0xe8]) });
});

test('refused upgrades: no Origin 403, bad version 400, no credentials 401 Status', async () => {
  const { Origin: _origin, ...noOrigin } = upgrade;
  const a = connect('/api/v1/namespaces/default/configmaps?watch=1', noOrigin);
  assert.match(await a.head, /^HTTP\/1\.1 403 Forbidden\r\n/);
  await a.closed;
  const b = connect('/api/v1/namespaces/default/configmaps?watch=1', { ...upgrade, 'Sec-WebSocket-Version': '8' });
  const bHead = await b.head;
  assert.match(bHead, /^HTTP\/1\.1 400 Bad Request\r\nSec-WebSocket-Version: 13\r\n\r\nmissing or bad WebSocket Version/);
  await b.closed;
  const c = connect('/api/v1/namespaces/default/configmaps?watch=1', upgrade, false);
  const cHead = await c.head;
  assert.match(cHead, /^HTTP\/1\.1 401 Unauthorized\r\n/);
  assert.match(cHead, /"reason":"Unauthorized"/);
  await c.closed;
  assert.equal((await s.adminRequest('/livez')).status, 200);
});
