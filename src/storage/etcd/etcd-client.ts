// The etcd v3 connection (the `etcd3` npm client on @grpc/grpc-js) and the mapping of its errors to StorageErrors.
// We use the client's raw KV/Watch RPCs: guarded writes are single transactions and the watch stream is ours.
import fs from 'node:fs';
import { ConsecutiveBreaker, circuitBreaker, handleWhen, retry } from 'cockatiel';
import etcd3 from 'etcd3';
import type * as RPC from 'etcd3';
import { StorageError } from '../types.ts';

export interface EtcdConnectionOptions {
  /** --etcd-servers: http(s)://host:port URLs of the members. */
  readonly servers: readonly string[];
  /** --etcd-cafile / --etcd-certfile / --etcd-keyfile. */
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
  /** Deadline of each unary call (ms); a call to an unreachable cluster fails after it. Default 5000. */
  readonly callTimeoutMs?: number;
}

export interface EtcdConnection {
  readonly client: etcd3.Etcd3;
  readonly kv: RPC.KVClient;
  readonly watch: RPC.WatchClient;
  readonly lease: RPC.LeaseClient;
  /** Call options carrying the deadline. */
  callOptions(timeoutMs?: number): { deadline: Date };
  close(): void;
}

export function connectEtcd(options: EtcdConnectionOptions): EtcdConnection {
  if (options.servers.length === 0) throw new Error('--etcd-servers must be specified for the etcd3 storage backend');
  const tls = options.caFile !== undefined || options.certFile !== undefined || options.keyFile !== undefined;
  if ((options.certFile === undefined) !== (options.keyFile === undefined)) {
    throw new Error('--etcd-certfile and --etcd-keyfile must be given together');
  }
  const hosts = options.servers.map((s) => (tls && s.startsWith('http://') ? `https://${s.slice('http://'.length)}` : s));
  const client = new etcd3.Etcd3({
    hosts,
    // Reconnect within a second once a member is back (gRPC's default backoff grows to two minutes), and notice a
    // member that stopped answering (kube's etcd client: keepalive 30 s, timeout 10 s).
    // A member that failed three calls in a row is skipped for half a second (the client's default is five), then
    // tried again: during a leader election every member fails for a moment, and five seconds of open breakers on
    // all of them would turn a one-second election into a five-second outage.
    faultHandling: {
      host: () => circuitBreaker(handleWhen(etcd3.isRecoverableError), { halfOpenAfter: 500, breaker: new ConsecutiveBreaker(3) }),
      global: retry(handleWhen(etcd3.isRecoverableError), { maxAttempts: 3 }),
    },
    grpcOptions: {
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 1000,
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
    },
    ...(tls
      ? {
          credentials: {
            rootCertificate: options.caFile !== undefined ? fs.readFileSync(options.caFile) : (undefined as unknown as Buffer),
            ...(options.keyFile !== undefined ? { privateKey: fs.readFileSync(options.keyFile) } : {}),
            ...(options.certFile !== undefined ? { certChain: fs.readFileSync(options.certFile) } : {}),
          },
        }
      : {}),
  } as etcd3.IOptions);
  const timeout = options.callTimeoutMs ?? 5000;
  const internals = client as unknown as { kv: RPC.KVClient; watchClient: RPC.WatchClient; leaseClient: RPC.LeaseClient };
  return {
    client,
    kv: internals.kv,
    watch: internals.watchClient,
    lease: internals.leaseClient,
    callOptions: (ms = timeout) => ({ deadline: new Date(Date.now() + ms) }),
    close: () => client.close(),
  };
}

/** The text of a gRPC/etcd error without the client's class prefixes ("14 UNAVAILABLE: ..."). */
function errorText(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  return raw.replace(/^\d+ [A-Z_]+: /, '');
}

/** Whether err says the requested revision was compacted. */
export function isCompactedError(err: unknown): boolean {
  return /required revision has been compacted/.test(errorText(err));
}

export function isFutureRevisionError(err: unknown): boolean {
  return /required revision is a future revision/.test(errorText(err));
}

/**
 * Any other failure talking to etcd: Unavailable, with the client's message (kube passes etcd client errors through
 * as 500s; a call past its deadline reads as Go's "context deadline exceeded").
 */
export function unreachable(err: unknown): StorageError {
  if (err instanceof StorageError) return err;
  const text = errorText(err);
  if (err instanceof etcd3.GRPCDeadlineExceededError || /DEADLINE_EXCEEDED|Deadline exceeded/i.test(text)) {
    return new StorageError('Unavailable', '', 'context deadline exceeded');
  }
  return new StorageError('Unavailable', '', `etcd: ${text.split('\n')[0]}`);
}

/** etcd's int64 fields arrive as decimal strings. */
export function int(value: string | number | null | undefined): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'number' ? value : Number(value);
}
