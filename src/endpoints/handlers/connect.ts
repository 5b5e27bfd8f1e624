// Pod log/exec/attach/portforward/proxy, and the node and service proxies, on a server that runs no kubelets and no
// containers: kube's answers after the same lookups and checks. The kubelets of `--simulate-workloads` run no
// processes: their containers print and answer what the containers test control says (simulated-logs.ts,
// simulated-exec.ts), and a port-forward or a pod or service proxy reaches the server a test runs for a pod's port
// (simulated-portforward.ts, relayToServed). Nothing else listens at a pod's or node's address, so any other proxied
// request meets the refused dial kube's proxy transport reports.

import { badRequest, fieldErrors, invalid, notFound, StatusError, type FieldError } from '../../apis/errors.ts';
import { goTimeParseError } from '../../encoding/go-decode.ts';
import { lenientBool, optionalInt } from '../options.ts';
import type { LogOptions } from './simulated-logs.ts';
import type { KubeObject } from '../../registry/types.ts';
import { writable, writeBody, writeError } from '../respond.ts';
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { HOP_BY_HOP, relayRequest } from '../../server/relay.ts';
import { admissionInfo, requestContext, type Scope } from '../scope.ts';
import { admissionAttributes } from '../../admission/request.ts';
import { SIMULATED_NODE_ANNOTATION } from '../../apis/capstan-annotations.ts';
import { loopbackContext } from '../../registry/registry.ts';
import { isIPv4, isIPv6 } from 'node:net';
import { runningId, simulatedLog, stillRunning } from './simulated-logs.ts';
import { hijack } from '../../server/hijack.ts';
import { isSpdyRequest, isUpgradeRequest, isWebSocketRequest } from '../../server/upgrade-requests.ts';
import type { Duplex } from 'node:stream';
import { whenClosed } from '../../server/response-close.ts';
import { isHttp2Response } from '../../server/write-batching.ts';

function containerNames(pod: KubeObject, field: 'containers' | 'initContainers' | 'ephemeralContainers'): string[] {
  const spec = pod.spec as Record<string, unknown> | undefined;
  const list = spec?.[field];
  if (!Array.isArray(list)) return [];
  return list.map((c) => (c && typeof c === 'object' ? String((c as { name?: unknown }).name ?? '') : ''));
}

/** validateContainer: the named container must exist; without a name the pod must have exactly one. */
function validateContainer(scope: Scope, pod: KubeObject): void {
  const container = scope.r.query.get('container') ?? '';
  const containers = containerNames(pod, 'containers');
  const all = [...containers, ...containerNames(pod, 'initContainers'), ...containerNames(pod, 'ephemeralContainers')];
  if (container === '') {
    if (containers.length === 1) return;
    const init = containerNames(pod, 'initContainers');
    const ephemeral = containerNames(pod, 'ephemeralContainers');
    let message = `a container name must be specified for pod ${scope.name}, choose one of: [${containers.join(' ')}]`;
    if (init.length > 0) message += ` or one of the init containers: [${init.join(' ')}]`;
    if (ephemeral.length > 0) message += ` or one of the ephemeral containers: [${ephemeral.join(' ')}]`;
    throw badRequest(message);
  }
  if (!all.includes(container)) throw badRequest(`container ${container} is not valid for pod ${scope.name}`);
}

/** The options kind of each CONNECT subresource (resource/subresource), which admission sees. */
const CONNECT_OPTIONS: Record<string, string> = {
  'pods/exec': 'PodExecOptions',
  'pods/attach': 'PodAttachOptions',
  'pods/portforward': 'PodPortForwardOptions',
  'pods/proxy': 'PodProxyOptions',
  'nodes/proxy': 'NodeProxyOptions',
  'services/proxy': 'ServiceProxyOptions',
};

/** The connect options object admission sees for a CONNECT (kube decodes them from the query). */
function connectOptions(scope: Scope, kind: string): Record<string, unknown> {
  const q = scope.r.query;
  const out: Record<string, unknown> = { kind, apiVersion: 'v1' };
  for (const flag of ['stdin', 'stdout', 'stderr', 'tty']) if (q.has(flag)) out[flag] = lenientBool(q, flag);
  if (q.has('container')) out.container = q.get('container');
  if (q.has('command')) out.command = q.getAll('command');
  if (q.has('ports')) out.ports = q.getAll('ports').map(Number);
  if (q.has('path')) out.path = q.get('path');
  return out;
}

