import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../registry/types.ts';
import { envBlocker, startBlocker, volumeBlocker, type ReferenceReader } from './pod-references.ts';

type Obj = Record<string, any>;

/** A namespace holding these ConfigMaps and Secrets (name -> data keys). */
function namespace(configMaps: Record<string, string[]>, secrets: Record<string, string[]> = {}): ReferenceReader {
  const obj = (name: string, keys: string[] | undefined) => (keys ? ({ metadata: { name }, data: Object.fromEntries(keys.map((k) => [k, 'x'])) } as KubeObject) : undefined);
  return { configMap: async (name) => obj(name, configMaps[name]), secret: async (name) => obj(name, secrets[name]) };
}

const pod = (spec: Obj): KubeObject => ({ metadata: { name: 'p', namespace: 'team' }, spec } as KubeObject);

test("volumes: the volume manager's message for a missing ConfigMap or Secret, or a missing item key; optional ones are skipped", async () => {
  const ns = namespace({ settings: ['a'] }, { creds: ['user'] });
  const one = (volume: Obj) => volumeBlocker(pod({ volumes: [volume] }), ns);
  assert.equal(await one({ name: 'config', configMap: { name: 'app-config' } }), 'MountVolume.SetUp failed for volume "config" : configmap "app-config" not found');
  assert.equal(await one({ name: 'tls', secret: { secretName: 'tls' } }), 'MountVolume.SetUp failed for volume "tls" : secret "tls" not found');
  assert.equal(await one({ name: 'config', configMap: { name: 'settings', items: [{ key: 'b', path: 'b' }] } }), 'MountVolume.SetUp failed for volume "config" : configmap references non-existent config key: b');
  assert.equal(await one({ name: 'creds', secret: { secretName: 'creds', items: [{ key: 'password', path: 'p' }] } }), 'MountVolume.SetUp failed for volume "creds" : references non-existent secret key: password');
  assert.equal(await one({ name: 'config', configMap: { name: 'app-config', optional: true } }), undefined);
  assert.equal(await one({ name: 'config', configMap: { name: 'settings', items: [{ key: 'b', path: 'b' }], optional: true } }), undefined);
  assert.equal(await one({ name: 'ok', configMap: { name: 'settings', items: [{ key: 'a', path: 'a' }] } }), undefined);
  // A projected volume reports all its sources' errors, several in brackets.
  assert.equal(await one({ name: 'all', projected: { sources: [{ configMap: { name: 'gone' } }, { secret: { name: 'also-gone' } }, { serviceAccountToken: { path: 't' } }] } }), 'MountVolume.SetUp failed for volume "all" : [configmap "gone" not found, secret "also-gone" not found]');
  assert.equal(await one({ name: 'all', projected: { sources: [{ secret: { name: 'also-gone' } }] } }), 'MountVolume.SetUp failed for volume "all" : secret "also-gone" not found');
});

test("environment: envFrom, then env in order, with makeEnvironmentVariables' messages; optional ones are skipped", async () => {
  const ns = namespace({ settings: ['a'] }, { creds: ['user'] });
  const env = (c: Obj) => envBlocker(pod({}), c, ns);
  assert.equal(await env({ envFrom: [{ configMapRef: { name: 'settings' } }, { secretRef: { name: 'gone' } }] }), 'secret "gone" not found');
  assert.equal(await env({ envFrom: [{ secretRef: { name: 'gone', optional: true } }] }), undefined);
  assert.equal(await env({ env: [{ name: 'A', value: 'x' }, { name: 'B', valueFrom: { configMapKeyRef: { name: 'settings', key: 'b' } } }] }), "couldn't find key b in ConfigMap team/settings");
  assert.equal(await env({ env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } }] }), "couldn't find key password in Secret team/creds");
  assert.equal(await env({ env: [{ name: 'P', valueFrom: { configMapKeyRef: { name: 'gone', key: 'x' } } }] }), 'configmap "gone" not found');
  assert.equal(await env({ env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'creds', key: 'password', optional: true } } }] }), undefined);
  assert.equal(await env({ env: [{ name: 'U', valueFrom: { secretKeyRef: { name: 'creds', key: 'user' } } }, { name: 'F', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }), undefined);
});

test('startBlocker: volumes first, then init containers, then containers', async () => {
  const ns = namespace({}, {});
  const spec = { volumes: [{ name: 'v', configMap: { name: 'cm' } }], initContainers: [{ name: 'setup', image: 'busybox', envFrom: [{ configMapRef: { name: 'init-env' } }] }], containers: [{ name: 'app', image: 'nginx', envFrom: [{ secretRef: { name: 'app-env' } }] }] };
  assert.deepEqual(await startBlocker(pod(spec), ns), { kind: 'volume', message: 'MountVolume.SetUp failed for volume "v" : configmap "cm" not found' });
  assert.deepEqual(await startBlocker(pod({ ...spec, volumes: [] }), ns), { kind: 'env', field: 'initContainers', container: 'setup', message: 'configmap "init-env" not found' });
  assert.deepEqual(await startBlocker(pod({ ...spec, volumes: [], initContainers: [] }), ns), { kind: 'env', field: 'containers', container: 'app', message: 'secret "app-env" not found' });
  assert.equal(await startBlocker(pod({ containers: [{ name: 'app', image: 'nginx' }] }), ns), undefined);
  // An image name the kubelet cannot parse holds its container before its environment is looked at.
  const misnamed = await startBlocker(pod({ ...spec, volumes: [], initContainers: [], containers: [{ ...spec.containers[0]!, image: 'NGINX' }] }), ns);
  assert.deepEqual(misnamed && misnamed.kind === 'image' && [misnamed.container, misnamed.invalid], ['app', 'Failed to apply default image tag "NGINX": couldn\'t parse image name "NGINX": invalid reference format: repository name (library/NGINX) must be lowercase']);
});
