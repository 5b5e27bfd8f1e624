// Events from the in-process controllers (the simulated components, the PersistentVolume binder), recorded as
// kube's are. Each component (a controller, the scheduler, one node's kubelet) has its own lane, as each of kube's
// has its own event broadcaster: recording never blocks the
// component; a lane holds at most 1000 events (a full lane drops, as kube's broadcaster does) and writes them in the
// background at the rate the component's client allows (kube-controller-manager's 20/s with bursts of 30, the
// scheduler's and the kubelet's 50/s with bursts of 100). On one thread an event written while the simulated
// components have work would delay that work (kube's event sinks run beside their controllers), so the lanes write
// once the components have been quiet for a moment, and one event per lane a second while they stay busy. Before a core/v1 event is written it passes client-go's
// correlator (tools/record): past 10 events of one object with one reason and different messages within 10 minutes
// they are combined into one; a repeat of an event counts on the Event already written (count, lastTimestamp)
// instead of making another; and each object gets at most 25 events from a source, then one per 5 minutes.
// The scheduler writes events.k8s.io/v1 Events as tools/events does: the first of a kind (action, reason, object,
// note) is created, the second turns it into a series (series.count 2), later ones are counted in memory and
// written when the series ends (6 minutes without one) or every 30 minutes while it goes on.

import { clockNow } from '../apis/clock.ts';
import { isStatusError } from '../apis/errors.ts';
import type { UserInfo } from '../auth/user.ts';
import { microTime, rfc3339 } from '../registry/store-codec.ts';
import type { KubeObject } from '../registry/types.ts';
import type { Informers, ResourceRef } from './informers.ts';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  /**
   * Records an event about obj; fieldPath names the part of it (the kubelet's `spec.containers{web}`), action what
   * was done and related the other object involved (events.k8s.io/v1 only).
   */
  event(obj: KubeObject, type: EventType, reason: string, message: string, extra?: { fieldPath?: string; action?: string; related?: KubeObject }): void;
}

export interface RecorderOptions {
  /** source.component (core/v1) or reportingController (events.k8s.io/v1). */
  readonly component: string;
  /** source.host (core/v1) or reportingInstance (events.k8s.io/v1). */
  readonly host?: string;
  /** Who writes the Events (what admission is told). */
  readonly user: UserInfo;
  /** The component's client rate: writes per second and burst. */
  readonly qps: number;
  readonly burst: number;
  /** Writes events.k8s.io/v1 Events, as tools/events recorders (kube-scheduler's) do. */
  readonly eventsV1?: boolean;
}

export interface EventSink {
  recorder(options: RecorderOptions): EventRecorder;
  stop(): Promise<void>;
}

const CORE_EVENTS: ResourceRef = { group: '', version: 'v1', resource: 'events' };
const EVENTS_V1: ResourceRef = { group: 'events.k8s.io', version: 'v1', resource: 'events' };

/** client-go's broadcaster queue (maxQueuedEvents) and correlator defaults. */
const MAX_QUEUED = 1000;
const CACHE_SIZE = 4096;
const MAX_SIMILAR = 10;
const SIMILAR_INTERVAL_MS = 600_000;
const SPAM_BURST = 25;
const SPAM_REFILL_PER_MS = 1 / 300_000;
const COMBINED_PREFIX = '(combined from similar events): ';
/** How long the components must have had no work before events are written; the longest an event waits for that. */
const QUIET_MS = 20;
const MAX_DEFER_MS = 1000;
/** tools/events: a series ends after 6 minutes without a repeat; a running one is written again every 30 minutes. */
const SERIES_FINISH_MS = 360_000;
const SERIES_HEARTBEAT_MS = 1_800_000;

type Obj = Record<string, unknown>;

/** A least-recently-used map of at most `size` entries (the correlator's caches). */
function lru<V>(size: number): { get(k: string): V | undefined; set(k: string, v: V): void } {
  const entries = new Map<string, V>();
  return {
    get(k) {
      const v = entries.get(k);
      if (v !== undefined) {
        entries.delete(k);
        entries.set(k, v);
      }
      return v;
    },
    set(k, v) {
      entries.delete(k);
      entries.set(k, v);
      if (entries.size > size) entries.delete(entries.keys().next().value!);
    },
  };
}