async function readNode(scope: Scope, name: string): Promise<KubeObject | undefined> {
  const def = scope.deps.registry.lookup('', 'v1', 'nodes');
  return def && (await scope.deps.registry.store(def).get(loopbackContext(), name).catch(() => undefined));
}

/**
 * kube's answer when the node's kubelet cannot be reached (ErrorToAPIStatus of the dial error: 500, no reason). No
 * kubelet serves any node here, so the dial is not tried: the message says why instead of a resolver's words.
 */
function kubeletUnreachable(node: KubeObject): StatusError {
  const name = node.metadata.name ?? '';
  const simulated = node.metadata.annotations?.[SIMULATED_NODE_ANNOTATION] === 'true';
  return new StatusError(500, '', `error dialing backend: no kubelet serves node "${name}"${simulated ? ' (a simulated node: its containers run no processes)' : ''}`);
}

/**
 * utilnet.SplitSchemeNamePort: a proxy's id is "name", "name:port" or "scheme:name:port" (scheme http or https, name
 * not empty); undefined when it is none of these.
 */
function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  if (parts.length > 3) return undefined;
  const [scheme, name, port] = parts.length === 3 ? parts : ['', parts[0]!, parts[1] ?? ''];
  return name !== '' && (scheme === '' || scheme === 'http' || scheme === 'https') ? { scheme: scheme!, name: name!, port: port! } : undefined;
}

/**
 * What kube's proxy transport answers when the dial fails: 503 "error trying to reach service: <the dial's error>".
 * Nothing listens at a pod's or node's address here, so the dial is refused; it is not tried.
 */
function dialRefused(scheme: string, host: string, port: string): StatusError {
  const address = host.includes(':') ? `[${host}]` : host;
  const target = `${address}:${port || (scheme === 'https' ? '443' : '80')}`;
  return new StatusError(503, 'ServiceUnavailable', `error trying to reach service: dial tcp ${target}: connect: connection refused`);
}

const DNS_OR_IP_ADDRESS_TYPES = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'];

/** Where a proxy sends the request: scheme ("" for http), host and port ("" for the scheme's). */
interface ProxyTarget {
  readonly scheme: string;
  readonly host: string;
  readonly port: string;
  /** Where a test serves this port of a simulated pod (the containers test control's `ports`). */
  readonly served?: { host: string; port: number };
}

/** Where the test serves the pod's port, if it does. */
function servedPort(scope: Scope, pod: KubeObject | undefined, port: string): ProxyTarget['served'] {
  return pod && /^[0-9]{1,5}$/.test(port) ? scope.deps.simulatedContainers?.portTarget(pod, Number(port)) : undefined;
}

/** nodes/proxy (node.ResourceLocation): to the node's kubelet, at its preferred address and kubelet port. */
async function nodeLocation(scope: Scope): Promise<ProxyTarget> {
  const id = splitSchemeNamePort(scope.name);
  if (!id) throw badRequest(`invalid node request ${JSON.stringify(scope.name)}`);
  const node = await scope.store.get(requestContext(scope), id.name);
  const status = (node.status ?? {}) as { addresses?: { type?: string; address?: string }[]; daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } };
  const addresses = status.addresses ?? [];
  const preferred = DNS_OR_IP_ADDRESS_TYPES.map((t) => addresses.find((a) => a.type === t && a.address)).find((a) => a !== undefined);
  if (!preferred) throw new StatusError(500, '', `no preferred addresses found; known addresses: [${addresses.map((a) => `{${a.type ?? ''} ${a.address ?? ''}}`).join(' ')}]`);
  const kubeletPort = String(status.daemonEndpoints?.kubeletEndpoint?.Port || 10250);
  const port = id.port === '' ? kubeletPort : id.port;
  return { scheme: id.port === '' || id.port === kubeletPort ? 'https' : id.scheme, host: preferred.address!, port };
}

