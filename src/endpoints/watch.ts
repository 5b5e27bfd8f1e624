// Serving a watch: a chunked (HTTP/1.1) or data-framed (HTTP/2) stream of newline-terminated JSON
// WatchEvents or length-prefixed protobuf ones, or one WebSocket message per event (Upgrade: websocket), each
// event encoded once per representation and shared by every watcher that sends it.
// The stream ends at the timeout, when the client goes away, when the store ends it, or when the
// client reads too slowly.

import { StatusError, internalError, isStatusError, notAcceptable } from '../apis/errors.ts';
import { encodeJson } from '../encoding/json.ts';
import { JSON_MEDIA_TYPE, PROTOBUF_MEDIA_TYPE, PROTOBUF_SERVED_STREAM_MEDIA_TYPES, SERVED_STREAM_MEDIA_TYPES, type NegotiatedMediaType } from '../encoding/negotiate.ts';
import { encodeWatchFrame } from '../encoding/protobuf/watch-frames.ts';
import { servesProtobuf } from './handlers/common.ts';
import { acceptWebSocket, NORMAL_CLOSE_FRAME, readClientFrames, webSocketMessage } from './websocket.ts';
import { isWebSocketRequest } from '../server/upgrade-requests.ts';
import type { Duplex } from 'node:stream';
import type { KubeObject, WatchEvent } from '../registry/types.ts';
import type { HttpResponse } from '../server/types.ts';
import { isHttp2Response } from '../server/write-batching.ts';
import type { ParsedListOptions } from './options.ts';
import { warningHeaderValues, writable, type WritableResponse } from './respond.ts';
import { requestContext, type Scope } from './scope.ts';
import { parseTableOptions, partialObjectMetadata, toTable, type TableOptions } from './table.ts';

/** Unsent bytes past which a flow-controlled watch pauses until the socket drains. */
const WATCH_HIGH_WATER_BYTES = 1024 * 1024;

/** Picks the watch duration: ?timeoutSeconds, else a random time in [min, 2*min) as kube does. */
export function watchTimeoutMs(timeoutSeconds: number | undefined, minRequestTimeoutSeconds: number, random: () => number = Math.random): number {
  if (timeoutSeconds !== undefined && timeoutSeconds !== 0) return Math.max(0, timeoutSeconds) * 1000;
  if (minRequestTimeoutSeconds <= 0) return 0;
  return Math.floor(minRequestTimeoutSeconds * 1000 * (random() + 1));
}

/** How one watcher renders event objects: as they are, as Tables, or as PartialObjectMetadata. */
export interface WatchEncoding {
  /** application/json, or application/vnd.kubernetes.protobuf (length-prefixed WatchEvent messages). */
  mediaType: string;
  kind: 'object' | 'table' | 'partial';
  version: string;
  table: TableOptions | undefined;
}

export function watchEncodingFor(media: NegotiatedMediaType, query: URLSearchParams): WatchEncoding {
  const convert = media.convert;
  const mediaType = media.mediaType;
  if (convert?.kind === 'Table') return { mediaType, kind: 'table', version: convert.version, table: parseTableOptions(query) };
  if (convert?.kind === 'PartialObjectMetadata' || convert?.kind === 'PartialObjectMetadataList') return { mediaType, kind: 'partial', version: convert.version, table: undefined };
  return { mediaType, kind: 'object', version: '', table: undefined };
}

function memoKey(encoding: WatchEncoding, noHeaders: boolean): string {
  switch (encoding.kind) {
    case 'object':
      return encoding.mediaType;
    case 'partial':
      return `${encoding.mediaType};as=PartialObjectMetadata;v=${encoding.version}`;
    case 'table':
      return `${encoding.mediaType};as=Table;v=${encoding.version};include=${encoding.table?.includeObject};noHeaders=${noHeaders}`;
  }
}

/** The bytes of one event for one encoding, memoized on the shared event. */
export function encodeWatchEvent(scope: Pick<Scope, 'def'>, event: WatchEvent, encoding: WatchEncoding, noHeaders: boolean, key = memoKey(encoding, noHeaders)): Uint8Array {
  const memo = event.encoded?.get(key);
  if (memo) return memo;
  let object: unknown = event.object;
  if (event.object.kind !== 'Status') {
    const obj = event.object as KubeObject;
    if (encoding.kind === 'table' && encoding.table) object = toTable(scope.def, obj, { ...encoding.table, noHeaders }, encoding.version);
    else if (encoding.kind === 'partial') object = partialObjectMetadata(obj, encoding.version);
  }
  const bytes = encoding.mediaType === PROTOBUF_MEDIA_TYPE ? encodeWatchFrame(event.type, object) : Buffer.from(encodeJson({ type: event.type, object }), 'utf8');
  event.encoded ??= new Map();
  event.encoded.set(key, bytes);
  return bytes;
}

