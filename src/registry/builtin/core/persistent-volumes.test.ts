import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, statusUpdateErrors, updateErrors } from '../test-context.ts';

const pvs = builtinTypeFacts('', 'persistentvolumes');
const pvcs = builtinTypeFacts('', 'persistentvolumeclaims');
const pv = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'pv1' }, spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, hostPath: { path: '/data' }, ...spec } });
const claim = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'data', namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec } });

// Sources: pkg/apis/core/v1/defaults.go (SetDefaults_PersistentVolume, SetDefaults_PersistentVolumeClaimSpec),
// pkg/apis/core/validation/validation.go (ValidatePersistentVolumeSpec/Update, ValidatePersistentVolumeClaimSpec/Update),
// pkg/registry/core/persistentvolume/strategy.go (status reset, lastPhaseTransitionTime).
test('persistent volumes: defaults and a fresh Pending status with its transition time', () => {
  const obj = pv({});
  obj.status = { phase: 'Bound' };
  assert.deepEqual(createErrors(pvs, obj), []);
  assert.equal((obj.spec as Record<string, unknown>).persistentVolumeReclaimPolicy, 'Retain');
  assert.equal((obj.spec as Record<string, unknown>).volumeMode, 'Filesystem');
  const status = obj.status as Record<string, unknown>;
  assert.equal(status.phase, 'Pending');
  assert.match(String(status.lastPhaseTransitionTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
});

const pvCases: [string, Record<string, unknown>, string[]][] = [
  ['no access modes', { accessModes: [] }, ['spec.accessModes: Required value']],
  ['RWOP with others', { accessModes: ['ReadWriteOncePod', 'ReadOnlyMany'] }, ['spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes']],
  ['unknown access mode', { accessModes: ['Sometimes'] }, ['spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"']],
  ['no capacity', { capacity: undefined }, ['spec.capacity: Required value', 'spec.capacity: Unsupported value: core.ResourceList(nil): supported values: "storage"']],
  ['zero capacity', { capacity: { storage: '0' } }, ['spec.capacity[storage]: Invalid value: "0": must be greater than zero']],
  ['unknown reclaim policy', { persistentVolumeReclaimPolicy: 'Keep' }, ['spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"']],
  ['no volume source', { hostPath: undefined }, ['spec: Required value: must specify a volume type']],
  ['two volume sources', { nfs: { server: 's', path: '/x' } }, ['spec.nfs: Forbidden: may not specify more than 1 volume type']],
  ['bad volume mode', { volumeMode: 'Raw' }, ['spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"']],
];
for (const [name, spec, want] of pvCases) test(`persistent volumes: ${name}`, () => assert.deepEqual(createErrors(pvs, pv(spec)), want));

test('persistent volumes: the source and volumeMode are fixed; status writes stamp phase transitions', () => {
  const old = pv({});
  createErrors(pvs, old);
  old.metadata = { ...old.metadata, resourceVersion: '3' };
  const errs = updateErrors(pvs, pv({ hostPath: { path: '/other' }, volumeMode: 'Block' }), old);
  assert.deepEqual(errs.map((e) => e.split('\n')[0]), ['spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation', 'volumeMode: Invalid value: "Block": field is immutable']);
  assert.deepEqual(updateErrors(pvs, pv({ persistentVolumeReclaimPolicy: 'Delete', capacity: { storage: '2Gi' } }), old), []);
  const before = String((old.status as Record<string, unknown>).lastPhaseTransitionTime);
  (old.status as Record<string, unknown>).lastPhaseTransitionTime = '2020-01-01T00:00:00Z';
  const { merged, errors } = statusUpdateErrors(pvs, { ...structuredClone(old), status: { phase: 'Available', lastPhaseTransitionTime: '2020-01-01T00:00:00Z' } }, old);
  assert.deepEqual(errors, []);
  assert.notEqual((merged.status as Record<string, unknown>).lastPhaseTransitionTime, '2020-01-01T00:00:00Z');
  assert.ok(before);
});

test('claims: volumeMode defaults to Filesystem, each spec rule with kube messages', () => {
  const obj = claim({});
  assert.deepEqual(createErrors(pvcs, obj), []);
  assert.equal((obj.spec as Record<string, unknown>).volumeMode, 'Filesystem');
  assert.deepEqual((obj.status as Record<string, unknown>).phase, 'Pending');
  assert.deepEqual(createErrors(pvcs, claim({ accessModes: [] })), ['spec.accessModes: Required value: at least 1 access mode is required']);
  assert.deepEqual(createErrors(pvcs, claim({ resources: {} })), ['spec.resources[storage]: Required value']);
  assert.deepEqual(createErrors(pvcs, claim({ resources: { requests: { storage: '0' } } })), ['spec.resources[storage]: Invalid value: "0": must be greater than zero']);
  assert.deepEqual(createErrors(pvcs, claim({ storageClassName: 'Fast_SSD' })).length, 1);
});

test('claims: resize only when bound and never smaller; the rest of the spec is immutable', () => {
  const old = claim({});
  createErrors(pvcs, old);
  old.metadata = { ...old.metadata, resourceVersion: '3' };
  // Unbound: a new size is a spec change.
  const grown = updateErrors(pvcs, claim({ resources: { requests: { storage: '2Gi' } } }), old);
  assert.equal(grown[0].split('\n')[0], 'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims');
  const bound = structuredClone(old);
  bound.status = { phase: 'Bound' };
  assert.deepEqual(updateErrors(pvcs, claim({ resources: { requests: { storage: '2Gi' } } }), bound), []);
  assert.deepEqual(updateErrors(pvcs, claim({ resources: { requests: { storage: '500Mi' } } }), bound), ['spec.resources.requests.storage: Forbidden: field can not be less than previous value']);
  // The binder sets volumeName once; a class may be set on a claim that had none.
  assert.deepEqual(updateErrors(pvcs, claim({ volumeName: 'pv1', storageClassName: 'fast' }), old), []);
  const named = structuredClone(old);
  (named.spec as Record<string, unknown>).volumeName = 'pv1';
  assert.equal(updateErrors(pvcs, claim({ volumeName: 'pv2' }), named).length, 1);
  assert.deepEqual(updateErrors(pvcs, claim({ volumeMode: 'Block' }), old).slice(-1), ['volumeMode: Invalid value: "Block": field is immutable']);
});