/** services/proxy (service.ResourceLocation): to a ready address of the service's endpoints, on the named port. */
async function serviceLocation(scope: Scope): Promise<ProxyTarget> {
  const id = splitSchemeNamePort(scope.name);
  if (!id) throw badRequest(`invalid service request ${JSON.stringify(scope.name)}`);
  const ctx = requestContext(scope);
  let portName = id.port;
  // A port that strconv.ParseInt takes as an int64 is a number: the service port it names gives the port's name.
  if (/^[+-]?[0-9]+$/.test(id.port) && BigInt(id.port) >= -(2n ** 63n) && BigInt(id.port) < 2n ** 63n) {
    const service = await scope.store.get(ctx, id.name);
    const ports = ((service.spec as { ports?: { name?: string; port?: number }[] } | undefined)?.ports ?? []);
    const number = BigInt(id.port);
    const match = ports.find((p) => Number.isInteger(p.port) && BigInt(p.port!) === number);
    if (!match) throw new StatusError(503, 'ServiceUnavailable', `no service port ${number} found for service ${JSON.stringify(id.name)}`);
    portName = match.name ?? '';
  }
  const registry = scope.deps.registry;
  const endpointsDef = registry.lookup('', 'v1', 'endpoints')!;
  const endpoints = await registry.store(endpointsDef).get(ctx, id.name);
  const subsets = (endpoints as { subsets?: { addresses?: { ip?: string; targetRef?: { kind?: string; name?: string } }[]; ports?: { name?: string; port?: number }[] }[] }).subsets ?? [];
  if (subsets.length === 0) throw new StatusError(503, 'ServiceUnavailable', `no endpoints available for service ${JSON.stringify(id.name)}`);
  for (const subset of subsets) {
    const address = subset.addresses?.find((a) => a.ip);
    const port = subset.ports?.find((p) => (p.name ?? '') === portName);
    if (!address || !port) continue;
    const target = { scheme: id.scheme, host: address.ip!, port: String(port.port ?? '') };
    const ref = address.targetRef;
    if (ref?.kind !== 'Pod' || !ref.name || !scope.deps.simulatedContainers) return target;
    const pod = await registry.store(registry.lookup('', 'v1', 'pods')!).get(ctx, ref.name).catch(() => undefined);
    return { ...target, served: servedPort(scope, pod, target.port) };
  }
  throw new StatusError(503, 'ServiceUnavailable', `no endpoints available for service ${JSON.stringify(scope.name)}`);
}

/** pods/proxy (pod.ResourceLocation): to the pod's IP, on the port named or the first container port declared. */
async function podLocation(scope: Scope): Promise<ProxyTarget> {
  const id = splitSchemeNamePort(scope.name);
  if (!id) throw badRequest(`invalid pod request ${JSON.stringify(scope.name)}`);
  const pod = await scope.store.get(requestContext(scope), id.name);
  let port = id.port;
  if (port === '') {
    const containers = ((pod.spec as { containers?: { ports?: { containerPort?: number }[] }[] } | undefined)?.containers ?? []);
    const declared = containers.find((c) => (c.ports?.length ?? 0) > 0);
    if (declared) port = String(declared.ports![0]!.containerPort ?? '');
  }
  const podIP = String((pod.status as { podIP?: unknown } | undefined)?.podIP ?? '');
  if (!isGlobalUnicast(podIP)) throw badRequest('address not allowed');
  return { scheme: id.scheme, host: podIP, port, served: servedPort(scope, pod, port) };
}

/**
 * A proxy: the target found, a GET or HEAD of the proxy's root without its trailing slash is redirected to it (301,
 * as kube's proxyRedirectsforRootPath does, so that relative links work); any other request goes to where a test
 * serves the port, or meets the refused dial.
 */
function proxy(scope: Scope, target: ProxyTarget): Promise<void> | void {
  const method = scope.r.req.method ?? 'GET';
  const url = scope.r.req.url ?? '';
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  // Nothing after .../<resource>/<name>/proxy is the proxy's root.
  const marker = `/${scope.def.resource}/${scope.name}/proxy`;
  const atRoot = scope.info.path.indexOf(marker) === scope.info.path.length - marker.length;
  if ((method === 'GET' || method === 'HEAD') && atRoot && !rawPath.endsWith('/')) {
    const res = scope.r.res;
    res.statusCode = 301;
    res.setHeader('Location', `${rawPath}/${q < 0 ? '' : url.slice(q)}`);
    res.setHeader('Content-Length', 0);
    res.end();
    return;
  }
  if (!target.served) throw dialRefused(target.scheme, target.host, target.port);
  // What follows .../proxy in the raw path, and the query, go on (JoinPreservingTrailingSlash onto "/").
  const start = rawPath.indexOf('/proxy', rawPath.indexOf(`/${scope.def.resource}/`) + scope.def.resource.length + 2) + '/proxy'.length;
  const path = `${rawPath.slice(start) || '/'}${q < 0 ? '' : url.slice(q)}`;
  return relayToServed(scope, target, target.served, path);
}

