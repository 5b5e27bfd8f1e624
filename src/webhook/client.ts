// Calls to the webhooks kube-apiserver configures by WebhookClientConfig (CRD conversion, admission, token and
// authorization webhooks): a JSON POST over HTTPS, trusting caBundle (or the system roots when none), bounded by
// a timeout. A `service` reference is resolved as kube-apiserver's service resolvers do: an ExternalName Service
// names the host (kube's cluster-IP resolver; a test points one at localhost), any other Service leads to the
// first ready address of its Endpoints (kube's endpoint routing); the TLS server name is <service>.<namespace>.svc.

import { request } from 'node:https';
import { isIP } from 'node:net';
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

export async function webhookTarget(config: WebhookClientConfig, registry: Registry): Promise<WebhookTarget> {
  const ca = config.caBundle ? Buffer.from(config.caBundle, 'base64').toString('utf8') : undefined;
  if (config.url) {
    const url = new URL(config.url);
    return { url, serverName: url.hostname.replace(/^\[|\]$/g, ''), ca };
  }
  const ref = config.service ?? {};
  return { url: await resolveService(registry, ref), serverName: `${ref.name}.${ref.namespace}.svc`, ca };
}

/** POSTs a JSON body and parses the JSON answer; rejects with a WebhookCallError worded as Go's client words it. */
export function postJson(target: WebhookTarget, body: unknown, timeoutMs: number): Promise<unknown> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      target.url,
      {
        method: 'POST',
        ca: target.ca,
        servername: isIP(target.serverName) ? undefined : target.serverName,
        headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': payload.length },
        timeout: timeoutMs,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) {
            reject(new WebhookCallError(`the server responded with the status code ${res.statusCode} but did not return more information`));
            return;
          }
          try {
            resolve(JSON.parse(text));
          } catch (e) {
            reject(new WebhookCallError(`unable to decode the response: ${(e as Error).message}`));
          }
        });
        res.on('error', (e) => reject(new WebhookCallError(e.message)));
      },
    );
    req.on('timeout', () => req.destroy(new WebhookCallError(`Post "${target.url.href}": context deadline exceeded`)));
    req.on('error', (e) => reject(e instanceof WebhookCallError ? e : new WebhookCallError(`Post "${target.url.href}": ${e.message}`)));
    req.end(payload);
  });
}
