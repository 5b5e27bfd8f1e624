// The etcd v3 connection (the `etcd3` npm client on @grpc/grpc-js) and the mapping of its errors to StorageErrors.
// We use the client's raw KV/Watch RPCs: guarded writes are single transactions and the watch stream is ours.
import fs from 'node:fs';
import { noop } from 'cockatiel';
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

/**
 * How a failed unary call is retried, by the rules of etcd's clientv3 (kube's etcd client): a repeatable call (a read,
 * a lease grant, a compaction) on any Unavailable answer, a write only when it never reached a member (one that did
 * may have been applied: a guarded create sent twice would answer AlreadyExists for the caller's own write).
 */
export type RetryPolicy = 'repeatable' | 'nonRepeatable';

export interface CallOptions {
  readonly deadline: Date;
}

export interface EtcdConnection {
  readonly client: etcd3.Etcd3;
  readonly kv: RPC.KVClient;
  readonly watch: RPC.WatchClient;
  readonly lease: RPC.LeaseClient;
  /**
   * Runs one unary call, retried by `policy` on another member (the client picks one at random per attempt) until
   * the deadline, `timeoutMs` from now (default: callTimeoutMs). Each attempt gets the deadline left.
   */
  unary<T>(policy: RetryPolicy, run: (options: CallOptions) => Promise<T>, timeoutMs?: number): Promise<T>;
  close(): void;
}

/** clientv3's wait between attempts (25 ms, 10% jitter); a call that found no connection moves on at once. */
const RETRY_WAIT_MS = 25;
/**
 * When no member has taken a connection for this long, and over at least NO_MEMBER_ATTEMPTS_PER_MEMBER attempts per
 * member, etcd is down: the call fails now with Unavailable rather than at its deadline, so requests get their 500 at
 * once (clientv3 would wait out the deadline). A member that answers, even "leader changed", keeps the call waiting for
 * the election. The attempt count keeps one dead member (each attempt goes to a member picked at random) or a stalled
 * event loop from failing a call the live members would take.
 */
const NO_MEMBER_MS = 300;
const NO_MEMBER_ATTEMPTS_PER_MEMBER = 4;

/** Whether a failed call may be sent again under `policy` (see RetryPolicy). */
export function retryable(policy: RetryPolicy, err: unknown): boolean {
  if (!(err instanceof etcd3.GRPCUnavailableError)) return false;
  return policy === 'repeatable' || neverSent(err);
}

/** grpc-js's answer for a call that found no connected member to go to. */
function neverSent(err: Error): boolean {
  return err.message.includes('No connection established');
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
    // No circuit breakers and no retries of the client's own: it counts a call past its deadline as a member's
    // failure, so the writes a dead leader held opened every member's breaker and failed calls for seconds after the
    // election; and it retried writes that may have been applied. `unary` retries as clientv3 does instead.
    faultHandling: { host: () => noop, global: noop },
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
    unary: (policy, run, ms = timeout) => unary(policy, run, Date.now() + ms, hosts.length),
    close: () => client.close(),
  };
}

/** `EtcdConnection.unary` for a cluster of `members`; exported for its tests. */
export async function unary<T>(policy: RetryPolicy, run: (options: CallOptions) => Promise<T>, deadline: number, members: number): Promise<T> {
  let heard = Date.now();
  let unsentSinceHeard = 0;
  for (;;) {
    try {
      return await run({ deadline: new Date(deadline) });
    } catch (err) {
      if (!retryable(policy, err)) throw err;
      if (neverSent(err as Error)) {
        unsentSinceHeard++;
      } else {
        heard = Date.now();
        unsentSinceHeard = 0;
      }
      if (unsentSinceHeard >= NO_MEMBER_ATTEMPTS_PER_MEMBER * members && Date.now() - heard > NO_MEMBER_MS) throw err;
      // A member that never took the call is skipped at once, until each member had its chance.
      const wait = unsentSinceHeard > 0 && unsentSinceHeard < members ? 0 : RETRY_WAIT_MS * (0.9 + 0.2 * Math.random());
      if (Date.now() + wait >= deadline) throw err;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
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
