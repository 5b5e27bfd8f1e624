// The aggregation layer: APIServices that name a Service get their group-version proxied to it (./proxy.ts), kept
// Available or not by kube's availability checks, and listed in discovery with the resources their backend reports.
//
// - Availability (kube-aggregator's AvailableConditionController): the Service must exist; a ClusterIP Service must
//   have the APIService's port and an endpoint address for that port's name; then GET /apis/<group>/<version> on the
//   backend (TLS not verified, 5 s, as system:kube-aggregator in system:masters) must answer 2xx. The condition is
//   written only when it changes, re-checked when the APIService, its Service or its Endpoints change, every 30 s,
//   and sooner after a failure. Local APIServices (no service) are Available with reason Local.
// - Discovery: the answer of that same GET (an APIResourceList) is what aggregated discovery lists for the
//   group-version; when a check fails the last answer stays, marked Stale.
// The Service and Endpoints informers start only once an APIService names a Service.

import { Agent } from 'node:https';
import { request as httpsRequest } from 'node:https';
import type { UserInfo } from '../auth/user.ts';
import { createKeyedQueue } from '../controllers/work-queue.ts';
import type { APIResourceDiscovery, ExternalGroupVersion } from '../endpoints/discovery-documents.ts';
import { startInformer, type Informer } from '../registry/informer.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry } from '../registry/types.ts';
import type { KeyPairPem } from '../server/pki.ts';
import type { HttpRequest, HttpResponse } from '../server/types.ts';
import { backendTls, backendUrl, describeNetworkError, externalApiService, resolveBackend, ResolveError, type BackendAddress, type ExternalApiService, type ServiceLookup } from './backend.ts';
import { resourcesFromList } from './discovery.ts';
import { proxyRequest, writePlainError } from './proxy.ts';
import { cloneJson } from '../apis/json-clone.ts';

export interface Aggregator {
  /** The external APIService serving group/version, if one does. */
  target(group: string, version: string): ExternalApiService | undefined;
  /** Proxies an authenticated, authorized request to the APIService's backend. */
  proxy(req: HttpRequest, res: HttpResponse, user: UserInfo, api: ExternalApiService): Promise<void>;
  /**
   * A GET of an aggregated group-version as `user`, for the in-process controllers (the autoscaler's metrics
   * clients): the backend's answer, 503 "service unavailable" when the APIService is not Available or its backend
   * cannot be reached, undefined when no APIService with a Service serves the group-version.
   */
  get(group: string, version: string, path: string, user: UserInfo): Promise<{ status: number; body: string } | undefined>;
  /** The aggregated group-versions, for discovery. */
  groupVersions(): readonly ExternalGroupVersion[];
  /** Their backends' OpenAPI v3 documents by path (apis/<group>/<version>), JSON text. */
  openApiV3(): ReadonlyMap<string, string>;
  /** Called when what groupVersions() returns may have changed. */
  onChange(listener: () => void): void;
  /** Resolves when every queued availability check has run (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export interface AggregatorOptions {
  /** The aggregator's client certificate (--proxy-client-cert-file / -key-file, or the generated one). */
  readonly proxyClient: () => Promise<KeyPairPem>;
  /** How often every APIService is checked again (kube: 30 s). */
  readonly resyncMs?: number;
  readonly onError?: (message: string, fields: Record<string, unknown>) => void;
}

const CHECK_TIMEOUT_MS = 5000;
const AGGREGATOR_USER = 'system:kube-aggregator';
const LOCAL_MESSAGE = 'Local APIServices are always available';
/** Retry delays after failed checks: doubling from 1 s up to the resync period. */
const FIRST_RETRY_MS = 1000;

