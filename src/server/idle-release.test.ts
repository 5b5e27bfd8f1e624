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

test('after start-up: one collection once requests have stopped for the quiet time', async () => {
  const releases: number[] = [];
  const release = createIdleRelease({ idleMs: 10_000, onRelease: (ms) => releases.push(ms) });
  try {
    release.afterStartup(60);
    for (let i = 0; i < 4; i++) {
      await sleep(30);
      release.touch();
    }
    assert.equal(releases.length, 0, 'requests keep coming: no collection yet');
    while (releases.length === 0) await sleep(10);
    await sleep(150);
    assert.equal(releases.length, 1);
  } finally {
    release.close();
  }
});
