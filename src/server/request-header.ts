import type { HttpRequest } from './types.ts';

/** A request header's value; several values of one name joined with ", ", as they would be listed in one header. */
export function requestHeader(req: HttpRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}
