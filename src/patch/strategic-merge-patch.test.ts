import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchemaNode } from '../apis/model-types.ts';
import { schemaByName } from '../apis/model.ts';
import type { JsonObject } from '../encoding/json-value.ts';
import { strategicMergePatch, StrategicMergePatchError, type StrategicMergePatchErrorClass } from './strategic-merge-patch.ts';

// Real schemas from the built-in model: the patch strategies and merge keys are kube's own.
const resolveRef = (ref: string): SchemaNode | undefined => schemaByName(ref);
const SCHEMAS = {
  Pod: { ref: 'io.k8s.api.core.v1.Pod' },
  Deployment: { ref: 'io.k8s.api.apps.v1.Deployment' },
  PodDisruptionBudget: { ref: 'io.k8s.api.policy.v1.PodDisruptionBudget' },
} satisfies Record<string, SchemaNode>;

interface Fixture {
  name: string;
  schema: keyof typeof SCHEMAS;
  original: JsonObject;
  patch: JsonObject | null;
  expected?: JsonObject;
  error?: { errorClass: StrategicMergePatchErrorClass; message: string };
}

const container = (name: string, extra: JsonObject = {}): JsonObject => ({ name, image: `${name}:1`, ...extra });
const podWith = (spec: JsonObject, metadata: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', ...metadata },
  spec,
});

