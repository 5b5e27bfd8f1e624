import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { constants as zlibConstants, createDeflate, inflateSync } from 'node:zlib';
import type { HttpRequest } from '../server/types.ts';
import { acceptSpdy, decodeHeaderBlock, encodeHeaderBlock, FLAG_FIN, serveSpdySession, spdyDictionary, type SpdyStream } from './spdy.ts';
import { isSpdyRequest } from '../server/upgrade-requests.ts';

const request = (headers: Record<string, string>, httpVersionMajor = 1) => ({ headers, httpVersionMajor, method: 'POST' }) as unknown as HttpRequest;

/** What a handshake wrote to the socket. */
function written(run: (socket: PassThrough) => unknown): { result: unknown; text: string } {
  const socket = new PassThrough();
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  const result = run(socket);
  return { result, text: Buffer.concat(chunks).toString() };
}

test("SPDY's dictionary: the 65 header words with their lengths, then the rest, 1,423 bytes", () => {
  const d = spdyDictionary();
  assert.equal(d.length, 1423);
  assert.deepEqual([d.readUInt32BE(0), d.subarray(4, 11).toString()], [7, 'options']);
  assert.equal(d.subarray(-6).toString(), 'enq=0.');
});

test('isSpdyRequest and the handshake: the first protocol the client offers that is served; 403 naming both lists; 400 without any', () => {
  assert.equal(isSpdyRequest(request({ connection: 'Upgrade', upgrade: 'SPDY/3.1' })), true);
  assert.equal(isSpdyRequest(request({ connection: 'Upgrade', upgrade: 'websocket' })), false);
  assert.equal(isSpdyRequest(request({ connection: 'Upgrade', upgrade: 'SPDY/3.1' }, 2)), false);
  const ok = written((s) => acceptSpdy(request({ 'x-stream-protocol-version': 'v5.channel.k8s.io, v4.channel.k8s.io, v3.channel.k8s.io' }), s, ['v4.channel.k8s.io', 'v3.channel.k8s.io']));
  assert.equal(ok.result, 'v4.channel.k8s.io');
  assert.equal(ok.text, 'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n');
  const refused = written((s) => acceptSpdy(request({ 'x-stream-protocol-version': 'v1.channel.k8s.io' }), s, ['v4.channel.k8s.io']));
  assert.equal(refused.result, false);
  assert.match(refused.text, /^HTTP\/1\.1 403 Forbidden\r\n/);
  assert.match(refused.text, /\r\nX-Accepted-Stream-Protocol-Versions: v4\.channel\.k8s\.io\r\n/);
  assert.match(refused.text, /\r\n\r\nunable to upgrade: unable to negotiate protocol: client supports \[v1\.channel\.k8s\.io\], server accepts \[v4\.channel\.k8s\.io\]\n$/);
  const missing = written((s) => acceptSpdy(request({}), s, ['v4.channel.k8s.io']));
  assert.match(missing.text, /^HTTP\/1\.1 400 Bad Request\r\n[^]*\r\n\r\nunable to upgrade: X-Stream-Protocol-Version is required\n$/);
});

test('header blocks: pairs with 32-bit lengths, names lower-cased when read', () => {
  const block = encodeHeaderBlock(new Map([['streamType', 'stdout'], ['port', '8080']]));
  assert.deepEqual([...decodeHeaderBlock(block)], [['streamtype', 'stdout'], ['port', '8080']]);
  assert.throws(() => decodeHeaderBlock(block.subarray(0, block.length - 1)), /short header block/);
});

/** A client end of a session: frames written with a zlib stream against the dictionary, as spdystream writes them. */
function spdyClient(socket: Socket) {
  const deflate = createDeflate({ dictionary: spdyDictionary() });
  const compress = (block: Buffer) =>
    new Promise<Buffer>((resolve) => {
      const out: Buffer[] = [];
      const onData = (c: Buffer) => out.push(c);
      deflate.on('data', onData);
      deflate.write(block);
      deflate.flush(zlibConstants.Z_SYNC_FLUSH, () => {
        deflate.off('data', onData);
        resolve(Buffer.concat(out));
      });
    });
  const control = (type: number, flags: number, payload: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt16BE(0x8003, 0);
    head.writeUInt16BE(type, 2);
    head.writeUInt32BE(payload.length, 4);
    head[4] = flags;
    socket.write(Buffer.concat([head, payload]));
  };
  const frames: { type?: number; stream?: number; flags: number; payload: Buffer }[] = [];
  let buffered = Buffer.alloc(0);
  socket.on('data', (c: Buffer) => {
    buffered = Buffer.concat([buffered, c]);
    while (buffered.length >= 8 && buffered.length >= 8 + (buffered.readUInt32BE(4) & 0xffffff)) {
      const len = buffered.readUInt32BE(4) & 0xffffff;
      const f = buffered.subarray(0, 8 + len);
      buffered = buffered.subarray(8 + len);
      if (f[0]! & 0x80) frames.push({ type: f.readUInt16BE(2), flags: f[4]!, payload: f.subarray(8) });
      else frames.push({ stream: f.readUInt32BE(0), flags: f[4]!, payload: f.subarray(8) });
    }
  });
  return {
    frames,
    async open(id: number, headers: Record<string, string>, flags = 0) {
      const ids = Buffer.alloc(10);
      ids.writeUInt32BE(id, 0);
      control(1, flags, Buffer.concat([ids, await compress(encodeHeaderBlock(new Map(Object.entries(headers))))]));
    },
    data(id: number, data: string, flags = 0) {
      const head = Buffer.alloc(8);
      head.writeUInt32BE(id, 0);
      head.writeUInt32BE(Buffer.byteLength(data), 4);
      head[4] = flags;
      socket.write(Buffer.concat([head, Buffer.from(data)]));
    },
    control,
  };
}