/**
 * A proxied request relayed to the server a test runs for the pod's port, as kube's proxy sends it to the pod (the
 * caller's headers without hop-by-hop ones; the authentication filter has already removed Authorization); a refused
 * connection is the pod's refused dial.
 */
function relayToServed(scope: Scope, target: ProxyTarget, served: { host: string; port: number }, path: string): Promise<void> {
  const req = scope.r.req;
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !name.startsWith(':') && !HOP_BY_HOP.has(name) && name !== 'authorization') headers[name] = value;
  headers.host = String(req.headers.host ?? req.headers[':authority'] ?? `${target.host}:${target.port}`);
  const remote = req.socket?.remoteAddress;
  if (remote) headers['x-forwarded-for'] = req.headers['x-forwarded-for'] ? `${String(req.headers['x-forwarded-for'])}, ${remote}` : remote;
  const options = { host: served.host, port: served.port, method: req.method ?? 'GET', path };
  return relayRequest(req, scope.r.res, {
    headers,
    open: (h) => (target.scheme === 'https' ? httpsRequest({ ...options, headers: h, rejectUnauthorized: false }) : httpRequest({ ...options, headers: h })),
    failed: (err) => writeError(scope.r, (err as NodeJS.ErrnoException).code === 'ECONNREFUSED' ? dialRefused(target.scheme, target.host, target.port) : new StatusError(503, 'ServiceUnavailable', `error trying to reach service: ${(err as Error).message}`)),
  });
}

/** Go's IP.IsGlobalUnicast of an address kube would parse (not unspecified, loopback, multicast or link-local). */
function isGlobalUnicast(ip: string): boolean {
  if (isIPv4(ip)) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    return !(a === 0 || a === 127 || a >= 224 || (a === 169 && b === 254) || ip === '255.255.255.255');
  }
  if (!isIPv6(ip)) return false;
  const lower = ip.toLowerCase();
  return !(lower === '::' || lower === '::1' || lower.startsWith('ff') || /^fe[89ab]/.test(lower));
}

/**
 * The PodLogOptions of a log request, decoded (400 for a malformed number or time, as the parameter codec answers)
 * and checked as ValidatePodLogOptions does (422 PodLogOptions), before the pod is read.
 */
