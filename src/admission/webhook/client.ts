// Calling a webhook over HTTPS: the clientConfig's url, or its service resolved through the cluster's own objects
// (the Service, then its Endpoints: a selector-less Service with an Endpoints object pointing at 127.0.0.1:<port>
// is how a test serves a webhook "in the cluster"; an ExternalName Service names its host). TLS trusts caBundle
// (else the system roots) and checks the certificate against <service>.<namespace>.svc, as kube does.
// Failures carry Go's wording of the transport error, as kube's messages show it.

import { Agent, request } from 'node:https';
import { isIP } from 'node:net';
import { loopbackContext } from '../../registry/registry.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import type { WebhookTransport } from './webhook.ts';

/** A failure to get an answer from a webhook (kube's ErrCallingWebhook reason). */
export class WebhookCallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookCallError';
  }
}

interface Target {
  host: string;
  port: number;
  path: string;
  servername: string;
}

const agents = new Map<string, Agent>();
function agentFor(caBundle: string): Agent {
  let a = agents.get(caBundle);
  if (!a) {
    a = new Agent({ keepAlive: true, maxSockets: 64, ...(caBundle ? { ca: Buffer.from(caBundle, 'base64').toString('utf8') } : {}) });
    agents.set(caBundle, a);
  }
  return a;
}

/** Closes the kept-alive connections (server shutdown). */
export function closeWebhookAgents(): void {
  for (const a of agents.values()) a.destroy();
  agents.clear();
}

function goDialError(e: NodeJS.ErrnoException, target: Target): string {
  const addr = `${target.host}:${target.port}`;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${target.host}: no such host`;
    case 'ECONNRESET':
      return 'EOF';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is not valid for ${target.servername}`;
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default:
      return e.message;
  }
}

/** Go's json error for a body that is not JSON, as the REST client reports it. */
function decodeError(body: string): string {
  const t = body.trimStart();
  if (t === '') return 'unexpected end of JSON input';
  return `couldn't get version/kind; json parse error: invalid character '${t[0]}' looking for beginning of value`;
}

function post(target: Target, caBundle: string, displayUrl: string, review: Record<string, unknown>, timeoutSeconds: number, signal?: AbortSignal): Promise<unknown> {
  const query = `timeout=${timeoutSeconds}s`;
  const shown = `${displayUrl}${displayUrl.includes('?') ? '&' : '?'}${query}`;
  const path = `${target.path}${target.path.includes('?') ? '&' : '?'}${query}`;
  const payload = JSON.stringify(review);
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new WebhookCallError(`failed to call webhook: Post ${JSON.stringify(shown)}: ${message}`));
    };
    const req = request(
      {
        host: target.host,
        port: target.port,
        path,
        method: 'POST',
        ...(isIP(target.servername) ? {} : { servername: target.servername }),
        agent: agentFor(caBundle),
        headers: { 'content-type': 'application/json', accept: 'application/json, */*', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (e) => fail(e.message));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const body = Buffer.concat(chunks).toString('utf8');
          const code = res.statusCode ?? 0;
          if (code < 200 || code > 299) {
            const text = body.length > 0 ? body : `the server responded with the status code ${code} but did not return more information`;
            reject(new WebhookCallError(`failed to call webhook: an error on the server (${JSON.stringify(text.trim())}) has prevented the request from succeeding`));
            return;
          }
          try {
            resolve(JSON.parse(body));
          } catch {
            reject(new WebhookCallError(`failed to call webhook: ${decodeError(body)}`));
          }
        });
      },
    );
    const timer = setTimeout(() => {
      fail('context deadline exceeded');
      req.destroy();
    }, timeoutSeconds * 1000);
    req.on('error', (e) => fail(goDialError(e as NodeJS.ErrnoException, target)));
    signal?.addEventListener('abort', () => {
      fail('context canceled');
      req.destroy();
    }, { once: true });
    req.end(payload);
  });
}

export interface ClientConfig {
  url?: string;
  service?: { namespace?: string; name?: string; path?: string; port?: number };
  caBundle?: string;
}

async function getObject(registry: Registry, resource: string, namespace: string, name: string): Promise<KubeObject | undefined> {
  const def = registry.lookup('', 'v1', resource);
  if (!def) return undefined;
  try {
    return await registry.store(def).get(loopbackContext(namespace), name);
  } catch {
    return undefined;
  }
}

/** Where a service reference points: the Service's ExternalName, or an address and port of its Endpoints. */
async function resolveService(registry: Registry, svc: Required<Pick<NonNullable<ClientConfig['service']>, 'namespace' | 'name' | 'port'>>, path: string): Promise<Target> {
  const servername = `${svc.name}.${svc.namespace}.svc`;
  const service = await getObject(registry, 'services', svc.namespace, svc.name);
  if (!service) throw new WebhookCallError(`failed to call webhook: service "${svc.name}" not found`);
  const spec = (service.spec ?? {}) as { type?: string; externalName?: string; ports?: { name?: string; port?: number; targetPort?: number | string }[] };
  if (spec.type === 'ExternalName' && spec.externalName) return { host: spec.externalName, port: svc.port, path, servername };
  const servicePort = (spec.ports ?? []).find((p) => p.port === svc.port);
  if (!servicePort) throw new WebhookCallError(`failed to call webhook: no service port ${svc.port} found for service "${svc.name}"`);
  const endpoints = await getObject(registry, 'endpoints', svc.namespace, svc.name);
  const subsets = ((endpoints?.subsets ?? []) as { addresses?: { ip?: string }[]; ports?: { name?: string; port?: number }[] }[]).filter((s) => (s.addresses?.length ?? 0) > 0);
  for (const s of subsets) {
    const port = (s.ports ?? []).find((p) => (p.name ?? '') === (servicePort.name ?? '')) ?? (s.ports?.length === 1 ? s.ports[0] : undefined);
    const ip = s.addresses?.[0]?.ip;
    if (port?.port && ip) return { host: ip, port: port.port, path, servername };
  }
  throw new WebhookCallError(`failed to call webhook: no endpoints available for service "${svc.name}"`);
}

/** The URL kube shows for a client config. */
export function displayUrlOf(cc: ClientConfig): string {
  if (cc.url) return cc.url;
  const s = cc.service ?? {};
  return `https://${s.name ?? ''}.${s.namespace ?? ''}.svc:${s.port ?? 443}${s.path ?? ''}`;
}

/** The transport of a clientConfig; the service is resolved on each call (configuration changes need no restart). */
export function httpsTransport(registry: Registry, cc: ClientConfig): WebhookTransport {
  const caBundle = cc.caBundle ?? '';
  const shown = displayUrlOf(cc);
  if (cc.url) {
    const u = new URL(cc.url);
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const target: Target = { host, port: u.port ? Number(u.port) : 443, path: `${u.pathname}${u.search}`, servername: host };
    return (review, timeout, signal) => post(target, caBundle, shown, review, timeout, signal);
  }
  const s = cc.service ?? {};
  const ref = { namespace: s.namespace ?? '', name: s.name ?? '', port: s.port ?? 443 };
  return async (review, timeout, signal) => post(await resolveService(registry, ref, s.path ?? '/'), caBundle, shown, review, timeout, signal);
}
