// The kubelet's HTTP, TCP and gRPC probes, run for real against a container port the containers test control maps to
// a test's loopback server. Each answers as kube's prober does (pkg/probe/http, tcp, grpc): the result and the output
// the kubelet puts in an Unhealthy event, with the pod's address in it (the kubelet dials the pod IP; here the
// mapped loopback address is dialled in its place).

import http2 from 'node:http2';
import { connect } from 'node:net';
import { formatGoDuration } from '../../encoding/protobuf/duration.ts';
import { dialError, httpProbe, joinHostPort, type HttpProbeOutcome } from '../../server/http-probe.ts';
import type { LoopbackAddress } from './container-runs.ts';
import { asObj, type Obj } from './shared.ts';

/** One probe to run: where it goes, where the kubelet would have sent it (for messages), and how. */
export interface NetworkProbe {
  readonly target: LoopbackAddress;
  /** The host and port the kubelet dials: the pod IP (or httpGet.host) and the container port. */
  readonly host: string;
  readonly port: number;
  readonly timeoutMs: number;
  readonly http?: { readonly scheme: 'http' | 'https'; readonly path: string; readonly headers: readonly (readonly [string, string])[] };
  readonly grpcService?: string;
  /** Where another port of the pod is served, for an HTTP probe's redirect to it. */
  readonly redirectTarget?: (port: number) => LoopbackAddress | undefined;
}

/** A warning (a redirect to another host) passes: the kubelet records a ProbeWarning event. */
export type ProbeOutcome = HttpProbeOutcome;

const USER_AGENT = 'kube-probe/1.31';


/** A probe's port: a number, or the name of one of the container's ports. */
function resolvePort(port: unknown, container: Obj): number | undefined {
  if (typeof port === 'number') return port;
  if (typeof port === 'string' && /^[0-9]+$/.test(port)) return Number(port);
  const named = ((container.ports as unknown[] | undefined) ?? []).map(asObj).find((p) => p.name === port);
  return typeof named?.containerPort === 'number' ? named.containerPort : undefined;
}

/**
 * The probe the kubelet would run for this probe spec, when it is an httpGet, tcpSocket or grpc probe to a port the
 * pod's rules map to loopback (an httpGet to another host than the pod is never mapped).
 */
export function networkProbeOf(probe: Obj, container: Obj, podIP: string, portTarget: (port: number) => LoopbackAddress | undefined): NetworkProbe | undefined {
  const timeoutMs = (typeof probe.timeoutSeconds === 'number' && probe.timeoutSeconds > 0 ? probe.timeoutSeconds : 1) * 1000;
  const httpGet = probe.httpGet ? asObj(probe.httpGet) : undefined;
  const spec = httpGet ?? (probe.tcpSocket ? asObj(probe.tcpSocket) : probe.grpc ? asObj(probe.grpc) : undefined);
  if (!spec) return undefined;
  if (spec.host !== undefined && spec.host !== '' && spec.host !== podIP) return undefined;
  const port = resolvePort(spec.port, container);
  const target = port === undefined ? undefined : portTarget(port);
  if (port === undefined || !target) return undefined;
  const base = { target, host: podIP, port, timeoutMs };
  if (httpGet) {
    const raw = typeof httpGet.path === 'string' ? httpGet.path : '';
    const path = raw === '' ? '/' : raw.startsWith('/') ? raw : `/${raw}`;
    const headers = ((httpGet.httpHeaders as unknown[] | undefined) ?? []).map(asObj).map((h) => [String(h.name ?? ''), String(h.value ?? '')] as const);
    return { ...base, http: { scheme: String(httpGet.scheme ?? 'HTTP').toLowerCase() === 'https' ? 'https' : 'http', path, headers }, redirectTarget: portTarget };
  }
  if (probe.grpc) return { ...base, grpcService: typeof spec.service === 'string' ? spec.service : '' };
  return base;
}

/** pkg/probe/tcp: a connection opened within the timeout is a success. */
function probeTcp(p: NetworkProbe): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ host: p.target.host, port: p.target.port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ ok: false, output: dialError(p.host, p.port, 'timeout') });
    }, p.timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ ok: true, output: '' });
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      resolve({ ok: false, output: dialError(p.host, p.port, err) });
    });
  });
}

/** pkg/probe/http with the kubelet's headers; the Host header names the pod unless httpHeaders say otherwise. */
function probeHttp(p: NetworkProbe): Promise<ProbeOutcome> {
  const h = p.http!;
  const authority = joinHostPort(p.host, p.port);
  const headers: Record<string, string> = { Host: authority, 'User-Agent': USER_AGENT, Accept: '*/*' };
  for (const [name, value] of h.headers) {
    const known = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
    headers[known ?? name] = value;
  }
  return httpProbe(new URL(`${h.scheme}://${authority}${h.path}`), p.target, headers, p.timeoutMs, p.redirectTarget);
}