function checkLogOptions(scope: Scope): LogOptions {
  const q = scope.r.query;
  const tailLines = optionalInt(q, 'tailLines');
  const limitBytes = optionalInt(q, 'limitBytes');
  const sinceSeconds = optionalInt(q, 'sinceSeconds');
  const sinceTime = q.get('sinceTime');
  if (sinceTime !== null && sinceTime !== '' && sinceTime !== 'null') {
    const err = goTimeParseError(sinceTime);
    if (err) throw badRequest(err);
  }
  const errs: FieldError[] = [];
  if (tailLines !== undefined && tailLines < 0) errs.push(fieldErrors.invalid('tailLines', tailLines, 'must be greater than or equal to 0'));
  if (limitBytes !== undefined && limitBytes < 1) errs.push(fieldErrors.invalid('limitBytes', limitBytes, 'must be greater than 0'));
  if (sinceSeconds !== undefined && sinceTime !== null) errs.push(fieldErrors.forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (sinceSeconds !== undefined && sinceSeconds < 1) errs.push(fieldErrors.invalid('sinceSeconds', sinceSeconds, 'must be greater than 0'));
  if (errs.length > 0) throw invalid({ group: '', kind: 'PodLogOptions' }, scope.name, errs);
  const flag = (name: string) => lenientBool(q, name) === true;
  return { previous: flag('previous'), follow: flag('follow'), timestamps: flag('timestamps'), tailLines, limitBytes, sinceSeconds, sinceTime: sinceTime === null || sinceTime === '' || sinceTime === 'null' ? undefined : sinceTime };
}

/** A watch of the pod until the container's run of this ID ends (it stops running, or the pod goes). */
async function watchRun(scope: Scope, pod: KubeObject, container: string, runId: string): Promise<{ ended: Promise<void>; stop(): void }> {
  const stream = await scope.store.watch(requestContext(scope), { fieldSelector: `metadata.name=${pod.metadata.name ?? ''}`, resourceVersion: pod.metadata.resourceVersion });
  let over = (): void => {};
  const ended = new Promise<void>((resolve) => (over = resolve));
  stream.start((event) => {
    if (event.type === 'DELETED' || (event.type !== 'BOOKMARK' && event.type !== 'ERROR' && !stillRunning(event.object as KubeObject, container, runId))) over();
  }, over);
  return { ended, stop: () => stream.stop() };
}

/**
 * A followed log: what the run printed, then the stream kept open (nothing more comes: a simulated container prints
 * everything as it starts) until the run ends, the pod goes, or the client leaves.
 */
async function followLog(scope: Scope, pod: KubeObject, container: string, runId: string, body: Uint8Array): Promise<void> {
  const res = writable(scope.r.res);
  const run = await watchRun(scope, pod, container, runId);
  res.setHeader('Content-Type', 'text/plain');
  if (!isHttp2Response(res)) res.setHeader('Transfer-Encoding', 'chunked');
  res.writeHead(200);
  if (body.length > 0) res.write(body);
  else res.flushHeaders?.();
  await Promise.race([run.ended, new Promise<void>((resolve) => whenClosed(scope.r.res, resolve))]);
  run.stop();
  if (!res.writableEnded) res.end();
}

/** The request's connection, taken over from the HTTP server (an upgrade request's). */
function takeSocket(scope: Scope): Duplex | undefined {
  const socket = (scope.r.res as unknown as { socket?: Duplex | null }).socket;
  if (socket) hijack(scope.r.res);
  return socket ?? undefined;
}

/** kubectl port-forward to a pod on a simulated node, over SPDY, SPDY tunneled through a WebSocket, or WebSocket channels. */
async function simulatedPortForward(scope: Scope, pod: KubeObject): Promise<void> {
  const req = scope.r.req;
  // Loaded when first used: a start needs none of the streaming code.
  const { forwardedPod, forwardedPorts, refusePorts, serveSpdyPortForward, serveTunneledPortForward, serveWebSocketPortForward, wantsTunnel } = await import('./simulated-portforward.ts');
  const socket = takeSocket(scope);
  if (!socket) return;
  const forwarded = forwardedPod(pod, (port) => scope.deps.simulatedContainers?.portTarget(pod, port));
  if (isSpdyRequest(req)) return serveSpdyPortForward(req, socket, forwarded);
  if (wantsTunnel(req)) return serveTunneledPortForward(req, socket, forwarded);
  const ports = forwardedPorts(scope.r.query.getAll('ports'));
  if (typeof ports === 'string') return refusePorts(socket, ports);
  return serveWebSocketPortForward(req, socket, forwarded, ports);
}

/**
 * kubectl exec or attach over WebSocket to a container on a simulated node: a command answers what the containers
 * test control says; an attach gets what the container prints (all of it: a simulated container prints everything
 * as it starts) and lasts until the container's run ends, as `kubectl run -i` and `kubectl debug -it` wait for it. A
 * container that does not run cannot be reached, as the kubelet's end would not open.
 */
async function simulatedStream(scope: Scope, pod: KubeObject): Promise<void> {
  const q = scope.r.query;
  const flag = (name: string) => lenientBool(q, name) === true;
  if (!flag('stdin') && !flag('stdout') && !flag('stderr')) throw badRequest('you must specify at least 1 of stdin, stdout, stderr');
  const container = q.get('container') || containerNames(pod, 'containers')[0]!;
  const [{ containerNotFound, execStatus, serveExec, serveExecOverSpdy, unableToUpgrade }, { refuseUpgrade }] = await Promise.all([import('./simulated-exec.ts'), import('../spdy.ts')]);
  const socket = takeSocket(scope);
  if (!socket) return;
  const streams = { stdin: flag('stdin'), stdout: flag('stdout'), stderr: flag('stderr'), tty: flag('tty') };
  const runId = runningId(pod, container);
  const spdy = isSpdyRequest(scope.r.req);
  const serve = spdy ? serveExecOverSpdy : serveExec;
  if (runId === undefined) {
    // The kubelet's refusal before any upgrade; over WebSocket kube-apiserver reports it in the session.
    if (spdy) return refuseUpgrade(socket, 500, 'Internal Server Error', containerNotFound(container));
    return serveExec(scope.r.req, socket, streams, { stdout: '', stderr: '' }, unableToUpgrade(container));
  }
  const simulated = scope.deps.simulatedContainers;
  if (scope.subresource === 'exec') {
    const command = q.getAll('command');
    if (simulated?.answersFromStdin(pod, container, command)) {
      const fromStdin = (stdin: Buffer) => {
        const reply = simulated.exec(pod, container, command, stdin);
        return { output: reply, status: execStatus(command, reply.exitCode) };
      };
      return serve(scope.r.req, socket, streams, { stdout: '', stderr: '' }, execStatus(command, 0), undefined, fromStdin);
    }
    const reply = simulated?.exec(pod, container, command) ?? { stdout: '', stderr: '', exitCode: 0 };
    return serve(scope.r.req, socket, streams, reply, execStatus(command, reply.exitCode));
  }
  const run = await watchRun(scope, pod, container, runId);
  await serve(scope.r.req, socket, streams, { stdout: simulated?.logs(pod, container) ?? '', stderr: '' }, execStatus([], 0), run.ended);
  run.stop();
}

export async function connectResource(scope: Scope): Promise<void> {
  const logOptions = scope.subresource === 'log' ? checkLogOptions(scope) : undefined;
  const chain = scope.deps.admission;
  const kind = CONNECT_OPTIONS[`${scope.def.resource}/${scope.subresource}`];
  if (chain && kind) {
    // kube admits a CONNECT (both phases) with the options as the object, before it reaches the pod.
    const attrs = admissionAttributes(admissionInfo(scope, {}), 'CONNECT', scope.name, connectOptions(scope, kind) as KubeObject, undefined);
    await chain.admit(attrs);
    await chain.validate(attrs);
  }
  if (scope.subresource === 'proxy') {
    const locate = scope.def.resource === 'nodes' ? nodeLocation : scope.def.resource === 'services' ? serviceLocation : podLocation;
    return proxy(scope, await locate(scope));
  }
  const pod = await scope.store.get(requestContext(scope), scope.name);
  if (scope.subresource === 'log' || scope.subresource === 'exec' || scope.subresource === 'attach') validateContainer(scope, pod);
  const nodeName = String((pod.spec as Record<string, unknown> | undefined)?.nodeName ?? '');
  // A pod without a node has no logs yet: kube streams an empty body.
  if (scope.subresource === 'log' && nodeName === '') {
    writeBody(scope.r, 200, 'text/plain', '');
    return;
  }
  if (nodeName === '') throw badRequest(`pod ${scope.name} does not have a host assigned`);
  // kube finds the node (GetConnectionInfo) before it dials the kubelet.
  const node = await readNode(scope, nodeName);
  if (!node) throw notFound({ group: '', resource: 'nodes' }, nodeName);
  const simulated = node.metadata.annotations?.[SIMULATED_NODE_ANNOTATION] === 'true';
  // kube's UpgradeAwareHandler for exec, attach and port-forward: a request that is no upgrade goes no further.
  const streaming = scope.subresource === 'exec' || scope.subresource === 'attach' || scope.subresource === 'portforward';
  if (streaming && !isUpgradeRequest(scope.r.req)) throw badRequest('Upgrade request required');
  const upgrade = (isWebSocketRequest(scope.r.req) || isSpdyRequest(scope.r.req)) && !isHttp2Response(scope.r.res);
  if (simulated && upgrade && (scope.subresource === 'exec' || scope.subresource === 'attach')) return simulatedStream(scope, pod);
  if (simulated && upgrade && scope.subresource === 'portforward') return simulatedPortForward(scope, pod);
  // A simulated node's kubelet serves what its containers printed.
  if (logOptions && simulated) {
    const container = scope.r.query.get('container') || containerNames(pod, 'containers')[0]!;
    const log = simulatedLog(pod, container, scope.deps.simulatedContainers?.logs(pod, container) ?? '', logOptions);
    if (log.following === undefined) writeBody(scope.r, 200, 'text/plain', log.body);
    else await followLog(scope, pod, container, log.following, log.body);
    return;
  }
  throw kubeletUnreachable(node);
}
