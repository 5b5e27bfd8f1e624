// /metrics: the apiserver_* series kube-apiserver publishes for requests and storage, and the process_* /
// nodejs_* series, in Prometheus text format through prom-client. One registry per server (tests run several in a
// process); request metrics are recorded once a response is done, with kube's label sets and buckets. prom-client
// (about 25 ms to load with its dependencies) loads at the first scrape: until then every figure is kept in plain
// maps and numbers, and the Node.js runtime series (garbage collection, event loop lag) start with that scrape.

import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Counter, Gauge } from 'prom-client';
import { createKeyedHistogram, type KeyedHistogram } from './keyed-histogram.ts';
import type { RequestInfo } from '../endpoints/request-info.ts';
import { requestNotesOf } from './audit/request-notes.ts';
import type { HttpRequest, HttpResponse } from './types.ts';
import { requestQuery } from './request-query.ts';

const COMPONENT = 'apiserver';
// k8s.io/apiserver/pkg/endpoints/metrics: requestLatencies and responseSizes buckets.
const DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
const SIZE_BUCKETS = [1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000];
const REQUEST_LABELS = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
/** prom-client's default sampling interval of the event loop delay monitor. */
const EVENT_LOOP_RESOLUTION_MS = 10;
/** prom-client's Registry.PROMETHEUS_CONTENT_TYPE (known before the library loads). */
const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface StorageObjectCount {
  /** "configmaps", "deployments.apps". */
  readonly resource: string;
  readonly objects: number;
}

export interface ServerMetrics {
  readonly contentType: string;
  /** The exposition text (collects the storage object counts first). */
  render(): Promise<string>;
  /** Called when a request starts; returns the function to call when its response is done. */
  begin(req: HttpRequest, info: RequestInfo, longRunning: boolean): (res: HttpResponse, seconds: number) => void;
  /** An automatic reload of --authentication-config or --authorization-config, by the server of `apiServerId`. */
  recordConfigReload(config: 'authentication' | 'authorization', status: 'success' | 'failure', apiServerId: string): void;
}

/** metrics.CleanVerb: kube's verb label (LIST for collection GETs, WATCH, APPLY for apply patches). */
export function metricVerb(req: HttpRequest, info: RequestInfo): string {
  const method = (req.method ?? 'GET').toUpperCase();
  if (!info.isResourceRequest) return method;
  if (info.verb === 'watch') return 'WATCH';
  if (info.verb === 'list') return 'LIST';
  if (method === 'PATCH' && String(req.headers['content-type'] ?? '').startsWith('application/apply-patch')) return 'APPLY';
  return method === 'HEAD' ? 'GET' : method;
}

function scopeOf(info: RequestInfo): string {
  if (!info.isResourceRequest) return '';
  if (info.name) return 'resource';
  return info.namespace ? 'namespace' : 'cluster';
}

function dryRunOf(req: HttpRequest): string {
  if (!req.url?.includes('?')) return '';
  return requestQuery(req).getAll('dryRun').sort().join(',');
}

interface Series {
  readonly labels: Record<string, string>;
  n: number;
}

type Config = 'authentication' | 'authorization';

/**
 * What the hot path records into for one verb, group, version, resource, subresource and scope, found with one
 * lookup per request: the series of requests without dryRun (the rest are looked up by their full key).
 */
interface Route {
  readonly key: string;
  readonly labels: Record<string, string>;
  readonly kind: 'readOnly' | 'mutating';
  /** Request counts without dryRun, by status code. */
  readonly counts: Map<number, Series>;
  running?: Series;
  readonly duration: (seconds: number) => void;
  readonly size: (bytes: number) => void;
}

