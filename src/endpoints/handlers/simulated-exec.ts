// `kubectl exec` into a container on a simulated node, over WebSocket with the remotecommand protocol
// v5.channel.k8s.io, which kubectl and client-go's WebSocket executor speak since 1.30 (kube-apiserver serves them), or
// v4.channel.k8s.io, which the Python client speaks (the kubelet serves it through the apiserver's proxy): the
// handshake picks the first of these the client offers (403 otherwise, as x/net/websocket refuses), an empty
// message on the lowest writable channel says the session is open, then the command's output on stdout (1) and
// stderr (2), its Status on the error channel (3) (Success, or NonZeroExitCode with the code as the ExitCode cause,
// which kubectl turns into "command terminated with exit code N" and its own exit code), and a close frame. No
// process runs: what the command prints and exits with is what the containers test control scripts (exit 0 and no
// output otherwise); what the client sends (stdin, terminal sizes) is read and dropped.

import type { Duplex } from 'node:stream';
import type { HttpRequest } from '../../server/types.ts';
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
/** stdin arrives in frames of a few KiB (client-go writes 4 KiB ones); far larger ones end the session. */
const MAX_STDIN_FRAME_BYTES = 1024 * 1024;

/** What a command run in a simulated container answers. */
export interface ExecReply {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

export interface ExecStreams {
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
}

/**
 * The Status kube-apiserver's stream translator reports when the kubelet's end cannot be opened (a container that
 * does not run): an internal error carrying the executor's error.
 */
export function unableToUpgrade(container: string): string {
  const error = `unable to upgrade connection: container not found (${JSON.stringify(container)})`;
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
export function serveExec(req: HttpRequest, socket: Duplex, streams: ExecStreams, output: Pick<ExecReply, 'stdout' | 'stderr'>, status: string, until?: Promise<void>): Promise<void> {
  const protocol = acceptWebSocket(req, socket, EXEC_SUBPROTOCOLS);
  if (protocol === false) return Promise.resolve();
  return new Promise<void>((resolve) => {
    let done = false;
    let ended = false;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve();
    };
    // The command's end: its status, the close frame, then the end of what this side sends (clients that poll the
    // socket, as the Python client does, see the end even when TLS has already decrypted every frame). Reading goes
    // on until the client closes its side, so that what it still sends meets no reset that could cost it output.
    const end = () => {
      if (ended || done) return;
      ended = true;
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
    };
    readClientFrames(socket, finish, readsStdin ? onMessage : undefined, MAX_STDIN_FRAME_BYTES);
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', finish);
    const stderrStream = streams.stderr && !streams.tty;
    socket.write(channelMessage(streams.stdout ? STDOUT : stderrStream ? STDERR : ERROR, ''));
    const out = streams.tty ? output.stdout + output.stderr : output.stdout;
    if (streams.stdout && out !== '') socket.write(channelMessage(STDOUT, out));
    if (stderrStream && output.stderr !== '') socket.write(channelMessage(STDERR, output.stderr));
    if (until) void until.then(end);
    else if (!readsStdin) end();
  });
}
