// A simple, correct watch straight on storage.watch (the watch cache of issue 3 will sit behind this seam):
// initial ADDED events for resourceVersion ""/"0", selector transitions (stops matching -> DELETED with the old
// content, starts matching -> ADDED), and an ERROR event with 410 Expired when the start revision is compacted.
// Decoded objects and events are memoized per storage event, so watchers of one version share them.

import { isDNS1123Label } from '../apis/labels.ts';
import { requiresExactMatch } from '../apis/fields.ts';
import { StorageError, type KeyValue, type StorageEvent, type WatchHandle } from '../storage/types.ts';
import { apiVersionOf, convertToVersion, decodeFromStorage } from './store-codec.ts';
import { rootFor, waitForRevision, type StoreCore } from './store-core.ts';
import { parseResourceVersion, watchTooOld } from './store-errors.ts';
import { buildPredicate, validateWatchOptions, type Predicate } from './store-selection.ts';
import type { KubeObject, ListOptions, RequestContext, ResourceDefinition, WatchEvent, WatchEventType, WatchStream } from './types.ts';

/** Per kv: the decoded object (with the revision it is shown at) and the events built from it, by type and version. */
interface Memo {
  objects: Map<number, KubeObject>;
  events: Map<string, WatchEvent>;
}
const memos = new WeakMap<KeyValue, Memo>();

function memoOf(kv: KeyValue): Memo {
  let m = memos.get(kv);
  if (!m) {
    m = { objects: new Map(), events: new Map() };
    memos.set(kv, m);
  }
  return m;
}

/** The stored object of kv shown at `revision` (shared: watchers must not mutate event objects). */
function decodedAt(kv: KeyValue, revision: number): KubeObject {
  const m = memoOf(kv);
  let o = m.objects.get(revision);
  if (!o) {
    o = decodeFromStorage(kv, revision);
    m.objects.set(revision, o);
  }
  return o;
}

function sharedEvent(kv: KeyValue, revision: number, type: WatchEventType, def: ResourceDefinition): WatchEvent {
  const m = memoOf(kv);
  const key = `${type} ${revision} ${apiVersionOf(def)}`;
  let ev = m.events.get(key);
  if (!ev) {
    ev = { type, object: convertToVersion(decodedAt(kv, revision), def) };
    m.events.set(key, ev);
  }
  return ev;
}

/** The watch event one storage event is for a watcher with this predicate, if any. */
export function translateEvent(ev: StorageEvent, pred: Predicate, def: ResourceDefinition): WatchEvent | undefined {
  const rev = ev.kv.modRevision;
  if (ev.type === 'delete') {
    const last = ev.prevKv ?? ev.kv;
    return pred.matches(decodedAt(last, rev)) ? sharedEvent(last, rev, 'DELETED', def) : undefined;
  }
  const nowMatches = pred.matches(decodedAt(ev.kv, rev));
  if (!ev.prevKv) return nowMatches ? sharedEvent(ev.kv, rev, 'ADDED', def) : undefined;
  const wasMatching = pred.empty || pred.matches(decodedAt(ev.prevKv, ev.prevKv.modRevision));
  if (nowMatches) return sharedEvent(ev.kv, rev, wasMatching ? 'MODIFIED' : 'ADDED', def);
  // Stopped matching: DELETED carrying the previous content at this event's revision.
  return wasMatching ? sharedEvent(ev.prevKv, rev, 'DELETED', def) : undefined;
}

export async function openWatch(core: StoreCore, def: ResourceDefinition, ctx: RequestContext, options: ListOptions): Promise<WatchStream> {
  const pred = buildPredicate(def, options);
  validateWatchOptions(options, core.options.featureGates?.WatchList === true);
  let namespace = core.namespaced ? ctx.namespace : '';
  if (core.namespaced && !namespace) {
    const pinned = requiresExactMatch(pred.field, 'metadata.namespace');
    if (pinned && isDNS1123Label(pinned).length === 0) namespace = pinned;
  }
  const root = rootFor(core, namespace);
  const rv = parseResourceVersion(options.resourceVersion);
  const sendInitialEvents = options.sendInitialEvents === true;

  // resourceVersion ""/"0" (or sendInitialEvents): the current state as ADDED events, then changes after it.
  const initial: WatchEvent[] = [];
  let from = rv;
  if (rv === 0 || sendInitialEvents) {
    if (rv > 0) await waitForRevision(core, rv, ctx.signal);
    const snapshot = await core.storage.range(root);
    from = snapshot.revision;
    for (const kv of snapshot.kvs) {
      if (pred.matches(decodedAt(kv, kv.modRevision))) initial.push(sharedEvent(kv, kv.modRevision, 'ADDED', def));
    }
    if (sendInitialEvents) {
      initial.push({
        type: 'BOOKMARK',
        object: {
          kind: def.kind,
          apiVersion: apiVersionOf(def),
          metadata: { resourceVersion: String(from), annotations: { 'k8s.io/initial-events-end': 'true' } },
        },
      });
    }
  }

  let handle: WatchHandle | undefined;
  let stopped = false;
  const stop = () => {
    stopped = true;
    handle?.stop();
  };
  return {
    start(onEvent, onEnd) {
      let ended = false;
      const end = (err?: Error) => {
        if (ended) return;
        ended = true;
        handle?.stop();
        onEnd(err);
      };
      for (const ev of initial) {
        if (stopped) return;
        onEvent(ev);
      }
      if (stopped) return;
      if (ctx.signal) {
        if (ctx.signal.aborted) return stop();
        ctx.signal.addEventListener('abort', stop, { once: true });
      }
      handle = core.storage.watch(root, from, {
        onEvents(events) {
          for (const ev of events) {
            if (stopped || ended) return;
            const we = translateEvent(ev, pred, def);
            if (we) onEvent(we);
          }
        },
        onError(err: StorageError) {
          if (stopped) return;
          if (err.code === 'Compacted') {
            onEvent({ type: 'ERROR', object: watchTooOld(from, err.revision || core.storage.compactedRevision()).toStatus() });
            end();
            return;
          }
          end(err);
        },
      });
    },
    stop,
  };
}
