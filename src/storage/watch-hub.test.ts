import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemoryStorage } from './memory/memory-storage.ts';
import type { StorageEvent } from './types.ts';

test('watch hub: each watcher gets exactly the events under its prefix, in order, whatever the prefix ends with', async () => {
  const storage = createMemoryStorage();
  const prefixes = ['/registry/', '/registry/configmaps/', '/registry/configmaps/ns1/', '/registry/config', '/registry/configmaps/ns1/a', '', '/registry/pods/', '/other/'];
  const seen = new Map<string, string[]>(prefixes.map((p) => [p, []]));
  const handles = prefixes.map((p) =>
    storage.watch(p, 0, { onEvents: (events: StorageEvent[]) => seen.get(p)!.push(...events.map((e) => `${e.type} ${e.kv.key}`)), onError: (err) => assert.fail(err) }),
  );
  const keys = ['/registry/configmaps/ns1/a', '/registry/configmaps/ns1/ab', '/registry/configmaps/ns2/a', '/registry/configmapsx/ns1/a', '/registry/pods/ns1/p', '/other/x', '/registry/configmaps/ns1/a/b'];
  for (const key of keys) await storage.create(key, '{}');
  await storage.delete('/registry/configmaps/ns1/a');
  const expected = (p: string) => [...keys.map((k) => `put ${k}`), 'delete /registry/configmaps/ns1/a'].filter((e) => e.split(' ')[1].startsWith(p));
  // Delivery is asynchronous: wait (on a loaded machine, longer than a moment) until the widest watcher has it all.
  for (let i = 0; i < 200 && seen.get('')!.length < expected('').length; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 20));
  for (const p of prefixes) assert.deepEqual(seen.get(p), expected(p), `prefix ${JSON.stringify(p)}`);
  for (const h of handles) h.stop();
  await storage.close();
});
