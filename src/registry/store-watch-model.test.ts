// A randomized model test of watch through the generic store and its watch cache: concurrent writers and
// watchers with different selectors and starting points on one resource. Every watcher's events must equal the
// storage history (read from storage's own watch, not the cache) translated by kube's rules for its selector,
// in revision order, with no gap and no duplicate.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StorageEvent } from '../storage/types.ts';
import { ctx, fixture, widgets } from './store-testing.ts';
import type { KubeObject, ListOptions, WatchEvent } from './types.ts';

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

interface Stored {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  spec?: { color?: string; n?: number };
}

/** The selectors under test, with an independent evaluation on the stored JSON. */
const SELECTORS: Array<{ options: ListOptions; matches(o: Stored): boolean }> = [
  { options: {}, matches: () => true },
  { options: { labelSelector: 'tier=a' }, matches: (o) => o.metadata.labels?.tier === 'a' },
  { options: { labelSelector: 'tier!=a' }, matches: (o) => o.metadata.labels?.tier !== 'a' },
  { options: { fieldSelector: 'metadata.namespace=ns1' }, matches: (o) => o.metadata.namespace === 'ns1' },
  { options: { fieldSelector: 'spec.color=red' }, matches: (o) => o.spec?.color === 'red' },
  { options: { labelSelector: 'tier in (a,b)', fieldSelector: 'spec.color!=red' }, matches: (o) => ['a', 'b'].includes(o.metadata.labels?.tier ?? '') && o.spec?.color !== 'red' },
];

type Line = string;
const line = (type: string, o: Stored, rev: number): Line => `${type} ${o.metadata.namespace}/${o.metadata.name} ${rev} ${JSON.stringify(o.metadata.labels ?? {})} ${JSON.stringify(o.spec ?? {})}`;
const parse = (value: string) => JSON.parse(value) as Stored;

/** kube's translation of the storage history after `after` for one selector. */
function expected(history: StorageEvent[], after: number, matches: (o: Stored) => boolean): Line[] {
  const out: Line[] = [];
  for (const ev of history) {
    const rev = ev.kv.modRevision;
    if (rev <= after) continue;
    if (ev.type === 'delete') {
      const last = parse(ev.prevKv?.value ?? ev.kv.value);
      if (matches(last)) out.push(line('DELETED', last, rev));
      continue;
    }
    const now = parse(ev.kv.value);
    const before = ev.prevKv ? parse(ev.prevKv.value) : undefined;
    const n = matches(now);
    const b = before !== undefined && matches(before);
    if (n && b) out.push(line('MODIFIED', now, rev));
    else if (n) out.push(line('ADDED', now, rev));
    else if (b) out.push(line('DELETED', before!, rev));
  }
  return out;
}

/** The live objects after applying history up to `at`, as ADDED lines, in key order. */
function stateAt(history: StorageEvent[], at: number, matches: (o: Stored) => boolean): Line[] {
  const live = new Map<string, { value: string; rev: number }>();
  for (const ev of history) {
    if (ev.kv.modRevision > at) break;
    if (ev.type === 'delete') live.delete(ev.kv.key);
    else live.set(ev.kv.key, { value: ev.kv.value, rev: ev.kv.modRevision });
  }
  return [...live.keys()]
    .sort()
    .map((k) => ({ o: parse(live.get(k)!.value), rev: live.get(k)!.rev }))
    .filter(({ o }) => matches(o))
    .map(({ o, rev }) => line('ADDED', o, rev));
}

function lineOf(ev: WatchEvent): Line {
  const o = ev.object as KubeObject;
  return line(ev.type, { metadata: { name: o.metadata.name!, namespace: o.metadata.namespace!, labels: o.metadata.labels }, spec: o.spec as Stored['spec'] }, Number(o.metadata.resourceVersion));
}

interface Watcher {
  selector: number;
  mode: 'state' | 'zero' | 'initial' | number;
  lines: Line[];
  initialEnd: number | undefined;
  stop(): void;
}

