import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../registry/types.ts';
import { StatusError } from '../apis/errors.ts';
import { applyServerSide, decodeApplyBody, revertManagedFieldsTimestamps, serverSideApply, updateManagedFields } from './index.ts';
import { decodeManagedFields, encodeManagedFields, isResetManagedFields, managerIdentifier, normalizeTime } from './managed-fields.ts';
import { builtinDef, entry, widgetDef } from './test-fixtures.ts';

test('manager identities are Go JSON of the identifying fields; appliers leave out apiVersion', () => {
  assert.equal(managerIdentifier({ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1' }), '{"manager":"kubectl","operation":"Apply"}');
  assert.equal(managerIdentifier({ manager: 'k<m', operation: 'Update', apiVersion: 'apps/v1', subresource: 'status' }), '{"manager":"k\\u003cm","operation":"Update","apiVersion":"apps/v1","subresource":"status"}');
});

test('decode rejects what kube rejects, with its messages', () => {
  const base = { manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} };
  assert.throws(() => decodeManagedFields([{ ...base, operation: 'Patch' }]), { message: 'operation must be `Apply` or `Update`' });
  assert.throws(() => decodeManagedFields([{ ...base, apiVersion: '' }]), { message: 'apiVersion must not be empty' });
  assert.throws(() => decodeManagedFields([base, { ...base, fieldsType: undefined }]), { message: 'missing fieldsType in managed fields entry 1' });
  assert.throws(() => decodeManagedFields([{ ...base, fieldsType: 'FieldsV2' }]), { message: 'invalid fieldsType "FieldsV2" in managed fields entry 0' });
  assert.throws(() => decodeManagedFields([{ ...base, fieldsV1: { 'i:z': {} } }]), /^Error: error decoding versioned set from \{m Update v1 <nil> FieldsV1 FieldsV1 \}: error decoding set: /);
  assert.throws(() => decodeManagedFields([{ ...base, time: 'yesterday' }]), /invalid time/);
});

test('encode sorts Apply before Update, then by time, manager, apiVersion, subresource; empty is absent', () => {
  const decoded = decodeManagedFields([
    { manager: 'z', operation: 'Update', apiVersion: 'v1', time: '2024-01-01T00:00:02Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:a': {} } },
    { manager: 'b', operation: 'Update', apiVersion: 'v1', time: '2024-01-01T00:00:01Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:b': {} }, subresource: 'status' },
    { manager: 'b', operation: 'Update', apiVersion: 'v1', time: '2024-01-01T00:00:01Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:c': {} } },
    { manager: 'a', operation: 'Update', apiVersion: 'v1', time: '2024-01-01T00:00:01.900Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:d': {} } },
    { manager: 'y', operation: 'Apply', apiVersion: 'v1', time: '2024-01-01T00:00:09Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:e': {} } },
  ]);
  assert.deepEqual(encodeManagedFields(decoded), [
    entry('y', 'Apply', 'v1', '2024-01-01T00:00:09Z', { 'f:e': {} }),
    entry('a', 'Update', 'v1', '2024-01-01T00:00:01Z', { 'f:d': {} }),
    entry('b', 'Update', 'v1', '2024-01-01T00:00:01Z', { 'f:c': {} }),
    entry('b', 'Update', 'v1', '2024-01-01T00:00:01Z', { 'f:b': {} }, 'status'),
    entry('z', 'Update', 'v1', '2024-01-01T00:00:02Z', { 'f:a': {} }),
  ]);
  assert.equal(encodeManagedFields(decodeManagedFields([])), undefined);
});

test('times are RFC 3339 in UTC with whole seconds', () => {
  assert.equal(normalizeTime('2024-05-01T12:30:45.999+02:00'), '2024-05-01T10:30:45Z');
  assert.equal(normalizeTime('2024-05-01 12:30:45Z'), undefined);
});

test('reset requests: [] and [{}] but not a real entry', () => {
  assert.ok(isResetManagedFields([]));
  assert.ok(isResetManagedFields([{}]));
  assert.ok(!isResetManagedFields([{ manager: 'x' }]));
  assert.ok(!isResetManagedFields(undefined));
  assert.ok(!isResetManagedFields([{}, {}]));
});

test('apply onto an object whose stored managedFields cannot be decoded is a 500', () => {
  const def = builtinDef('', 'v1', 'configmaps');
  const current = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', uid: 'u', managedFields: [{ manager: 'x', operation: 'Nope', apiVersion: 'v1' }] } } as unknown as KubeObject;
  assert.throws(
    () => applyServerSide(current, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } }, { manager: 'm', force: false, apiVersion: 'v1', def, now: '2024-01-01T00:00:00Z' }),
    { code: 500, message: 'failed to decode managed fields: operation must be `Apply` or `Update`' },
  );
});

test('apply does not modify its inputs', () => {
  const def = builtinDef('', 'v1', 'configmaps');
  const current = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', uid: 'u' }, data: { a: '1' } } as KubeObject;
  const applied = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { b: '2' } } as KubeObject;
  const before = [structuredClone(current), structuredClone(applied)];
  const out = applyServerSide(current, applied, { manager: 'm', force: false, apiVersion: 'v1', def, now: '2024-01-01T00:00:00Z' });
  assert.deepEqual([current, applied], before);
  assert.deepEqual(out.data, { a: '1', b: '2' });
});

