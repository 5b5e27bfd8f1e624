// The kubelet's HTTP, TCP and gRPC probes, run for real against a container port the containers test control maps to
// a test's loopback server. Each answers as kube's prober does (pkg/probe/http, tcp, grpc): the result and the output
// the kubelet puts in an Unhealthy event, with the pod's address in it (the kubelet dials the pod IP; here the
// mapped loopback address is dialled in its place).

import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { connect } from 'node:net';
import { formatGoDuration } from '../../encoding/protobuf/duration.ts';
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

export interface ProbeOutcome {
  readonly ok: boolean;
  /** Passed with a warning (a redirect to another host): the kubelet records a ProbeWarning event. */
  readonly warning?: boolean;
  readonly output: string;
}

const USER_AGENT = 'kube-probe/1.31';
/** kube's prober reads at most this much of an HTTP probe's body. */
const MAX_BODY = 10 * 1024;

/** net.JoinHostPort. */
const joinHostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

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

/** What Go's net.Dial says of a failed dial, as the prober reports it. */
function dialError(host: string, port: number, err: NodeJS.ErrnoException | 'timeout'): string {
  const addr = joinHostPort(host, port);
  if (err === 'timeout') return `dial tcp ${addr}: i/o timeout`;
  if (err.code === 'ECONNREFUSED') return `dial tcp ${addr}: connect: connection refused`;
  if (err.code === 'ECONNRESET') return `read tcp ${addr}: read: connection reset by peer`;
  return `dial tcp ${addr}: ${err.message}`;
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

/** One GET's answer (status, Location, the body's first 10 KiB), or the error Go's client would give. */
function getOnce(target: LoopbackAddress, url: URL, headers: Record<string, string>, timeoutMs: number): Promise<{ code: number; location?: string; body: string } | { error: string }> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer: { code: number; location?: string; body: string } | { error: string }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const options = { host: target.host, port: target.port, path: `${url.pathname}${url.search}`, method: 'GET', headers, agent: false as const };
    const req = url.protocol === 'https:' ? https.request({ ...options, rejectUnauthorized: false }) : http.request(options);
    const timer = setTimeout(() => {
      req.destroy();
      settle({ error: `Get "${url.href}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)` });
    }, Math.max(0, timeoutMs));
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size < MAX_BODY) chunks.push(c);
        size += c.length;
      });
      res.once('end', () => settle({ code: res.statusCode ?? 0, location: res.headers.location, body: Buffer.concat(chunks).subarray(0, MAX_BODY).toString('utf8') }));
      res.once('error', () => settle({ error: `Get "${url.href}": unexpected EOF` }));
    });
    req.once('error', (err: NodeJS.ErrnoException) => settle({ error: `Get "${url.href}": ${dialError(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port || (url.protocol === 'https:' ? 443 : 80)), err)}` }));
    req.end();
  });
}

/**
 * pkg/probe/http: a GET answered 200-299 within the timeout passes, 400 and above fails; a redirect to the same host
 * is followed (10 at most), any other 3xx ends the probe with a warning, which passes it.
 */
async function probeHttp(p: NetworkProbe): Promise<ProbeOutcome> {
  const h = p.http!;
  const authority = joinHostPort(p.host, p.port);
  let url = new URL(`${h.scheme}://${authority}${h.path}`);
  const headers: Record<string, string> = { Host: authority, 'User-Agent': USER_AGENT, Accept: '*/*' };
  for (const [name, value] of h.headers) {
    const known = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
    headers[known ?? name] = value;
  }
  const deadline = performance.now() + p.timeoutMs;
  let target: LoopbackAddress | undefined = p.target;
  for (let redirects = 0; ; redirects++) {
    const answer = target ? await getOnce(target, url, headers, deadline - performance.now()) : { error: `Get "${url.href}": ${dialError(url.hostname, Number(url.port), { code: 'ECONNREFUSED' } as NodeJS.ErrnoException)}` };
    if ('error' in answer) return { ok: false, output: answer.error };
    const { code, location, body } = answer;
    if ([301, 302, 303, 307, 308].includes(code) && location !== undefined) {
      const next = new URL(location, url);
      if (next.hostname !== url.hostname) return { ok: true, warning: true, output: `Probe terminated redirects, Response body: ${body}` };
      if (redirects + 1 >= 10) return { ok: false, output: `Get "${next.href}": stopped after 10 redirects` };
      const port = Number(next.port || (next.protocol === 'https:' ? 443 : 80));
      target = port === p.port ? p.target : p.redirectTarget?.(port);
      // Go keeps a Host given for the first request only while the redirects stay on its host and port.
      if (next.host !== url.host) headers.Host = next.host;
      url = next;
      continue;
    }
    if (code >= 300 && code < 400) return { ok: true, warning: true, output: `Probe terminated redirects, Response body: ${body}` };
    if (code >= 200 && code < 300) return { ok: true, output: body };
    return { ok: false, output: `HTTP probe failed with statuscode: ${code}` };
  }
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
