import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { capstanForJest, capstanForNodeTest, capstanForVitest, useCapstan, type CapstanFixture, type RunnerHooks } from './runners.ts';

function core(fixture: CapstanFixture): k8s.CoreV1Api {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(fixture.kubeconfig);
  return kc.makeApiClient(k8s.CoreV1Api);
}

async function configMapNames(fixture: CapstanFixture): Promise<string[]> {
  return (await core(fixture).listNamespacedConfigMap({ namespace: 'default' })).items.map((c) => c.metadata?.name ?? '');
}

describe('node:test helper, reset after each test', async () => {
  const capstan = await capstanForNodeTest();
  test('a test writes', async () => {
    await core(capstan).createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'left-behind' } } });
    assert.deepEqual(await configMapNames(capstan), ['left-behind']);
  });
  test('the next test starts from the post-start state', async () => {
    assert.deepEqual(await configMapNames(capstan), []);
    assert.equal(capstan.cluster, '');
    assert.equal(capstan.url, capstan.server.url);
  });
});

describe('node:test helper, a logical cluster per test', async () => {
  const capstan = await capstanForNodeTest({ isolation: 'cluster' });
  let first = '';
  test('a test writes into its own cluster', async () => {
    first = capstan.cluster;
    assert.match(capstan.url, /\/clusters\/test-1$/);
    await core(capstan).createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'mine' } } });
    assert.deepEqual(await configMapNames(capstan), ['mine']);
  });
  test('the next test has another, empty cluster; the first one is gone', async () => {
    assert.notEqual(capstan.cluster, first);
    assert.deepEqual(await configMapNames(capstan), []);
    assert.deepEqual(capstan.server.controls?.clusters().map((c) => c.name), [capstan.cluster]);
  });
});

test('Vitest and Jest wrappers register the same four steps with the hooks they are given', async () => {
  const registered: Record<keyof RunnerHooks, Array<() => Promise<void>>> = { beforeAll: [], afterAll: [], beforeEach: [], afterEach: [] };
  const hooks: RunnerHooks = {
    beforeAll: (fn) => registered.beforeAll.push(fn),
    afterAll: (fn) => registered.afterAll.push(fn),
    beforeEach: (fn) => registered.beforeEach.push(fn),
    afterEach: (fn) => registered.afterEach.push(fn),
  };
  const viaVitest = capstanForVitest({ isolation: 'cluster' }, hooks);
  assert.throws(() => viaVitest.server, /not started yet/);
  assert.deepEqual(Object.values(registered).map((fns) => fns.length), [1, 1, 1, 1]);
  // Run them as a runner would around one test.
  await registered.beforeAll[0]();
  await registered.beforeEach[0]();
  assert.equal(viaVitest.cluster, 'test-1');
  assert.equal(viaVitest.url, `${viaVitest.server.url}/clusters/test-1`);
  await registered.afterEach[0]();
  assert.equal(viaVitest.cluster, '');
  await registered.afterAll[0]();
  assert.throws(() => viaVitest.kubeconfig, /not started yet/);
  // Without hooks and without runner globals the wrappers say what to pass.
  assert.throws(() => capstanForJest(), /capstanForJest: no global beforeAll\/afterAll\/beforeEach\/afterEach; pass them in/);
  assert.throws(() => capstanForVitest(), /import \{ beforeAll, afterAll, beforeEach, afterEach \} from 'vitest'/);
  assert.throws(() => useCapstan(hooks, { isolation: 'fork' as 'reset' }), /isolation must be 'reset', 'cluster' or 'none'/);
});
