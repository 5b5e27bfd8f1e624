// createApiServer: the registry over the configured storage, discovery and OpenAPI, and the resource
// handlers, behind the one handle() the server's filter chain calls.

import { serverSideApply } from '../apply/index.ts';
import { applyPatch } from '../patch/index.ts';
import { startControlPlane } from '../controllers/index.ts';
import { createRegistry } from '../registry/registry.ts';
import type { KubeObject, ResourceDefinition } from '../registry/types.ts';
import { checkAgainstSchema } from '../registry/validation/schema-check.ts';
import type { Logger } from '../server/log.ts';
import type { ApiServer, ApiServerOptions, HealthCheck } from '../server/types.ts';
import { createDiscoveryHandler } from './discovery.ts';
import { createRequestHandler } from './handler.ts';
import { createOpenApiHandler } from './openapi.ts';
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
    applyPatch: (patchType, current, patch, def, patchOptions) => applyPatch(patchType, current, patch, def, patchOptions),
    applyServerSide: (options.applyServerSide as ServerSideApply | undefined) ?? serverSideApply,
    logger,
    minRequestTimeoutSeconds: numberOption(options, 'minRequestTimeoutSeconds', DEFAULT_MIN_REQUEST_TIMEOUT_SECONDS),
    watchListEnabled: options.featureGates.WatchList === true,
    maxWatchBufferBytes: numberOption(options, 'maxWatchBufferBytes', DEFAULT_MAX_WATCH_BUFFER_BYTES),
  };
  const handle = createRequestHandler(deps, [createDiscoveryHandler(registry), createOpenApiHandler(registry)]);
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
