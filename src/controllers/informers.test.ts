import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemoryStorage } from '../storage/memory/memory-storage.ts';
import { createRegistry } from '../registry/registry.ts';
import type { KubeObject } from '../registry/types.ts';
import { createInformers, type Informer, type InformerEvent } from './informers.ts';
import { ctxFor, storeFor } from './simulation/shared.ts';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

const configMap = (name: string, data: Record<string, string> = {}, owner?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'a', ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: owner, controller: true }] } : {}) },
  data,
});

async function setUp() {
  const registry = await createRegistry({ storage: createMemoryStorage(), runtimeConfig: '', featureGates: {} });
  await storeFor(registry, '', 'v1', 'namespaces')!.create(ctxFor(), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } });
  const store = storeFor(registry, '', 'v1', 'configmaps')!;
  const informers = createInformers(registry);
  return { registry, store, informers };
}

/** Resolves with the first event the informer reports that matches. */
function nextEvent(informer: Informer, match: (ev: InformerEvent) => boolean): Promise<InformerEvent> {
  return new Promise((resolve) => informer.onEvent((ev) => match(ev) && resolve(ev)));
}

test('an informer lists what exists, then follows the watch: creates, updates and deletes by others', async () => {
  const { store, informers } = await setUp();
  await store.create(ctxFor('a'), configMap('one'));
  await store.create(ctxFor('a'), configMap('two'));
  const informer = informers.of(CONFIGMAPS);
  await informer.synced;
  assert.deepEqual(informer.list('a').map((o) => o.metadata.name).sort(), ['one', 'two']);
  assert.deepEqual(informer.list('b'), []);

  const added = nextEvent(informer, (ev) => ev.object.metadata.name === 'three');
  await store.create(ctxFor('a'), configMap('three'));
  assert.equal((await added).type, 'ADDED');

  const modified = nextEvent(informer, (ev) => ev.type === 'MODIFIED');
  await store.update(ctxFor('a'), 'one', (cur) => ({ ...cur!, data: { k: 'v' } }));
  assert.deepEqual((await modified).object.data, { k: 'v' });
  assert.deepEqual(informer.get('a', 'one')?.data, { k: 'v' });

  const deleted = nextEvent(informer, (ev) => ev.type === 'DELETED');
  await store.delete(ctxFor('a'), 'two');
  assert.equal((await deleted).object.metadata.name, 'two');
  assert.equal(informer.get('a', 'two'), undefined);
  assert.deepEqual(informer.list().map((o) => o.metadata.name).sort(), ['one', 'three']);
  await informers.stop();
});

test("an informer's own writes are in its cache when they return, and their later watch events change nothing", async () => {
  const { informers } = await setUp();
  const informer = informers.of(CONFIGMAPS);
  await informer.synced;
  const events: string[] = [];
  informer.onEvent((ev) => events.push(`${ev.type} ${ev.object.metadata.name} ${ev.object.metadata.resourceVersion} ${ev.written ?? 'watch'}`));

  const created = await informer.create('a', configMap('mine'));
  assert.equal(informer.get('a', 'mine'), created);
  const updated = await informer.update('a', 'mine', (cur) => ({ ...cur!, data: { n: '1' } }));
  assert.equal(informer.get('a', 'mine'), updated);
  assert.ok(Number(updated.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
  await informer.delete('a', 'mine');
  assert.equal(informer.get('a', 'mine'), undefined);

  // The watch delivers the same three changes afterwards: the cache already holds them (or their outcome).
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(informer.get('a', 'mine'), undefined);
  assert.deepEqual(events, [
    `ADDED mine ${created.metadata.resourceVersion} `,
    `MODIFIED mine ${updated.metadata.resourceVersion} `,
    `DELETED mine ${updated.metadata.resourceVersion} `,
  ]);
  // Another writer's change comes from the watch.
  await informer.create('a', configMap('theirs'));
  events.length = 0;
  const seen = nextEvent(informer, (ev) => ev.type === 'MODIFIED');
  await informers.registry.store(informers.registry.lookup('', 'v1', 'configmaps')!).update(ctxFor('a'), 'theirs', (cur) => ({ ...cur!, data: { by: 'them' } }));
  const theirs = await seen;
  assert.deepEqual(events, [`MODIFIED theirs ${theirs.object.metadata.resourceVersion} watch`]);
  await informers.stop();
});

test('an informer indexes objects by their controller, and follows a changed or removed controller reference', async () => {
  const { store, informers } = await setUp();
  const informer = informers.of(CONFIGMAPS);
  await informer.synced;
  await informer.create('a', configMap('p1', {}, 'uid-1'));
  await informer.create('a', configMap('p2', {}, 'uid-1'));
  await informer.create('a', configMap('p3', {}, 'uid-2'));
  await informer.create('a', configMap('free'));
  const names = (uid: string) => informer.controlledBy(uid).map((o) => o.metadata.name).sort();
  assert.deepEqual(names('uid-1'), ['p1', 'p2']);
  assert.deepEqual(names('uid-2'), ['p3']);

  await informer.update('a', 'p2', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, ownerReferences: undefined } }));
  assert.deepEqual(names('uid-1'), ['p1']);
  const gone = nextEvent(informer, (ev) => ev.type === 'DELETED');
  await store.delete(ctxFor('a'), 'p1');
  await gone;
  assert.deepEqual(names('uid-1'), []);
  assert.deepEqual(names('uid-2'), ['p3']);
  await informers.stop();
});

test('informers are shared: asking twice for a resource gives the same one', async () => {
  const { informers } = await setUp();
  assert.equal(informers.of(CONFIGMAPS), informers.of({ ...CONFIGMAPS }));
  await informers.stop();
});

test('when its watch ends, an informer lists again: what went meanwhile is dropped, what came is added', async () => {
  const { registry, store } = await setUp();
  // The configmaps watch can be cut (its events stop) and then ended (the informer hears of it).
  let cut = (): void => {};
  let end = (): void => {};
  const watched = Object.create(registry) as typeof registry;
  watched.store = (def) => {
    const real = registry.store(def);
    if (def.resource !== 'configmaps') return real;
    return Object.assign(Object.create(real) as typeof real, {
      watch: async (...args: Parameters<typeof real.watch>) => {
        const w = await real.watch(...args);
        return {
          start(onEvent: Parameters<typeof w.start>[0], onEnd: Parameters<typeof w.start>[1]) {
            cut = () => w.stop();
            end = () => onEnd();
            w.start(onEvent, onEnd);
          },
          stop: () => w.stop(),
        };
      },
    });
  };
  await store.create(ctxFor('a'), configMap('stays'));
  await store.create(ctxFor('a'), configMap('goes'));
  const informers = createInformers(watched);
  const informer = informers.of(CONFIGMAPS);
  await informer.synced;
  await new Promise((r) => setTimeout(r, 20));
  cut();
  await store.delete(ctxFor('a'), 'goes');
  await store.create(ctxFor('a'), configMap('comes'));
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(informer.list('a').map((o) => o.metadata.name).sort(), ['goes', 'stays']);
  const relisted = nextEvent(informer, (ev) => ev.object.metadata.name === 'comes');
  end();
  await relisted;
  assert.deepEqual(informer.list('a').map((o) => o.metadata.name).sort(), ['comes', 'stays']);
  // And the new watch is followed.
  const later = nextEvent(informer, (ev) => ev.object.metadata.name === 'later');
  await store.create(ctxFor('a'), configMap('later'));
  await later;
  await informers.stop();
});
