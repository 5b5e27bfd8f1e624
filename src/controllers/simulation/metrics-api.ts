// The resource metrics API of the simulated cluster (metrics.k8s.io/v1beta1), as metrics-server serves it on a
// real one: NodeMetrics and PodMetrics, get and list only, made on each request from the pods and nodes the
// simulated kubelets run and the usage the tests set (resource-usage.ts). `kubectl top` and the horizontal pod
// autoscaler read it. Served without storage: the definitions are registered while the simulation runs.
//
// What metrics-server does, kept here: only Running pods have metrics (a get of another is 404
// `podmetrics.metrics.k8s.io "ns/name" not found`), a pod or node it does not know is its lister's 404 (`pod "x" not
// found`), lists are sorted by namespace and name, objects carry their pod's or node's labels and a creationTimestamp
// of now, and the Table has a column per resource and the window. A node's usage is the sum of its pods' (a
// simulated node runs nothing else).

import { clockDate } from '../../apis/clock.ts';
import { notFound } from '../../apis/errors.ts';
import { schemaByName } from '../../apis/model.ts';
import type { SchemaNode } from '../../apis/model-types.ts';
import { formatNanos } from '../../admission/plugins/resources.ts';
import { rfc3339 } from '../../registry/store-codec.ts';
import { buildPredicate } from '../../registry/store-selection.ts';
import type { KubeList, KubeObject, ListOptions, PrinterColumn, Registry, RequestContext, ResourceDefinition, ResourceStore, StoreFactory } from '../../registry/types.ts';
import { unsupportedVerbs } from '../../registry/unsupported-verbs.ts';
import { quantityNanos } from '../../registry/validation/quantity.ts';
import type { Informers } from '../informers.ts';
import type { PodUsage, ResourceUsage } from './resource-usage.ts';
import { asObj, installOnce, NODES, PODS } from './shared.ts';

const GROUP = 'metrics.k8s.io';
const VERSION = 'v1beta1';
const API_VERSION = `${GROUP}/${VERSION}`;
const PACKAGE = 'io.k8s.metrics.pkg.apis.metrics.v1beta1';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

/** The figures' schemas, as metrics-server publishes them (k8s.io/metrics/pkg/apis/metrics/v1beta1). */
const usageMap: SchemaNode = { type: 'object', additionalProperties: { ref: QUANTITY } };
const gvk = (kind: string) => [{ group: GROUP, version: VERSION, kind }];
const listOf = (kind: string): SchemaNode => ({
  type: 'object',
  required: ['items'],
  properties: { apiVersion: { type: 'string' }, items: { type: 'array', items: { ref: `${PACKAGE}.${kind}` } }, kind: { type: 'string' }, metadata: { ref: `${META}.ListMeta` } },
  gvk: gvk(`${kind}List`),
});
const SCHEMAS: Readonly<Record<string, SchemaNode>> = {
  [`${PACKAGE}.ContainerMetrics`]: { type: 'object', required: ['name', 'usage'], properties: { name: { type: 'string' }, usage: usageMap } },
  [`${PACKAGE}.NodeMetrics`]: {
    type: 'object',
    required: ['timestamp', 'window', 'usage'],
    properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { ref: `${META}.ObjectMeta` }, timestamp: { ref: `${META}.Time` }, usage: usageMap, window: { ref: `${META}.Duration` } },
    gvk: gvk('NodeMetrics'),
  },
  [`${PACKAGE}.NodeMetricsList`]: listOf('NodeMetrics'),
  [`${PACKAGE}.PodMetrics`]: {
    type: 'object',
    required: ['timestamp', 'window', 'containers'],
    properties: {
      apiVersion: { type: 'string' },
      containers: { type: 'array', items: { ref: `${PACKAGE}.ContainerMetrics` } },
      kind: { type: 'string' },
      metadata: { ref: `${META}.ObjectMeta` },
      timestamp: { ref: `${META}.Time` },
      window: { ref: `${META}.Duration` },
    },
    gvk: gvk('PodMetrics'),
  },
  [`${PACKAGE}.PodMetricsList`]: listOf('PodMetrics'),
  [`${META}.Duration`]: { type: 'string' },
};
const resolveRef = (ref: string): SchemaNode | undefined => SCHEMAS[ref] ?? schemaByName(ref);

