// Kubernetes URL library (k8s.io/apiserver/pkg/cel/library/urls.go): url, isURL and the URL accessors. Parsing
// follows Go's url.ParseRequestURI: an absolute URI or an absolute path; hosts and ports are kept as written.

import { CelScalar, listType, mapType } from '@bufbuild/cel';
import { OpaqueValue, func, opaqueMethod, OPAQUE } from '../opaque.ts';

const { STRING, BOOL } = CelScalar;

export class URLValue extends OpaqueValue {
  readonly typeName = 'kubernetes.URL';
  readonly source: string;
  readonly scheme: string;
  readonly host: string;
  readonly path: string;
  readonly query: string;
  constructor(source: string, scheme: string, host: string, path: string, query: string) {
    super();
    this.source = source;
    this.scheme = scheme;
    this.host = host;
    this.path = path;
    this.query = query;
  }
  protected identity(): string {
    return this.source;
  }
  get hostname(): string {
    const h = this.host.replace(/^[^@]*@/, '');
    if (h.startsWith('[')) {
      const end = h.indexOf(']');
      return end < 0 ? h : h.slice(1, end);
    }
    const colon = h.lastIndexOf(':');
    return colon < 0 ? h : h.slice(0, colon);
  }
  get port(): string {
    const h = this.host.replace(/^[^@]*@/, '');
    const colon = h.lastIndexOf(':');
    if (colon < 0 || h.endsWith(']')) return '';
    return h.slice(colon + 1);
  }
}

const absolute = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#.*)?$/;

/** Go's url.ParseRequestURI error text for a string it refuses, or undefined when it accepts it. */
export function requestURIError(s: string): string | undefined {
  if (s.startsWith('/')) return undefined;
  const m = absolute.exec(s);
  if (!m || /[\u0000-\u001f\u007f ]/.test(s)) return `parse ${JSON.stringify(s)}: invalid URI for request`;
  const host = m[2] ?? '';
  const port = host.startsWith('[') ? host.slice(host.indexOf(']') + 1) : host.slice(host.lastIndexOf(':'));
  if (port.startsWith(':') && !/^:\d*$/.test(port)) return `parse ${JSON.stringify(s)}: invalid port ${JSON.stringify(port)} after host`;
  return undefined;
}

/** Go's url.ParseRequestURI, far enough for the accessors; throws with Go's error text. */
export function parseURL(s: string): URLValue {
  if (s.startsWith('/')) {
    const q = s.indexOf('?');
    return new URLValue(s, '', '', q < 0 ? s : s.slice(0, q), q < 0 ? '' : s.slice(q + 1));
  }
  const m = absolute.exec(s);
  if (!m || /[\u0000-\u001f\u007f ]/.test(s)) throw new Error(`URL parse error during conversion from string: ${requestURIError(s)}`);
  const [, scheme, host = '', path, query = ''] = m;
  const port = host.startsWith('[') ? host.slice(host.indexOf(']') + 1) : host.slice(host.lastIndexOf(':'));
  if (port.startsWith(':') && !/^:\d*$/.test(port)) {
    throw new Error(`URL parse error during conversion from string: ${requestURIError(s)}`);
  }
  return new URLValue(s, scheme.toLowerCase(), host, path, query);
}

function queryMap(query: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (query === '') return out;
  for (const part of query.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    const decode = (x: string): string | undefined => {
      try {
        return decodeURIComponent(x.replace(/\+/g, ' '));
      } catch {
        return undefined;
      }
    };
    const k = decode(eq < 0 ? part : part.slice(0, eq));
    const v = decode(eq < 0 ? '' : part.slice(eq + 1));
    if (k === undefined || v === undefined) continue;
    const list = out.get(k);
    if (list) list.push(v);
    else out.set(k, [v]);
  }
  return out;
}

export const urlFuncs = [
  func('url', [STRING], OPAQUE, (s) => parseURL(s as string)),
  func('isURL', [STRING], BOOL, (s) => {
    try {
      parseURL(s as string);
      return true;
    } catch {
      return false;
    }
  }),
  opaqueMethod('getScheme', URLValue, [], STRING, (u) => u.scheme),
  opaqueMethod('getHost', URLValue, [], STRING, (u) => u.host.replace(/^[^@]*@/, '')),
  opaqueMethod('getHostname', URLValue, [], STRING, (u) => u.hostname),
  opaqueMethod('getPort', URLValue, [], STRING, (u) => u.port),
  opaqueMethod('getEscapedPath', URLValue, [], STRING, (u) => u.path),
  opaqueMethod('getQuery', URLValue, [], mapType(STRING, listType(STRING)), (u) => queryMap(u.query)),
];
