// `kubectl exec` into a container on a simulated node, over WebSocket with the remotecommand protocol
// v5.channel.k8s.io, which kubectl and client-go's WebSocket executor speak since 1.30 (kube-apiserver serves them), or
// v4.channel.k8s.io, which the Python client speaks (the kubelet serves it through the apiserver's proxy): the
// handshake picks the first of these the client offers (403 otherwise, as x/net/websocket refuses), an empty
// message on the lowest writable channel says the session is open, then the command's output on stdout (1) and
// stderr (2), its Status on the error channel (3) (Success, or NonZeroExitCode with the code as the ExitCode cause,
// which kubectl turns into "command terminated with exit code N" and its own exit code), and a close frame. No
// process runs: what the command prints and exits with is what the containers test control scripts (exit 0 and no
// output otherwise), or, for the file commands `kubectl cp` runs, what the container's files say, a tar extraction
// answering once it has read all of its stdin; other stdin and terminal sizes are read and dropped. The same sessions are served
// over SPDY (remotecommand v4, v3 and v2), as the kubelet serves client-go's SPDY executor through the apiserver.

import type { Duplex } from 'node:stream';
import type { HttpRequest } from '../../server/types.ts';
import { acceptSpdy, serveSpdySession, type SpdyStream } from '../spdy.ts';
import { acceptWebSocket, NORMAL_CLOSE_FRAME, readClientFrames, webSocketFrame } from '../websocket.ts';

/** The remotecommand versions served: both report the command's end as a JSON Status on the error channel. */
export const EXEC_SUBPROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

const OP_BINARY = 0x2;
/** How long a finished session waits for the client to close the connection. */
const CLIENT_CLOSE_WAIT_MS = 60_000;
const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const CLOSE_SIGNAL = 255;
/**
 * How long the simulated command takes to start before it writes anything. client-go's WebSocket executor reads
 * frames from the moment the handshake is done, on its own goroutine, while another creates its streams: a frame
 * that comes first is discarded ("Unknown stream id 1, discarding message" on kubectl's stderr, and the output lost).
 * Behind a real kubelet the process's own start makes that rare; answering in the same instant as the handshake
 * made it happen on a busy host.
 */
const COMMAND_START_MS = 20;
/** stdin arrives in frames of a few KiB (client-go writes 4 KiB ones); far larger ones end the session. */
const MAX_STDIN_FRAME_BYTES = 1024 * 1024;

/** What a command run in a simulated container answers. */
export interface ExecReply {
  readonly stdout: string | Uint8Array;
  readonly stderr: string;
  readonly exitCode: number;
}

export interface ExecStreams {
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
}

/** The kubelet's error for a container that does not run (its 500's body, before any upgrade). */
export const containerNotFound = (container: string): string => `container not found (${JSON.stringify(container)})`;

/**
 * The Status kube-apiserver's stream translator reports when the kubelet's end cannot be opened (a container that
 * does not run): an internal error carrying the executor's error.
 */
export function unableToUpgrade(container: string): string {
  const error = `unable to upgrade connection: ${containerNotFound(container)}`;
  return JSON.stringify({ metadata: {}, status: 'Failure', message: `Internal error occurred: ${error}`, reason: 'InternalError', details: { causes: [{ message: error }] }, code: 500 });
}

/** The Status on the error channel for a command that exited, as json.Marshal writes metav1.Status. */
export function execStatus(command: readonly string[], exitCode: number): string {
  if (exitCode === 0) return JSON.stringify({ metadata: {}, status: 'Success' });
  return JSON.stringify({
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${exitCode}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  });
}

const channelMessage = (channel: number, data: string | Uint8Array): Buffer => {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const payload = Buffer.allocUnsafe(bytes.length + 1);
  payload[0] = channel;
  payload.set(bytes, 1);
  return webSocketFrame(OP_BINARY, payload);
};

/**
 * Runs the session on the request's socket: the output, then, once the command is over (or `until` resolves, for an
 * attach), `status` (execStatus or unableToUpgrade); resolves once the client has closed the connection (or it broke). A command given stdin over v5
 * reads it to its end, as `cat` or `psql < dump.sql` would, so it ends when the client closes stdin (kubectl does at
 * the end of its input, or on ^D in a terminal); v4 has no way to close stdin, so there it ends at once. With a tty
 * there is no separate stderr: what the command writes there goes to the terminal (stdout).
 */