interface Condition {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

interface CheckResult {
  condition: Condition;
  /** The backend's APIResourceList, when the discovery check got one. */
  resources?: APIResourceDiscovery[];
  /** The backend that answered it. */
  address?: BackendAddress;
}

const gvKey = (group: string, version: string) => `${group}/${version}`;

export function startAggregator(registry: Registry, options: AggregatorOptions): Aggregator {
  const def = registry.lookup('apiregistration.k8s.io', 'v1', 'apiservices');
  const servicesDef = registry.lookup('', 'v1', 'services');
  const endpointsDef = registry.lookup('', 'v1', 'endpoints');
  if (!def || !servicesDef || !endpointsDef) throw new Error('the aggregator needs apiservices, services and endpoints');
  const store = registry.store(def);
  const resyncMs = options.resyncMs ?? 30_000;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const l of listeners) l();
  };

  let externals = new Map<string, ExternalApiService>();
  const discovered = new Map<string, { resources: readonly APIResourceDiscovery[]; stale: boolean }>();
  /** APIService name -> the backend's OpenAPI v3 document of its group-version (JSON text). */
  const openApi = new Map<string, string>();
  const failures = new Map<string, number>();
  const agents = new Map<string, { fingerprint: string; agent: Agent }>();
  let client: Promise<KeyPairPem> | undefined;
  const proxyClient = () => (client ??= options.proxyClient().catch((e: unknown) => {
    client = undefined;
    throw e;
  }));

  // Services and Endpoints are followed once an APIService names a Service.
  let lookups: { services: Informer; endpoints: Informer } | undefined;
  const lookup: ServiceLookup = {
    service: (ns, name) => lookups?.services.get(ns, name),
    endpoints: (ns, name) => lookups?.endpoints.get(ns, name),
  };
  function follow(): { services: Informer; endpoints: Informer } {
    if (lookups) return lookups;
    const services = startInformer(registry.store(servicesDef!));
    const endpoints = startInformer(registry.store(endpointsDef!));
    const requeue = (obj: KubeObject) => {
      for (const api of externals.values()) {
        if (api.service.namespace === obj.metadata.namespace && api.service.name === obj.metadata.name) queue.enqueue(api.name);
      }
    };
    services.onEvent((_type, obj) => requeue(obj));
    endpoints.onEvent((_type, obj) => requeue(obj));
    return (lookups = { services, endpoints });
  }

  const queue = createKeyedQueue(sync);
  const apiServices = startInformer(store);
  apiServices.onEvent((type, obj) => {
    rebuild();
    queue.enqueue(obj.metadata.name ?? '');
    if (type === 'delete') failures.delete(obj.metadata.name ?? '');
  });

  function rebuild(): void {
    const next = new Map<string, ExternalApiService>();
    for (const obj of apiServices.items()) {
      const api = externalApiService(obj);
      if (api) next.set(gvKey(api.group, api.version), api);
    }
    // What discovery shows of them: a change there invalidates the documents.
    const shown = (m: Map<string, ExternalApiService>) => [...m.values()].map((a) => `${a.name}:${a.group}/${a.version}:${a.groupPriorityMinimum}:${a.versionPriority}`).join(',');
    const changed = shown(externals) !== shown(next);
    externals = next;
    const names = new Set([...next.values()].map((a) => a.name));
    for (const name of [...discovered.keys()]) if (!names.has(name)) discovered.delete(name);
    for (const name of [...openApi.keys()]) if (!names.has(name)) openApi.delete(name);
    for (const [name, { agent }] of [...agents]) {
      if (names.has(name)) continue;
      agent.destroy();
      agents.delete(name);
    }
    if (next.size > 0) follow();
    if (changed) notify();
  }

  /** Each APIService's connections to its backend, kept alive, made again when its TLS settings change. */
  const agentOf = new WeakMap<ExternalApiService, Agent>();
  async function agentFor(api: ExternalApiService): Promise<Agent> {
    const seen = agentOf.get(api);
    if (seen) return seen;
    const pair = await proxyClient();
    const fingerprint = JSON.stringify([api.service.namespace, api.service.name, api.caPem, api.insecureSkipTLSVerify, pair.certPem]);
    const known = agents.get(api.name);
    let agent = known?.agent;
    if (known?.fingerprint !== fingerprint) {
      known?.agent.destroy();
      agent = new Agent({ keepAlive: true, ...backendTls(api, pair) });
      agents.set(api.name, { fingerprint, agent });
    }
    agentOf.set(api, agent!);
    return agent!;
  }

  /** A GET on the backend as system:kube-aggregator (in system:masters), TLS unverified, within 5 s. */
  function backendGet(api: ExternalApiService, pair: KeyPairPem, address: BackendAddress, path: string): Promise<{ status: number; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        {
          host: address.host,
          port: address.port,
          path,
          method: 'GET',
          headers: { Accept: 'application/json', 'X-Remote-User': AGGREGATOR_USER, 'X-Remote-Group': 'system:masters' },
          agent: false,
          timeout: CHECK_TIMEOUT_MS,
          ...backendTls(api, pair, false),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.once('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          res.once('error', reject);
        },
      );
      req.once('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'CLIENT_TIMEOUT' })));
      req.once('error', reject);
      req.end();
    });
  }

  /** kube's discovery check: GET /apis/<group>/<version> on one backend; its answer is the group-version's resources. */
  async function discoveryCheck(api: ExternalApiService, pair: KeyPairPem): Promise<CheckResult> {
    let address: BackendAddress;
    try {
      address = resolveBackend(lookup, api.service);
    } catch (e) {
      if (!(e instanceof ResolveError)) throw e;
      return { condition: { status: 'False', reason: 'FailedDiscoveryCheck', message: e.message } };
    }
    const path = `/apis/${api.group}/${api.version}`;
    const url = backendUrl(address, path);
    const failed = (why: string): CheckResult => ({ condition: { status: 'False', reason: 'FailedDiscoveryCheck', message: `failing or missing response from ${url}: ${why}` } });
    try {
      const answer = await backendGet(api, pair, address, path);
      if (answer.status < 200 || answer.status >= 300) return failed(`bad status from ${url}: ${answer.status}`);
      return { condition: { status: 'True', reason: 'Passed', message: 'all checks passed' }, resources: resourcesFromList(answer.body), address };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'CLIENT_TIMEOUT') return failed(`Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`);
      return failed(`Get "${url}": ${describeNetworkError(e, address)}`);
    }
  }

  /**
   * The backend's OpenAPI v3 document of the group-version (its /openapi/v3 index names where), served in Capstan's
   * /openapi/v3 as kube's OpenAPI v3 aggregator does; undefined when the backend has none.
   */
  async function fetchOpenApi(api: ExternalApiService, pair: KeyPairPem, address: BackendAddress): Promise<string | undefined> {
    try {
      const index = await backendGet(api, pair, address, '/openapi/v3');
      if (index.status !== 200) return undefined;
      const paths = (JSON.parse(index.body.toString('utf8')) as { paths?: Record<string, { serverRelativeURL?: unknown }> }).paths ?? {};
      const where = paths[`apis/${api.group}/${api.version}`]?.serverRelativeURL;
      if (typeof where !== 'string' || !where.startsWith('/')) return undefined;
      const doc = await backendGet(api, pair, address, where);
      if (doc.status !== 200) return undefined;
      const text = doc.body.toString('utf8');
      JSON.parse(text);
      return text;
    } catch {
      return undefined;
    }
  }

  async function check(api: ExternalApiService): Promise<CheckResult> {
    const { namespace, name, port } = api.service;
    const svc = lookup.service(namespace, name);
    const falseBecause = (reason: string, message: string): CheckResult => ({ condition: { status: 'False', reason, message } });
    if (!svc) return falseBecause('ServiceNotFound', `service/${name} in "${namespace}" is not present`);
    const spec = (svc.spec ?? {}) as { type?: string; ports?: { port?: number; name?: string }[] };
    if ((spec.type ?? 'ClusterIP') === 'ClusterIP') {
      const svcPort = (spec.ports ?? []).find((p) => p.port === port);
      if (!svcPort) return falseBecause('ServicePortError', `service/${name} in "${namespace}" is not listening on port ${port}`);
      const portName = svcPort.name ?? '';
      const eps = lookup.endpoints(namespace, name);
      if (!eps) return falseBecause('EndpointsNotFound', `cannot find endpoints for service/${name} in "${namespace}"`);
      const subsets = ((eps as { subsets?: { addresses?: unknown[]; ports?: { name?: string }[] }[] }).subsets ?? []);
      const active = subsets.some((s) => (s.addresses ?? []).length > 0 && (s.ports ?? []).some((p) => (p.name ?? '') === portName));
      if (!active) return falseBecause('MissingEndpoints', `endpoints for service/${name} in "${namespace}" have no addresses with port name "${portName}"`);
    }
    return discoveryCheck(api, await proxyClient());
  }

  async function writeCondition(obj: KubeObject, condition: Condition): Promise<void> {
    const current = ((obj.status as { conditions?: Record<string, unknown>[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Available');
    if (current && current.status === condition.status && current.reason === condition.reason && current.message === condition.message) return;
    await store.update(
      loopbackContext(),
      obj.metadata.name ?? '',
      (cur) => {
        if (!cur) throw new Error('gone');
        const next = cloneJson(cur);
        const status = ((next.status as Record<string, unknown> | undefined) ?? {}) as { conditions?: Record<string, unknown>[] };
        const conditions = [...(status.conditions ?? [])];
        const i = conditions.findIndex((c) => c.type === 'Available');
        const prior = i >= 0 ? conditions[i]! : undefined;
        // SetAPIServiceCondition: the transition time moves only when the status does.
        const lastTransitionTime = prior && prior.status === condition.status && typeof prior.lastTransitionTime === 'string' ? prior.lastTransitionTime : new Date().toISOString().replace(/\.\d+Z$/, 'Z');
        const entry = { type: 'Available', status: condition.status, lastTransitionTime, reason: condition.reason, message: condition.message };
        if (i >= 0) conditions[i] = entry;
        else conditions.push(entry);
        next.status = { ...status, conditions };
        return next;
      },
      { subresource: 'status' },
    );
  }

  async function sync(name: string): Promise<void> {
    const obj = apiServices.get('', name);
    if (!obj) return;
    const api = externalApiService(obj);
    if (!api) {
      await writeCondition(obj, { status: 'True', reason: 'Local', message: LOCAL_MESSAGE });
      return;
    }
    const lk = follow();
    await Promise.all([lk.services.synced(), lk.endpoints.synced()]);
    let result: CheckResult;
    try {
      result = await check(api);
    } catch (e) {
      result = { condition: { status: 'Unknown', reason: 'ServiceAccessError', message: `service/${api.service.name} in "${api.service.namespace}" cannot be checked due to: ${(e as Error).message}` } };
    }
    const before = discovered.get(name);
    if (result.resources) discovered.set(name, { resources: result.resources, stale: false });
    else discovered.set(name, { resources: before?.resources ?? [], stale: true });
    const after = discovered.get(name)!;
    let changed = !before || before.stale !== after.stale || JSON.stringify(before.resources) !== JSON.stringify(after.resources);
    // The OpenAPI document is fetched again when the backend's resources change (or it had none yet).
    if (result.address && (changed || !openApi.has(name))) {
      const doc = await fetchOpenApi(api, await proxyClient(), result.address);
      if (doc !== openApi.get(name)) {
        if (doc === undefined) openApi.delete(name);
        else openApi.set(name, doc);
        changed = true;
      }
    }
    if (changed) notify();
    try {
      await writeCondition(obj, result.condition);
    } catch (e) {
      options.onError?.('updating an APIService status failed', { apiService: name, error: (e as Error).message });
    }
    if (result.condition.status === 'True') failures.delete(name);
    else {
      const n = (failures.get(name) ?? 0) + 1;
      failures.set(name, n);
      queue.enqueue(name, Math.min(FIRST_RETRY_MS * 2 ** (n - 1), resyncMs));
    }
  }

  const resync = setInterval(() => {
    for (const obj of apiServices.items()) queue.enqueue(obj.metadata.name ?? '');
  }, resyncMs);
  resync.unref();

  /**
   * Where the APIService's requests go, as kube-aggregator's proxy handler finds it: nowhere (503 "service
   * unavailable") when its own Available condition is not True or its Service does not resolve.
   */
  async function availableBackend(api: ExternalApiService): Promise<BackendAddress | undefined> {
    if (!api.available) return undefined;
    try {
      const lk = follow();
      await Promise.all([lk.services.synced(), lk.endpoints.synced()]);
      return resolveBackend(lookup, api.service);
    } catch (e) {
      if (!(e instanceof ResolveError)) throw e;
      options.onError?.('resolving an APIService backend failed', { apiService: api.name, error: e.message });
      return undefined;
    }
  }

  return {
    target: (group, version) => (externals.size === 0 ? undefined : externals.get(gvKey(group, version))),
    async proxy(req, res, user, api) {
      const address = await availableBackend(api);
      if (!address) return writePlainError(res, 503, 'service unavailable');
      await proxyRequest(req, res, user, { address, agent: await agentFor(api) });
    },
    async get(group, version, path, user) {
      const api = externals.get(gvKey(group, version));
      if (!api) return undefined;
      const unavailable = { status: 503, body: 'service unavailable\n' };
      const address = await availableBackend(api);
      if (!address) return unavailable;
      const agent = await agentFor(api);
      return new Promise((resolve) => {
        const headers = { Accept: 'application/json', 'X-Remote-User': user.name, ...(user.groups.length > 0 ? { 'X-Remote-Group': [...user.groups] } : {}) };
        const req = httpsRequest({ host: address.host, port: address.port, path, method: 'GET', headers, agent, timeout: CHECK_TIMEOUT_MS }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.once('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.once('error', () => resolve(unavailable));
        });
        req.once('timeout', () => req.destroy());
        req.once('error', (err) => resolve({ status: 503, body: `error trying to reach service: ${describeNetworkError(err, address)}\n` }));
        req.end();
      });
    },
    groupVersions() {
      const out: ExternalGroupVersion[] = [];
      for (const api of externals.values()) {
        const d = discovered.get(api.name);
        out.push({
          group: api.group,
          version: api.version,
          groupPriorityMinimum: api.groupPriorityMinimum,
          versionPriority: api.versionPriority,
          resources: d?.resources ?? [],
          freshness: d && !d.stale ? 'Current' : 'Stale',
        });
      }
      return out;
    },
    openApiV3() {
      const out = new Map<string, string>();
      for (const api of externals.values()) {
        const doc = openApi.get(api.name);
        if (doc !== undefined) out.set(`apis/${api.group}/${api.version}`, doc);
      }
      return out;
    },
    onChange(listener) {
      listeners.add(listener);
    },
    idle: () => queue.idle(),
    async stop() {
      clearInterval(resync);
      apiServices.stop();
      lookups?.services.stop();
      lookups?.endpoints.stop();
      await queue.stop();
      for (const { agent } of agents.values()) agent.destroy();
      agents.clear();
    },
  };
}