const settle = () => new Promise((r) => setTimeout(r, 50));

test('a session: streams opened with compressed headers and answered, data both ways, FINs, PINGs echoed, a GOAWAY at the close', async () => {
  const seen: { id: number; type: string; data: string; ended: boolean }[] = [];
  let serverStreams: SpdyStream[] = [];
  let closed = false;
  let session: ReturnType<typeof serveSpdySession> | undefined;
  const server = createServer((socket) => {
    session = serveSpdySession(
      socket,
      (stream) => {
        const entry = { id: stream.id, type: stream.headers.get('streamtype') ?? '', data: '', ended: false };
        seen.push(entry);
        serverStreams.push(stream);
        stream.onData = (d) => (entry.data += d.toString());
        stream.onEnd = () => (entry.ended = true);
      },
      () => (closed = true),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const socket = connect((server.address() as { port: number }).port, '127.0.0.1');
  try {
    const client = spdyClient(socket);
    await client.open(1, { streamType: 'error' });
    await client.open(3, { streamType: 'stdin' });
    await client.open(5, { streamType: 'stdout', extra: 'a\u0000b' });
    client.data(3, 'hello ');
    client.data(3, 'world', FLAG_FIN);
    const ping = Buffer.alloc(4);
    ping.writeUInt32BE(7);
    client.control(6, 0, ping);
    await settle();
    assert.deepEqual(seen, [
      { id: 1, type: 'error', data: '', ended: false },
      { id: 3, type: 'stdin', data: 'hello world', ended: true },
      { id: 5, type: 'stdout', data: '', ended: false },
    ]);
    // Each stream answered with an empty SYN_REPLY, whose blocks inflate as one zlib stream.
    const replies = client.frames.filter((f) => f.type === 2);
    assert.deepEqual(replies.map((f) => f.payload.readUInt32BE(0)), [1, 3, 5]);
    const inflated = inflateSync(Buffer.concat(replies.map((f) => f.payload.subarray(4))), { finishFlush: zlibConstants.Z_SYNC_FLUSH });
    assert.deepEqual([...inflated], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(client.frames.filter((f) => f.type === 6).map((f) => f.payload.readUInt32BE(0)), [7]);
    serverStreams[2]!.write('output');
    session!.close();
    await settle();
    const data = client.frames.filter((f) => f.stream !== undefined);
    assert.deepEqual(data.map((f) => [f.stream, f.flags, f.payload.toString()]), [[5, 0, 'output'], [1, FLAG_FIN, ''], [3, FLAG_FIN, ''], [5, FLAG_FIN, '']]);
    const goAway = client.frames.find((f) => f.type === 7)!;
    assert.deepEqual([goAway.payload.readUInt32BE(0), goAway.payload.readUInt32BE(4)], [5, 0]);
    await settle();
    assert.equal(closed, true);
  } finally {
    socket.destroy();
    serverStreams = [];
    await new Promise((r) => server.close(r));
  }
});

test('a stream the session does not accept is reset (CANCEL) and never reaches onStream', async () => {
  const seen: string[] = [];
  const server = createServer((socket) => void serveSpdySession(socket, (stream) => seen.push(stream.headers.get('port') ?? ''), () => {}, (headers) => headers.get('port') !== 'bad'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const socket = connect((server.address() as { port: number }).port, '127.0.0.1');
  try {
    const client = spdyClient(socket);
    await client.open(1, { port: 'bad' });
    await client.open(3, { port: '80' });
    await settle();
    assert.deepEqual(seen, ['80']);
    const reset = client.frames.find((f) => f.type === 3)!;
    assert.deepEqual([reset.payload.readUInt32BE(0), reset.payload.readUInt32BE(4)], [1, 5]);
    assert.deepEqual(client.frames.filter((f) => f.type === 2).map((f) => f.payload.readUInt32BE(0)), [3]);
  } finally {
    socket.destroy();
    await new Promise((r) => server.close(r));
  }
});

test('a malformed session ends: a header block that does not inflate, or a frame over the limit', async () => {
  for (const bad of [
    // A SYN_STREAM whose header block is not zlib data.
    Buffer.concat([Buffer.from([0x80, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x0e]), Buffer.alloc(10), Buffer.from('junk')]),
    // A DATA frame claiming 16 MiB.
    Buffer.from([0x00, 0x00, 0x00, 0x01, 0x00, 0xff, 0xff, 0xff]),
  ]) {
    let closed = false;
    const server = createServer((socket) => void serveSpdySession(socket, () => assert.fail('no stream'), () => (closed = true)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const socket = connect((server.address() as { port: number }).port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(bad);
    const ended = await new Promise<boolean>((r) => {
      socket.on('close', () => r(true));
      setTimeout(() => r(false), 2000);
    });
    assert.deepEqual([ended, closed], [true, true]);
    await new Promise((r) => server.close(r));
  }
});