test('a write that changed only managedFields times keeps the old managedFields', () => {
  const mf = (time: string) => [entry('m', 'Update', 'v1', time, { 'f:data': { 'f:a': {} } })];
  const old = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', managedFields: mf('2024-01-01T00:00:00Z') }, data: { a: '1' } } as unknown as KubeObject;
  const same = { ...old, metadata: { ...old.metadata, managedFields: mf('2024-01-02T00:00:00Z') } } as unknown as KubeObject;
  assert.deepEqual(revertManagedFieldsTimestamps(same, old).metadata.managedFields, mf('2024-01-01T00:00:00Z'));
  const changed = { ...same, data: { a: '2' } } as KubeObject;
  assert.deepEqual(revertManagedFieldsTimestamps(changed, old).metadata.managedFields, mf('2024-01-02T00:00:00Z'));
});

test('a body nested too deeply to walk is a 500 StatusError, and a write keeps going without managedFields', () => {
  const def = widgetDef();
  let v: unknown = 1;
  for (let i = 0; i < 5000; i++) v = { a: v };
  const body = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { config: v } } as unknown as KubeObject;
  const opts = { manager: 'm', apiVersion: 'example.com/v1', def, now: '2024-01-01T00:00:00Z' };
  assert.throws(() => applyServerSide(undefined, body, { ...opts, force: false }), (e: unknown) => e instanceof StatusError && e.code === 500);
  assert.equal(updateManagedFields(undefined, body, opts).metadata.managedFields, undefined);
});

test('apply requests: YAML bodies decode as kube decodes them, then apply with the definition\'s version', () => {
  const def = builtinDef('apps', 'v1', 'deployments');
  const patch = Buffer.from('apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n');
  const out = serverSideApply({ def, subresource: '', current: undefined, patch, fieldManager: 'kubectl', force: false });
  assert.equal((out.spec as { replicas: number }).replicas, 3);
  assert.deepEqual(out.metadata.managedFields?.map((e) => [e.manager, e.operation, e.apiVersion, JSON.stringify(e.fieldsV1)]), [['kubectl', 'Apply', 'apps/v1', '{"f:spec":{"f:replicas":{}}}']]);
  assert.throws(() => decodeApplyBody(Buffer.from('- a\n- b\n')), {
    code: 400,
    message: 'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}',
  });
  assert.throws(() => decodeApplyBody(Buffer.from('a: [\n')), (e: unknown) => e instanceof StatusError && e.code === 400 && e.message.startsWith('error decoding YAML: error converting YAML to JSON: yaml: line'));
  assert.throws(() => serverSideApply({ def, subresource: '', current: undefined, patch: Buffer.from(''), fieldManager: 'm', force: false }), { code: 400, message: 'invalid object type: /, Kind=' });
});

test("a create's managedFields, shared by the objects shaped alike, equal those computed afresh, at each request's time", () => {
  const configMaps = builtinDef('', 'v1', 'configmaps');
  const deployments = builtinDef('apps', 'v1', 'deployments');
  const cm = (name: string, value: string, extra: Record<string, string> = {}) =>
    ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', uid: `u-${name}`, creationTimestamp: '2024-01-01T00:00:00Z', labels: { app: name } }, data: { payload: value, ...extra } }) as KubeObject;
  const deploy = (name: string, replicas: number, image: string, env: unknown[] = []) =>
    ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'ns', uid: `u-${name}` },
      spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image, env }] } } },
    }) as KubeObject;
  const cases: [typeof configMaps, string, KubeObject[]][] = [
    [configMaps, 'v1', [cm('a', 'x'), cm('b', 'yy'), cm('c', ''), cm('d', 'x', { more: '1' }), cm('e', 'z', { more: '' }), cm('f', 'q', { other: '2' })]],
    [deployments, 'apps/v1', [deploy('a', 3, 'nginx:1'), deploy('b', 0, 'nginx:1'), deploy('c', 5, 'nginx:2', [{ name: 'X', value: '1' }]), deploy('d', 5, 'nginx:2', [{ name: 'Y' }])]],
  ];
  let time = 0;
  for (const [def, apiVersion, objects] of cases) {
    for (const manager of ['kubectl', 'controller']) {
      for (const obj of objects) {
        const now = `2024-01-01T00:00:${String(time++ % 60).padStart(2, '0')}Z`;
        const opts = { manager, apiVersion, def, now };
        const shared = updateManagedFields(undefined, structuredClone(obj), opts);
        // A copy of the definition has its own memo: the entry is computed afresh.
        const fresh = updateManagedFields(undefined, structuredClone(obj), { ...opts, def: { ...def } });
        assert.deepEqual(shared, fresh, `${manager} ${obj.metadata.name}`);
        assert.equal(shared.metadata.managedFields?.[0]?.time, now);
      }
    }
  }
  // Objects of other shapes own other fields.
  const owned = (o: KubeObject) => JSON.stringify(updateManagedFields(undefined, o, { manager: 'm', apiVersion: 'v1', def: configMaps, now: '2024-01-01T00:00:00Z' }).metadata.managedFields?.[0]?.fieldsV1);
  assert.notEqual(owned(cm('a', 'x')), owned(cm('a', 'x', { more: '1' })));
  assert.equal(owned(cm('a', 'x')), owned(cm('zz', 'other value')));
  // What a caller does to the objects it is given never reaches the entries later creates get.
  const opts = { manager: 'changer', apiVersion: 'v1', def: configMaps, now: '2024-01-01T00:00:00Z' };
  const first = updateManagedFields(undefined, cm('m1', 'x'), opts);
  (first.metadata.managedFields![0]!.fieldsV1 as Record<string, unknown>)['f:data'] = {};
  const second = updateManagedFields(undefined, cm('m2', 'y'), opts);
  (second.metadata.managedFields![0]!.fieldsV1 as Record<string, unknown>)['f:metadata'] = {};
  assert.deepEqual(updateManagedFields(undefined, cm('m3', 'z'), opts), updateManagedFields(undefined, cm('m3', 'z'), { ...opts, def: { ...configMaps } }));
});