const FIXTURES: Fixture[] = [
  {
    name: 'kubectl patch: change the image of one container (merge by name)',
    schema: 'Pod',
    original: podWith({ containers: [container('a'), container('b')] }),
    patch: { spec: { containers: [{ name: 'a', image: 'a:2' }] } },
    expected: podWith({ containers: [container('a', { image: 'a:2' }), container('b')] }),
  },
  {
    name: 'kubectl apply: change an image, with $setElementOrder',
    schema: 'Pod',
    original: podWith({ containers: [container('a'), container('b')] }),
    patch: { spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }], containers: [{ name: 'b', image: 'b:2' }] } },
    expected: podWith({ containers: [container('a'), container('b', { image: 'b:2' })] }),
  },
  {
    name: 'kubectl patch: a new container goes before the server-only ones',
    schema: 'Pod',
    original: podWith({ containers: [container('a'), container('b')] }),
    patch: { spec: { containers: [container('c')] } },
    expected: podWith({ containers: [container('c'), container('a'), container('b')] }),
  },
  {
    name: 'kubectl apply: a new container lands where $setElementOrder puts it',
    schema: 'Pod',
    original: podWith({ containers: [container('a'), container('b')] }),
    patch: { spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'c' }, { name: 'b' }], containers: [container('c')] } },
    expected: podWith({ containers: [container('a'), container('c'), container('b')] }),
  },
  {
    name: 'kubectl apply: remove a container with $patch: delete',
    schema: 'Pod',
    original: podWith({ containers: [container('a'), container('b')] }),
    patch: { spec: { '$setElementOrder/containers': [{ name: 'a' }], containers: [{ name: 'b', $patch: 'delete' }] } },
    expected: podWith({ containers: [container('a')] }),
  },
  {
    name: '$setElementOrder alone reorders the live list',
    schema: 'Pod',
    original: podWith({ containers: [container('a'), container('b'), container('c')] }),
    patch: { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }, { name: 'b' }] } },
    expected: podWith({ containers: [container('c'), container('a'), container('b')] }),
  },
  {
    name: 'kubectl apply: env merged by name, one variable deleted, one added',
    schema: 'Pod',
    original: podWith({ containers: [container('a', { env: [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }] })] }),
    patch: {
      spec: {
        '$setElementOrder/containers': [{ name: 'a' }],
        containers: [
          {
            name: 'a',
            '$setElementOrder/env': [{ name: 'X' }, { name: 'Z' }],
            env: [{ name: 'Z', value: '3' }, { name: 'Y', $patch: 'delete' }],
          },
        ],
      },
    },
    expected: podWith({ containers: [container('a', { env: [{ name: 'X', value: '1' }, { name: 'Z', value: '3' }] })] }),
  },
  {
    name: 'env value changed and valueFrom removed with null',
    schema: 'Pod',
    original: podWith({ containers: [container('a', { env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] })] }),
    patch: { spec: { containers: [{ name: 'a', env: [{ name: 'X', value: 'v', valueFrom: null }] }] } },
    expected: podWith({ containers: [container('a', { env: [{ name: 'X', value: 'v' }] })] }),
  },
  {
    name: 'ports merged by containerPort (a number), new port first without $setElementOrder',
    schema: 'Pod',
    original: podWith({ containers: [container('a', { ports: [{ containerPort: 80, protocol: 'TCP' }] })] }),
    patch: { spec: { containers: [{ name: 'a', ports: [{ containerPort: 443, protocol: 'TCP' }] }] } },
    expected: podWith({ containers: [container('a', { ports: [{ containerPort: 443, protocol: 'TCP' }, { containerPort: 80, protocol: 'TCP' }] })] }),
  },
  {
    name: 'ports ordered by $setElementOrder',
    schema: 'Pod',
    original: podWith({ containers: [container('a', { ports: [{ containerPort: 80, protocol: 'TCP' }] })] }),
    patch: {
      spec: {
        containers: [
          { name: 'a', '$setElementOrder/ports': [{ containerPort: 80 }, { containerPort: 443 }], ports: [{ containerPort: 443, name: 'https' }] },
        ],
      },
    },
    expected: podWith({ containers: [container('a', { ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443, name: 'https' }] })] }),
  },
  {
    name: 'volumeMounts merged by mountPath inside a merged container',
    schema: 'Pod',
    original: podWith({ containers: [container('a', { volumeMounts: [{ mountPath: '/a', name: 'x' }] })] }),
    patch: { spec: { containers: [{ name: 'a', volumeMounts: [{ mountPath: '/a', readOnly: true }, { mountPath: '/b', name: 'y' }] }] } },
    expected: podWith({ containers: [container('a', { volumeMounts: [{ mountPath: '/a', name: 'x', readOnly: true }, { mountPath: '/b', name: 'y' }] })] }),
  },
  {
    name: 'finalizers are a set: new values first, duplicates dropped',
    schema: 'Pod',
    original: podWith({}, { finalizers: ['a', 'b'] }),
    patch: { metadata: { finalizers: ['b', 'c'] } },
    expected: podWith({}, { finalizers: ['a', 'b', 'c'] }),
  },
  {
    name: 'finalizers: a value not in the live list goes first',
    schema: 'Pod',
    original: podWith({}, { finalizers: ['a', 'b'] }),
    patch: { metadata: { finalizers: ['c'] } },
    expected: podWith({}, { finalizers: ['c', 'a', 'b'] }),
  },
  {
    name: '$deleteFromPrimitiveList removes finalizers',
    schema: 'Pod',
    original: podWith({}, { finalizers: ['a', 'b', 'c', 'b'] }),
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } },
    expected: podWith({}, { finalizers: ['a', 'c'] }),
  },
  {
    name: 'kubectl apply on finalizers: $setElementOrder, additions and deletions together',
    schema: 'Pod',
    original: podWith({}, { finalizers: ['a', 'b'] }),
    patch: { metadata: { '$setElementOrder/finalizers': ['c', 'a'], finalizers: ['c'], '$deleteFromPrimitiveList/finalizers': ['b'] } },
    expected: podWith({}, { finalizers: ['c', 'a'] }),
  },
  {
    name: '$deleteFromPrimitiveList on an absent list sets the list to the values (library behaviour)',
    schema: 'Pod',
    original: podWith({}),
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } },
    expected: podWith({}, { finalizers: ['x'] }),
  },
  {
    name: 'tolerations have no patch strategy: the list is replaced',
    schema: 'Pod',
    original: podWith({ tolerations: [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }] }),
    patch: { spec: { tolerations: [{ key: 'c', operator: 'Exists' }] } },
    expected: podWith({ tolerations: [{ key: 'c', operator: 'Exists' }] }),
  },
  {
    name: 'container args (atomic) are replaced',
    schema: 'Pod',
    original: podWith({ containers: [container('a', { args: ['x', 'y'] })] }),
    patch: { spec: { containers: [{ name: 'a', args: ['z'] }] } },
    expected: podWith({ containers: [container('a', { args: ['z'] })] }),
  },
  {
    name: 'labels merged, null deletes a label',
    schema: 'Pod',
    original: podWith({}, { labels: { a: '1', b: '2' } }),
    patch: { metadata: { labels: { b: null, c: '3' } } },
    expected: podWith({}, { labels: { a: '1', c: '3' } }),
  },
  {
    name: 'nodeSelector merges although its map type is atomic (strategic merge ignores map and list types)',
    schema: 'Pod',
    original: podWith({ nodeSelector: { disk: 'ssd' } }),
    patch: { spec: { nodeSelector: { zone: 'a' } } },
    expected: podWith({ nodeSelector: { disk: 'ssd', zone: 'a' } }),
  },
  {
    name: '$patch: replace on a map replaces it',
    schema: 'Pod',
    original: podWith({}, { labels: { a: '1', b: '2' } }),
    patch: { metadata: { labels: { $patch: 'replace', c: '3' } } },
    expected: podWith({}, { labels: { c: '3' } }),
  },
  {
    name: '$patch: delete on a map empties it',
    schema: 'Pod',
    original: podWith({ nodeSelector: { disk: 'ssd' } }),
    patch: { spec: { nodeSelector: { $patch: 'delete' } } },
    expected: podWith({ nodeSelector: {} }),
  },
  {
    name: '$patch: replace in a merged list replaces the whole list',
    schema: 'Pod',
    original: podWith({ containers: [container('a'), container('b')] }),
    patch: { spec: { containers: [container('c'), { $patch: 'replace' }] } },
    expected: podWith({ containers: [container('c')] }),
  },
  {
    name: 'volumes: $retainKeys clears the volume source that is not retained',
    schema: 'Pod',
    original: podWith({ volumes: [{ name: 'data', emptyDir: {} }, { name: 'other', emptyDir: {} }] }),
    patch: {
      spec: {
        '$setElementOrder/volumes': [{ name: 'data' }, { name: 'other' }],
        volumes: [{ name: 'data', $retainKeys: ['configMap', 'name'], configMap: { name: 'cm' }, emptyDir: null }],
      },
    },
    expected: podWith({ volumes: [{ name: 'data', configMap: { name: 'cm' } }, { name: 'other', emptyDir: {} }] }),
  },
  {
    name: 'Deployment strategy (retainKeys): switching to Recreate drops rollingUpdate',
    schema: 'Deployment',
    original: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { replicas: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } },
    },
    patch: { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: null, type: 'Recreate' } } },
    expected: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 1, strategy: { type: 'Recreate' } } },
  },
  {
    name: 'Deployment: containers of the pod template merged by name, replicas replaced',
    schema: 'Deployment',
    original: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', annotations: { x: 'y' } },
      spec: { replicas: 1, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [container('a'), container('b')] } } },
    },
    patch: {
      metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': 't' } },
      spec: { replicas: 3, template: { spec: { containers: [{ name: 'b', image: 'b:2', resources: { limits: { cpu: '1' } } }] } } },
    },
    expected: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', annotations: { x: 'y', 'kubectl.kubernetes.io/restartedAt': 't' } },
      spec: {
        replicas: 3,
        template: {
          metadata: { labels: { app: 'd' } },
          spec: { containers: [container('a'), container('b', { image: 'b:2', resources: { limits: { cpu: '1' } } })] },
        },
      },
    },
  },
  {
    name: 'ownerReferences merged by uid',
    schema: 'Pod',
    original: podWith({}, { ownerReferences: [{ uid: '1', name: 'a', kind: 'ReplicaSet', apiVersion: 'apps/v1' }, { uid: '2', name: 'b', kind: 'ReplicaSet', apiVersion: 'apps/v1' }] }),
    patch: { metadata: { ownerReferences: [{ uid: '2', controller: true }] } },
    expected: podWith({}, {
      ownerReferences: [
        { uid: '1', name: 'a', kind: 'ReplicaSet', apiVersion: 'apps/v1' },
        { uid: '2', name: 'b', kind: 'ReplicaSet', apiVersion: 'apps/v1', controller: true },
      ],
    }),
  },
  {
    name: 'imagePullSecrets (by name) and hostAliases (by ip) merged',
    schema: 'Pod',
    original: podWith({ imagePullSecrets: [{ name: 's1' }], hostAliases: [{ ip: '10.0.0.1', hostnames: ['a'] }] }),
    patch: { spec: { imagePullSecrets: [{ name: 's1' }, { name: 's2' }], hostAliases: [{ ip: '10.0.0.1', hostnames: ['b'] }] } },
    expected: podWith({ imagePullSecrets: [{ name: 's1' }, { name: 's2' }], hostAliases: [{ ip: '10.0.0.1', hostnames: ['b'] }] }),
  },
  {
    name: 'PodDisruptionBudget selector has patch strategy replace',
    schema: 'PodDisruptionBudget',
    original: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'x' }, spec: { selector: { matchLabels: { a: '1' } }, minAvailable: 1 } },
    patch: { spec: { selector: { matchLabels: { b: '2' } } } },
    expected: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'x' }, spec: { selector: { matchLabels: { b: '2' } }, minAvailable: 1 } },
  },
  {
    name: 'fields unknown to the schema merge like JSON merge patch',
    schema: 'Pod',
    original: podWith({ extension: { a: 1, list: [1, 2], nested: { x: 1 } } }),
    patch: { spec: { extension: { list: [3], nested: { y: 2, x: null }, added: { z: null } } } },
    expected: podWith({ extension: { a: 1, list: [3], nested: { y: 2 }, added: { z: null } } }),
  },
  {
    name: 'a value of another type replaces the original',
    schema: 'Pod',
    original: podWith({ nodeSelector: { a: 'b' }, hostname: 'h' }),
    patch: { spec: { nodeSelector: 'x', hostname: { weird: true } } },
    expected: podWith({ nodeSelector: 'x', hostname: { weird: true } }),
  },
  {
    name: 'a top-level $patch: replace replaces the whole object',
    schema: 'Pod',
    original: podWith({ containers: [container('a')] }),
    patch: { $patch: 'replace', apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } },
    expected: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } },
  },
  {
    name: 'a null patch changes nothing',
    schema: 'Pod',
    original: podWith({ containers: [container('a')] }),
    patch: null,
    expected: podWith({ containers: [container('a')] }),
  },
  {
    name: 'error: a merged list item without its merge key',
    schema: 'Pod',
    original: podWith({ containers: [container('a')] }),
    patch: { spec: { containers: [{ image: 'x' }] } },
    error: { errorClass: 'Internal', message: 'map: map[image:x] does not contain declared merge key: name' },
  },
  {
    name: 'error: $patch: merge in a list',
    schema: 'Pod',
    original: podWith({ containers: [container('a')] }),
    patch: { spec: { containers: [{ name: 'a', $patch: 'merge' }] } },
    error: { errorClass: 'Internal', message: 'merging lists cannot yet be specified in the patch' },
  },
  {
    name: 'error: unknown $patch directive on a map',
    schema: 'Pod',
    original: podWith({}, { labels: { a: 'b' } }),
    patch: { metadata: { labels: { $patch: 'foo', a: 'b' } } },
    error: { errorClass: 'Internal', message: 'unknown patch type: foo in map: map[$patch:foo a:b]' },
  },
  {
    name: 'error: $retainKeys must list every field of the patch',
    schema: 'Deployment',
    original: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { strategy: { type: 'RollingUpdate' } } },
    patch: { spec: { strategy: { $retainKeys: ['type'], type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
    error: { errorClass: 'BadRequest', message: 'invalid patch format of retainKeys' },
  },
  {
    name: 'error: $retainKeys that is not a list',
    schema: 'Deployment',
    original: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { strategy: { type: 'RollingUpdate' } } },
    patch: { spec: { strategy: { $retainKeys: 'type' } } },
    error: { errorClass: 'BadRequest', message: 'invalid patch format of retainKeys' },
  },
  {
    name: 'error: $deleteFromPrimitiveList without a field',
    schema: 'Pod',
    original: podWith({}, { finalizers: ['a'] }),
    patch: { metadata: { $deleteFromPrimitiveList: ['a'] } },
    error: { errorClass: 'BadRequest', message: 'invalid patch format of primitive list' },
  },
  {
    name: 'error: $setElementOrder with a wrong prefix',
    schema: 'Pod',
    original: podWith({}, { finalizers: ['a'] }),
    patch: { metadata: { '$setElementOrderX/finalizers': ['a'] } },
    error: { errorClass: 'BadRequest', message: 'invalid patch format of setElementOrder list' },
  },
  {
    name: 'error: patch list items missing from $setElementOrder',
    schema: 'Pod',
    original: podWith({ containers: [container('a')] }),
    patch: { spec: { '$setElementOrder/containers': [{ name: 'a' }], containers: [{ name: 'b', image: 'x' }] } },
    error: { errorClass: 'Internal', message: "The order in patch list:\n[map[image:x name:b]]\n doesn't match $setElementOrder list:\n[map[name:a]]\n" },
  },
  {
    name: 'error: $setElementOrder for a field the type does not have',
    schema: 'Pod',
    original: podWith({}),
    patch: { spec: { '$setElementOrder/foo': ['a'] } },
    error: { errorClass: 'Internal', message: 'unable to find api field in struct PodSpec for the json field "foo"' },
  },
  {
    name: 'error: lists of lists',
    schema: 'Pod',
    original: podWith({}, { finalizers: [] }),
    patch: { metadata: { finalizers: [['a']] } },
    error: { errorClass: 'Invalid', message: 'lists of lists are not supported' },
  },
  {
    name: 'error: merged list elements of different types',
    schema: 'Pod',
    original: podWith({}, { finalizers: ['a'] }),
    patch: { metadata: { finalizers: [1] } },
    error: { errorClass: 'Internal', message: 'list element types are not identical: [[a] [1]]' },
  },
];

