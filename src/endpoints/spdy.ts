// SPDY/3.1 as Kubernetes' streaming endpoints speak it (exec, attach and port-forward through client-go's
// NewSPDYExecutor, and kubectl when WebSocket is off or fails): an HTTP/1.1 upgrade that negotiates a stream protocol
// (X-Stream-Protocol-Version), then a session of streams the client opens (SYN_STREAM, each named by its
// `streamtype` header), each answered with an empty SYN_REPLY, carrying DATA frames and closed by a FIN on each side.
// Only what those clients use is served: header blocks are read with zlib and SPDY's dictionary, and written as
// stored (uncompressed) deflate blocks of one zlib stream, which any zlib reader accepts; PINGs are answered; flow
// control windows are not kept (the client's library, spdystream, sends without waiting for them either).

import { constants as zlibConstants, inflateSync } from 'node:zlib';
import type { Duplex } from 'node:stream';
import type { HttpRequest } from '../server/types.ts';
import { requestHeader } from '../server/request-header.ts';

/** The header names a SPDY/3 header block is compressed against: each word with its 32-bit length, then the rest. */
const DICTIONARY_WORDS = [
  'options', 'head', 'post', 'put', 'delete', 'trace', 'accept', 'accept-charset', 'accept-encoding', 'accept-language',
  'accept-ranges', 'age', 'allow', 'authorization', 'cache-control', 'connection', 'content-base', 'content-encoding',
  'content-language', 'content-length', 'content-location', 'content-md5', 'content-range', 'content-type', 'date',
  'etag', 'expect', 'expires', 'from', 'host', 'if-match', 'if-modified-since', 'if-none-match', 'if-range',
  'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'pragma', 'proxy-authenticate',
  'proxy-authorization', 'range', 'referer', 'retry-after', 'server', 'te', 'trailer', 'transfer-encoding', 'upgrade',
  'user-agent', 'vary', 'via', 'warning', 'www-authenticate', 'method', 'get', 'status', '200 OK', 'version',
  'HTTP/1.1', 'url', 'public', 'set-cookie', 'keep-alive', 'origin',
];
const DICTIONARY_TAIL =
  '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505203 Non-Authoritative ' +
  'Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidden404 Not Found500 ' +
  'Internal Server Error501 Not Implemented503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec ' +
  '00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif,application/xml,' +
  'application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=' +
  'iso-8859-1,utf-,*,enq=0.';

let dictionary: Buffer | undefined;
export function spdyDictionary(): Buffer {
  if (dictionary) return dictionary;
  const parts: Buffer[] = [];
  for (const w of DICTIONARY_WORDS) {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(w.length);
    parts.push(len, Buffer.from(w, 'latin1'));
  }
  parts.push(Buffer.from(DICTIONARY_TAIL, 'latin1'));
  return (dictionary = Buffer.concat(parts));
}

const VERSION = 3;
const SYN_STREAM = 1;
const SYN_REPLY = 2;
const RST_STREAM = 3;
/** RST_STREAM's status for a stream the server will not take (spdystream's Reset sends CANCEL). */
const CANCEL = 5;
const PING = 6;
const GOAWAY = 7;
export const FLAG_FIN = 0x01;
/** How many bytes of compressed header blocks one session may send (a handful of streams need a few hundred). */
const MAX_HEADER_BYTES = 256 * 1024;
/** What one DATA frame carries at most when this side writes. */
const MAX_DATA_BYTES = 64 * 1024;
/** Frames larger than this end the session (client-go writes stdin in 32 KiB frames at most). */
const MAX_FRAME_BYTES = 1024 * 1024;

const header = (req: HttpRequest, name: string): string => (requestHeader(req, name) ?? '').trim();

/** A plain-text HTTP/1.1 answer on the raw socket, as Go's http.Error writes it; the socket is closed after it. */
export function refuseUpgrade(socket: Duplex, code: number, text: string, body: string, extraHeaders: string[] = []): void {
  const payload = Buffer.from(`${body}\n`, 'utf8');
  const head = [`HTTP/1.1 ${code} ${text}`, 'Content-Type: text/plain; charset=utf-8', 'X-Content-Type-Options: nosniff', ...extraHeaders, `Content-Length: ${payload.length}`, 'Connection: close', '', ''].join('\r\n');
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), payload]));
}

/**
 * httpstream.Handshake then the SPDY upgrade: the first stream protocol the client offers that the server speaks,
 * written with the 101; false when it refused (403 naming both lists, as kube words it) and closed the socket.
 */