/** A core/v1 ObjectReference to obj (GetReference), with fieldPath when given. */
function referenceTo(obj: KubeObject, fieldPath?: string): Obj {
  const m = obj.metadata;
  return {
    kind: obj.kind,
    ...(m.namespace ? { namespace: m.namespace } : {}),
    name: m.name,
    uid: m.uid,
    apiVersion: obj.apiVersion,
    resourceVersion: m.resourceVersion,
    ...(fieldPath ? { fieldPath } : {}),
  };
}

let sequence = 0;

/** kube's event name: the object's name and the time in nanoseconds, in hex (the low digits kept unique here). */
function eventName(objectName: string, nowMs: number): string {
  sequence = (sequence + 1) % 1_000_000;
  return `${objectName}.${(BigInt(Math.floor(nowMs)) * 1_000_000n + BigInt(sequence)).toString(16)}`;
}

interface CoreEvent extends Obj {
  metadata: { name: string; namespace: string };
  involvedObject: Obj;
  reason: string;
  message: string;
  source: Obj;
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  type: EventType;
}

/** What to write for a recorded event: a new Event, or a repeat counted on the one written before. */
interface Write {
  readonly event: CoreEvent;
  readonly repeat: boolean;
}

/**
 * client-go's EventCorrelator with its default options: EventAggregate, then eventObserve, then the
 * EventSourceObjectSpamFilter. Undefined: the event is filtered out. `nowMs` is the real clock (intervals) and the
 * events' timestamps the server's.
 */
export function createCorrelator(nowMs: () => number = Date.now): (event: CoreEvent) => Write | undefined {
  const similar = lru<{ messages: Set<string>; lastMs: number }>(CACHE_SIZE);
  const observed = lru<{ count: number; firstTimestamp: string; name: string }>(CACHE_SIZE);
  const spam = lru<{ tokens: number; atMs: number }>(CACHE_SIZE);
  const objectKey = (e: CoreEvent): string => {
    const o = e.involvedObject;
    return [e.source.component, e.source.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion].join('\0');
  };
  return (incoming) => {
    const now = nowMs();
    // EventAggregate: events of one object and reason with MAX_SIMILAR different messages within the interval are
    // combined into one Event (the object's name and the time as its name) whose message says so.
    const aggregateKey = [objectKey(incoming), incoming.type, incoming.reason, incoming.reportingComponent, incoming.reportingInstance].join('\0');
    let record = similar.get(aggregateKey);
    if (!record || now - record.lastMs > SIMILAR_INTERVAL_MS) record = { messages: new Set(), lastMs: now };
    record.messages.add(incoming.message);
    record.lastMs = now;
    similar.set(aggregateKey, record);
    let event = incoming;
    let key = [objectKey(incoming), incoming.involvedObject.fieldPath, incoming.type, incoming.reason, incoming.message].join('\0');
    if (record.messages.size >= MAX_SIMILAR) {
      record.messages.delete(record.messages.values().next().value!);
      event = { ...incoming, metadata: { ...incoming.metadata, name: eventName(String(incoming.involvedObject.name), clockNow()) }, message: COMBINED_PREFIX + incoming.message };
      key = aggregateKey;
    }
    // eventObserve: a repeat of an event seen before is counted on the Event written for it.
    const last = observed.get(key);
    const repeat = last !== undefined;
    if (last) event = { ...event, metadata: { ...event.metadata, name: last.name }, firstTimestamp: last.firstTimestamp, count: last.count + 1 };
    observed.set(key, { count: event.count, firstTimestamp: event.firstTimestamp, name: event.metadata.name });
    // The spam filter: a token bucket per source and object.
    const spamKey = objectKey(event);
    const bucket = spam.get(spamKey) ?? { tokens: SPAM_BURST, atMs: now };
    bucket.tokens = Math.min(SPAM_BURST, bucket.tokens + (now - bucket.atMs) * SPAM_REFILL_PER_MS);
    bucket.atMs = now;
    spam.set(spamKey, bucket);
    if (bucket.tokens < 1) return undefined;
    bucket.tokens -= 1;
    return { event, repeat };
  };
}

/** What a lane writes: a core/v1 Event (before correlation), or an events.k8s.io/v1 Event, alone or as a series. */
type Queued = { readonly core: CoreEvent } | { readonly v1: Obj; readonly series?: Obj };

