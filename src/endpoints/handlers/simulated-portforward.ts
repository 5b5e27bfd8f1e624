// `kubectl port-forward` to a pod on a simulated node, as the kubelet serves it: each forwarded connection reaches
// what listens on the pod's port, which for a simulated pod is where the test serves it on loopback (the containers
// test control's `ports`); a port nothing serves is refused with the container runtime's error. Three ways in, as
// kube-apiserver takes them: SPDY (`portforward.k8s.io`: a data and an error stream per connection, paired by their
// requestid header), SPDY tunneled through a WebSocket (`SPDY/3.1+portforward.k8s.io`, what kubectl 1.31+ uses), and
// the WebSocket channel protocol (`v4.channel.k8s.io`: a data and an error channel per port of the `ports` query,
// each opened with the port as two little-endian bytes; client-node's and the Python client's port-forward).

import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import type { KubeObject } from '../../registry/types.ts';
import type { HttpRequest } from '../../server/types.ts';
import { acceptSpdy, refuseUpgrade, serveSpdySession, type SpdyStream } from '../spdy.ts';
import { acceptWebSocket, NORMAL_CLOSE_FRAME, readClientFrames, webSocketByteStream, webSocketFrame } from '../websocket.ts';

export const PORT_FORWARD_SPDY_PROTOCOL = 'portforward.k8s.io';
export const PORT_FORWARD_TUNNEL_PROTOCOL = `SPDY/3.1+${PORT_FORWARD_SPDY_PROTOCOL}`;
const PORT_FORWARD_CHANNEL_PROTOCOL = 'v4.channel.k8s.io';
/** How long the kubelet waits for both streams of a forwarded connection. */
const STREAM_PAIR_TIMEOUT_MS = 30_000;
/** Forwarded data arrives in frames of at most 32 KiB from client-go; far larger ones end the session. */
const MAX_FRAME_BYTES = 1024 * 1024;
const OP_BINARY = 0x2;

/** The pod as the kubelet's port forwarder knows it, and where its ports are served. */
export interface ForwardedPod {
  /** The pod sandbox's ID, which the container runtime's messages name (the kubelet passes no uid along). */
  readonly sandbox: string;
  target(port: number): { host: string; port: number } | undefined;
}

export function forwardedPod(pod: KubeObject, target: ForwardedPod['target']): ForwardedPod {
  return { sandbox: createHash('sha256').update(pod.metadata.uid ?? '').digest('hex'), target };
}

/** One forwarded connection's two ends on the client's side. */
interface ForwardEnds {
  write(data: Buffer): void;
  /** The forward failed: the kubelet's message on the error stream. */
  fail(message: string): void;
  /** The forward is over: both streams closed. */
  done(): void;
  onData?: (data: Buffer) => void;
  onEnd?: () => void;
}

/** What containerd answers when nothing listens on the port in the pod's network namespace. */
function refusedInside(pod: ForwardedPod, port: number): string {
  return `failed to execute portforward in network namespace "/var/run/netns/cni-${pod.sandbox.slice(0, 32)}": failed to connect to localhost:${port} inside namespace "${pod.sandbox}", IPv4: dial tcp4 127.0.0.1:${port}: connect: connection refused IPv6 dial tcp6 [::1]:${port}: connect: connection refused `;
}

/**
 * One forwarded connection, as the runtime's PortForward copies it: the client's bytes to the port, the port's back,
 * until the port's side ends (then both streams close); the client's end half-closes the port's side.
 */
