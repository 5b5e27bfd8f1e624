// RequestInfo: what a request addresses, parsed from method and path as k8s.io/apiserver's RequestInfoFactory does.

export interface RequestInfo {
  /** True for /api/... and /apis/... paths. */
  readonly isResourceRequest: boolean;
  readonly path: string;
  /** get, list, watch, create, update, patch, delete, deletecollection, proxy; or the lowercase HTTP method for non-resource requests. */
  readonly verb: string;
  /** "api" or "apis" ('' for non-resource requests). */
  readonly apiPrefix: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /** Path segments after the API prefix (for discovery routing). */
  readonly parts: readonly string[];
}

const namespaceSubresources = new Set(['status', 'finalize']);

function verbForMethod(method: string): string {
  switch (method) {
    case 'POST':
      return 'create';
    case 'GET':
    case 'HEAD':
      return 'get';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return method.toLowerCase();
  }
}

function isTrue(v: string | null): boolean {
  return v !== null && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/** The path's segments, without the empty ones leading, trailing or doubled slashes make. */
function segmentsOf(path: string): string[] {
  // As clients send paths: one leading slash, no empty segment after it.
  if (path.charCodeAt(0) === 0x2f && path.charCodeAt(path.length - 1) !== 0x2f && !path.includes('//')) return path.slice(1).split('/');
  return path.split('/').filter((s) => s !== '');
}

function nonResourceInfo(method: string, path: string, apiPrefix: string, apiGroup: string, apiVersion: string, parts: readonly string[]): RequestInfo {
  return { isResourceRequest: false, path, verb: method.toLowerCase(), apiPrefix, apiGroup, apiVersion, namespace: '', resource: '', subresource: '', name: '', parts };
}

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const segments = segmentsOf(path);
  const prefix = segments[0];
  if (prefix !== 'api' && prefix !== 'apis') return nonResourceInfo(method, path, '', '', '', []);
  // segments[at] is the first one not read yet.
  let at = 1;
  let apiGroup = '';
  if (prefix === 'apis') {
    if (segments.length < 3) return nonResourceInfo(method, path, prefix, segments[1] ?? '', '', segments.slice(1));
    apiGroup = segments[at++]!;
  } else if (segments.length < 2) {
    return nonResourceInfo(method, path, prefix, '', '', []);
  }
  const apiVersion = segments[at++]!;
  if (at === segments.length) return nonResourceInfo(method, path, prefix, apiGroup, apiVersion, []);

  let verb = verbForMethod(method);
  // /watch/... is the deprecated watch path form.
  if (segments[at] === 'watch') {
    if (verb === 'get') verb = 'watch';
    at++;
  }
  let namespace = '';
  if (segments[at] === 'namespaces' && segments.length - at > 1) {
    namespace = segments[at + 1]!;
    // /namespaces/{name} and /namespaces/{name}/{status|finalize} address the namespace itself.
    if (segments.length - at > 2 && !namespaceSubresources.has(segments[at + 2]!)) at += 2;
  }
  const parts = segments.slice(at);
  const resource = parts[0] ?? '';
  const name = parts.length >= 2 ? parts[1] : '';
  const subresource = parts.length >= 3 ? parts[2] : '';
  if (resource === 'namespaces' && !name && parts.length === 1) namespace = '';
  if (resource === 'namespaces' && name) namespace = name;

  // A GET of one name stays "get" even with ?watch=1, as kube authorizes it.
  if (!name && verb === 'get') {
    verb = isTrue(query.get('watch')) ? 'watch' : 'list';
  } else if (!name && verb === 'delete') {
    verb = 'deletecollection';
  }
  return {
    isResourceRequest: true,
    path,
    verb,
    apiPrefix: prefix,
    apiGroup,
    apiVersion,
    namespace,
    resource,
    subresource,
    name,
    parts,
  };
}