for (const f of FIXTURES) {
  test(`strategic merge patch: ${f.name}`, () => {
    const original = structuredClone(f.original);
    const patch = structuredClone(f.patch);
    const run = (): JsonObject => strategicMergePatch(original, patch, SCHEMAS[f.schema], resolveRef);
    if (f.error) {
      const want = f.error;
      assert.throws(run, (e: unknown) => {
        assert.ok(e instanceof StrategicMergePatchError, String(e));
        assert.equal(e.message, want.message);
        assert.equal(e.errorClass, want.errorClass);
        return true;
      });
    } else {
      assert.deepEqual(run(), f.expected);
    }
    // Inputs are never modified.
    assert.deepEqual(original, f.original);
    assert.deepEqual(patch, f.patch);
  });
}

test('the fixture suite covers at least 25 cases', () => {
  assert.ok(FIXTURES.length >= 25, String(FIXTURES.length));
});

test('order follows Go: server-only items keep their live positions around the patch items', () => {
  const original = podWith({ containers: ['a', 'b', 'c', 'd'].map((n) => container(n)) });
  // Patch items in a different order than live: the patch order wins for them; c and d follow b in live order.
  const patch = { spec: { containers: [{ name: 'b', image: 'b:2' }, { name: 'a', image: 'a:2' }] } };
  const result = strategicMergePatch(original, patch, SCHEMAS.Pod, resolveRef) as { spec: { containers: { name: string }[] } };
  assert.deepEqual(result.spec.containers.map((c) => c.name), ['b', 'a', 'c', 'd']);
});

