// Routing a resource request to a verb, as kube-apiserver's installed go-restful routes would:
// which paths exist (by scope, subresource and the definition's verbs), 404 for paths no route serves,
// 405 for methods a path does not accept.

import { notFoundPath, type StatusError } from '../apis/errors.ts';
import type { Registry, ResourceDefinition } from '../registry/types.ts';
import type { RequestInfo } from './request-info.ts';
import { methodNotAllowedPath } from './scope.ts';
import type { GroupVersionKind } from './body.ts';

export type Action = 'get' | 'list' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection' | 'connect';

export interface ResolvedRoute {
  kind: 'route';
  def: ResourceDefinition;
  action: Action;
  /** The legacy /watch/ path form: always a watch. */
  forceWatch: boolean;
  subresource: string;
  /** The kind served at the path (the subresource's kind when it has one). */
  servedKind: GroupVersionKind;
  namespace: string;
  name: string;
  /** Methods the path accepts (for kube's router checks). */
  produces: 'object' | 'list';
}

export type RouteResult = ResolvedRoute | { kind: 'error'; error: StatusError } | { kind: 'plain-not-found' };

/** Subresources served here; others that a definition lists are answered as kube answers without nodes. */
// approval: CertificateSigningRequests' (its strategy is the type's); binding and eviction: pods' (created through
// the store's createSubresource); ephemeralcontainers: pods' (its strategy is the type's).
const SERVED_SUBRESOURCES = new Set(['status', 'scale', 'token', 'approval', 'binding', 'eviction', 'finalize', 'ephemeralcontainers']);
const CONNECT_SUBRESOURCES = new Set(['log', 'exec', 'attach', 'portforward', 'proxy']);

/** Whether a definition's subresource answers here (discovery and OpenAPI list only those). */
export function isServedSubresource(def: Pick<ResourceDefinition, 'group' | 'resource'>, name: string): boolean {
  if (SERVED_SUBRESOURCES.has(name)) return true;
  if (def.group !== '') return false;
  return def.resource === 'pods' ? CONNECT_SUBRESOURCES.has(name) : name === 'proxy' && (def.resource === 'nodes' || def.resource === 'services');
}

function hasLegacyWatchSegment(info: RequestInfo): boolean {
  if (!info.path.includes('/watch')) return false;
  const segments = info.path.split('/').filter((s) => s !== '');
  const versionIndex = info.apiPrefix === 'api' ? 1 : 2;
  return segments[versionIndex + 1] === 'watch';
}

/** The methods of a definition's collection or item path; the same for every request, so made once per definition. */
const methodTables = new WeakMap<ResourceDefinition, readonly Map<string, Action>[]>();

function methodsFor(def: ResourceDefinition, item: boolean, namespacedPathOmitted: boolean): Map<string, Action> {
  let tables = methodTables.get(def);
  if (!tables) methodTables.set(def, (tables = [methodTable(def, false, false), methodTable(def, false, true), methodTable(def, true, false)]));
  return tables[item ? 2 : namespacedPathOmitted ? 1 : 0]!;
}

function methodTable(def: ResourceDefinition, item: boolean, namespacedPathOmitted: boolean): Map<string, Action> {
  const verbs = new Set(def.verbs);
  const m = new Map<string, Action>();
  if (!item) {
    if (verbs.has('list')) m.set('GET', 'list');
    if (namespacedPathOmitted) return m;
    if (verbs.has('create')) m.set('POST', 'create');
    if (verbs.has('deletecollection')) m.set('DELETE', 'deletecollection');
    return m;
  }
  if (verbs.has('get')) m.set('GET', 'get');
  if (verbs.has('update')) m.set('PUT', 'update');
  if (verbs.has('patch')) m.set('PATCH', 'patch');
  if (verbs.has('delete')) m.set('DELETE', 'delete');
  return m;
}

function subresourceMethods(verbs: readonly string[]): Map<string, Action> {
  const m = new Map<string, Action>();
  for (const verb of verbs) {
    switch (verb) {
      case 'get':
        m.set('GET', 'get');
        break;
      case 'update':
        m.set('PUT', 'update');
        break;
      case 'patch':
        m.set('PATCH', 'patch');
        break;
      case 'create':
        m.set('POST', 'create');
        break;
      case 'delete':
        m.set('DELETE', 'delete');
        break;
    }
  }
  return m;
}

function groupServed(registry: Registry, group: string): boolean {
  return registry.all().some((d) => d.group === group);
}

const notFound = (): RouteResult => ({ kind: 'error', error: notFoundPath() });

export function routeResourceRequest(registry: Registry, method: string, info: RequestInfo): RouteResult {
  const def = registry.lookup(info.apiGroup, info.apiVersion, info.resource);
  if (!def) {
    // Paths under a served group (or /api) reach kube's go-restful container; others its plain NotFound handler.
    if (info.apiPrefix === 'api' || groupServed(registry, info.apiGroup)) return notFound();
    return { kind: 'plain-not-found' };
  }
  if ((info.apiPrefix === 'api') !== (def.group === '')) return notFound();
  const isNamespaceResource = def.group === '' && def.resource === 'namespaces';
  const pathNamespace = isNamespaceResource ? '' : info.namespace;
  const name = info.name;
  if (!def.namespaced && pathNamespace !== '') return notFound();
  const namespacedPathOmitted = def.namespaced && pathNamespace === '';
  if (namespacedPathOmitted && name !== '') return notFound();

  const base = {
    kind: 'route' as const,
    def,
    namespace: pathNamespace,
    name,
    subresource: '',
    forceWatch: false,
    servedKind: { group: def.group, version: def.version, kind: def.kind },
  };

  if (hasLegacyWatchSegment(info)) {
    if (!def.verbs.includes('watch') || info.subresource !== '') return notFound();
    if (method !== 'GET') return { kind: 'error', error: methodNotAllowedPath() };
    return { ...base, action: 'list', forceWatch: true, produces: 'list' };
  }

  if (info.subresource !== '') {
    if (name === '') return notFound();
    const facts = def.subresources.find((s) => s.name === info.subresource);
    if (!facts) return notFound();
    if (!isServedSubresource(def, facts.name)) return notFound();
    if (!SERVED_SUBRESOURCES.has(facts.name)) {
      // Streaming subresources of pods and the proxies: kube's answers for a server without kubelets (see connect.ts).
      const allowed = facts.name === 'log' ? ['GET'] : facts.name === 'proxy' ? ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] : ['GET', 'POST'];
      if (!allowed.includes(method)) return { kind: 'error', error: methodNotAllowedPath() };
      return { ...base, subresource: facts.name, action: 'connect', produces: 'object' };
    }
    const methods = subresourceMethods(facts.verbs);
    const action = methods.get(method);
    if (!action) return { kind: 'error', error: methods.size > 0 ? methodNotAllowedPath() : notFoundPath() };
    const servedKind = { group: facts.group ?? def.group, version: facts.version ?? def.version, kind: facts.kind || def.kind };
    return { ...base, subresource: facts.name, servedKind, action, produces: 'object' };
  }

  const methods = methodsFor(def, name !== '', namespacedPathOmitted);
  const action = methods.get(method);
  if (!action) return { kind: 'error', error: methods.size > 0 ? methodNotAllowedPath() : notFoundPath() };
  return { ...base, action, produces: name === '' && action === 'list' ? 'list' : 'object' };
}
