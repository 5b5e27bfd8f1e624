// Calls to the webhooks kube-apiserver configures by WebhookClientConfig (CRD conversion, admission, token and
// authorization webhooks): a JSON POST over HTTPS, trusting caBundle (or the system roots when none), bounded by
// a timeout. A `service` reference is resolved as kube-apiserver's service resolvers do: an ExternalName Service
// names the host (kube's cluster-IP resolver; a test points one at localhost), any other Service leads to the
// first ready address of its Endpoints (kube's endpoint routing); the TLS server name is <service>.<namespace>.svc.

import type { Agent } from 'node:https';
import { isIP } from 'node:net';
import { parseJson } from '../encoding/json.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry } from '../registry/types.ts';

export interface ServiceReference {
  namespace?: string;
  name?: string;
  path?: string;
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** Base64 PEM bundle. */
  caBundle?: string;
}

/** Where a call goes: the URL to POST to, the host name to verify, and the roots to trust. */
export interface WebhookTarget {
  readonly url: URL;
  readonly serverName: string;
  readonly ca: string | undefined;
  /** Client credentials (token and authorization webhooks' kubeconfig users). */
  readonly clientCert?: string;
  readonly clientKey?: string;
  readonly bearerToken?: string;
}

export class WebhookCallError extends Error {}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** The first ready address and the port of an Endpoints object for a Service port (by name, else the first). */
function endpointAddress(endpoints: KubeObject, servicePortName: string | undefined): { ip: string; port: number } | undefined {
  for (const subset of (endpoints.subsets as unknown[] | undefined) ?? []) {
    const s = asObj(subset);
    const addresses = (s.addresses as unknown[] | undefined) ?? [];
    const ports = ((s.ports as unknown[] | undefined) ?? []).map(asObj);
    const port = ports.find((p) => servicePortName === undefined || (p.name ?? '') === servicePortName) ?? ports[0];
    const ip = asObj(addresses[0]).ip;
    if (typeof ip === 'string' && typeof port?.port === 'number') return { ip, port: port.port };
  }
  return undefined;
}

/** ResolveEndpoint for a service reference: the Service's port (default 443), then its Endpoints. */
async function resolveService(registry: Registry, ref: ServiceReference): Promise<URL> {
  const namespace = ref.namespace ?? '';
  const name = ref.name ?? '';
  const servicesDef = registry.lookup('', 'v1', 'services');
  const endpointsDef = registry.lookup('', 'v1', 'endpoints');
  if (!servicesDef || !endpointsDef) throw new WebhookCallError(`service "${name}" not found`);
  const ctx = loopbackContext(namespace);
  const service = await registry.store(servicesDef).get(ctx, name).catch(() => undefined);
  if (!service) throw new WebhookCallError(`service "${name}" not found`);
  const wantedPort = ref.port ?? 443;
  const spec = asObj(service.spec);
  if (spec.type === 'ExternalName' && typeof spec.externalName === 'string') {
    const host = isIP(spec.externalName) === 6 ? `[${spec.externalName}]` : spec.externalName;
    return new URL(`https://${host}:${wantedPort}${ref.path ?? ''}`);
  }
  const servicePort = ((spec.ports as unknown[] | undefined) ?? []).map(asObj).find((p) => p.port === wantedPort);
  if (!servicePort) throw new WebhookCallError(`no service port ${wantedPort} found for service "${name}"`);
  const endpoints = await registry.store(endpointsDef).get(ctx, name).catch(() => undefined);
  const target = endpoints && endpointAddress(endpoints, typeof servicePort.name === 'string' && servicePort.name !== '' ? servicePort.name : undefined);
  if (!target) throw new WebhookCallError(`endpoints for service/${name} in "${namespace}" have no addresses with port name "${servicePort.name ?? ''}"`);
  const host = isIP(target.ip) === 6 ? `[${target.ip}]` : target.ip;
  return new URL(`https://${host}:${target.port}${ref.path ?? ''}`);
}

// A URL's target, and a caBundle's PEM, made once per client config (configurations are stored objects, replaced
// and not changed in place); a service is resolved on every call.
const urlTargets = new WeakMap<WebhookClientConfig, WebhookTarget>();
const caPems = new WeakMap<WebhookClientConfig, string | undefined>();

function caOf(config: WebhookClientConfig): string | undefined {
  if (!caPems.has(config)) caPems.set(config, config.caBundle ? Buffer.from(config.caBundle, 'base64').toString('utf8') : undefined);
  return caPems.get(config);
}

export async function webhookTarget(config: WebhookClientConfig, registry: Registry): Promise<WebhookTarget> {
  if (config.url) {
    let target = urlTargets.get(config);
    if (!target) {
      const url = new URL(config.url);
      target = { url, serverName: url.hostname.replace(/^\[|\]$/g, ''), ca: caOf(config) };
      urlTargets.set(config, target);
    }
    return target;
  }
  const ref = config.service ?? {};
  return { url: await resolveService(registry, ref), serverName: `${ref.name}.${ref.namespace}.svc`, ca: caOf(config) };
}

