import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../../apis/errors.ts';
import { claimDataSourceErrors, prepareClaimDataSource } from './claim-data-sources.ts';
import type { Obj } from '../object.ts';

const prepared = (spec: Obj, old?: Obj, gates: Record<string, boolean> = {}): Obj => {
  prepareClaimDataSource(spec, old, gates);
  return spec;
};

test('dataSource and dataSourceRef are filled from each other, as NormalizeDataSources does', () => {
  assert.deepEqual(prepared({ dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } }), {
    dataSource: { kind: 'PersistentVolumeClaim', name: 'src' },
    dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'src' },
  });
  assert.deepEqual(prepared({ dataSourceRef: { apiGroup: 'populators.example.com', kind: 'Pop', name: 'p' } }), {
    dataSourceRef: { apiGroup: 'populators.example.com', kind: 'Pop', name: 'p' },
    dataSource: { apiGroup: 'populators.example.com', kind: 'Pop', name: 'p' },
  });
  // Without AnyVolumeDataSource nothing is filled in, and a new dataSourceRef is dropped.
  assert.deepEqual(prepared({ dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } }, undefined, { AnyVolumeDataSource: false }), { dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } });
  assert.deepEqual(prepared({ dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'src' } }, undefined, { AnyVolumeDataSource: false }), {});
});

test('a data source an old client could not have meant is dropped; a cross-namespace reference needs its feature', () => {
  // Only claims and volume snapshots were data sources before dataSourceRef.
  assert.deepEqual(prepared({ dataSource: { apiGroup: 'example.com', kind: 'Thing', name: 't' } }), {});
  assert.deepEqual(prepared({ dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's' } }).dataSourceRef, { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's' });
  // An update keeps the data source the claim already had.
  assert.deepEqual(prepared({ dataSource: { apiGroup: 'example.com', kind: 'Thing', name: 't' } }, { dataSource: { apiGroup: 'example.com', kind: 'Thing', name: 't' } }).dataSource, { apiGroup: 'example.com', kind: 'Thing', name: 't' });
  const crossNamespace = { kind: 'PersistentVolumeClaim', name: 'src', namespace: 'other' };
  assert.deepEqual(prepared({ dataSourceRef: { ...crossNamespace } }), {});
  assert.deepEqual(prepared({ dataSourceRef: { ...crossNamespace } }, undefined, { CrossNamespaceVolumeDataSource: true }), { dataSourceRef: crossNamespace });
  assert.deepEqual(prepared({ volumeAttributesClassName: 'gold' }), {});
  assert.deepEqual(prepared({ volumeAttributesClassName: 'silver' }, { volumeAttributesClassName: 'gold' }), { volumeAttributesClassName: 'silver' });
});

test('data source references are validated with kube paths and messages', () => {
  const errors = (spec: Obj) => claimDataSourceErrors(spec, 'spec').map(fieldErrorString);
  assert.deepEqual(errors({ dataSource: { kind: 'PersistentVolumeClaim', name: 'src' }, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'src' } }), []);
  assert.deepEqual(errors({ dataSource: { kind: 'Thing' }, dataSourceRef: { apiGroup: 'Bad_Group', kind: '', name: 'x', namespace: 'No' } }), [
    'spec.dataSource.name: Required value',
    `spec.dataSource: Invalid value: "Thing": must be 'PersistentVolumeClaim' when referencing the default apiGroup`,
    'spec.dataSourceRef.kind: Required value',
    `spec.dataSourceRef.apiGroup: Invalid value: "Bad_Group": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    `spec.dataSourceRef.namespace: Invalid value: "No": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    'spec: Invalid value: spec.dataSource: may not be specified when dataSourceRef.namespace is specified',
  ]);
  assert.deepEqual(errors({ dataSource: { kind: 'PersistentVolumeClaim', name: 'a' }, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'b' } }), ['spec: Invalid value: spec.dataSource: must match dataSourceRef']);
});