/** An events.k8s.io/v1 Event already written, and its series once it repeats (real-time ms for the intervals). */
interface Isomorphic {
  readonly event: Obj;
  readonly atMs: number;
  series?: { count: number; lastObservedTime: string };
  observedMs: number;
  writtenMs: number;
}

/** One component's lane: its queue, correlator and client rate. */
function startLane(informers: Informers, options: RecorderOptions, stopped: () => boolean, sleeping: Map<NodeJS.Timeout, () => void>, quiet: () => Promise<void>): EventRecorder & { drained(): Promise<void>; close(): void } {
  const queue: Queued[] = [];
  const correlate = createCorrelator();
  const isomorphic = new Map<string, Isomorphic>();
  let seriesTimer: NodeJS.Timeout | undefined;
  let tokens = options.burst;
  let refilledAt = performance.now();
  let draining: Promise<void> | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        sleeping.delete(t);
        resolve();
      }, ms);
      sleeping.set(t, resolve);
    });

  /** Waits for the client's rate limiter to allow one more write. */
  async function allowed(): Promise<void> {
    for (;;) {
      const now = performance.now();
      tokens = Math.min(options.burst, tokens + ((now - refilledAt) / 1000) * options.qps);
      refilledAt = now;
      if (tokens >= 1) {
        tokens -= 1;
        return;
      }
      await sleep(Math.ceil(((1 - tokens) / options.qps) * 1000));
      if (stopped()) return;
    }
  }

  async function writeCore(w: Write): Promise<void> {
    const def = informers.registry.lookup('', 'v1', 'events');
    if (!def) return;
    const store = informers.registry.store(def);
    const { namespace, name } = w.event.metadata;
    const ctx = informers.writeContext(CORE_EVENTS, namespace, options.user);
    if (w.repeat) {
      try {
        await store.update(ctx, name, (cur) => ({ ...cur!, count: w.event.count, lastTimestamp: w.event.lastTimestamp, message: w.event.message }));
        return;
      } catch (e) {
        // An Event removed meanwhile is written anew (recordEvent); any other refusal drops this one.
        if (!isStatusError(e) || e.code !== 404) throw e;
      }
    }
    await store.create(ctx, w.event as unknown as KubeObject);
  }

  async function writeV1(event: Obj, series: Obj | undefined): Promise<void> {
    const def = informers.registry.lookup('events.k8s.io', 'v1', 'events');
    if (!def) return;
    const store = informers.registry.store(def);
    const { namespace, name } = event.metadata as { namespace: string; name: string };
    const ctx = informers.writeContext(EVENTS_V1, namespace, options.user);
    if (series) {
      try {
        await store.update(ctx, name, (cur) => ({ ...cur!, series }));
        return;
      } catch (e) {
        // A series whose Event is gone is written anew, series and all (recordEvent).
        if (!isStatusError(e) || e.code !== 404) throw e;
      }
    }
    await store.create(ctx, (series ? { ...event, series } : event) as unknown as KubeObject);
  }

  /** finishSeries and refreshExistingEventSeries: ended series written and forgotten, long ones written again. */
  function tendSeries(): void {
    const now = performance.now();
    for (const [k, iso] of isomorphic) {
      if (!iso.series) {
        if (now - iso.atMs > SERIES_FINISH_MS) isomorphic.delete(k);
        continue;
      }
      const ended = now - iso.observedMs > SERIES_FINISH_MS;
      if (ended) isomorphic.delete(k);
      if (ended || now - iso.writtenMs > SERIES_HEARTBEAT_MS) {
        iso.writtenMs = now;
        push({ v1: iso.event, series: { ...iso.series } });
      }
    }
    if (isomorphic.size === 0 && seriesTimer) {
      clearInterval(seriesTimer);
      seriesTimer = undefined;
    }
  }

  /** tools/events' recordToSink: an event like one written before counts on it instead. */
  function recordV1(event: Obj): void {
    const k = JSON.stringify([event.action, event.reason, event.reportingController, event.regarding, event.related, event.note]);
    const now = performance.now();
    const seen = isomorphic.get(k);
    if (!seen) {
      isomorphic.set(k, { event, atMs: now, observedMs: now, writtenMs: now });
      seriesTimer ??= setInterval(tendSeries, SERIES_FINISH_MS).unref();
      push({ v1: event });
      return;
    }
    seen.observedMs = now;
    if (seen.series) {
      seen.series.count++;
      seen.series.lastObservedTime = microTime(clockNow());
      return;
    }
    seen.series = { count: 2, lastObservedTime: microTime(clockNow()) };
    seen.writtenMs = now;
    push({ v1: seen.event, series: { ...seen.series } });
  }

  function push(q: Queued): void {
    if (stopped() || queue.length >= MAX_QUEUED) return;
    queue.push(q);
    kick();
  }

  async function drain(): Promise<void> {
    while (queue.length > 0 && !stopped()) {
      const next = queue.shift()!;
      const write = 'core' in next ? correlate(next.core) : undefined;
      if ('core' in next && !write) continue;
      await allowed();
      await quiet();
      if (stopped()) return;
      // As client-go's sink: a refused write (a terminating namespace, a webhook) is not retried.
      await (write ? writeCore(write) : 'v1' in next ? writeV1(next.v1, next.series) : undefined)?.catch(() => undefined);
    }
  }

  function kick(): void {
    draining ??= drain().finally(() => {
      draining = undefined;
      if (queue.length > 0 && !stopped()) kick();
    });
  }

  return {
    event(obj, type, reason, message, extra = {}) {
      if (stopped()) return;
      const nowMs = clockNow();
      const ref = referenceTo(obj, extra.fieldPath);
      const name = eventName(obj.metadata.name ?? '', nowMs);
      const namespace = obj.metadata.namespace || 'default';
      if (options.eventsV1) {
        const related = extra.related ? { related: referenceTo(extra.related) } : {};
        recordV1({ apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name, namespace }, eventTime: microTime(nowMs), reportingController: options.component, reportingInstance: options.host ?? '', action: extra.action ?? '', reason, regarding: ref, ...related, note: message, type });
        return;
      }
      push({
        core: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name, namespace },
          involvedObject: ref,
          reason,
          message,
          source: options.host ? { component: options.component, host: options.host } : { component: options.component },
          firstTimestamp: rfc3339(new Date(nowMs)),
          lastTimestamp: rfc3339(new Date(nowMs)),
          count: 1,
          type,
          eventTime: null,
          reportingComponent: options.component,
          reportingInstance: options.host ?? '',
        },
      });
    },
    drained: () => draining ?? Promise.resolve(),
    close() {
      if (seriesTimer) clearInterval(seriesTimer);
      seriesTimer = undefined;
    },
  };
}

