// Writing responses as kube-apiserver's responsewriters do: negotiated JSON, YAML or protobuf bodies, gzip
// above 128 KiB when asked (APIResponseCompression), Warning headers, and every error as a Status.

import { gzip } from '../encoding/gzip.ts';
import { HandlerPanic, internalError, isStatusError, PANIC_ANSWER, type Status } from '../apis/errors.ts';
import { encodeJson } from '../encoding/json.ts';
import { acceptsGzip, JSON_MEDIA_TYPE, negotiateOutput, prettyRequested, PROTOBUF_MEDIA_TYPE, PROTOBUF_SERVED_MEDIA_TYPES, YAML_MEDIA_TYPE, type NegotiatedMediaType } from '../encoding/negotiate.ts';
import { encodeProtobufObject } from '../encoding/protobuf/envelope.ts';
import { encodeYaml } from '../encoding/yaml.ts';
import { noteResponseBody } from '../server/audit/request-notes.ts';
import type { Logger } from '../server/log.ts';
import { requestHeader } from '../server/request-header.ts';
import type { HttpRequest, HttpResponse } from '../server/types.ts';

export { requestHeader };
import { endIfStarted, endWithBody, writeWithBatch } from '../server/write-batching.ts';

/** defaultGzipThresholdBytes of kube's deferredResponseWriter. */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;

/** The response methods used here, common to HTTP/1.1 and HTTP/2 compatibility responses. */
export interface WritableResponse {
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  writeHead(code: number): unknown;
  write(chunk: Uint8Array | string): boolean;
  end(chunk?: Uint8Array | string): unknown;
  on(event: 'close', listener: () => void): unknown;
  flushHeaders?(): void;
}

export function writable(res: HttpResponse): WritableResponse {
  return res as unknown as WritableResponse;
}

/** What a handler needs to answer one request. */
export interface Responder {
  readonly req: HttpRequest;
  readonly res: HttpResponse;
  readonly query: URLSearchParams;
  /** Warnings collected while serving (RequestContext.warnings), sent as Warning headers. */
  readonly warnings: string[];
  readonly logger: Logger | undefined;
  /** APIResponseCompression: large bodies are gzipped for clients that accept it. */
  readonly compress: boolean;
}

const header = requestHeader;

