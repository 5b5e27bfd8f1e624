// Field selectors, field managers, field paths (pruning) and Go value formatting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../apis/errors.ts';
import type { ResourceDefinition } from '../registry/types.ts';
import { checkFieldSelector, parseFieldSelector, requiresExactMatch } from './field-selector.ts';
import { managerOrUserAgent, prefixFromUserAgent } from './field-manager.ts';
import { goQuote, goValue } from '../encoding/go-format.ts';
import { pruneFields } from '../registry/validation/prune-fields.ts';

function def(partial: Partial<ResourceDefinition>): ResourceDefinition {
  return {
    group: '',
    version: 'v1',
    resource: 'configmaps',
    singularName: 'configmap',
    kind: 'ConfigMap',
    listKind: 'ConfigMapList',
    namespaced: true,
    verbs: [],
    shortNames: [],
    categories: [],
    subresources: [],
    storagePrefix: '',
    schema: {},
    resolveRef: () => undefined,
    strategy: {},
    printerColumns: [],
    selectableFields: {},
    custom: false,
    ...partial,
  };
}

function badRequestMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError);
    assert.equal(e.code, 400);
    return e.message;
  }
  assert.fail('expected 400');
}

test('field selectors parse as fields.ParseSelector, sorted, with escapes', () => {
  assert.deepEqual(parseFieldSelector('status.phase!=Running,metadata.name==a\\,b'), [
    { field: 'metadata.name', op: '==', value: 'a,b' },
    { field: 'status.phase', op: '!=', value: 'Running' },
  ]);
  assert.equal(badRequestMessage(() => parseFieldSelector('foo')), "invalid selector: 'foo'; can't understand 'foo'");
  assert.equal(badRequestMessage(() => parseFieldSelector('a=b=c')), 'invalid field selector: unescaped character in value: 61');
  assert.equal(badRequestMessage(() => parseFieldSelector('a=b\\x')), 'invalid field selector: invalid escape sequence: \\x');
});

test('field labels: metadata.name/namespace always; others only when the type declares them', () => {
  checkFieldSelector('metadata.name=a,metadata.namespace=b', def({}));
  assert.equal(badRequestMessage(() => checkFieldSelector('spec.x=1', def({}))), '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"');
  const pods = def({ resource: 'pods', selectableFields: { 'status.phase': () => undefined } });
  checkFieldSelector('status.phase=Running', pods);
  assert.equal(badRequestMessage(() => checkFieldSelector('spec.x=1', pods)), 'field label not supported: spec.x');
  const clusterCR = def({ custom: true, namespaced: false, group: 'x.io' });
  assert.equal(badRequestMessage(() => checkFieldSelector('metadata.namespace=a', clusterCR)), 'field label not supported: metadata.namespace');
});

test('requiresExactMatch finds = and == terms only', () => {
  assert.equal(requiresExactMatch('metadata.name=a', 'metadata.name'), 'a');
  assert.equal(requiresExactMatch('metadata.name!=a', 'metadata.name'), undefined);
});

test('the default field manager is the User-Agent up to the first slash, printable, at most 128 bytes', () => {
  assert.equal(prefixFromUserAgent('kubectl/v1.31.0 (linux/amd64) kubernetes/abc'), 'kubectl');
  assert.equal(prefixFromUserAgent('my\u0007agent/1'), 'myagent');
  assert.equal(prefixFromUserAgent('é'.repeat(100)), 'é'.repeat(64));
  assert.equal(prefixFromUserAgent('a'.repeat(200)), 'a'.repeat(128));
  assert.equal(prefixFromUserAgent('go\u200bclient/1'), 'goclient');
  assert.equal(managerOrUserAgent('explicit', 'kubectl/1'), 'explicit');
  assert.equal(managerOrUserAgent('', undefined), '');
});

test('pruneFields removes unknown fields by their steps from the root, keys with dots and empty keys included', () => {
  const obj = { spec: { foo: 1, keep: 2, 'a.b': 3, containers: [{ name: 'a' }, { name: 'b', foo: 3 }] }, metadata: { name: 'x', '': null }, top: true };
  pruneFields(obj, [['spec', 'foo'], ['spec', 'containers', 1, 'foo'], ['top'], ['missing', 'path'], ['spec', 'containers', 5, 'x'], ['spec', 'a.b'], ['metadata', '']]);
  assert.deepEqual(obj, { spec: { keep: 2, containers: [{ name: 'a' }, { name: 'b' }] }, metadata: { name: 'x' } });
});

test('goQuote quotes as strconv.Quote', () => {
  assert.equal(goQuote('a"b\\c\n\u0001é\u200b'), '"a\\"b\\\\c\\n\\x01é\\u200b"');
});

test('goValue renders decoded JSON as Go %v does', () => {
  assert.equal(goValue({ spec: { b: [1, 'x', true, null], a: 1.5 }, m: {} }), 'map[m:map[] spec:map[a:1.5 b:[1 x true <nil>]]]');
  assert.equal(goValue(1e21), '1e+21');
  assert.equal(goValue(0.00001), '1e-05');
});