function forwardConnection(pod: ForwardedPod, port: number, ends: ForwardEnds): void {
  const failWith = (why: string) => {
    ends.fail(`error forwarding port ${port} to pod ${pod.sandbox}, uid : ${why}`);
    ends.done();
  };
  const address = pod.target(port);
  if (!address) return failWith(refusedInside(pod, port));
  const conn = connect({ host: address.host, port: address.port });
  let connected = false;
  let over = false;
  const finish = () => {
    if (over) return;
    over = true;
    ends.done();
  };
  conn.on('connect', () => (connected = true));
  conn.on('data', (d: Buffer) => ends.write(d));
  conn.on('end', finish);
  conn.on('close', finish);
  conn.on('error', () => {
    if (!connected && !over) {
      over = true;
      failWith(refusedInside(pod, port));
    }
  });
  ends.onData = (d) => {
    if (!conn.destroyed) conn.write(d);
  };
  ends.onEnd = () => {
    if (!conn.destroyed) conn.end();
  };
}

const validPort = (s: string | undefined): boolean => s !== undefined && /^[0-9]{1,5}$/.test(s) && Number(s) >= 1 && Number(s) <= 65535;

/**
 * A SPDY session of forwarded connections (on an upgraded HTTP/1.1 connection or a tunnel): streams without a valid
 * port or stream type are refused, as the kubelet's stream handler refuses them; each pair of a data and an error
 * stream with one requestid is a connection, forwarded once both have come (within 30 s).
 */
function servePortForwardSession(socket: Duplex, pod: ForwardedPod): Promise<void> {
  return new Promise<void>((resolve) => {
    const pairs = new Map<string, { data?: SpdyStream; error?: SpdyStream; timer: NodeJS.Timeout }>();
    const session = serveSpdySession(
      socket,
      (stream) => {
        const type = stream.headers.get('streamtype')!;
        // Clients older than request ids: a connection's error stream is opened just before its data stream.
        const id = stream.headers.get('requestid') ?? String(type === 'error' ? stream.id : stream.id - 2);
        let pair = pairs.get(id);
        if (!pair) {
          const timer = setTimeout(() => {
            pairs.delete(id);
            const p = pair!;
            p.error?.write(`(conn=${socketName(socket)}, request=${id}) timed out waiting for streams`);
            p.error?.end();
            p.data?.end();
          }, STREAM_PAIR_TIMEOUT_MS);
          timer.unref();
          pairs.set(id, (pair = { timer }));
        }
        if (pair[type as 'data' | 'error']) {
          pair.error?.write(`error processing stream for request ${id}: ${type} stream already assigned`);
          stream.end();
          return;
        }
        pair[type as 'data' | 'error'] = stream;
        if (!pair.data || !pair.error) return;
        clearTimeout(pair.timer);
        pairs.delete(id);
        const { data, error } = pair;
        const ends: ForwardEnds = {
          write: (d) => data.write(d),
          fail: (message) => error.write(message),
          done() {
            data.end();
            error.end();
          },
        };
        data.onData = (d) => ends.onData?.(d);
        data.onEnd = () => ends.onEnd?.();
        forwardConnection(pod, Number(data.headers.get('port')), ends);
      },
      () => {
        for (const p of pairs.values()) clearTimeout(p.timer);
        socket.destroy();
        resolve();
      },
      (headers) => validPort(headers.get('port')) && (headers.get('streamtype') === 'data' || headers.get('streamtype') === 'error'),
    );
    void session;
  });
}

const socketName = (socket: Duplex): string => {
  const s = socket as { remoteAddress?: string; remotePort?: number };
  return s.remoteAddress ? `${s.remoteAddress}:${s.remotePort ?? ''}` : 'tunnel';
};

/** SPDY: the handshake offers `portforward.k8s.io`, then the session. */
export function serveSpdyPortForward(req: HttpRequest, socket: Duplex, pod: ForwardedPod): Promise<void> {
  if (acceptSpdy(req, socket, [PORT_FORWARD_SPDY_PROTOCOL]) === false) return Promise.resolve();
  return servePortForwardSession(socket, pod);
}

