// Writing the few responses the server layer produces itself: Status errors, JSON and plain text.

import type { StatusError } from '../apis/errors.ts';
import { noteResponseBody } from './audit/request-notes.ts';
import type { HttpResponse } from './types.ts';
import { endIfStarted, endWithBody } from './write-batching.ts';

/** A Status error's JSON body (StatusError.toStatus: kube's field order, details kept even when empty). */
export function statusBody(err: StatusError): string {
  return JSON.stringify(err.toStatus());
}

/** A whole response of one content type (with its Content-Length). */
export function send(res: HttpResponse, code: number, contentType: string, body: string, extra?: Record<string, string>): void {
  if (endIfStarted(res)) return;
  res.statusCode = code;
  res.setHeader('Content-Type', contentType);
  if (extra) for (const [k, v] of Object.entries(extra)) res.setHeader(k, v);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  noteResponseBody(res, body, contentType);
  endWithBody(res, body);
}

export function writeStatus(res: HttpResponse, err: StatusError, extraHeaders?: Record<string, string>): void {
  send(res, err.code, 'application/json', statusBody(err), extraHeaders);
}

export function writeJson(res: HttpResponse, code: number, value: unknown, indent = false): void {
  send(res, code, 'application/json', indent ? JSON.stringify(value, null, 2) : JSON.stringify(value));
}

export function writeText(res: HttpResponse, code: number, text: string): void {
  send(res, code, 'text/plain; charset=utf-8', text, { 'X-Content-Type-Options': 'nosniff' });
}