// Kept-alive connections per trusted CA bundle and client certificate: a webhook called on every write pays the
// TLS handshake once.
const agents = new Map<string, Map<string, Agent>>();
function agentFor(target: WebhookTarget): Agent {
  // keyed by the strings themselves, which keep their hash: no 1 KB key built on every call
  let byCert = agents.get(target.ca ?? '');
  if (!byCert) agents.set(target.ca ?? '', (byCert = new Map()));
  const key = `${target.clientCert ?? ''}\0${target.clientKey ?? ''}`;
  let a = byCert.get(key);
  if (!a) {
    // node:https is loaded by the first webhook call, not at start-up.
    a = new (process.getBuiltinModule('node:https').Agent)({
      keepAlive: true,
      maxSockets: 64,
      timeout: 4000,
      ...(target.ca ? { ca: target.ca } : {}),
      ...(target.clientCert ? { cert: target.clientCert, key: target.clientKey } : {}),
    });
    byCert.set(key, a);
  }
  return a;
}

/** Drops the kept-alive connections (server shutdown). */
export function closeWebhookConnections(): void {
  for (const byCert of agents.values()) for (const a of byCert.values()) a.destroy();
  agents.clear();
}

/** Go's net/http and crypto/tls wording of a transport failure. */
function goTransportError(e: NodeJS.ErrnoException, url: URL, serverName: string): string {
  const port = url.port || '443';
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${url.hostname}:${port}: connect: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${url.hostname}: no such host`;
    case 'ECONNRESET':
      return 'EOF';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is not valid for ${serverName}`;
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default:
      return e.message;
  }
}

/** The serializer's words for an answer that is not JSON: Interpret's syntax error, as encoding/json gives it. */
function goDecodeError(text: string): string {
  try {
    parseJson(text);
    return "couldn't get version/kind; json parse error: unexpected end of JSON input";
  } catch (e) {
    return `couldn't get version/kind; json parse error: ${(e as Error).message}`;
  }
}

export interface PostOptions {
  /** Aborts the call (the client went away). */
  readonly signal?: AbortSignal;
}

/** POSTs a JSON body and parses the JSON answer; rejects with a WebhookCallError worded as Go's client words it. */
export function postJson(target: WebhookTarget, body: unknown, timeoutMs: number, options: PostOptions = {}): Promise<unknown> {
  return postOnce(target, Buffer.from(JSON.stringify(body)), timeoutMs, options, true);
}

function postOnce(target: WebhookTarget, payload: Buffer, timeoutMs: number, options: PostOptions, mayRetry: boolean): Promise<unknown> {
  const shown = (): string => `Post ${JSON.stringify(target.url.href)}`;
  return new Promise((resolve, reject) => {
    const resolveRetry = (p: Promise<unknown>) => p.then(resolve, reject);
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
    };
    const req = process.getBuiltinModule('node:https').request(
      target.url,
      {
        method: 'POST',
        servername: isIP(target.serverName) ? undefined : target.serverName,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, */*',
          'content-length': payload.length,
          ...(target.bearerToken ? { authorization: `Bearer ${target.bearerToken}` } : {}),
        },
        agent: agentFor(target),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          settle(() => {
            const text = Buffer.concat(chunks).toString('utf8');
            if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) {
              reject(new WebhookCallError(`the server responded with the status code ${res.statusCode} but did not return more information`));
              return;
            }
            if (text === '') {
              // client-go's Result.Into: the content type is the answer's, else the client's own
              reject(new WebhookCallError(`0-length response with status code: ${res.statusCode} and content type: ${res.headers['content-type'] || 'application/json'}`));
              return;
            }
            try {
              resolve(JSON.parse(text));
            } catch {
              reject(new WebhookCallError(goDecodeError(text)));
            }
          }),
        );
        res.on('error', (e) => settle(() => reject(new WebhookCallError(e.message))));
      },
    );
    const timer = setTimeout(() => {
      settle(() => reject(new WebhookCallError(`${shown()}: context deadline exceeded`)));
      req.destroy();
    }, timeoutMs);
    req.on('error', (e) => {
      // A kept-alive connection the server closed meanwhile: Go's transport retries on a new one; so do we.
      const code = (e as NodeJS.ErrnoException).code;
      if (mayRetry && req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE') && !settled) {
        settled = true;
        clearTimeout(timer);
        resolveRetry(postOnce(target, payload, timeoutMs, options, false));
        return;
      }
      settle(() => reject(new WebhookCallError(`${shown()}: ${goTransportError(e as NodeJS.ErrnoException, target.url, target.serverName)}`)));
    });
    options.signal?.addEventListener(
      'abort',
      () => {
        settle(() => reject(new WebhookCallError(`${shown()}: context canceled`)));
        req.destroy();
      },
      { once: true },
    );
    req.end(payload);
  });
}
