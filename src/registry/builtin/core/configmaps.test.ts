import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString, invalid } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { testContext as ctx } from '../test-context.ts';

const cmFacts = builtinTypeFacts('', 'configmaps');
const secretFacts = builtinTypeFacts('', 'secrets');

function errors(facts: typeof cmFacts, obj: KubeObject): string[] {
  facts.strategy.defaults?.(obj);
  facts.strategy.prepareForCreate?.(obj, ctx);
  return (facts.strategy.validate?.(obj, ctx) ?? []).map(fieldErrorString);
}

function updateErrors(facts: typeof cmFacts, obj: KubeObject, old: KubeObject): string[] {
  facts.strategy.defaults?.(obj);
  facts.strategy.prepareForUpdate?.(obj, old, ctx);
  return (facts.strategy.validateUpdate?.(obj, old, ctx) ?? []).map(fieldErrorString);
}

const meta = { name: 'c', namespace: 'default', resourceVersion: '7' };

test('config map keys, duplicates with binaryData and the 1 MiB limit', () => {
  assert.deepEqual(errors(cmFacts, { metadata: { ...meta }, data: { ok: 'v' }, binaryData: { bin: 'AAE=' } }), []);
  assert.deepEqual(errors(cmFacts, { metadata: { ...meta }, data: { 'a b': 'v', dup: 'x' }, binaryData: { dup: 'AA==' } }), [
    `data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    'data[dup]: Invalid value: "dup": duplicate of key present in binaryData',
  ]);
  const big = errors(cmFacts, { metadata: { ...meta }, data: { a: 'x'.repeat(1024 * 1024), b: 'y' } });
  assert.deepEqual(big, [': Too long: may not be more than 1048576 bytes']);
});

test('immutable config maps keep data, binaryData and the flag', () => {
  const old: KubeObject = { metadata: { ...meta }, immutable: true, data: { a: '1' } };
  assert.deepEqual(updateErrors(cmFacts, { metadata: { ...meta }, immutable: true, data: { a: '1' } }, old), []);
  const errs = updateErrors(cmFacts, { metadata: { ...meta }, immutable: false, data: { a: '2' }, binaryData: {} }, old);
  assert.deepEqual(errs, [
    'immutable: Forbidden: field is immutable when `immutable` is set',
    'data: Forbidden: field is immutable when `immutable` is set',
    'binaryData: Forbidden: field is immutable when `immutable` is set',
  ]);
  assert.equal(
    invalid({ group: '', kind: 'ConfigMap' }, 'c', (cmFacts.strategy.validateUpdate?.({ metadata: { ...meta }, data: { a: '1' } }, old, ctx) ?? [])).message,
    'ConfigMap "c" is invalid: immutable: Forbidden: field is immutable when `immutable` is set',
  );
});

test('secrets: stringData folds into data, type defaults to Opaque and is immutable', () => {
  const s: KubeObject = { metadata: { ...meta }, data: { a: 'eA==' }, stringData: { a: 'hello', b: 'wörld' } };
  assert.deepEqual(errors(secretFacts, s), []);
  assert.deepEqual(s.data, { a: 'aGVsbG8=', b: Buffer.from('wörld').toString('base64') });
  assert.equal(s.stringData, undefined);
  assert.equal(s.type, 'Opaque');
  const old: KubeObject = { metadata: { ...meta }, type: 'Opaque', data: { a: 'eA==' }, immutable: true };
  assert.deepEqual(updateErrors(secretFacts, { metadata: { ...meta }, type: 'kubernetes.io/tls', data: { a: 'eA==' }, stringData: { b: 'x' }, immutable: true }, old), [
    'type: Invalid value: "kubernetes.io/tls": field is immutable',
    'data: Forbidden: field is immutable when `immutable` is set',
    'data[tls.crt]: Required value',
    'data[tls.key]: Required value',
  ]);
});

test('secret types require their keys; size counts decoded bytes', () => {
  assert.deepEqual(errors(secretFacts, { metadata: { ...meta }, type: 'kubernetes.io/service-account-token' }), [
    'metadata.annotations[kubernetes.io/service-account.name]: Required value',
  ]);
  assert.deepEqual(errors(secretFacts, { metadata: { ...meta }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from('hello').toString('base64') } }), [
    `data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character 'h' looking for beginning of value`,
  ]);
  const mib = Buffer.alloc(1024 * 1024 + 1).toString('base64');
  assert.deepEqual(errors(secretFacts, { metadata: { ...meta }, data: { k: mib } }), ['data: Too long: may not be more than 1048576 bytes']);
});

test('printers and the type field selector', () => {
  const s: KubeObject = { metadata: { ...meta }, type: 'Opaque', data: { a: 'eA==', b: 'eA==' } };
  assert.deepEqual(
    secretFacts.printerColumns.slice(0, 2).map((c) => [c.name, c.type, c.cell(s)]),
    [
      ['Type', 'string', 'Opaque'],
      ['Data', 'string', 2],
    ],
  );
  assert.equal(secretFacts.selectableFields.type(s), 'Opaque');
  assert.equal(cmFacts.printerColumns[0].cell({ metadata: {}, data: { a: '' }, binaryData: { b: '' } }), 2);
});