/** A quantity of cpu (nano-cores) and memory (whole bytes) as metrics-server renders them. */
const cpuText = (nanos: bigint) => formatNanos(nanos, false);
const memoryText = (nanos: bigint) => formatNanos(((nanos + 999_999_999n) / 1_000_000_000n) * 1_000_000_000n, true);
/** Go's Duration.String() of a window (whole milliseconds, under a minute). */
const durationText = (ms: number) => `${ms / 1000}s`;

/** metrics-server's Table: Name, a column per resource (sorted), Window. */
function metricsColumns(usageOf: (obj: KubeObject) => Record<string, unknown>): PrinterColumn[] {
  return [
    { name: 'Name', type: 'string', format: 'name', description: 'Name of the resource', priority: 0, cell: (o) => o.metadata.name ?? '' },
    { name: 'cpu', type: 'string', format: 'quantity', priority: 0, cell: (o) => usageOf(o).cpu ?? '' },
    { name: 'memory', type: 'string', format: 'quantity', priority: 0, cell: (o) => usageOf(o).memory ?? '' },
    { name: 'Window', type: 'string', format: 'duration', priority: 0, cell: (o) => (o as { window?: string }).window ?? '' },
  ];
}

/** A pod's usage summed over its containers (the Table's cells). */
function podTotals(obj: KubeObject): Record<string, unknown> {
  let cpu = 0n;
  let memory = 0n;
  for (const c of ((obj as { containers?: { usage?: { cpu?: string; memory?: string } }[] }).containers ?? [])) {
    cpu += quantityNanos(c.usage?.cpu) ?? 0n;
    memory += quantityNanos(c.usage?.memory) ?? 0n;
  }
  return { cpu: cpuText(cpu), memory: memoryText(memory) };
}

function definition(resource: string, kind: string, namespaced: boolean, printerColumns: PrinterColumn[]): ResourceDefinition {
  return {
    group: GROUP,
    version: VERSION,
    resource,
    // metrics-server names no singular (kubectl then uses the kind's lower case).
    singularName: '',
    kind,
    listKind: `${kind}List`,
    namespaced,
    verbs: ['get', 'list'],
    shortNames: [],
    categories: [],
    subresources: [],
    storagePrefix: `/registry/${GROUP}/${resource}`,
    schema: { ref: `${PACKAGE}.${kind}` },
    resolveRef,
    strategy: {},
    printerColumns,
    selectableFields: {},
    custom: false,
    // metrics-server's APIService v1beta1.metrics.k8s.io (ensureMetricsApiService): after the CRDs' groups (1000).
    discoveryPriority: { group: 100, version: 100 },
  };
}

export const METRICS_DEFINITIONS: readonly ResourceDefinition[] = [
  definition('nodes', 'NodeMetrics', false, metricsColumns((o) => asObj((o as { usage?: unknown }).usage))),
  definition('pods', 'PodMetrics', true, metricsColumns(podTotals)),
];

