// The API request handler: non-resource paths go to discovery/OpenAPI, resource requests are routed to
// their verb handler; every failure is written as a Status.

import type { UserInfo } from '../auth/user.ts';
import { noteDeprecatedApi } from '../server/audit/request-notes.ts';
import type { HttpRequest, HttpResponse } from '../server/types.ts';
import { memoizeString } from '../apis/string-memo.ts';
import { requestQuery } from '../server/request-query.ts';
import { PROTOBUF_MEDIA_TYPE, JSON_MEDIA_TYPE, YAML_MEDIA_TYPE } from '../encoding/negotiate.ts';
import { notFoundPath } from '../apis/errors.ts';
import type { RequestInfo } from './request-info.ts';
import { requestHeader, writeError, writePlainNotFound, type Responder } from './respond.ts';
import { routeResourceRequest, type ResolvedRoute } from './router.ts';
import { restfulNotAcceptable, restfulUnsupportedMediaType, type EndpointDeps, type Scope } from './scope.ts';
import { getResource, listResource } from './handlers/read.ts';
import { createResource, updateResource } from './handlers/write.ts';
import { declaredPatchTypes, patchResource } from './handlers/patch.ts';
import { deleteCollection, deleteResource } from './handlers/delete.ts';
import { connectResource } from './handlers/connect.ts';
import { whenClosed } from '../server/response-close.ts';
import { responseEnded } from '../server/write-batching.ts';

/** A discovery or OpenAPI handler: true when it answered the request. */
export type PathHandler = (req: HttpRequest, res: HttpResponse, info: RequestInfo) => Promise<boolean>;

export type RequestHandler = (req: HttpRequest, res: HttpResponse, info: RequestInfo, user: UserInfo) => Promise<void>;

/** What kube-apiserver's routes declare they produce (go-restful checks Accept against it). */
const OBJECT_REPRESENTATIONS = [JSON_MEDIA_TYPE, YAML_MEDIA_TYPE, PROTOBUF_MEDIA_TYPE];
const LIST_REPRESENTATIONS = [...OBJECT_REPRESENTATIONS, `${JSON_MEDIA_TYPE};stream=watch`, `${PROTOBUF_MEDIA_TYPE};stream=watch`];

/** The media types of an Accept or Content-Type header, without parameters (kept per header: clients repeat them). */
const mimeList: (header: string) => readonly string[] = memoizeString(
  (header) =>
    header.split(',').map((part) => {
      const semi = part.indexOf(';');
      return (semi >= 0 ? part.slice(0, semi) : part).trim();
    }),
  256,
);

/**
 * The checks go-restful makes before kube's handlers run (built-in resources only: custom resources are
 * served outside go-restful): PATCH Content-Type against the route's patch types, Accept against what the
 * route produces.
 */
function restfulChecks(route: ResolvedRoute, method: string, req: HttpRequest): void {
  if (route.def.custom || route.action === 'connect') return;
  const produces = route.produces === 'list' ? LIST_REPRESENTATIONS : OBJECT_REPRESENTATIONS;
  const contentLength = requestHeader(req, 'content-length');
  const bodyless = contentLength === undefined || contentLength === '' || contentLength === '0';
  if (method === 'PATCH') {
    const consumes = declaredPatchTypes(false);
    const ct = requestHeader(req, 'content-type') || 'application/octet-stream';
    if (!mimeList(ct).some((m) => m === '*/*' || consumes.includes(m))) {
      if (Number(contentLength ?? '0') > 0) throw restfulUnsupportedMediaType();
      throw restfulUnsupportedMediaType([]);
    }
  }
  const accept = requestHeader(req, 'accept') || '*/*';
  if (!mimeList(accept).some((m) => m === '*/*' || produces.includes(m))) {
    if ((method === 'POST' || method === 'PUT' || method === 'PATCH') && bodyless) throw restfulUnsupportedMediaType(produces);
    throw restfulNotAcceptable(produces);
  }
}

async function dispatch(scope: Scope, route: ResolvedRoute): Promise<void> {
  switch (route.action) {
    case 'get':
      return getResource(scope);
    case 'list':
      return listResource(scope, route.forceWatch);
    case 'create':
      return createResource(scope);
    case 'update':
      return updateResource(scope);
    case 'patch':
      return patchResource(scope);
    case 'delete':
      return deleteResource(scope);
    case 'deletecollection':
      return deleteCollection(scope);
    case 'connect':
      return connectResource(scope);
  }
}

/** Builds the handler the API server exposes; `pathHandlers` (discovery, OpenAPI) get non-resource paths first. */
export function createRequestHandler(deps: EndpointDeps, pathHandlers: readonly PathHandler[]): RequestHandler {
  return async (req, res, info, user) => {
    const r: Responder = { req, res, query: requestQuery(req), warnings: [], logger: deps.logger, compress: deps.responseCompression };
    const abort = new AbortController();
    // Abort work for a client that went away; a response that was sent in full needs no abort (and no AbortError).
    whenClosed(res, () => {
      if (!res.writableFinished) abort.abort();
    });
    try {
      // kube-aggregator sits in front of everything: an APIService that names a Service takes its group-version.
      const aggregated = deps.aggregator && info.apiPrefix === 'apis' && info.apiVersion !== '' ? deps.aggregator.target(info.apiGroup, info.apiVersion) : undefined;
      if (aggregated) {
        await deps.aggregator!.proxy(req, res, user, aggregated);
        return;
      }
      if (!info.isResourceRequest || info.resource === '') {
        for (const handler of pathHandlers) {
          if (await handler(req, res, info)) return;
        }
        const underApi = info.apiPrefix === 'api' || (info.apiPrefix === 'apis' && info.apiGroup !== '' && deps.registry.all().some((d) => d.group === info.apiGroup));
        if (underApi) writeError(r, notFoundPath());
        else writePlainNotFound(r);
        return;
      }
      const method = (req.method ?? 'GET').toUpperCase();
      const route = routeResourceRequest(deps.registry, method, info);
      if (route.kind === 'plain-not-found') {
        writePlainNotFound(r);
        return;
      }
      if (route.kind === 'error') {
        writeError(r, route.error);
        return;
      }
      restfulChecks(route, method, req);
      // A deprecated version warns on every request (apiextensions' crdHandler; kube's installer for built-in
      // versions, which also counts them in apiserver_requested_deprecated_apis and annotates the audit event).
      if (route.def.deprecationWarning) {
        r.warnings.push(route.def.deprecationWarning);
        if (!route.def.custom) noteDeprecatedApi(req, route.def.removedRelease ?? '');
      }
      const scope: Scope = {
        deps,
        info,
        def: route.def,
        store: deps.registry.store(route.def),
        subresource: route.subresource,
        kind: route.servedKind,
        r,
        user,
        userAgent: requestHeader(req, 'user-agent'),
        signal: abort.signal,
        namespace: route.namespace,
        name: route.name,
      };
      await dispatch(scope, route);
    } catch (err) {
      try {
        writeError(r, err);
      } catch (writeErr) {
        deps.logger?.error('writing an error response failed', { error: writeErr });
        if (!responseEnded(res)) (res as { end(): void }).end();
      }
    }
  };
}
