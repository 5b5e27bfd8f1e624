// @kubernetes/client-node against a real Capstan: CRUD on ConfigMaps and Deployments, on both embedded backends.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

function clients(s: TestServer): { core: k8s.CoreV1Api; apps: k8s.AppsV1Api } {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(s.kubeconfig);
  return { core: kc.makeApiClient(k8s.CoreV1Api), apps: kc.makeApiClient(k8s.AppsV1Api) };
}

/** The ApiException code of a failed call. */
async function codeOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (e) {
    return (e as { code?: number }).code ?? -1;
  }
  return 0;
}

for (const backend of ['memory', 'sqlite'] as const) {
  describe(`client-node CRUD (${backend})`, () => {
    let s: TestServer;
    let core: k8s.CoreV1Api;
    let apps: k8s.AppsV1Api;
    before(async () => {
      s = await startTestServer({ storageBackend: backend });
      ({ core, apps } = clients(s));
    });
    after(async () => {
      await s?.close();
    });

    test('ConfigMaps', async () => {
      const created = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'settings', labels: { app: 'demo' } }, data: { a: '1' } } });
      assert.equal(created.metadata?.name, 'settings');
      assert.equal(created.metadata?.namespace, 'default');
      assert.match(created.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
      assert.ok(Number(created.metadata?.resourceVersion) > 0);

      const read = await core.readNamespacedConfigMap({ name: 'settings', namespace: 'default' });
      assert.deepEqual(read.data, { a: '1' });
      assert.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);

      read.data = { a: '2', b: '3' };
      const replaced = await core.replaceNamespacedConfigMap({ name: 'settings', namespace: 'default', body: read });
      assert.deepEqual(replaced.data, { a: '2', b: '3' });
      assert.ok(Number(replaced.metadata?.resourceVersion) > Number(created.metadata?.resourceVersion));

      // The stale version loses.
      assert.equal(await codeOf(core.replaceNamespacedConfigMap({ name: 'settings', namespace: 'default', body: read })), 409);

      const list = await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'app=demo' });
      assert.deepEqual(list.items.map((i) => i.metadata?.name), ['settings']);
      assert.ok(Number(list.metadata?.resourceVersion) >= Number(replaced.metadata?.resourceVersion));

      await core.deleteNamespacedConfigMap({ name: 'settings', namespace: 'default' });
      assert.equal(await codeOf(core.readNamespacedConfigMap({ name: 'settings', namespace: 'default' })), 404);
      assert.equal(await codeOf(core.deleteNamespacedConfigMap({ name: 'settings', namespace: 'default' })), 404);
    });

    test('Deployments: defaulting, generation and the scale subresource', async () => {
      const body: k8s.V1Deployment = {
        metadata: { name: 'web' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } },
        },
      };
      const created = await apps.createNamespacedDeployment({ namespace: 'default', body });
      assert.equal(created.metadata?.generation, 1);
      assert.equal(created.spec?.replicas, 1);
      assert.equal(created.spec?.strategy?.type, 'RollingUpdate');
      assert.equal(created.spec?.revisionHistoryLimit, 10);
      assert.equal(created.spec?.template.spec?.containers[0].imagePullPolicy, 'IfNotPresent');

      const scale = await apps.readNamespacedDeploymentScale({ name: 'web', namespace: 'default' });
      assert.equal(scale.kind, 'Scale');
      assert.equal(scale.spec?.replicas, 1);
      assert.equal(scale.status?.selector, 'app=web');

      scale.spec = { replicas: 3 };
      await apps.replaceNamespacedDeploymentScale({ name: 'web', namespace: 'default', body: scale });
      const scaled = await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' });
      assert.equal(scaled.spec?.replicas, 3);
      assert.equal(scaled.metadata?.generation, 2);

      // A status write changes status only.
      scaled.status = { replicas: 3, readyReplicas: 2 };
      scaled.spec!.replicas = 9;
      const st = await apps.replaceNamespacedDeploymentStatus({ name: 'web', namespace: 'default', body: scaled });
      assert.equal(st.status?.readyReplicas, 2);
      assert.equal(st.spec?.replicas, 3);
      assert.equal(st.metadata?.generation, 2);

      const all = await apps.listDeploymentForAllNamespaces();
      assert.deepEqual(all.items.map((d) => `${d.metadata?.namespace}/${d.metadata?.name}`), ['default/web']);
      await apps.deleteNamespacedDeployment({ name: 'web', namespace: 'default' });
      assert.equal(await codeOf(apps.readNamespacedDeployment({ name: 'web', namespace: 'default' })), 404);
    });
  });
}