const byNamespaceAndName = (a: KubeObject, b: KubeObject) =>
  (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');

function metricsMeta(of: KubeObject): KubeObject['metadata'] {
  return {
    name: of.metadata.name,
    ...(of.metadata.namespace ? { namespace: of.metadata.namespace } : {}),
    creationTimestamp: rfc3339(clockDate()),
    ...(of.metadata.labels ? { labels: { ...of.metadata.labels } } : {}),
  };
}

function podMetrics(pod: KubeObject, usage: PodUsage): KubeObject {
  return {
    kind: 'PodMetrics',
    apiVersion: API_VERSION,
    metadata: metricsMeta(pod),
    timestamp: rfc3339(usage.timestamp),
    window: durationText(usage.windowMs),
    containers: usage.containers.map((c) => ({ name: c.name, usage: { cpu: cpuText(c.cpu), memory: memoryText(c.memory) } })),
  } as KubeObject;
}

/** A running node's metrics: the sum of its pods' usage. */
function nodeMetrics(node: KubeObject, pods: readonly PodUsage[]): KubeObject {
  let cpu = 0n;
  let memory = 0n;
  for (const p of pods) for (const c of p.containers) [cpu, memory] = [cpu + c.cpu, memory + c.memory];
  return {
    kind: 'NodeMetrics',
    apiVersion: API_VERSION,
    metadata: metricsMeta(node),
    timestamp: rfc3339(clockDate()),
    window: durationText(pods[0]?.windowMs ?? 15_000),
    usage: { cpu: cpuText(cpu), memory: memoryText(memory) },
  } as KubeObject;
}

const list = (kind: string, items: KubeObject[]): KubeList => ({ kind, apiVersion: API_VERSION, metadata: {}, items });

/** The stores of the metrics definitions: pods and nodes from the simulation's informers, usage from `usage`. */
export function metricsStores(informers: Informers, usage: ResourceUsage, kubeletRunning: (node: string) => boolean): StoreFactory {
  const pods = informers.of(PODS);
  const nodes = informers.of(NODES);
  const podUsages = (node: string) => pods.list().filter((p) => asObj(p.spec).nodeName === node).flatMap((p) => usage.pod(p) ?? []);
  const readOnly = (def: ResourceDefinition) => unsupportedVerbs(def, ['create', 'update', 'delete', 'deleteCollection', 'watch']);
  return (def: ResourceDefinition): ResourceStore => {
    if (def.resource === 'pods') {
      return {
        definition: def,
        ...readOnly(def),
        async get(ctx: RequestContext, name: string) {
          await pods.synced;
          const pod = pods.get(ctx.namespace, name);
          if (!pod) throw notFound({ group: '', resource: 'pod' }, name);
          const u = usage.pod(pod);
          if (!u) throw notFound({ group: GROUP, resource: 'podmetrics' }, `${ctx.namespace}/${name}`);
          return podMetrics(pod, u);
        },
        async list(ctx: RequestContext, options?: ListOptions) {
          const selected = buildPredicate(def, options ?? {});
          await pods.synced;
          const items = pods
            .list(ctx.namespace || undefined)
            .filter((p) => selected.matches(p))
            .sort(byNamespaceAndName)
            .flatMap((p) => {
              const u = usage.pod(p);
              return u ? [podMetrics(p, u)] : [];
            });
          return list('PodMetricsList', items);
        },
      };
    }
    return {
      definition: def,
      ...readOnly(def),
      async get(_ctx: RequestContext, name: string) {
        await Promise.all([nodes.synced, pods.synced]);
        const node = nodes.get('', name);
        if (!node) throw notFound({ group: '', resource: 'node' }, name);
        if (!kubeletRunning(name)) throw notFound({ group: GROUP, resource: 'nodemetrics' }, name);
        return nodeMetrics(node, podUsages(name));
      },
      async list(_ctx: RequestContext, options?: ListOptions) {
        const selected = buildPredicate(def, options ?? {});
        await Promise.all([nodes.synced, pods.synced]);
        const items = nodes
          .list()
          .filter((n) => selected.matches(n) && kubeletRunning(n.metadata.name ?? ''))
          .sort(byNamespaceAndName)
          .map((n) => nodeMetrics(n, podUsages(n.metadata.name ?? '')));
        return list('NodeMetricsList', items);
      },
    };
  };
}

/**
 * The APIService metrics-server's manifest registers, v1beta1.metrics.k8s.io, with its priorities, but local (no
 * service: this server serves the group itself), so the aggregator reports it Available (reason Local) and
 * `kubectl wait --for=condition=Available apiservice/v1beta1.metrics.k8s.io` passes. Made once, as the install would.
 */
export async function ensureMetricsApiService(registry: Registry): Promise<void> {
  await installOnce(registry, { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices' }, {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `${VERSION}.${GROUP}`, labels: { 'k8s-app': 'metrics-server' } },
    spec: { group: GROUP, version: VERSION, groupPriorityMinimum: 100, versionPriority: 100 },
  } as unknown as KubeObject);
}

/**
 * The ClusterRole metrics-server's manifest installs: reading metrics aggregated into the view, edit and admin
 * roles, so a user or service account bound to them can run `kubectl top`. Made once, as the install would.
 */
export async function ensureMetricsReaderRole(registry: Registry): Promise<void> {
  await installOnce(registry, { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' }, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: {
      name: 'system:aggregated-metrics-reader',
      labels: {
        'k8s-app': 'metrics-server',
        'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
        'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
        'rbac.authorization.k8s.io/aggregate-to-view': 'true',
      },
    },
    rules: [{ apiGroups: [GROUP], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }],
  } as unknown as KubeObject);
}