for (const seed of [1, 2, 3]) {
  test(`randomized writers and watchers agree with the storage history (seed ${seed})`, async () => {
    const random = rng(seed * 7919);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
    const f = await fixture();
    for (const ns of ['ns1', 'ns2']) await f.namespaces.create(ctx(''), { metadata: { name: ns } });
    const def = widgets();
    const store = f.store(def, { featureGates: { WatchList: true } });
    const history: StorageEvent[] = [];
    const tap = f.storage.watch(def.storagePrefix + '/', await f.storage.currentRevision(), {
      onEvents: (evs) => void history.push(...evs),
      onError: (e) => assert.fail(e),
    });
    const revisions: number[] = [await f.storage.currentRevision()];
    const watchers: Watcher[] = [];

    async function openWatcher(): Promise<void> {
      const selector = Math.floor(random() * SELECTORS.length);
      const r = random();
      const mode: Watcher['mode'] = r < 0.25 ? 'state' : r < 0.4 ? 'zero' : r < 0.55 ? 'initial' : pick(revisions);
      const options: ListOptions = { ...SELECTORS[selector].options };
      if (mode === 'zero') options.resourceVersion = '0';
      if (mode === 'initial') Object.assign(options, { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true });
      if (typeof mode === 'number') options.resourceVersion = String(mode);
      const stream = await store.watch(ctx(pick(['', 'ns1', ''])), options);
      const w: Watcher = { selector, mode, lines: [], initialEnd: undefined, stop: () => stream.stop() };
      // An all-namespaces watch or one namespace's (then only that namespace's history counts).
      stream.start(
        (ev) => {
          if (ev.type === 'BOOKMARK') {
            const o = ev.object as KubeObject;
            if (o.metadata.annotations?.['k8s.io/initial-events-end'] === 'true') w.initialEnd = Number(o.metadata.resourceVersion);
            return;
          }
          assert.notEqual(ev.type, 'ERROR', JSON.stringify(ev.object));
          w.lines.push(lineOf(ev));
        },
        (err) => assert.ifError(err),
      );
      watchers.push(w);
    }

    async function writer(n: number): Promise<void> {
      for (let i = 0; i < n; i++) {
        const name = `w${Math.floor(random() * 12)}`;
        const ns = pick(['ns1', 'ns2']);
        const tier = pick(['a', 'b', 'c', undefined]);
        const color = pick(['red', 'blue']);
        const op = random();
        try {
          let out: KubeObject | undefined;
          if (op < 0.4) {
            out = await store.create(ctx(ns), { metadata: { name, labels: tier ? { tier } : undefined }, spec: { color, n: i } });
          } else if (op < 0.8) {
            out = (await store.update(ctx(ns), name, (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: tier ? { tier } : undefined }, spec: { color, n: i } }))).object;
          } else {
            await store.delete(ctx(ns), name);
          }
          if (out) revisions.push(Number(out.metadata.resourceVersion));
        } catch (e) {
          const code = (e as { code?: number }).code;
          if (code !== 404 && code !== 409) throw e;
        }
        if (random() < 0.1) await openWatcher();
        if (random() < 0.3) await new Promise((r) => setImmediate(r));
      }
    }

    await openWatcher();
    await Promise.all(Array.from({ length: 6 }, () => writer(60)));
    const final = await f.storage.currentRevision();
    // Everything written is in the tap once storage has delivered up to the final revision.
    const deadline = Date.now() + 5000;
    while ((history.at(-1)?.kv.modRevision ?? 0) < final && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    tap.stop();
    history.sort((a, b) => a.kv.modRevision - b.kv.modRevision);
    assert.ok(watchers.length >= 5, `${watchers.length} watchers`);

    // The namespace a watcher watched is not recorded above; a watcher's lines tell it: try both scopes.
    for (const w of watchers) {
      const sel = SELECTORS[w.selector];
      const scopes = [(o: Stored) => sel.matches(o), (o: Stored) => o.metadata.namespace === 'ns1' && sel.matches(o)];
      const settle = Date.now() + 3000;
      let ok = false;
      let why = '';
      while (!ok && Date.now() < settle) {
        for (const m of scopes) {
          const verdict = check(w, m);
          if (verdict === '') ok = true;
          else why = verdict;
        }
        if (!ok) await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(ok, `watcher ${JSON.stringify(sel.options)} from ${w.mode}: ${why}`);
      w.stop();
    }

    function check(w: Watcher, matches: (o: Stored) => boolean): string {
      if (typeof w.mode === 'number') {
        const want = expected(history, w.mode, matches);
        return sameLines(w.lines, want);
      }
      // From a state: the initial ADDED lines are the state at some revision S, the rest the history after S.
      const initialCount = w.lines.findIndex((l, i) => i > 0 && !l.startsWith('ADDED'));
      let last = '';
      for (let s = revisions[0]; s <= final; s++) {
        if (w.initialEnd !== undefined && s !== w.initialEnd) continue;
        const state = stateAt(history, s, matches);
        if (w.lines.length < state.length || sameLines(w.lines.slice(0, state.length), state) !== '') continue;
        last = sameLines(w.lines.slice(state.length), expected(history, s, matches));
        if (last === '') return '';
      }
      return `no revision explains the events (initial part ${initialCount}): ${last}`;
    }
  });
}

function sameLines(got: Line[], want: Line[]): string {
  for (let i = 0; i < Math.max(got.length, want.length); i++) {
    if (got[i] !== want[i]) return `event ${i}: got ${got[i] ?? '(none)'}, want ${want[i] ?? '(none)'} (${got.length} vs ${want.length})`;
  }
  return '';
}
