// Responses whose connection an endpoint has taken over (an HTTP/1.1 upgrade proxied to an aggregated API server,
// as Go's http.Hijacker hands it over): from then on the bytes on the connection are the endpoint's, so nothing else
// writes an answer to it, neither a request timeout's 504 nor an error. The response closes with its connection.
import type { HttpResponse } from './types.ts';

const hijacked = new WeakSet<object>();

export function hijack(res: HttpResponse): void {
  hijacked.add(res);
}

export function isHijacked(res: object): boolean {
  return hijacked.has(res);
}
