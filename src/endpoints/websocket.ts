// Watches over WebSocket, as kube-apiserver serves them through golang.org/x/net/websocket (WatchServer.HandleWS):
// the RFC 6455 handshake with x/net/websocket's checks (GET, version 13, a key, an Origin), then one message per
// event (text for JSON, binary for protobuf), pongs for pings, and a close frame (1000) when the watch ends.
// Client messages are read and dropped (wsstream.IgnoreReceives).

import { createHash } from 'node:crypto';
import { Duplex } from 'node:stream';
import type { HttpRequest } from '../server/types.ts';
import { requestHeader } from '../server/request-header.ts';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

const OP_TEXT = 0x1;
const OP_BINARY = 0x2;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
const OP_PONG = 0xa;

/** Client frames larger than this end the connection (by default: a watch client has nothing to send). */
const MAX_CLIENT_FRAME_BYTES = 64 * 1024;

const header = (req: HttpRequest, name: string): string => (requestHeader(req, name) ?? '').trim();

function statusLine(code: number, text: string): string {
  return `HTTP/1.1 ${code} ${text}\r\n`;
}

/**
 * x/net/websocket's server handshake on the raw socket: the subprotocol agreed ('' for none) when the connection is
 * now a WebSocket; false when it answered the refusal (400 for a bad version or key, 403 without an Origin) and
 * closed the socket. With `subprotocols` it is the handshake of kube's wsstream connections (exec) instead: the
 * first offered subprotocol the server supports is chosen, 403 when there is none, and no Origin is asked for.
 */
export function acceptWebSocket(req: HttpRequest, socket: Duplex, subprotocols?: readonly string[]): string | false {
  const key = header(req, 'sec-websocket-key');
  const refuse = (text: string): false => {
    socket.end(text);
    return false;
  };
  // hybiServerHandshaker.ReadHandshake's errors.
  if (req.method !== 'GET') return refuse(`${statusLine(405, 'Method Not Allowed')}\r\nbad method`);
  if (key === '') return refuse(`${statusLine(400, 'Bad Request')}\r\nmismatch challenge/response`);
  if (header(req, 'sec-websocket-version') !== '13') {
    return refuse(`${statusLine(400, 'Bad Request')}Sec-WebSocket-Version: 13\r\n\r\nmissing or bad WebSocket Version`);
  }
  const offered = header(req, 'sec-websocket-protocol').split(',').map((p) => p.trim()).filter((p) => p !== '');
  let protocols = offered;
  if (subprotocols) {
    const chosen = offered.find((p) => subprotocols.includes(p));
    if (chosen === undefined) return refuse(`${statusLine(403, 'Forbidden')}\r\n`);
    protocols = [chosen];
  } else {
    // websocket.Handler's checkOrigin: a parseable Origin is required.
    const origin = header(req, 'origin');
    if (origin === '' || !URL.canParse(origin)) return refuse(`${statusLine(403, 'Forbidden')}\r\n`);
    // AcceptHandshake cannot pick one of several offered protocols: x/net/websocket drops the connection.
    if (protocols.length > 1) {
      socket.destroy();
      return false;
    }
  }
  const accept = createHash('sha1').update(key + GUID).digest('base64');
  const lines = [statusLine(101, 'Switching Protocols'), 'Upgrade: websocket\r\n', 'Connection: Upgrade\r\n', `Sec-WebSocket-Accept: ${accept}\r\n`];
  if (protocols.length === 1) lines.push(`Sec-WebSocket-Protocol: ${protocols[0]}\r\n`);
  socket.write(lines.join('') + '\r\n');
  return protocols[0] ?? '';
}

/** One unmasked, unfragmented server frame. */
export function webSocketFrame(opcode: number, payload: Uint8Array): Buffer {
  const len = payload.length;
  const headerLength = len < 126 ? 2 : len < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + len);
  frame[0] = 0x80 | opcode;
  if (len < 126) frame[1] = len;
  else if (len < 65536) {
    frame[1] = 126;
    frame.writeUInt16BE(len, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(len), 2);
  }
  frame.set(payload, headerLength);
  return frame;
}

/** A watch event as one message: JSON (newline-terminated, as the JSON encoder writes it) or protobuf bytes. */
export function webSocketMessage(payload: Uint8Array, binary: boolean): Buffer {
  return webSocketFrame(binary ? OP_BINARY : OP_TEXT, payload);
}

/** The close frame x/net/websocket's Close sends: status 1000, no reason. */
export const NORMAL_CLOSE_FRAME = webSocketFrame(OP_CLOSE, Uint8Array.of(0x03, 0xe8));

/**
 * Reads client frames (unmasking them), answers pings, and calls onClose for a close frame, a protocol
 * violation or a frame larger than maxFrameBytes. Data messages go to onMessage, or are dropped.
 */
export function readClientFrames(socket: Duplex, onClose: () => void, onMessage?: (payload: Buffer) => void, maxFrameBytes = MAX_CLIENT_FRAME_BYTES): void {
  let pending: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      if (pending.length < 2) return;
      const opcode = pending[0]! & 0x0f;
      const masked = (pending[1]! & 0x80) !== 0;
      let len = pending[1]! & 0x7f;
      let offset = 2;
      if (len === 126) {
        if (pending.length < 4) return;
        len = pending.readUInt16BE(2);
        offset = 4;
      } else if (len === 127) {
        if (pending.length < 10) return;
        const big = pending.readBigUInt64BE(2);
        len = big > BigInt(maxFrameBytes) ? maxFrameBytes + 1 : Number(big);
        offset = 10;
      }
      // RFC 6455: every client frame is masked.
      if (!masked || len > maxFrameBytes) {
        onClose();
        return;
      }
      if (pending.length < offset + 4 + len) return;
      const mask = pending.subarray(offset, offset + 4);
      const payload = Buffer.from(pending.subarray(offset + 4, offset + 4 + len));
      for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
      pending = pending.subarray(offset + 4 + len);
      if (opcode === OP_CLOSE) {
        onClose();
        return;
      }
      if (opcode === OP_PING) socket.write(webSocketFrame(OP_PONG, payload));
      else if ((opcode === OP_BINARY || opcode === OP_TEXT) && onMessage) onMessage(payload);
    }
  });
}

/**
 * The bytes of a WebSocket's binary messages as one stream, as client-go's tunneling connection carries SPDY over a
 * WebSocket (kubectl port-forward's "SPDY/3.1+portforward.k8s.io"): each message read is the next bytes, each write
 * one binary message; ending it sends the close frame.
 */
export function webSocketByteStream(socket: Duplex, maxFrameBytes: number): Duplex {
  const stream = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, done) {
      if (socket.destroyed || socket.writableEnded) return done();
      socket.write(webSocketFrame(OP_BINARY, chunk), () => done());
    },
    final(done) {
      if (!socket.destroyed && !socket.writableEnded) socket.end(NORMAL_CLOSE_FRAME);
      done();
    },
    destroy(err, done) {
      socket.destroy();
      done(err);
    },
  });
  readClientFrames(socket, () => stream.push(null), (payload) => stream.push(payload), maxFrameBytes);
  socket.on('close', () => stream.destroy());
  socket.on('error', () => stream.destroy());
  return stream;
}
