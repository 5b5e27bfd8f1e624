// Test fixture for the discovery and OpenAPI tests: the registry's built-in ResourceDefinitions, a custom (CRD-like)
// definition, a minimal Registry holding them, and a real HTTP server around a handler.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { resourceFacts } from '../apis/model.ts';
import type { SchemaNode, SubresourceFacts } from '../apis/model-types.ts';
import { builtinDefinition } from '../registry/registry.ts';
import type { Registry, ResourceDefinition, ResourceStore } from '../registry/types.ts';
import type { ApiPathHandler } from './discovery.ts';
import { parseRequestInfo } from './request-info.ts';

/** A built-in definition as the registry builds it; `storagePrefix` overrides where its objects live. */
export function builtInDefinition(group: string, version: string, resource: string, opts: { storagePrefix?: string } = {}): ResourceDefinition {
  const f = resourceFacts(group, version, resource);
  if (!f) throw new Error(`no facts for ${group}/${version}/${resource}`);
  const def = builtinDefinition(f);
  return opts.storagePrefix === undefined ? def : { ...def, storagePrefix: opts.storagePrefix };
}

export interface CustomDefinitionOptions {
  group?: string;
  version?: string;
  namespaced?: boolean;
  schema?: SchemaNode;
  subresources?: SubresourceFacts[];
  storagePrefix?: string;
}

const crontabSchema: SchemaNode = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
        image: { type: 'string' },
        replicas: { type: 'integer', minimum: 1, maximum: 10 },
        port: { intOrString: true },
        labels: { type: 'object', additionalProperties: { type: 'string' }, nullable: true },
      },
      required: ['cronSpec'],
    },
    status: { type: 'object', properties: { replicas: { type: 'integer' } } },
  },
};

/** The CronTab custom resource of the kube documentation's CRD example (stable.example.com). */
export function customDefinition(opts: CustomDefinitionOptions = {}): ResourceDefinition {
  const group = opts.group ?? 'stable.example.com';
  return {
    group,
    version: opts.version ?? 'v1',
    resource: 'crontabs',
    singularName: 'crontab',
    kind: 'CronTab',
    listKind: 'CronTabList',
    namespaced: opts.namespaced ?? true,
    verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
    shortNames: ['ct'],
    categories: ['all'],
    subresources: opts.subresources ?? [
      { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] },
      { name: 'status', kind: 'CronTab', verbs: ['get', 'patch', 'update'] },
    ],
    storagePrefix: opts.storagePrefix ?? `/registry/${group}/crontabs`,
    schema: opts.schema ?? crontabSchema,
    resolveRef: () => undefined,
    strategy: {},
    printerColumns: [],
    selectableFields: {},
    custom: true,
  };
}

export interface FixtureRegistry extends Registry {
  /** Replace the served definitions and notify listeners, as CRD changes do. */
  set(defs: ResourceDefinition[]): void;
}

export function fixtureRegistry(defs: ResourceDefinition[]): FixtureRegistry {
  let current = defs;
  const listeners = new Set<() => void>();
  return {
    all: () => current,
    lookup: (group, version, resource) => current.find((d) => d.group === group && d.version === version && d.resource === resource),
    store(): ResourceStore {
      throw new Error('the fixture registry has no stores');
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(next) {
      current = next;
      for (const l of listeners) l();
    },
  };
}

/**
 * A small cluster: core bindings, configmaps, events, namespaces and pods; apps deployments; events.k8s.io events
 * (stored with the core ones, as kube stores them); autoscaling v2 and v1.
 */
export function smallRegistry(extra: ResourceDefinition[] = []): FixtureRegistry {
  return fixtureRegistry([
    builtInDefinition('', 'v1', 'bindings'),
    builtInDefinition('', 'v1', 'configmaps'),
    builtInDefinition('', 'v1', 'events', { storagePrefix: '/registry/events' }),
    builtInDefinition('', 'v1', 'namespaces'),
    builtInDefinition('', 'v1', 'pods'),
    builtInDefinition('apps', 'v1', 'deployments'),
    builtInDefinition('events.k8s.io', 'v1', 'events', { storagePrefix: '/registry/events' }),
    builtInDefinition('autoscaling', 'v2', 'horizontalpodautoscalers'),
    builtInDefinition('autoscaling', 'v1', 'horizontalpodautoscalers'),
    ...extra,
  ]);
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

export interface TestServer {
  port: number;
  get(path: string, headers?: Record<string, string>, method?: string): Promise<RawResponse>;
  close(): Promise<void>;
}

/** Serves `handler`; requests it declines get 404 "declined" so tests can tell them apart. */
export async function serve(handler: ApiPathHandler): Promise<TestServer> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
    handler(req, res, info).then(
      (handled) => {
        if (!handled) {
          res.statusCode = 404;
          res.end('declined');
        }
      },
      (err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    get(path, headers = {}, method = 'GET') {
      return new Promise((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const body = Buffer.concat(chunks);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
          });
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