/** The simulation's event lanes, one per recorder asked for. */
export function createEventSink(informers: Informers): EventSink {
  let stopped = false;
  const sleeping = new Map<NodeJS.Timeout, () => void>();
  const lanes: ReturnType<typeof startLane>[] = [];
  // The lanes waiting for the components to be quiet, looked at by one timer.
  const waiting: { since: number; resolve: () => void }[] = [];
  let check: NodeJS.Timeout | undefined;
  const look = (): void => {
    check = undefined;
    const now = performance.now();
    const calm = stopped || (informers.activity.busy === 0 && now - informers.activity.lastChange >= QUIET_MS);
    for (let i = waiting.length - 1; i >= 0; i--) {
      if (calm || now - waiting[i]!.since >= MAX_DEFER_MS) waiting.splice(i, 1)[0]!.resolve();
    }
    if (waiting.length > 0) check = setTimeout(look, QUIET_MS);
  };
  const quiet = (): Promise<void> =>
    new Promise((resolve) => {
      waiting.push({ since: performance.now(), resolve });
      check ??= setTimeout(look, informers.activity.busy === 0 ? Math.max(0, QUIET_MS - (performance.now() - informers.activity.lastChange)) : QUIET_MS);
    });
  return {
    recorder(options) {
      const lane = startLane(informers, options, () => stopped, sleeping, quiet);
      lanes.push(lane);
      return lane;
    },
    async stop() {
      stopped = true;
      for (const [t, wake] of sleeping) {
        clearTimeout(t);
        wake();
      }
      sleeping.clear();
      if (check) clearTimeout(check);
      check = undefined;
      for (const lane of lanes) lane.close();
      for (const w of waiting.splice(0)) w.resolve();
      await Promise.all(lanes.map((l) => l.drained()));
    },
  };
}