/** The event as one HTTP/1.1 chunk (size line, bytes, CRLF), memoized next to its bytes. */
export function encodeWatchChunk(scope: Pick<Scope, 'def'>, event: WatchEvent, encoding: WatchEncoding, noHeaders: boolean, keys = watchMemoKeys(encoding, noHeaders)): Uint8Array {
  const key = keys.chunk;
  const memo = event.encoded?.get(key);
  if (memo) return memo;
  const bytes = encodeWatchEvent(scope, event, encoding, noHeaders, keys.event);
  const chunk = Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`, 'latin1'), bytes, CRLF]);
  event.encoded!.set(key, chunk);
  return chunk;
}

const CRLF = Buffer.from('\r\n', 'latin1');

/** The event's bytes without the stream framing: JSON text, or the WatchEvent message without its length prefix. */
function unframed(bytes: Uint8Array, encoding: WatchEncoding): Uint8Array {
  return encoding.mediaType === PROTOBUF_MEDIA_TYPE ? bytes.subarray(4) : bytes;
}

/** The event as one WebSocket message (text for JSON, binary for protobuf), memoized next to its bytes. */
export function encodeWatchWebSocketMessage(scope: Pick<Scope, 'def'>, event: WatchEvent, encoding: WatchEncoding, noHeaders: boolean, keys = watchMemoKeys(encoding, noHeaders)): Uint8Array {
  const key = `${keys.event};websocket`;
  const memo = event.encoded?.get(key);
  if (memo) return memo;
  const bytes = encodeWatchEvent(scope, event, encoding, noHeaders, keys.event);
  const message = webSocketMessage(unframed(bytes, encoding), encoding.mediaType === PROTOBUF_MEDIA_TYPE);
  event.encoded!.set(key, message);
  return message;
}

/** The memo keys of one watcher's encoding (computed once per stream, not once per event). */
export function watchMemoKeys(encoding: WatchEncoding, noHeaders: boolean): { event: string; chunk: string } {
  const event = memoKey(encoding, noHeaders);
  return { event, chunk: `${event};chunk` };
}

function unsentBytes(res: HttpResponse | WritableResponse): number {
  const r = res as unknown as { writableLength?: number; stream?: { writableLength?: number } };
  return r.writableLength ?? r.stream?.writableLength ?? 0;
}

function errorEvent(err: unknown): WatchEvent {
  const status = isStatusError(err) ? err.toStatus() : internalError(err).toStatus();
  return { type: 'ERROR', object: status };
}

/** Streams a watch until it ends; resolves when the response is finished. Errors before the first byte throw. */
export async function serveWatch(scope: Scope, opts: ParsedListOptions, media: NegotiatedMediaType): Promise<void> {
  // NegotiateOutputMediaTypeStream: JSON, and protobuf for kinds with a protobuf message (for custom resources,
  // negotiation let protobuf through for PartialObjectMetadata only).
  const protobuf = servesProtobuf(scope) || scope.def.custom;
  if (media.mediaType !== JSON_MEDIA_TYPE && !(protobuf && media.mediaType === PROTOBUF_MEDIA_TYPE)) {
    throw notAcceptable([...(protobuf ? PROTOBUF_SERVED_STREAM_MEDIA_TYPES : SERVED_STREAM_MEDIA_TYPES)]);
  }
  const encoding = watchEncodingFor(media, scope.r.query);
  const timeoutMs = watchTimeoutMs(opts.timeoutSeconds, scope.deps.minRequestTimeoutSeconds);
  const { watch: _watch, sendInitialEventsSet: _sie, ...listOptions } = opts;
  // The store learns the actual deadline (its last bookmark goes out 2 s before it).
  if (timeoutMs > 0) listOptions.timeoutSeconds = timeoutMs / 1000;
  const stream = await scope.store.watch(requestContext(scope), listOptions);
  const res = writable(scope.r.res);
  // A WebSocket watch (HTTP/1.1 only): the handshake on the raw socket, which this watch then owns.
  const ws = !isHttp2Response(res) && isWebSocketRequest(scope.r.req) ? ((res as unknown as { socket?: Duplex | null }).socket ?? undefined) : undefined;
  if (ws && acceptWebSocket(scope.r.req, ws) === false) {
    stream.stop();
    return;
  }

  await new Promise<void>((resolve) => {
    let finished = false;
    let timer: NodeJS.Timeout | undefined;
    let sentHeaders = false;
    const finish = (destroy: boolean) => {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      try {
        stream.stop();
      } catch (e) {
        scope.deps.logger?.warn('stopping a watch failed', { error: e });
      }
      if (ws) {
        if (destroy) ws.destroy();
        else if (!ws.writableEnded) ws.end(NORMAL_CLOSE_FRAME);
      } else if (destroy) {
        const r = res as unknown as { destroy?: (err?: Error) => void; stream?: { destroy?: () => void } };
        if (isHttp2Response(res)) r.stream?.destroy?.();
        else r.destroy?.();
      } else if (!res.writableEnded) {
        res.end();
      }
      resolve();
    };
    // One-off events (errors) in the stream's framing.
    const sendOnce = (event: WatchEvent) => {
      const bytes = encodeWatchEvent(scope, event, { mediaType: encoding.mediaType, kind: 'object', version: '', table: undefined }, true);
      if (ws) ws.write(webSocketMessage(unframed(bytes, encoding), encoding.mediaType === PROTOBUF_MEDIA_TYPE));
      else res.write(bytes);
    };

    if (ws) {
      ws.on('close', () => finish(false));
      readClientFrames(ws, () => finish(false));
    } else {
      if (scope.r.warnings.length > 0) {
        const values = warningHeaderValues(scope.r.warnings);
        if (values.length > 0) res.setHeader('Warning', values);
      }
      // kube's WatchServer: JSON stays "application/json", other media types get ";stream=watch".
      res.setHeader('Content-Type', encoding.mediaType === JSON_MEDIA_TYPE ? JSON_MEDIA_TYPE : `${encoding.mediaType};stream=watch`);
      if (!isHttp2Response(res)) res.setHeader('Transfer-Encoding', 'chunked');
      res.writeHead(200);
      res.flushHeaders?.();
      res.on('close', () => finish(false));
    }
    sentHeaders = true;

    // HTTP/1.1: events go to the socket as ready-made chunks (framed once per event, not once per watcher).
    const socket = ws || isHttp2Response(res) ? undefined : ((res as unknown as { socket?: { write(b: Uint8Array): boolean; once(e: 'drain', f: () => void): void } | null }).socket ?? undefined);
    if (timeoutMs > 0) timer = setTimeout(() => finish(false), timeoutMs);
    else if (opts.timeoutSeconds !== undefined && opts.timeoutSeconds < 0) setImmediate(() => finish(false));

    const keysWithHeaders = watchMemoKeys(encoding, false);
    const keysNoHeaders = watchMemoKeys(encoding, true);
    // Flow control: past the high-water mark the stream pauses (streams that support it) until the socket drains.
    let waitingForDrain = false;
    const onDrain = () => {
      waitingForDrain = false;
      if (!finished) stream.resume?.();
    };
    const write = (event: WatchEvent, noHeaders: boolean): boolean => {
      const keys = noHeaders ? keysNoHeaders : keysWithHeaders;
      if (ws) ws.write(encodeWatchWebSocketMessage(scope, event, encoding, noHeaders, keys));
      else if (socket) socket.write(encodeWatchChunk(scope, event, encoding, noHeaders, keys));
      else res.write(encodeWatchEvent(scope, event, encoding, noHeaders, keys.event));
      const unsent = ws ? ws.writableLength : unsentBytes(res);
      if (unsent > scope.deps.maxWatchBufferBytes) {
        scope.deps.logger?.warn('dropping a watcher that reads too slowly', { resource: scope.def.resource, unsentBytes: unsent });
        finish(true);
        return false;
      }
      if (stream.resume && unsent > WATCH_HIGH_WATER_BYTES) {
        if (!waitingForDrain) {
          waitingForDrain = true;
          // Events written straight to the socket drain there (the response only signals its own writes).
          ((ws ?? socket ?? res) as unknown as { once(e: 'drain', f: () => void): void }).once('drain', onDrain);
        }
        return false;
      }
      return true;
    };

    let first = true;
    try {
      stream.start(
        (event) => {
          if (finished) return false;
          try {
            // Table watches carry column definitions on the first event only.
            const more = write(event, encoding.kind === 'table' && !first);
            first = false;
            return more;
          } catch (e) {
            scope.deps.logger?.error('encoding a watch event failed', { error: e instanceof Error ? e.stack : String(e) });
            finish(true);
            return false;
          }
        },
        (err) => {
          if (finished) return;
          if (err && sentHeaders) {
            try {
              sendOnce(errorEvent(err));
            } catch {
              // the client is gone
            }
          }
          finish(false);
        },
      );
    } catch (e) {
      if (!finished) {
        sendOnce(errorEvent(e instanceof StatusError ? e : internalError(e)));
        finish(false);
      }
    }
  });
}
