import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../apis/errors.ts';
import type { KubeList, KubeObject, PrinterColumn, ResourceDefinition } from '../registry/types.ts';
import { definition as testDefinition } from '../registry/store-testing.ts';
import { parseTableOptions, toPartialObjectMetadata, toPartialObjectMetadataList, toTable } from './table.ts';

function definition(printerColumns: PrinterColumn[], custom = false): ResourceDefinition {
  return custom
    ? testDefinition({ group: 'stable.example.com', version: 'v1', resource: 'crontabs', kind: 'CronTab', printerColumns, custom })
    : testDefinition({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', printerColumns });
}

const cm = (name: string, ts = '2024-05-01T10:00:00Z'): KubeObject => ({ metadata: { name, namespace: 'default', creationTimestamp: ts, resourceVersion: '7', labels: { a: 'b' } }, data: { k: 'v' } });

test('default columns are Name and Created At, cells are the name and creation time', () => {
  const def = definition([]);
  const list: KubeList = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '42', continue: 'next' }, items: [cm('a'), cm('b', '')] };
  const table = toTable(def, list, parseTableOptions(new URLSearchParams()), 'v1');
  assert.equal(table.kind, 'Table');
  assert.equal(table.apiVersion, 'meta.k8s.io/v1');
  assert.deepEqual(table.metadata, { resourceVersion: '42', continue: 'next' });
  assert.deepEqual(
    table.columnDefinitions?.map((c) => [c.name, c.type, c.format, c.priority]),
    [
      ['Name', 'string', 'name', 0],
      ['Created At', 'date', '', 0],
    ],
  );
  assert.deepEqual(table.rows[0].cells, ['a', '2024-05-01T10:00:00Z']);
  assert.deepEqual(table.rows[1].cells, ['b', '0001-01-01T00:00:00Z']);
  assert.deepEqual(table.rows[0].object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cm('a').metadata });
});

test('printer columns follow Name; missing cells are null', () => {
  const def = definition([
    { name: 'Data', type: 'integer', priority: 0, description: 'entries', cell: (o) => Object.keys((o.data as object) ?? {}).length },
    { name: 'Extra', type: 'string', format: 'x', priority: 1, cell: () => undefined },
  ]);
  const table = toTable(def, cm('a'), { includeObject: 'None', noHeaders: false }, 'v1beta1');
  assert.deepEqual(table.columnDefinitions, [
    { name: 'Name', type: 'string', format: 'name', description: table.columnDefinitions?.[0].description, priority: 0 },
    { name: 'Data', type: 'integer', format: '', description: 'entries', priority: 0 },
    { name: 'Extra', type: 'string', format: 'x', description: '', priority: 1 },
  ]);
  assert.deepEqual(table.rows, [{ cells: ['a', 1, null], object: null }]);
  assert.equal(table.apiVersion, 'meta.k8s.io/v1beta1');
  assert.deepEqual(table.metadata, { resourceVersion: '7' });
});

test('includeObject=Object embeds the full object with its type; noHeaders omits columns', () => {
  const def = definition([]);
  const table = toTable(def, cm('a'), { includeObject: 'Object', noHeaders: true }, 'v1');
  assert.equal(table.columnDefinitions, null);
  assert.deepEqual(table.rows[0].object, { apiVersion: 'v1', kind: 'ConfigMap', ...cm('a') });
});

test('includeObject values are validated with kube message', () => {
  assert.deepEqual(parseTableOptions(new URLSearchParams('includeObject=Object')), { includeObject: 'Object', noHeaders: false });
  assert.throws(
    () => parseTableOptions(new URLSearchParams('includeObject=All')),
    (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === `Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`,
  );
});

test('PartialObjectMetadata of objects and lists; asking the wrong shape is 406', () => {
  const def = definition([]);
  assert.deepEqual(toPartialObjectMetadata(def, cm('a'), 'v1'), { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cm('a').metadata });
  const list: KubeList = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9' }, items: [cm('a')] };
  const pl = toPartialObjectMetadataList(def, list, 'v1');
  assert.equal(pl.kind, 'PartialObjectMetadataList');
  assert.deepEqual(pl.metadata, { resourceVersion: '9' });
  assert.equal(pl.items[0].kind, 'PartialObjectMetadata');
  assert.throws(
    () => toPartialObjectMetadata(def, list, 'v1'),
    (e: unknown) => e instanceof StatusError && e.code === 406 && e.reason === 'NotAcceptable' && e.message === 'you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)',
  );
  assert.throws(
    () => toPartialObjectMetadataList(definition([], true), cm('a'), 'v1'),
    (e: unknown) => e instanceof StatusError && e.message === 'you requested PartialObjectMetadataList, but the requested object is not a list (*unstructured.Unstructured)',
  );
});
