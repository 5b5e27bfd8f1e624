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

export function parseRequestInfo(method: string, rawPath: string, query: URLSearchParams): RequestInfo {
  const path = rawPath;
  const nonResource: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  const segments = path.replace(/^\/+|\/+$/g, '').split('/').filter((s) => s !== '');
  if (segments.length === 0) return nonResource;
  const prefix = segments[0];
  if (prefix !== 'api' && prefix !== 'apis') return nonResource;
  let parts = segments.slice(1);
  let apiGroup = '';
  if (prefix === 'apis') {
    if (parts.length < 2) return { ...nonResource, apiPrefix: prefix, apiGroup: parts[0] ?? '', parts };
    apiGroup = parts[0];
    parts = parts.slice(1);
  } else if (parts.length < 1) {
    return { ...nonResource, apiPrefix: prefix, parts };
  }
  const apiVersion = parts[0];
  parts = parts.slice(1);
  const discovery = { ...nonResource, apiPrefix: prefix, apiGroup, apiVersion, parts };
  if (parts.length === 0) return discovery;

  let verb = verbForMethod(method);
  // /watch/... is the deprecated watch path form.
  if (parts[0] === 'watch') {
    if (verb === 'get') verb = 'watch';
    parts = parts.slice(1);
  }
  let namespace = '';
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      namespace = parts[1];
      // /namespaces/{name} and /namespaces/{name}/{status|finalize} address the namespace itself.
      if (parts.length > 2 && !namespaceSubresources.has(parts[2])) parts = parts.slice(2);
    }
  }
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

