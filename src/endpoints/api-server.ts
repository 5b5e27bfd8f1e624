// createApiServer: the registry over the configured storage, discovery and OpenAPI, and the resource
// handlers, behind the one handle() the server's filter chain calls.

import { startControlPlane } from '../controllers/index.ts';
import { createRegistry } from '../registry/registry.ts';
import type { KubeObject, Registry, ResourceDefinition } from '../registry/types.ts';
import { checkAgainstSchema } from '../registry/validation/schema-check.ts';
import type { Logger } from '../server/log.ts';
import type { ApiServer, ApiServerOptions, HealthCheck } from '../server/types.ts';
import { createDiscoveryHandler } from './discovery.ts';
import { createRequestHandler, type PathHandler } from './handler.ts';
import type { EndpointDeps, ServerSideApply } from './scope.ts';

const DEFAULT_MIN_REQUEST_TIMEOUT_SECONDS = 1800;
const DEFAULT_MAX_WATCH_BUFFER_BYTES = 32 * 1024 * 1024;

function numberOption(options: ApiServerOptions, name: string, fallback: number): number {
  const v = options[name];
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

function optionalNumber(options: ApiServerOptions, name: string): number | undefined {
  const v = options[name];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** The OpenAPI documents' builders load on the first /openapi/ request (start-up time). */
function lazyOpenApiHandler(registry: Registry): PathHandler {
  let handler: Promise<PathHandler> | undefined;
  return async (req, res, info) => {
    if (!info.path.startsWith('/openapi/')) return false;
    handler ??= import('./openapi.ts').then((m) => m.createOpenApiHandler(registry));
    return (await handler)(req, res, info);
  };
}

export async function createApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const registry = await createRegistry({
    storage: options.storage,
    runtimeConfig: options.runtimeConfig,
    featureGates: options.featureGates,
    watchCache:
      options.watchCache === false
        ? false
        : {
            historyWindowSeconds: options.historyWindowSeconds ?? 300,
            // Test and tuning hooks (not flags): kube's defaults otherwise.
            bookmarkIntervalMs: optionalNumber(options, 'watchBookmarkIntervalMs'),
            maxQueuedEvents: optionalNumber(options, 'watchMaxQueuedEvents'),
          },
    reviews: { authorizer: options.authorizer, tokenAuthenticator: options.tokenAuthenticator },
  });
  const logger = options.logger as Logger | undefined;
  const controlPlane = await startControlPlane(registry, {
    bootstrap: {
      securePort: options.securePort,
      advertiseAddress: options.advertiseAddress,
      onError: (error) => logger?.error('bootstrap objects could not be reconciled', { error }),
    },
  });
  const deps: EndpointDeps = {
    registry,
    checkSchema: (obj: KubeObject, def: ResourceDefinition) => checkAgainstSchema(obj, def),
    // The patch and apply engines load on first use (start-up time).
    applyPatch: async (patchType, current, patch, def, patchOptions) => (await import('../patch/index.ts')).applyPatch(patchType, current, patch, def, patchOptions),
    applyServerSide:
      (options.applyServerSide as ServerSideApply | undefined) ??
      (async (request) => {
        const apply = await import('../apply/index.ts');
        await apply.prepareApplyBody(request.patch);
        return apply.serverSideApply(request);
      }),
    logger,
    minRequestTimeoutSeconds: numberOption(options, 'minRequestTimeoutSeconds', DEFAULT_MIN_REQUEST_TIMEOUT_SECONDS),
    watchListEnabled: options.featureGates.WatchList === true,
    maxWatchBufferBytes: numberOption(options, 'maxWatchBufferBytes', DEFAULT_MAX_WATCH_BUFFER_BYTES),
  };
  const handle = createRequestHandler(deps, [createDiscoveryHandler(registry), lazyOpenApiHandler(registry)]);
  const namespacesReady: HealthCheck = {
    name: 'poststarthook/start-system-namespaces-controller',
    async check() {
      if (!controlPlane.ready()) throw new Error('system namespaces are not created yet');
    },
  };
  return {
    handle,
    readyChecks: [namespacesReady],
    liveChecks: [],
    async close() {
      await controlPlane.stop();
      await registry.close();
    },
  };
}