/** The registry and its series, made at the first scrape (kube's names, help texts and labels). */
function promRegistry(durations: KeyedHistogram, sizes: KeyedHistogram) {
  const prom = createRequire(import.meta.url)('prom-client') as typeof import('prom-client');
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry });
  const requests = new prom.Counter({ name: 'apiserver_request_total', help: '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.', labelNames: [...REQUEST_LABELS, 'code'], registers: [registry] });
  durations.register(registry);
  sizes.register(registry);
  const inflight = new prom.Gauge({ name: 'apiserver_current_inflight_requests', help: '[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second.', labelNames: ['request_kind'], registers: [registry] });
  const longRunning = new prom.Gauge({ name: 'apiserver_longrunning_requests', help: '[STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.', labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'], registers: [registry] });
  const stored = new prom.Gauge({
    name: 'apiserver_storage_objects',
    help: '[STABLE] Number of stored objects at the time of last check split by kind.',
    labelNames: ['resource'],
    registers: [registry],
  });
  const deprecatedApis = new prom.Gauge({ name: 'apiserver_requested_deprecated_apis', help: '[STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.', labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'], registers: [registry] });
  // k8s.io/apiserver/pkg/server/options/{authentication,authorization}config/metrics.
  const reloadSeries = (config: Config): { total: Counter; last: Gauge } => ({
    total: new prom.Counter({ name: `apiserver_${config}_config_controller_automatic_reloads_total`, help: `[ALPHA] Total number of automatic reloads of ${config} configuration split by status and apiserver identity.`, labelNames: ['status', 'apiserver_id_hash'], registers: [registry] }),
    last: new prom.Gauge({ name: `apiserver_${config}_config_controller_automatic_reload_last_timestamp_seconds`, help: `[ALPHA] Timestamp of the last automatic reload of ${config} configuration split by status and apiserver identity.`, labelNames: ['status', 'apiserver_id_hash'], registers: [registry] }),
  });
  return { registry, requests, inflight, longRunning, stored, deprecatedApis, reloads: { authentication: reloadSeries('authentication'), authorization: reloadSeries('authorization') } };
}

/** prom-client writes a NaN sample as "Nan"; the exposition format (and kube) spell it "NaN". */
export function spellNaN(exposition: string): string {
  return exposition.replace(/ Nan$/gm, ' NaN');
}

export function createServerMetrics(storageObjects: () => readonly StorageObjectCount[]): ServerMetrics {
  // The hot path counts in plain maps and numbers; the prom-client series are brought up to date at each scrape
  // (labels are hashed once per scrape, not several times per request).
  const durations = createKeyedHistogram('apiserver_request_duration_seconds', '[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.', DURATION_BUCKETS);
  const sizes = createKeyedHistogram('apiserver_response_sizes', '[STABLE] Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.', SIZE_BUCKETS);
  const requestCounts = new Map<string, Series>();
  const longRunningCounts = new Map<string, Series>();
  const inFlightNow = { readOnly: 0, mutating: 0 };
  const deprecatedRequested = new Map<string, Record<string, string>>();
  const reloadCounts = new Map<string, { config: Config; labels: Record<string, string>; n: number; last: number }>();
  let prom: Promise<ReturnType<typeof promRegistry>> | undefined;
  const routes = new Map<string, Route>();

  function newRoute(key: string, labels: Record<string, string>): Route {
    const kind = labels.verb === 'GET' || labels.verb === 'LIST' || labels.verb === 'WATCH' ? 'readOnly' : 'mutating';
    return { key, labels, kind, counts: new Map(), duration: durations.series(`${key}\0`, () => ({ ...labels, dry_run: '' })), size: sizes.series(key, () => labels) };
  }

  /** The request count series of a route, dry run value and code (made at its first request). */
  function countSeries(route: Route, dryRun: string, statusCode: number): Series {
    const code = String(statusCode);
    const countKey = `${route.key}\0${dryRun}\0${code}`;
    let counted = requestCounts.get(countKey);
    if (!counted) requestCounts.set(countKey, (counted = { labels: { ...route.labels, dry_run: dryRun, code }, n: 0 }));
    return counted;
  }

  return {
    contentType: CONTENT_TYPE,
    async render() {
      // The first scrape waits for the event loop monitor's first samples (its lag figures are NaN before).
      prom ??= Promise.resolve(promRegistry(durations, sizes)).then(async (r) => {
        await new Promise((resolve) => setTimeout(resolve, 2 * EVENT_LOOP_RESOLUTION_MS));
        return r;
      });
      const { registry, requests, inflight, longRunning, stored, deprecatedApis, reloads } = await prom;
      stored.reset();
      for (const c of storageObjects()) stored.set({ resource: c.resource }, c.objects);
      requests.reset();
      for (const { labels, n } of requestCounts.values()) requests.inc(labels, n);
      longRunning.reset();
      for (const { labels, n } of longRunningCounts.values()) longRunning.set(labels, n);
      inflight.set({ request_kind: 'readOnly' }, inFlightNow.readOnly);
      inflight.set({ request_kind: 'mutating' }, inFlightNow.mutating);
      for (const labels of deprecatedRequested.values()) deprecatedApis.set(labels, 1);
      for (const r of Object.values(reloads)) {
        r.total.reset();
        r.last.reset();
      }
      for (const r of reloadCounts.values()) {
        reloads[r.config].total.inc(r.labels, r.n);
        reloads[r.config].last.set(r.labels, r.last);
      }
      return spellNaN(await registry.metrics());
    },
    recordConfigReload(config, status, apiServerId) {
      const labels = { status, apiserver_id_hash: `sha256:${createHash('sha256').update(apiServerId).digest('hex')}` };
      const key = `${config}\0${labels.status}\0${labels.apiserver_id_hash}`;
      const r = reloadCounts.get(key) ?? { config, labels, n: 0, last: 0 };
      r.n++;
      r.last = Date.now() / 1000;
      reloadCounts.set(key, r);
    },
    begin(req, info, isLongRunning) {
      const verb = metricVerb(req, info);
      const scope = scopeOf(info);
      const key = `${verb}\0${info.apiGroup}\0${info.apiVersion}\0${info.resource}\0${info.subresource}\0${scope}`;
      let route = routes.get(key);
      if (!route) routes.set(key, (route = newRoute(key, { verb, group: info.apiGroup, version: info.apiVersion, resource: info.resource, subresource: info.subresource, scope, component: COMPONENT })));
      const r = route;
      if (isLongRunning) {
        if (!r.running) longRunningCounts.set(key, (r.running = { labels: r.labels, n: 0 }));
        r.running.n++;
      } else inFlightNow[r.kind]++;
      return (res, seconds) => {
        if (isLongRunning) r.running!.n--;
        else inFlightNow[r.kind]--;
        const removedRelease = requestNotesOf(req)?.deprecatedRemovedRelease;
        if (removedRelease !== undefined) {
          const deprecatedKey = `${info.apiGroup}\0${info.apiVersion}\0${info.resource}\0${info.subresource}\0${removedRelease}`;
          if (!deprecatedRequested.has(deprecatedKey)) deprecatedRequested.set(deprecatedKey, { group: info.apiGroup, version: info.apiVersion, resource: info.resource, subresource: info.subresource, removed_release: removedRelease });
        }
        const dryRun = dryRunOf(req);
        if (dryRun === '') {
          let counted = r.counts.get(res.statusCode);
          if (!counted) r.counts.set(res.statusCode, (counted = countSeries(r, dryRun, res.statusCode)));
          counted.n++;
          if (!isLongRunning) r.duration(seconds);
        } else {
          countSeries(r, dryRun, res.statusCode).n++;
          if (!isLongRunning) durations.observe(`${key}\0${dryRun}`, () => ({ ...r.labels, dry_run: dryRun }), seconds);
        }
        const length = Number(res.getHeader('content-length'));
        if (Number.isFinite(length) && length > 0) r.size(length);
      };
    },
  };
}
