import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createIdleRelease } from './idle-release.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('one collection after a busy period goes quiet, none while idle', async () => {
  const releases: number[] = [];
  const release = createIdleRelease({ idleMs: 40, onRelease: (ms) => releases.push(ms) });
  try {
    await sleep(120);
    assert.equal(releases.length, 0, 'an idle server collects nothing');
    release.touch();
    while (releases.length === 0) await sleep(10);
    await sleep(120);
    assert.equal(releases.length, 1, 'one collection per busy period');
    release.touch();
    while (releases.length === 1) await sleep(10);
    assert.equal(releases.length, 2);
  } finally {
    release.close();
  }
});