export function serveExec(req: HttpRequest, socket: Duplex, streams: ExecStreams, output: Pick<ExecReply, 'stdout' | 'stderr'>, status: string, until?: Promise<void>, fromStdin?: StdinCommand): Promise<void> {
  const protocol = acceptWebSocket(req, socket, EXEC_SUBPROTOCOLS);
  if (protocol === false) return Promise.resolve();
  // v4 cannot tell the end of stdin: such a command gets none.
  if (fromStdin && !(streams.stdin && protocol === EXEC_SUBPROTOCOLS[0])) ({ output, status } = fromStdin(Buffer.alloc(0)));
  const stdinCommand = fromStdin && streams.stdin && protocol === EXEC_SUBPROTOCOLS[0] ? fromStdin : undefined;
  return new Promise<void>((resolve) => {
    let done = false;
    let ended = false;
    let started = false;
    let endOnStart = false;
    let start: ReturnType<typeof setTimeout> | undefined;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(start);
      socket.destroy();
      resolve();
    };
    // The command's end: its status, the close frame, then the end of what this side sends (clients that poll the
    // socket, as the Python client does, see the end even when TLS has already decrypted every frame). Reading goes
    // on until the client closes its side, so that what it still sends meets no reset that could cost it output.
    const stdin: Buffer[] = [];
    let stdinBytes = 0;
    const end = () => {
      if (ended || done) return;
      if (!started) return void (endOnStart = true);
      ended = true;
      if (stdinCommand) {
        const answer = stdinCommand(Buffer.concat(stdin));
        status = answer.status;
        writeOutput(route(streams, answer.output));
      }
      socket.write(channelMessage(ERROR, status));
      socket.end(NORMAL_CLOSE_FRAME);
      const giveUp = setTimeout(finish, CLIENT_CLOSE_WAIT_MS);
      giveUp.unref();
      socket.once('close', () => clearTimeout(giveUp));
    };
    // An attach with stdin ends there too: what read the terminal would have got its end.
    const readsStdin = streams.stdin && protocol === EXEC_SUBPROTOCOLS[0];
    // v5's close signal: channel 255 naming the stream the client closed (0: stdin).
    const onMessage = (m: Buffer) => {
      if (m.length === 2 && m[0] === CLOSE_SIGNAL && m[1] === STDIN) end();
      else if (stdinCommand && m.length > 1 && m[0] === STDIN) {
        stdinBytes += m.length - 1;
        if (stdinBytes > MAX_STDIN_BYTES) return finish();
        stdin.push(m.subarray(1));
      }
    };
    // stderr first: what a command warns of comes before its output ends (tar's, before the archive it writes).
    const writeOutput = (routed: ReturnType<typeof route>) => {
      if (routed.stderr) for (const piece of pieces(routed.stderr)) socket.write(channelMessage(STDERR, piece));
      if (routed.stdout) for (const piece of pieces(routed.stdout)) socket.write(channelMessage(STDOUT, piece));
    };
    readClientFrames(socket, finish, readsStdin ? onMessage : undefined, MAX_STDIN_FRAME_BYTES);
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', finish);
    const routed = route(streams, output);
    start = setTimeout(() => {
      started = true;
      if (done) return;
      socket.write(channelMessage(streams.stdout ? STDOUT : routed.stderr !== undefined ? STDERR : ERROR, ''));
      if (!stdinCommand) writeOutput(routed);
      if (endOnStart) end();
    }, COMMAND_START_MS);
    if (until) void until.then(end);
    else if (!readsStdin) end();
  });
}

/**
 * Where the output goes: with a tty there is no separate stderr (the terminal gets both); a stream the client did
 * not ask for gets nothing (undefined: no such stream).
 */
function route(streams: ExecStreams, output: Pick<ExecReply, 'stdout' | 'stderr'>): { stdout?: string | Uint8Array; stderr?: string | Uint8Array } {
  const both = typeof output.stdout === 'string' && typeof output.stderr === 'string' ? output.stdout + output.stderr : Buffer.concat([Buffer.from(output.stdout), Buffer.from(output.stderr)]);
  return {
    stdout: streams.stdout ? (streams.tty ? both : output.stdout) : undefined,
    stderr: streams.stderr && !streams.tty ? output.stderr : undefined,
  };
}

/** Output in the pieces a process's writes would come in (the kubelet copies them on in 32 KiB buffers). */
function pieces(data: string | Uint8Array): Array<string | Uint8Array> {
  if (typeof data === 'string' || data.length <= OUTPUT_PIECE_BYTES) return [data];
  const out: Uint8Array[] = [];
  for (let at = 0; at < data.length; at += OUTPUT_PIECE_BYTES) out.push(data.subarray(at, at + OUTPUT_PIECE_BYTES));
  return out;
}
const OUTPUT_PIECE_BYTES = 32 * 1024;