/** net.NewWarningHeader: `299 - "text"`, or undefined for a text with control characters (kube drops those). */
function warningHeader(text: string): string | undefined {
  if (/[\u0000-\u001f\u007f-\u009f]/.test(text)) return undefined;
  const quoted = `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  // Header values travel as bytes: send the UTF-8 bytes as Go does.
  return Buffer.from(`299 - ${quoted}`, 'utf8').toString('latin1');
}

/** The warning recorder's limits: 4 Ki runes of warnings in all, past which each is cut to 256 runes. */
const TRUNCATE_AT_TOTAL_RUNES = 4 * 1024;
const TRUNCATE_ITEM_RUNES = 256;

/**
 * The Warning header values kube's warning recorder (filters.WithWarningRecorder) writes for these warnings, added
 * in order: repeats dropped, and once the texts pass 4 Ki runes, all of them cut to 256 runes and those that come
 * after the total is reached left out.
 */
export function warningHeaderValues(warnings: readonly string[], totalRunes = TRUNCATE_AT_TOTAL_RUNES, itemRunes = TRUNCATE_ITEM_RUNES): string[] {
  const recorded = new Set<string>();
  const ordered: string[] = [];
  let values: string[] = [];
  let written = 0;
  let truncating = false;
  const cut = (text: string): [string, number] => {
    const runes = [...text];
    return runes.length > itemRunes ? [runes.slice(0, itemRunes).join(''), itemRunes] : [text, runes.length];
  };
  for (const text of warnings) {
    if (!text || (truncating && written >= totalRunes) || recorded.has(text)) continue;
    recorded.add(text);
    ordered.push(text);
    const [shown, length] = truncating ? cut(text) : [text, [...text].length];
    const header = warningHeader(shown);
    if (header === undefined) continue;
    if (written + length <= totalRunes || truncating) {
      written += length;
      values.push(header);
      continue;
    }
    // Past the limit: start again with every warning so far cut to the item length.
    truncating = true;
    written = 0;
    values = [];
    for (const earlier of ordered) {
      const [again, n] = cut(earlier);
      const h = warningHeader(again);
      if (h === undefined) continue;
      written += n;
      values.push(h);
    }
  }
  return values;
}

function applyWarnings(r: Responder): void {
  if (r.warnings.length === 0 || r.res.headersSent) return;
  const values = warningHeaderValues(r.warnings);
  if (values.length > 0) writable(r.res).setHeader('Warning', values);
}

/** Whether a body of this size goes out gzipped (never for watches, which do not come here). */
export function shouldGzip(r: Responder, length: number): boolean {
  return r.compress && length > GZIP_THRESHOLD_BYTES && acceptsGzip(header(r.req, 'accept-encoding'));
}

/** Sends a complete body with the given status code and media type. */
export function writeBody(r: Responder, code: number, contentType: string, body: string | Uint8Array): void {
  const { req } = r;
  const res = writable(r.res);
  if (endIfStarted(res)) return;
  applyWarnings(r);
  noteResponseBody(r.res, body, contentType);
  let payload: Uint8Array = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  if (shouldGzip(r, payload.length)) {
    payload = gzip(payload);
    res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Vary', 'Accept-Encoding');
  }
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', payload.length);
  res.writeHead(code);
  if (req.method === 'HEAD') res.end();
  else endLarge(res, payload);
}

/** Bodies from this size on are written apart from the HTTP/1.1 head. */
const LARGE_BODY_BYTES = 64 * 1024;

/**
 * Ends a response with a large body. Over HTTP/1.1 the head is flushed first: written together, head and body
 * reach the TLS socket as two buffers, which it copies into one before encrypting.
 */
export function endLarge(res: WritableResponse, body: Uint8Array): void {
  if (body.length >= LARGE_BODY_BYTES) res.flushHeaders?.();
  endWithBody(res, body);
}

/** Encodes a value in the negotiated media type (JSON compact or indented, YAML, or protobuf). */
export function encodeBody(value: unknown, media: NegotiatedMediaType, r: Responder): string | Uint8Array {
  if (media.mediaType === YAML_MEDIA_TYPE) return encodeYaml(value);
  if (media.mediaType === PROTOBUF_MEDIA_TYPE) return encodeProtobufObject(value);
  return encodeJson(value, media.pretty || prettyRequested(r.query, header(r.req, 'user-agent')));
}

export function writeObject(r: Responder, code: number, value: unknown, media: NegotiatedMediaType): void {
  writeWithBatch(r.res, () => writeBody(r, code, media.mediaType, encodeBody(value, media, r)));
}

/** The Status for any thrown value; unexpected errors are logged and become 500 InternalError. */
export function statusFor(err: unknown, logger: Logger | undefined): Status {
  if (isStatusError(err)) return err.toStatus();
  logger?.error('unexpected error serving a request', { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  return internalError(err).toStatus();
}

/**
 * ErrorNegotiated: the Status in JSON or YAML as the Accept header allows without transforms;
 * when nothing is acceptable, indented JSON anyway (WriteRawJSON) so the error is never hidden.
 */
export function writeError(r: Responder, err: unknown): void {
  const status = err instanceof HandlerPanic ? undefined : statusFor(err, r.logger);
  // Go's WriteHeader panics on a code outside 100-999 (a webhook's refusal may carry any int32)
  if (!status || !Number.isInteger(status.code) || status.code < 100 || status.code > 999) {
    r.logger?.error('apiserver panicked', { method: r.req.method, error: status ? `invalid WriteHeader code ${status.code}` : (err as Error).message });
    if (endIfStarted(r.res)) return;
    writable(r.res).setHeader('X-Content-Type-Options', 'nosniff');
    writeBody(r, 500, 'text/plain; charset=utf-8', PANIC_ANSWER);
    return;
  }
  if (endIfStarted(r.res)) return;
  // ErrorNegotiated: a Status that names a retry delay also sets Retry-After.
  const retryAfter = status.details?.retryAfterSeconds;
  if (typeof retryAfter === 'number' && retryAfter > 0) writable(r.res).setHeader('Retry-After', String(retryAfter));
  // Status has a protobuf message: errors are served in protobuf for every endpoint, custom resources' too.
  const media = negotiateOutput(header(r.req, 'accept'), { allowTransform: false }, PROTOBUF_SERVED_MEDIA_TYPES);
  if (!media) {
    writeBody(r, status.code, JSON_MEDIA_TYPE, encodeJson(status, true));
    return;
  }
  writeObject(r, status.code, status, media);
}

/** Go's http.NotFound, which kube-apiserver answers for paths no API serves. */
export function writePlainNotFound(r: Responder): void {
  if (r.res.headersSent) return;
  writable(r.res).setHeader('X-Content-Type-Options', 'nosniff');
  writeBody(r, 404, 'text/plain; charset=utf-8', '404 page not found\n');
}

