// Writing cached discovery and OpenAPI documents: encode once, hash once (kube's ETag is the upper-case hex
// SHA-512 of the body), gzip lazily once, and answer conditional requests with 304.

import { gzip } from '../encoding/gzip.ts';
import { createHash } from 'node:crypto';
import type { StatusError } from '../apis/errors.ts';
import type { HttpRequest, HttpResponse } from '../server/types.ts';
import { requestHeader } from '../server/request-header.ts';
import { acceptsGzip } from '../encoding/negotiate.ts';

/** kube-apiserver's compression threshold for API responses (responsewriters: larger bodies are gzipped). */
export const API_GZIP_THRESHOLD = 128 * 1024;

export interface EncodedDocument {
  readonly body: Buffer;
  /** Upper-case hex SHA-512 of body: the ETag value kube uses for discovery and OpenAPI documents. */
  readonly hash: string;
  /** Filled on first use. */
  gzipped?: Buffer;
}

export function encodedDocument(body: Buffer | string, hash?: string): EncodedDocument {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return { body: bytes, hash: hash ?? createHash('sha512').update(bytes).digest('hex').toUpperCase() };
}

export interface ServeOptions {
  readonly contentType: string;
  /** Extra response headers (Cache-Control, Vary, Expires...). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Send ETag: "<hash>" and answer a matching If-None-Match with 304. */
  readonly etag?: boolean;
  /** Send Last-Modified and answer If-Modified-Since (when no If-None-Match is given) with 304. */
  readonly lastModified?: Date;
  /** Gzip when the client accepts it and the body is larger than this many bytes; never when undefined. */
  readonly gzipAbove?: number;
}

/** The subset of http and http2 compat responses used here. */
interface ResponseWriter {
  statusCode: number;
  setHeader(name: string, value: string | number): unknown;
  getHeader(name: string): unknown;
  end(): unknown;
  end(data: Uint8Array): unknown;
}

const header = requestHeader;

/** If-None-Match as net/http's ServeContent compares it: a list of (possibly weak) entity tags, or "*". */
export function ifNoneMatchHits(value: string | undefined, quotedEtag: string): boolean {
  if (!value) return false;
  for (const raw of value.split(',')) {
    const tag = raw.trim();
    if (tag === '*') return true;
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === quotedEtag) return true;
  }
  return false;
}

function notModifiedSince(req: HttpRequest, lastModified: Date | undefined): boolean {
  if (!lastModified || header(req, 'if-none-match') !== undefined) return false;
  const since = header(req, 'if-modified-since');
  if (!since) return false;
  const t = Date.parse(since);
  // HTTP dates have one-second resolution.
  return Number.isFinite(t) && Math.floor(lastModified.getTime() / 1000) * 1000 <= t;
}

export function serveDocument(req: HttpRequest, res: HttpResponse, doc: EncodedDocument, opts: ServeOptions): void {
  const w: ResponseWriter = res;
  for (const [name, value] of Object.entries(opts.headers ?? {})) w.setHeader(name, value);
  const quoted = `"${doc.hash}"`;
  if (opts.etag) w.setHeader('ETag', quoted);
  if (opts.lastModified) w.setHeader('Last-Modified', opts.lastModified.toUTCString());
  if ((opts.etag && ifNoneMatchHits(header(req, 'if-none-match'), quoted)) || notModifiedSince(req, opts.lastModified)) {
    w.statusCode = 304;
    w.end();
    return;
  }
  let body = doc.body;
  if (opts.gzipAbove !== undefined && body.length > opts.gzipAbove && acceptsGzip(header(req, 'accept-encoding'))) {
    doc.gzipped ??= gzip(doc.body, 6);
    body = doc.gzipped;
    w.setHeader('Content-Encoding', 'gzip');
    appendVary(w, 'Accept-Encoding');
  }
  w.setHeader('Content-Type', opts.contentType);
  w.setHeader('Content-Length', body.length);
  w.statusCode = 200;
  if (req.method === 'HEAD') w.end();
  else w.end(body);
}

export function appendVary(w: { getHeader(name: string): unknown; setHeader(name: string, value: string): unknown }, value: string): void {
  const current = w.getHeader('Vary');
  const list = typeof current === 'string' && current ? current.split(',').map((s) => s.trim()) : [];
  if (!list.some((v) => v.toLowerCase() === value.toLowerCase())) list.push(value);
  w.setHeader('Vary', list.join(', '));
}

/** A fixed body with its own status and headers (a redirect, for instance). */
export function serveStatusDocument(
  req: HttpRequest,
  res: HttpResponse,
  status: number,
  doc: EncodedDocument,
  headers: Readonly<Record<string, string>>,
): void {
  const w: ResponseWriter = res;
  for (const [name, value] of Object.entries(headers)) w.setHeader(name, value);
  w.setHeader('Content-Length', doc.body.length);
  w.statusCode = status;
  if (req.method === 'HEAD') w.end();
  else w.end(doc.body);
}

/** A bare status with no body (kube-openapi's 406, for instance). */
export function serveEmpty(res: HttpResponse, status: number, headers: Readonly<Record<string, string>> = {}): void {
  const w: ResponseWriter = res;
  for (const [name, value] of Object.entries(headers)) w.setHeader(name, value);
  w.statusCode = status;
  w.end();
}

/** Write a StatusError as kube does for discovery negotiation failures (a JSON Status). */
export function serveStatus(res: HttpResponse, err: StatusError): void {
  const w: ResponseWriter = res;
  const body = Buffer.from(JSON.stringify(err.toStatus()) + '\n');
  w.setHeader('Content-Type', 'application/json');
  w.setHeader('Content-Length', body.length);
  w.statusCode = err.code;
  w.end(body);
}