/** A command whose answer is made of all of its stdin (a tar extraction): what it prints and its Status. */
export type StdinCommand = (stdin: Buffer) => { output: Pick<ExecReply, 'stdout' | 'stderr'>; status: string };
/**
 * What a command's stdin may hold; past it the session ends (its answer is made of all of it, kept in memory: the
 * most the simulated containers' files hold together).
 */
const MAX_STDIN_BYTES = 64 * 1024 * 1024;

/** The remotecommand versions served over SPDY: v4 reports the end as a JSON Status, v3 and v2 as its message. */
export const SPDY_EXEC_PROTOCOLS = ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io'];
/** How long the kubelet waits for the client to open its streams. */
const STREAM_CREATION_TIMEOUT_MS = 30_000;

/**
 * The same session over SPDY (client-go's SPDY executor; kubectl's when WebSocket is off): once the client has opened
 * the streams the request's options call for (error; stdin, stdout, stderr as asked, stderr not with a tty; resize
 * with a tty from v3), the output on stdout and stderr, then, once the command is over (after stdin's FIN when it
 * reads stdin; when `until` resolves for an attach), the status on the error stream, a FIN on each stream and a
 * GOAWAY. Resolves once the connection is over.
 */
export function serveExecOverSpdy(req: HttpRequest, socket: Duplex, streams: ExecStreams, output: Pick<ExecReply, 'stdout' | 'stderr'>, status: string, until?: Promise<void>, fromStdin?: StdinCommand): Promise<void> {
  const protocol = acceptSpdy(req, socket, SPDY_EXEC_PROTOCOLS);
  if (protocol === false) return Promise.resolve();
  if (fromStdin && !streams.stdin) ({ output, status } = fromStdin(Buffer.alloc(0)));
  const stdinCommand = streams.stdin ? fromStdin : undefined;
  const expected = ['error', ...(streams.stdin ? ['stdin'] : []), ...(streams.stdout ? ['stdout'] : []), ...(streams.stderr && !streams.tty ? ['stderr'] : []), ...(streams.tty && protocol !== 'v2.channel.k8s.io' ? ['resize'] : [])];
  return new Promise<void>((resolve) => {
    const opened = new Map<string, SpdyStream>();
    // What a command whose answer is made of its stdin has read of it.
    const received: Buffer[] = [];
    let receivedBytes = 0;
    let started = false;
    let ended = false;
    const giveUp = setTimeout(() => socket.destroy(), STREAM_CREATION_TIMEOUT_MS);
    giveUp.unref();
    const session = serveSpdySession(
      socket,
      (stream) => {
        const type = stream.headers.get('streamtype') ?? '';
        opened.set(type, stream);
        if (type === 'stdin' && stdinCommand) {
          stream.onData = (data) => {
            receivedBytes += data.length;
            if (receivedBytes > MAX_STDIN_BYTES) return void socket.destroy();
            received.push(data);
          };
        }
        if (!started && expected.every((t) => opened.has(t))) start();
      },
      () => {
        clearTimeout(giveUp);
        socket.destroy();
        resolve();
      },
    );
    const writeOutput = (routed: ReturnType<typeof route>) => {
      if (routed.stderr) for (const piece of pieces(routed.stderr)) opened.get('stderr')!.write(piece);
      if (routed.stdout) for (const piece of pieces(routed.stdout)) opened.get('stdout')!.write(piece);
    };
    const end = () => {
      if (ended) return;
      ended = true;
      if (stdinCommand) {
        const answer = stdinCommand(Buffer.concat(received));
        status = answer.status;
        writeOutput(route(streams, answer.output));
      }
      const error = opened.get('error')!;
      const message = protocol === SPDY_EXEC_PROTOCOLS[0] ? status : statusMessage(status);
      if (message !== '') error.write(message);
      session.close();
      const closeWait = setTimeout(() => socket.destroy(), CLIENT_CLOSE_WAIT_MS);
      closeWait.unref();
      socket.once('close', () => clearTimeout(closeWait));
    };
    const start = () => {
      started = true;
      clearTimeout(giveUp);
      if (!stdinCommand) writeOutput(route(streams, output));
      const stdin = opened.get('stdin');
      // stdin is read to its end (kept for a command whose answer is made of it, dropped otherwise), as a command
      // reading it would; its FIN ends the command.
      if (stdin) stdin.onEnd = end;
      if (until) void until.then(end);
      else if (!stdin) end();
    };
  });
}

/** v2 and v3 report a failure as its message on the error stream, and success as nothing. */
function statusMessage(status: string): string {
  const parsed = JSON.parse(status) as { status?: string; message?: string };
  return parsed.status === 'Success' ? '' : (parsed.message ?? '');
}
