// createApiServer: discovery and OpenAPI, and the resource handlers over the registry start-up built, behind the
// one handle() the server's filter chain calls. It serves; it builds nothing below it.

import type { Aggregator } from '../aggregator/aggregator.ts';
import type { KubeObject, Registry, ResourceDefinition } from '../registry/types.ts';
import { checkAgainstSchema } from '../registry/validation/schema-check.ts';
import type { ApiServer, ApiServerOptions } from '../server/types.ts';
import { createDiscoveryHandler } from './discovery.ts';
import { createRequestHandler, type PathHandler } from './handler.ts';
import { openIdMetadataHandler } from './openid-metadata.ts';
import type { EndpointDeps } from './scope.ts';

const DEFAULT_MAX_WATCH_BUFFER_BYTES = 32 * 1024 * 1024;

/** The OpenAPI documents' builders load on the first /openapi/ request (start-up time). */
function lazyOpenApiHandler(registry: Registry, aggregator: Aggregator | undefined): PathHandler {
  let handler: Promise<PathHandler> | undefined;
  return async (req, res, info) => {
    if (!info.path.startsWith('/openapi/')) return false;
    handler ??= import('./openapi.ts').then((m) => m.createOpenApiHandler(registry, { external: aggregator }));
    return (await handler)(req, res, info);
  };
}

/** The apply engine once loaded: a dynamic import per request costs a module resolution each time. */
let applyEngine: typeof import('../apply/index.ts') | undefined;

export function createApiServer(options: ApiServerOptions): ApiServer {
  const { registry, logger } = options;
  const deps: EndpointDeps = {
    registry,
    checkSchema: (obj: KubeObject, def: ResourceDefinition) => checkAgainstSchema(obj, def),
    // The patch and apply engines load on first use (start-up time).
    applyPatch: async (patchType, current, patch, def, patchOptions) => (await import('../patch/index.ts')).applyPatch(patchType, current, patch, def, patchOptions),
    applyServerSide: async (request) => {
      const apply = (applyEngine ??= await import('../apply/index.ts'));
      await apply.prepareApplyBody(request.patch);
      return apply.serverSideApply(request);
    },
    logger,
    minRequestTimeoutSeconds: options.minRequestTimeoutSeconds,
    watchListEnabled: options.featureGates.WatchList === true,
    responseCompression: options.featureGates.APIResponseCompression !== false,
    maxWatchBufferBytes: options.maxWatchBufferBytes ?? DEFAULT_MAX_WATCH_BUFFER_BYTES,
    admission: options.admission,
    aggregator: options.aggregator,
    simulatedContainers: options.simulatedContainers,
  };
  const pathHandlers = [createDiscoveryHandler(registry, { compress: deps.responseCompression, external: options.aggregator }), lazyOpenApiHandler(registry, options.aggregator)];
  if (options.openIdMetadata) pathHandlers.push(openIdMetadataHandler(options.openIdMetadata));
  const handle = createRequestHandler(deps, pathHandlers);
  return {
    handle,
    readyChecks: [...(options.postStartChecks ?? [])],
    liveChecks: [],
    async close() {},
  };
}
