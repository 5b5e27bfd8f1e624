// API Priority and Fairness (kube's WithPriorityAndFairness filter and its queueset): each request is classified
// by FlowSchema (cached per user, verb, resource and namespace until the configuration changes), Exempt levels
// run at once, Limited levels run up to their concurrency limit and queue the rest in shuffle-sharded queues served
// round-robin; a full queue (or a Reject level at its limit, or a wait past a quarter of the request timeout)
// answers 429. Concurrency limits: --max-requests-inflight + --max-mutating-requests-inflight, shared by the
// Limited levels in proportion to their nominalConcurrencyShares (no borrowing between levels).

import { createHash } from 'node:crypto';
import type { UserInfo } from '../../auth/user.ts';
import type { RequestInfo } from '../../endpoints/request-info.ts';
import { flowDistinguisher, matchesFlowSchema, sortFlowSchemas } from './classify.ts';
import type { FlowSchema, PriorityLevelConfiguration } from './types.ts';

export interface FlowControlConfig {
  /** Bumped on every change of the objects below. */
  version(): number;
  flowSchemas(): readonly FlowSchema[];
  priorityLevels(): readonly PriorityLevelConfiguration[];
}

export interface Classification {
  readonly flowSchemaUid: string;
  readonly priorityLevelUid: string;
  readonly priorityLevel: string;
  readonly flowSchema: string;
  readonly exempt: boolean;
  /** Flow key for shuffle sharding (schema name and distinguisher). */
  readonly flow: string;
}

export type Admission = { readonly admitted: true; release(): void } | { readonly admitted: false };

export interface FlowControl {
  /** Undefined when no FlowSchema matches (no configuration yet): the request runs unrestricted. */
  classify(user: UserInfo, info: RequestInfo): Classification | undefined;
  /** Waits for a seat of the request's priority level; admitted false means 429. */
  admit(c: Classification): Admission | Promise<Admission>;
  /** Seats, executing and waiting requests per level (tests, metrics). */
  levels(): { name: string; concurrencyLimit: number; executing: number; waiting: number }[];
}

export interface FlowControlOptions {
  readonly config: FlowControlConfig;
  /** --max-requests-inflight + --max-mutating-requests-inflight. */
  readonly serverConcurrencyLimit: number;
  /** How long a request may wait in a queue (kube: a quarter of the request timeout). */
  readonly queueWaitMs: number;
}

interface Waiter {
  resolve(a: Admission): void;
  timer: NodeJS.Timeout;
}

interface Level {
  name: string;
  uid: string;
  exempt: boolean;
  limit: number;
  reject: boolean;
  queues: Waiter[][];
  handSize: number;
  queueLengthLimit: number;
  executing: number;
  waiting: number;
  nextQueue: number;
}

const CACHE_LIMIT = 4096;

function hand(flow: string, queues: number, handSize: number): number[] {
  // Shuffle sharding: a deterministic hand of distinct queues from the flow's hash.
  const digest = createHash('sha256').update(flow).digest();
  const out: number[] = [];
  for (let i = 0; out.length < Math.min(handSize, queues) && i < digest.length - 1; i += 2) {
    const q = digest.readUInt16BE(i) % queues;
    if (!out.includes(q)) out.push(q);
  }
  return out.length > 0 ? out : [0];
}