test('a schema given inline (not by ref) works the same, and names its type after the kind', () => {
  const inline = schemaByName('io.k8s.api.core.v1.Pod')!;
  const result = strategicMergePatch(podWith({ containers: [container('a')] }), { spec: { containers: [container('b')] } }, inline, resolveRef);
  assert.deepEqual(result, podWith({ containers: [container('b'), container('a')] }));
  assert.throws(
    () => strategicMergePatch(podWith({}), { '$setElementOrder/foo': [] }, inline, resolveRef),
    (e: unknown) => e instanceof StrategicMergePatchError && e.message === 'unable to find api field in struct Pod for the json field "foo"',
  );
});

test('without any schema every list is replaced and maps merge', () => {
  const result = strategicMergePatch({ a: [1, 2], m: { x: 1 } }, { a: [3], m: { y: 2 } }, undefined, () => undefined);
  assert.deepEqual(result, { a: [3], m: { x: 1, y: 2 } });
});

test('long lists (past Go sort\'s insertion-sort blocks) are ordered the same way', () => {
  const names = Array.from({ length: 45 }, (_, i) => `V${i}`);
  const env = names.map((name) => ({ name, value: name }));
  const reversed = [...names].reverse();
  const patch = {
    spec: {
      containers: [{ name: 'a', '$setElementOrder/env': reversed.map((name) => ({ name })), env: [{ name: 'V7', value: 'changed' }] }],
    },
  };
  const result = strategicMergePatch(podWith({ containers: [container('a', { env })] }), patch, SCHEMAS.Pod, resolveRef) as {
    spec: { containers: { env: { name: string; value: string }[] }[] };
  };
  const got = result.spec.containers[0]!.env;
  assert.deepEqual(got.map((e) => e.name), reversed);
  assert.equal(got.find((e) => e.name === 'V7')!.value, 'changed');
});
