// Where an APIService's requests go, and how they get there: the Service it names resolved to an address, and the
// TLS settings of the connection (the APIService's caBundle or insecureSkipTLSVerify, the server name
// <service>.<namespace>.svc, the aggregator's client certificate).
//
// Cluster IPs lead nowhere without a service proxy, so a ClusterIP, NodePort or LoadBalancer Service is resolved to
// one of its ready endpoints, as kube-apiserver does with --enable-aggregator-routing; an ExternalName Service goes
// to its external name on the APIService's port, as kube's default resolver sends it.

import { createSecureContext, type SecureContext } from 'node:tls';
import type { KubeObject } from '../registry/types.ts';
import type { KeyPairPem } from '../server/pki.ts';

/** An APIService whose group-version a Service of the cluster serves (spec.service set). */
export interface ExternalApiService {
  readonly name: string;
  readonly group: string;
  readonly version: string;
  readonly groupPriorityMinimum: number;
  readonly versionPriority: number;
  readonly service: { readonly namespace: string; readonly name: string; readonly port: number };
  /** PEM certificates the backend's serving certificate must chain to; empty: the system's roots. */
  readonly caPem: string;
  readonly insecureSkipTLSVerify: boolean;
  /** Its Available condition is True. */
  readonly available: boolean;
}

type Obj = Record<string, unknown>;
const objAt = (o: unknown, key: string): Obj | undefined => {
  const v = (o as Obj | undefined)?.[key];
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
};
const arrAt = (o: unknown, key: string): Obj[] => {
  const v = (o as Obj | undefined)?.[key];
  return Array.isArray(v) ? (v.filter((x) => x !== null && typeof x === 'object') as Obj[]) : [];
};
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The APIService's facts, or undefined for a local one (no spec.service). */
export function externalApiService(obj: KubeObject): ExternalApiService | undefined {
  const spec = objAt(obj, 'spec') ?? {};
  const service = objAt(spec, 'service');
  if (!service) return undefined;
  const conditions = arrAt(objAt(obj, 'status'), 'conditions');
  return {
    name: obj.metadata.name ?? '',
    group: str(spec.group),
    version: str(spec.version),
    groupPriorityMinimum: Number(spec.groupPriorityMinimum ?? 0),
    versionPriority: Number(spec.versionPriority ?? 0),
    service: { namespace: str(service.namespace), name: str(service.name), port: typeof service.port === 'number' ? service.port : 443 },
    caPem: typeof spec.caBundle === 'string' ? Buffer.from(spec.caBundle, 'base64').toString('utf8') : '',
    insecureSkipTLSVerify: spec.insecureSkipTLSVerify === true,
    available: conditions.some((c) => c.type === 'Available' && c.status === 'True'),
  };
}

export interface BackendAddress {
  readonly host: string;
  readonly port: number;
}

/** Reads the Services and Endpoints the resolution needs (the watch caches). */
export interface ServiceLookup {
  service(namespace: string, name: string): KubeObject | undefined;
  endpoints(namespace: string, name: string): KubeObject | undefined;
}

export class ResolveError extends Error {}

const ROUTED_TYPES = new Set(['ClusterIP', 'NodePort', 'LoadBalancer']);

/** The address of one backend of the APIService's Service; throws ResolveError with kube's resolver messages. */
export function resolveBackend(lookup: ServiceLookup, ref: ExternalApiService['service']): BackendAddress {
  const svc = lookup.service(ref.namespace, ref.name);
  if (!svc) throw new ResolveError(`service "${ref.name}" not found`);
  const spec = objAt(svc, 'spec') ?? {};
  const type = str(spec.type) || 'ClusterIP';
  if (type === 'ExternalName') return { host: str(spec.externalName), port: ref.port };
  if (!ROUTED_TYPES.has(type)) throw new ResolveError(`unsupported service type "${type}"`);
  const svcPort = arrAt(spec, 'ports').find((p) => p.port === ref.port);
  if (!svcPort) throw new ResolveError(`no service port ${ref.port} found for service "${ref.name}"`);
  const portName = str(svcPort.name);
  const eps = lookup.endpoints(ref.namespace, ref.name);
  if (!eps) throw new ResolveError(`endpoints "${ref.name}" not found`);
  const candidates: BackendAddress[] = [];
  for (const subset of arrAt(eps, 'subsets')) {
    const port = arrAt(subset, 'ports').find((p) => str(p.name) === portName);
    if (!port || typeof port.port !== 'number') continue;
    for (const address of arrAt(subset, 'addresses')) if (str(address.ip)) candidates.push({ host: str(address.ip), port: port.port });
  }
  if (candidates.length === 0) throw new ResolveError(`no endpoints available for service "${ref.name}"`);
  return candidates[Math.floor(Math.random() * candidates.length)]!;
}

/** https://host:port as Go's url.URL writes it (IPv6 literals in brackets). */
export function backendUrl(address: BackendAddress, path: string): string {
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return `https://${host}:${address.port}${path}`;
}

/**
 * The TLS options of a connection to the APIService's backend. The certificates go in one secure context: an https
 * Agent names its socket pools by the PEM texts of ca, cert and key given as options, kilobytes per request.
 */
export function backendTls(api: ExternalApiService, client: KeyPairPem | undefined, verify = true): { servername: string; rejectUnauthorized: boolean; secureContext: SecureContext } {
  return {
    servername: `${api.service.name}.${api.service.namespace}.svc`,
    rejectUnauthorized: verify && !api.insecureSkipTLSVerify,
    secureContext: createSecureContext({ ...(api.caPem && verify ? { ca: api.caPem } : {}), ...(client ? { cert: client.certPem, key: client.keyPem } : {}) }),
  };
}

/** A connection failure in the words of Go's net/http, which is what kube's clients and users see. */
export function describeNetworkError(err: unknown, address: BackendAddress): string {
  const e = err as NodeJS.ErrnoException & { reason?: string; address?: string; port?: number };
  // The address actually dialled (a name resolved), as Go's dial error names it.
  const host = typeof e?.address === 'string' ? e.address : address.host;
  const port = typeof e?.port === 'number' ? e.port : address.port;
  const hostPort = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  switch (e?.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${hostPort}: connect: connection refused`;
    case 'ECONNRESET':
      return `read tcp ${hostPort}: read: connection reset by peer`;
    case 'ETIMEDOUT':
      return `dial tcp ${hostPort}: i/o timeout`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${address.host}: no such host`;
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is not valid for the server name${e.reason ? ` (${e.reason})` : ''}`;
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default:
      return e?.message ?? String(err);
  }
}