export function createFlowControl(options: FlowControlOptions): FlowControl {
  let seenVersion = -1;
  let schemas: FlowSchema[] = [];
  const levels = new Map<string, Level>();
  const cache = new Map<string, Classification | null>();
  const hands = new Map<string, number[]>();

  const refresh = (): void => {
    const version = options.config.version();
    if (version === seenVersion) return;
    seenVersion = version;
    cache.clear();
    hands.clear();
    const pls = options.config.priorityLevels();
    const shares = pls.reduce((sum, pl) => sum + (pl.spec.type === 'Limited' ? (pl.spec.limited?.nominalConcurrencyShares ?? 30) : (pl.spec.exempt?.nominalConcurrencyShares ?? 0)), 0) || 1;
    const names = new Set<string>();
    for (const pl of pls) {
      names.add(pl.metadata.name);
      const limited = pl.spec.limited;
      const queuing = limited?.limitResponse?.queuing;
      const queueCount = limited?.limitResponse?.type === 'Queue' ? (queuing?.queues ?? 64) : 0;
      const existing = levels.get(pl.metadata.name);
      const level: Level = existing ?? { name: pl.metadata.name, uid: '', exempt: false, limit: 0, reject: false, queues: [], handSize: 0, queueLengthLimit: 0, executing: 0, waiting: 0, nextQueue: 0 };
      level.uid = pl.metadata.uid ?? '';
      level.exempt = pl.spec.type === 'Exempt';
      level.limit = Math.max(1, Math.ceil((options.serverConcurrencyLimit * (limited?.nominalConcurrencyShares ?? 30)) / shares));
      level.reject = limited?.limitResponse?.type !== 'Queue';
      level.handSize = queuing?.handSize ?? 8;
      level.queueLengthLimit = queuing?.queueLengthLimit ?? 50;
      while (level.queues.length < queueCount) level.queues.push([]);
      levels.set(pl.metadata.name, level);
    }
    // FlowSchemas whose level is missing are dangling: they match nothing.
    schemas = sortFlowSchemas(options.config.flowSchemas().filter((fs) => names.has(fs.spec.priorityLevelConfiguration.name)));
  };

  const dispatch = (level: Level): void => {
    while (level.executing < level.limit && level.waiting > 0) {
      // Round-robin over the non-empty queues: each flow's queue gets its turn.
      for (let i = 0; i < level.queues.length; i++) {
        const q = level.queues[(level.nextQueue + i) % level.queues.length]!;
        if (q.length === 0) continue;
        level.nextQueue = (level.nextQueue + i + 1) % level.queues.length;
        const w = q.shift()!;
        level.waiting--;
        clearTimeout(w.timer);
        w.resolve(seat(level));
        break;
      }
    }
  };

  // Users are read-only and one connection's requests share one (see withAuthenticatedGroup).
  const userKeys = new WeakMap<UserInfo, string>();
  const userKey = (user: UserInfo): string => {
    let key = userKeys.get(user);
    if (key === undefined) userKeys.set(user, (key = `${user.name}\0${user.groups.join('\0')}`));
    return key;
  };

  const seat = (level: Level): Admission => {
    level.executing++;
    let released = false;
    return {
      admitted: true,
      release() {
        if (released) return;
        released = true;
        level.executing--;
        dispatch(level);
      },
    };
  };

  return {
    classify(user, info) {
      refresh();
      const key = `${userKey(user)}\0${info.verb}\0${info.isResourceRequest ? `${info.apiGroup}\0${info.resource}\0${info.subresource}\0${info.namespace}` : `\0${info.path}`}`;
      const cached = cache.get(key);
      if (cached !== undefined) return cached ?? undefined;
      let result: Classification | null = null;
      for (const fs of schemas) {
        if (!matchesFlowSchema(fs, user, info)) continue;
        const level = levels.get(fs.spec.priorityLevelConfiguration.name)!;
        result = { flowSchemaUid: fs.metadata.uid ?? '', priorityLevelUid: level.uid, priorityLevel: level.name, flowSchema: fs.metadata.name, exempt: level.exempt, flow: `${fs.metadata.name}\0${flowDistinguisher(fs, user, info)}` };
        break;
      }
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(key, result);
      return result ?? undefined;
    },
    admit(c) {
      const level = levels.get(c.priorityLevel);
      if (!level || level.exempt) return { admitted: true, release() {} };
      if (level.executing < level.limit && level.waiting === 0) return seat(level);
      if (level.reject || level.queues.length === 0) return { admitted: false };
      let h = hands.get(c.flow);
      if (!h) hands.set(c.flow, (h = hand(c.flow, level.queues.length, level.handSize)));
      let queue = level.queues[h[0]!]!;
      for (const i of h) if (level.queues[i]!.length < queue.length) queue = level.queues[i]!;
      if (queue.length >= level.queueLengthLimit) return { admitted: false };
      return new Promise<Admission>((resolve) => {
        const q = queue;
        const waiter: Waiter = {
          resolve,
          timer: setTimeout(() => {
            const i = q.indexOf(waiter);
            if (i >= 0) {
              q.splice(i, 1);
              level.waiting--;
            }
            resolve({ admitted: false });
          }, options.queueWaitMs),
        };
        q.push(waiter);
        level.waiting++;
      });
    },
    levels() {
      refresh();
      return [...levels.values()].map((l) => ({ name: l.name, concurrencyLimit: l.exempt ? 0 : l.limit, executing: l.executing, waiting: l.waiting }));
    },
  };
}
