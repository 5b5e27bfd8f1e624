import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceDefinition, WatchEvent } from '../registry/types.ts';
import { encodeWatchEvent, watchEncodingFor, watchTimeoutMs } from './watch.ts';
import { negotiateOutput } from '../encoding/negotiate.ts';

const def = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  printerColumns: [],
  custom: false,
} as unknown as ResourceDefinition;

const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '5', creationTimestamp: '2024-01-01T00:00:00Z' } };

test('watch timeouts: timeoutSeconds when given, else a random time in [min, 2*min)', () => {
  assert.equal(watchTimeoutMs(5, 1800), 5000);
  assert.equal(watchTimeoutMs(undefined, 1800, () => 0), 1_800_000);
  assert.equal(watchTimeoutMs(0, 1800, () => 0.5), 2_700_000);
  assert.equal(watchTimeoutMs(undefined, 0), 0);
});

test('an event is encoded once per representation and shared by every watcher', () => {
  const event: WatchEvent = { type: 'ADDED', object: obj };
  const plain = watchEncodingFor(negotiateOutput(undefined, { allowTransform: true })!, new URLSearchParams());
  const first = encodeWatchEvent({ def }, event, plain, false);
  assert.equal(Buffer.from(first).toString(), `{"type":"ADDED","object":${JSON.stringify(obj)}}\n`);
  assert.equal(encodeWatchEvent({ def }, event, plain, false), first);
  assert.equal(event.encoded?.size, 1);
});

test('Table watch events carry columns only when asked (the first event of a watch)', () => {
  const event: WatchEvent = { type: 'MODIFIED', object: obj };
  const media = negotiateOutput('application/json;as=Table;v=v1;g=meta.k8s.io', { allowTransform: true })!;
  const table = watchEncodingFor(media, new URLSearchParams('includeObject=None'));
  const withHeaders = JSON.parse(Buffer.from(encodeWatchEvent({ def }, event, table, false)).toString());
  const without = JSON.parse(Buffer.from(encodeWatchEvent({ def }, event, table, true)).toString());
  assert.equal(withHeaders.type, 'MODIFIED');
  assert.equal(withHeaders.object.kind, 'Table');
  assert.equal(withHeaders.object.columnDefinitions.length, 2);
  assert.deepEqual(withHeaders.object.rows, [{ cells: ['a', '2024-01-01T00:00:00Z'], object: null }]);
  assert.equal(without.object.columnDefinitions, null);
  assert.equal(event.encoded?.size, 2);
});

test('ERROR events keep their Status object in every representation', () => {
  const status = { kind: 'Status' as const, apiVersion: 'v1' as const, metadata: {}, status: 'Failure' as const, message: 'too old resource version: 1 (5)', reason: 'Expired', code: 410 };
  const event: WatchEvent = { type: 'ERROR', object: status };
  const media = negotiateOutput('application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io', { allowTransform: true })!;
  const encoded = JSON.parse(Buffer.from(encodeWatchEvent({ def }, event, watchEncodingFor(media, new URLSearchParams()), false)).toString());
  assert.deepEqual(encoded, { type: 'ERROR', object: status });
});