/** grpc-go's codes, by number. */
const GRPC_CODES = ['OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied', 'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated'];
/** grpc.health.v1.HealthCheckResponse.ServingStatus. */
const SERVING_STATUS = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];

/** HealthCheckRequest{service} in a gRPC length-prefixed message. */
function healthCheckRequest(service: string): Buffer {
  const name = Buffer.from(service, 'utf8');
  const body = name.length === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.from([0x0a]), varint(name.length), name]);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(body.length, 1);
  return Buffer.concat([prefix, body]);
}

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}

/** HealthCheckResponse.status from a gRPC message (field 1, varint; absent: UNKNOWN). */
function servingStatus(message: Buffer): number {
  let i = 5;
  while (i < message.length) {
    const tag = message[i++]!;
    let value = 0;
    let shift = 0;
    if ((tag & 7) === 0) {
      for (;;) {
        const b = message[i++] ?? 0;
        value |= (b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80) || i >= message.length) break;
      }
      if (tag >> 3 === 1) return value;
    } else return 0;
  }
  return 0;
}

/** pkg/probe/grpc: grpc.health.v1.Health/Check over plain HTTP/2, SERVING within the timeout is a success. */
function probeGrpc(p: NetworkProbe): Promise<ProbeOutcome> {
  const addr = joinHostPort(p.host, p.port);
  const within = formatGoDuration(p.timeoutMs * 1e6);
  return new Promise((resolve) => {
    let settled = false;
    const session = http2.connect(`http://${joinHostPort(p.target.host, p.target.port)}`);
    const settle = (outcome: ProbeOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.destroy();
      resolve(outcome);
    };
    let connected = false;
    const unreachable = (): void => settle({ ok: false, output: `timeout: failed to connect service ${JSON.stringify(addr)} within ${within}: context deadline exceeded` });
    const timer = setTimeout(() => (connected ? settle({ ok: false, output: `timeout: health rpc did not complete within ${within}` }) : unreachable()), p.timeoutMs);
    // grpc-go's blocking dial retries a refused connection until the timeout; the answer is the same, given at once.
    session.once('error', unreachable);
    session.once('connect', () => (connected = true));
    const stream = session.request({ ':method': 'POST', ':path': '/grpc.health.v1.Health/Check', ':authority': addr, 'content-type': 'application/grpc', te: 'trailers', 'user-agent': `${USER_AGENT} grpc-go/1.65.0` });
    const chunks: Buffer[] = [];
    let headerStatus: string | undefined;
    let headerMessage: string | undefined;
    stream.on('response', (headers) => {
      headerStatus = headers['grpc-status'] as string | undefined;
      headerMessage = headers['grpc-message'] as string | undefined;
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    let trailerStatus: string | undefined;
    let trailerMessage: string | undefined;
    stream.on('trailers', (trailers) => {
      trailerStatus = trailers['grpc-status'] as string | undefined;
      trailerMessage = trailers['grpc-message'] as string | undefined;
    });
    stream.once('error', () => {});
    stream.once('close', () => {
      if (!connected) return unreachable();
      const code = Number(trailerStatus ?? headerStatus ?? 2);
      const message = decodeURIComponent(trailerMessage ?? headerMessage ?? '');
      if (code === 12) return settle({ ok: false, output: `error: this server does not implement the grpc health protocol (grpc.health.v1.Health): ${message}` });
      if (code === 4) return settle({ ok: false, output: `timeout: health rpc did not complete within ${within}` });
      if (code !== 0) return settle({ ok: false, output: `error: health rpc probe failed: rpc error: code = ${GRPC_CODES[code] ?? `Code(${code})`} desc = ${message}` });
      const status = servingStatus(Buffer.concat(chunks));
      if (status !== 1) return settle({ ok: false, output: `service unhealthy (responded with ${JSON.stringify(SERVING_STATUS[status] ?? String(status))})` });
      settle({ ok: true, output: 'service healthy' });
    });
    stream.end(healthCheckRequest(p.grpcService ?? ''));
  });
}

/** Runs the probe once. */
export function runNetworkProbe(p: NetworkProbe): Promise<ProbeOutcome> {
  if (p.http) return probeHttp(p);
  if (p.grpcService !== undefined) return probeGrpc(p);
  return probeTcp(p);
}