export function acceptSpdy(req: HttpRequest, socket: Duplex, protocols: readonly string[]): string | false {
  const offered = header(req, 'x-stream-protocol-version').split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (offered.length === 0) {
    refuseUpgrade(socket, 400, 'Bad Request', 'unable to upgrade: X-Stream-Protocol-Version is required');
    return false;
  }
  const chosen = offered.find((p) => protocols.includes(p));
  if (chosen === undefined) {
    const accepted = protocols.map((p) => `X-Accepted-Stream-Protocol-Versions: ${p}`);
    refuseUpgrade(socket, 403, 'Forbidden', `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server accepts [${protocols.join(' ')}]`, accepted);
    return false;
  }
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${chosen}\r\n\r\n`);
  return chosen;
}

/** A stream the client opened. */
export interface SpdyStream {
  readonly id: number;
  /** Its headers, names lower-cased, several values joined by NUL as SPDY carries them. */
  readonly headers: ReadonlyMap<string, string>;
  /** Data the client sent on it, and its end (a FIN or a reset); set by the session's user. */
  onData?: (data: Buffer) => void;
  onEnd?: () => void;
  write(data: string | Uint8Array): void;
  /** This side's end of the stream (a FIN). */
  end(): void;
}

export interface SpdySession {
  /** Ends this side: a FIN on every stream still open, a GOAWAY, and the end of what is written to the socket. */
  close(): void;
}

function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | VERSION, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(payload.length, 4);
  head[4] = flags;
  return Buffer.concat([head, payload]);
}

function dataFrame(streamId: number, flags: number, data: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(8 + data.length);
  frame.writeUInt32BE(streamId & 0x7fffffff, 0);
  frame.writeUInt32BE(data.length, 4);
  frame[4] = flags;
  frame.set(data, 8);
  return frame;
}

/** A name/value header block: the pair count, then each name and value with its 32-bit length. */
export function encodeHeaderBlock(headers: ReadonlyMap<string, string>): Buffer {
  const parts: Buffer[] = [u32(headers.size)];
  for (const [name, value] of headers) {
    const n = Buffer.from(name, 'utf8');
    const v = Buffer.from(value, 'utf8');
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(block: Buffer): Map<string, string> {
  const headers = new Map<string, string>();
  let at = 0;
  const read = (): string => {
    if (at + 4 > block.length) throw new Error('short header block');
    const len = block.readUInt32BE(at);
    at += 4;
    if (at + len > block.length) throw new Error('short header block');
    const s = block.toString('utf8', at, at + len);
    at += len;
    return s;
  };
  if (block.length < 4) throw new Error('short header block');
  const count = block.readUInt32BE(0);
  at = 4;
  for (let i = 0; i < count; i++) {
    const name = read().toLowerCase();
    headers.set(name, read());
  }
  return headers;
}

const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

/** A stored (uncompressed) deflate block, not the last: BFINAL 0 and BTYPE 00 padded to the byte, LEN, NLEN, data. */
function storedBlock(data: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt16LE(data.length, 1);
  head.writeUInt16LE(~data.length & 0xffff, 3);
  return Buffer.concat([head, data]);
}

/**
 * The writing side of the session's header compression: each block a stored deflate block of one zlib stream (the
 * stream's two-byte header before the first), which a reader inflates without the dictionary, then the empty stored
 * block a sync flush writes, which is what tells a reader (Go's flate) that the block's bytes may be handed on.
 */
function headerWriter(): (block: Buffer) => Buffer {
  let first = true;
  return (block) => {
    const out = Buffer.concat([first ? Buffer.from([0x78, 0x01]) : Buffer.alloc(0), storedBlock(block), storedBlock(Buffer.alloc(0))]);
    first = false;
    return out;
  };
}

/**
 * The reading side: the client's blocks are one zlib stream (with SPDY's dictionary), each block ending in a sync
 * flush; every block read so far is inflated again and the new output taken (sessions carry a few small blocks).
 */
function headerReader(): (compressed: Buffer) => Buffer {
  const seen: Buffer[] = [];
  let total = 0;
  let produced = 0;
  return (compressed) => {
    seen.push(compressed);
    total += compressed.length;
    if (total > MAX_HEADER_BYTES) throw new Error('header blocks too large');
    const all = inflateSync(Buffer.concat(seen), { dictionary: spdyDictionary(), finishFlush: zlibConstants.Z_SYNC_FLUSH });
    const block = all.subarray(produced);
    produced = all.length;
    return block;
  };
}

/**
 * Serves a SPDY session on a socket already upgraded: `onStream` gets each stream the client opens, once its headers
 * are read and a SYN_REPLY has answered it; a stream `accept` refuses gets a RST_STREAM instead. `onClose` is called
 * once the connection is over (the client's GOAWAY, its end, an error or a malformed frame).
 */
export function serveSpdySession(socket: Duplex, onStream: (stream: SpdyStream) => void, onClose: () => void, accept?: (headers: ReadonlyMap<string, string>) => boolean): SpdySession {
  const streams = new Map<number, SpdyStream & { clientDone: boolean; serverDone: boolean }>();
  const compress = headerWriter();
  const inflate = headerReader();
  let buffered: Buffer = Buffer.alloc(0);
  let lastClientStream = 0;
  let over = false;
  let closing = false;
  const finish = () => {
    if (over) return;
    over = true;
    for (const s of streams.values()) if (!s.clientDone) endFromClient(s);
    onClose();
  };
  const send = (frame: Buffer) => {
    if (!socket.writableEnded && !socket.destroyed) socket.write(frame);
  };
  const endFromClient = (s: SpdyStream & { clientDone: boolean }) => {
    if (s.clientDone) return;
    s.clientDone = true;
    s.onEnd?.();
  };

  const onSynStream = (flags: number, payload: Buffer) => {
    const id = payload.readUInt32BE(0) & 0x7fffffff;
    const headers = decodeHeaderBlock(inflate(payload.subarray(10)));
    lastClientStream = Math.max(lastClientStream, id);
    const stream: SpdyStream & { clientDone: boolean; serverDone: boolean } = {
      id,
      headers,
      clientDone: false,
      serverDone: false,
      write(data) {
        if (stream.serverDone || closing) return;
        const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
        for (let at = 0; at < bytes.length; at += MAX_DATA_BYTES) send(dataFrame(id, 0, bytes.subarray(at, at + MAX_DATA_BYTES)));
      },
      end() {
        if (stream.serverDone) return;
        stream.serverDone = true;
        send(dataFrame(id, FLAG_FIN, new Uint8Array(0)));
      },
    };
    if (accept && !accept(headers)) {
      send(controlFrame(RST_STREAM, 0, Buffer.concat([u32(id), u32(CANCEL)])));
      return;
    }
    streams.set(id, stream);
    send(controlFrame(SYN_REPLY, 0, Buffer.concat([u32(id), compress(encodeHeaderBlock(new Map()))])));
    onStream(stream);
    if (flags & FLAG_FIN) endFromClient(stream);
  };

  const onFrame = (frame: Buffer) => {
    if (frame[0]! & 0x80) {
      const type = frame.readUInt16BE(2);
      const flags = frame[4]!;
      const payload = frame.subarray(8);
      if (type === SYN_STREAM && payload.length >= 10) onSynStream(flags, payload);
      else if (type === RST_STREAM && payload.length >= 8) {
        const s = streams.get(payload.readUInt32BE(0) & 0x7fffffff);
        if (s) {
          s.serverDone = true;
          endFromClient(s);
        }
      } else if (type === PING && payload.length === 4) send(controlFrame(PING, 0, payload));
      else if (type === GOAWAY) finish();
      // SETTINGS, HEADERS, WINDOW_UPDATE and anything newer: nothing to do.
      return;
    }
    const s = streams.get(frame.readUInt32BE(0) & 0x7fffffff);
    if (!s || s.clientDone) return;
    const data = frame.subarray(8);
    if (data.length > 0) s.onData?.(data);
    if (frame[4]! & FLAG_FIN) endFromClient(s);
  };

  socket.on('data', (chunk: Buffer) => {
    if (over) return;
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    try {
      while (buffered.length >= 8) {
        const length = buffered.readUInt32BE(4) & 0xffffff;
        if (length > MAX_FRAME_BYTES) throw new Error('frame too large');
        if (buffered.length < 8 + length) break;
        const frame = buffered.subarray(0, 8 + length);
        buffered = buffered.subarray(8 + length);
        onFrame(frame);
      }
    } catch {
      socket.destroy();
      finish();
    }
  });
  socket.on('end', finish);
  socket.on('close', finish);
  socket.on('error', finish);

  return {
    close() {
      if (closing) return;
      for (const s of streams.values()) s.end();
      closing = true;
      send(controlFrame(GOAWAY, 0, Buffer.concat([u32(lastClientStream), u32(0)])));
      if (!socket.destroyed) socket.end();
    },
  };
}