/** Whether a WebSocket request asks for SPDY tunneled through it (kubectl port-forward since 1.31). */
export function wantsTunnel(req: HttpRequest): boolean {
  const offered = req.headers['sec-websocket-protocol'];
  return (Array.isArray(offered) ? offered.join(',') : (offered ?? '')).split(',').some((p) => p.trim() === PORT_FORWARD_TUNNEL_PROTOCOL);
}

/** SPDY inside a WebSocket's binary messages. */
export function serveTunneledPortForward(req: HttpRequest, socket: Duplex, pod: ForwardedPod): Promise<void> {
  if (acceptWebSocket(req, socket, [PORT_FORWARD_TUNNEL_PROTOCOL]) === false) return Promise.resolve();
  return servePortForwardSession(webSocketByteStream(socket, MAX_FRAME_BYTES), pod);
}

/**
 * The `ports` of a WebSocket port-forward, as the kubelet reads them (its `port` parameters, which kube-apiserver
 * makes of `ports`): an error message for a missing or malformed one.
 */
export function forwardedPorts(values: readonly string[]): number[] | string {
  if (values.length === 0) return 'query parameter "port" is required';
  const ports: number[] = [];
  for (const v of values) {
    for (const s of v.split(',')) {
      if (!/^[0-9]+$/.test(s) || Number(s) > 65535) return `unable to parse "${s}" as a port: strconv.ParseUint: parsing "${s}": ${/^[0-9]+$/.test(s) ? 'value out of range' : 'invalid syntax'}`;
      if (Number(s) < 1) return `port "${s}" must be > 0`;
      ports.push(Number(s));
    }
  }
  return ports;
}

/**
 * The WebSocket channel protocol: for the i-th port, channel 2i carries the connection's bytes both ways and channel
 * 2i+1 the error, each opened with the port; the session ends when every port's connection has.
 */
export function serveWebSocketPortForward(req: HttpRequest, socket: Duplex, pod: ForwardedPod, ports: readonly number[]): Promise<void> {
  if (acceptWebSocket(req, socket, [PORT_FORWARD_CHANNEL_PROTOCOL]) === false) return Promise.resolve();
  return new Promise<void>((resolve) => {
    let over = false;
    const finish = () => {
      if (over) return;
      over = true;
      socket.destroy();
      resolve();
    };
    const message = (channel: number, data: Uint8Array) => {
      if (socket.destroyed || socket.writableEnded) return;
      const payload = Buffer.allocUnsafe(data.length + 1);
      payload[0] = channel;
      payload.set(data, 1);
      socket.write(webSocketFrame(OP_BINARY, payload));
    };
    const inputs: (((d: Buffer) => void) | undefined)[] = [];
    const closers: ((() => void) | undefined)[] = [];
    let open = ports.length;
    ports.forEach((port, i) => {
      const portBytes = Buffer.alloc(2);
      portBytes.writeUInt16LE(port);
      message(2 * i, portBytes);
      message(2 * i + 1, portBytes);
      const ends: ForwardEnds = {
        write: (d) => message(2 * i, d),
        fail: (m) => message(2 * i + 1, Buffer.from(m, 'utf8')),
        done() {
          if (--open === 0 && !socket.destroyed) {
            socket.end(NORMAL_CLOSE_FRAME);
            setTimeout(finish, 1000).unref();
          }
        },
      };
      forwardConnection(pod, port, ends);
      inputs[2 * i] = (d) => ends.onData?.(d);
      closers[2 * i] = () => ends.onEnd?.();
    });
    readClientFrames(
      socket,
      () => {
        for (const close of closers) close?.();
        finish();
      },
      (m) => {
        if (m.length > 1) inputs[m[0]!]?.(m.subarray(1));
      },
      MAX_FRAME_BYTES,
    );
    socket.on('close', finish);
    socket.on('error', finish);
  });
}

/** Before any upgrade: the kubelet's 400 for the ports of a WebSocket port-forward. */
export function refusePorts(socket: Duplex, message: string): void {
  refuseUpgrade(socket, 400, 'Bad Request', message);
}
