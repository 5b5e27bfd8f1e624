import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../registry/types.ts';
import { StatusError } from '../apis/errors.ts';
import { applyServerSide, decodeApplyBody, revertManagedFieldsTimestamps, serverSideApply, updateManagedFields } from './index.ts';
import { sameShapeUpdate, inPlaceApply } from './field-manager.ts';
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
  const owned = (o: KubeObject, def = configMaps) => JSON.stringify(updateManagedFields(undefined, o, { manager: 'm', apiVersion: 'v1', def, now: '2024-01-01T00:00:00Z' }).metadata.managedFields?.[0]?.fieldsV1);
  assert.notEqual(owned(cm('a', 'x')), owned(cm('a', 'x', { more: '1' })));
  assert.equal(owned(cm('a', 'x')), owned(cm('zz', 'other value')));
  // Shapes as the type sees them: an atomic list's items (a Service's cluster IPs) decide nothing, a set's values and
  // keyed items' keys do; each memoized entry equals one computed afresh.
  const services = builtinDef('', 'v1', 'services');
  const service = (name: string, ip: string, port: number, finalizers: string[] = []) =>
    ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'ns', finalizers }, spec: { clusterIP: ip, clusterIPs: [ip], ports: [{ port, protocol: 'TCP' }] } }) as KubeObject;
  const svcOpts = { manager: 'm', apiVersion: 'v1', def: services, now: '2024-01-01T00:00:00Z' };
  for (const s of [service('a', '10.0.0.1', 80), service('b', '10.0.0.2', 80), service('c', '10.0.0.3', 443), service('d', '10.0.0.4', 80, ['x']), service('e', '10.0.0.5', 80, ['y'])]) {
    assert.deepEqual(updateManagedFields(undefined, structuredClone(s), svcOpts), updateManagedFields(undefined, structuredClone(s), { ...svcOpts, def: { ...services } }), String(s.metadata.name));
  }
  assert.equal(owned(service('a', '10.0.0.1', 80), services), owned(service('b', '10.0.0.2', 80), services));
  assert.notEqual(owned(service('a', '10.0.0.1', 80), services), owned(service('c', '10.0.0.3', 443), services));
  assert.notEqual(owned(service('d', '10.0.0.4', 80, ['x']), services), owned(service('e', '10.0.0.5', 80, ['y']), services));
  // An emptied atomic list or map is not owned (the typed view drops it): emptiness is part of the shape.
  const withArgs = (args: string[], selector: Record<string, string>) =>
    ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'w', namespace: 'ns' }, spec: { selector: Object.keys(selector).length > 0 ? { matchLabels: selector } : {}, template: { spec: { containers: [{ name: 'c', image: 'i', args }] } } } }) as KubeObject;
  const depOpts = { manager: 'm', apiVersion: 'apps/v1', def: deployments, now: '2024-01-01T00:00:00Z' };
  for (const o of [withArgs(['a'], { app: 'w' }), withArgs([], { app: 'w' }), withArgs(['a'], {}), withArgs([], {})]) {
    assert.deepEqual(updateManagedFields(undefined, structuredClone(o), depOpts), updateManagedFields(undefined, structuredClone(o), { ...depOpts, def: { ...deployments } }));
  }
  // What a caller does to the objects it is given never reaches the entries later creates get.
  const opts = { manager: 'changer', apiVersion: 'v1', def: configMaps, now: '2024-01-01T00:00:00Z' };
  const first = updateManagedFields(undefined, cm('m1', 'x'), opts);
  (first.metadata.managedFields![0]!.fieldsV1 as Record<string, unknown>)['f:data'] = {};
  const second = updateManagedFields(undefined, cm('m2', 'y'), opts);
  (second.metadata.managedFields![0]!.fieldsV1 as Record<string, unknown>)['f:metadata'] = {};
  assert.deepEqual(updateManagedFields(undefined, cm('m3', 'z'), opts), updateManagedFields(undefined, cm('m3', 'z'), { ...opts, def: { ...configMaps } }));
});

test('an update keeping the shape, by the manager owning all of it, gives what the full computation gives', () => {
  let tick = 0;
  const now = () => `2024-01-01T00:${String(Math.floor(tick / 60) % 60).padStart(2, '0')}:${String(tick++ % 60).padStart(2, '0')}Z`;
  let revision = 1;
  const stored = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, uid: 'u-1', creationTimestamp: '2024-01-01T00:00:00Z', resourceVersion: String(revision++) } }) as KubeObject;
  /** One write, both ways: the result as stored (key order included) must not depend on the shortcut. */
  const write = (def: ReturnType<typeof builtinDef>, old: KubeObject, updated: KubeObject, manager: string, shortcut: boolean, subresource?: string) => {
    const opts = { manager, apiVersion: String(old.apiVersion), def, subresource, now: now() };
    const full = updateManagedFields(old, structuredClone(updated), opts, false);
    const fast = sameShapeUpdate(old, structuredClone(updated), opts);
    assert.equal(fast !== undefined, shortcut, `shortcut taken: ${manager} ${JSON.stringify(updated).slice(0, 200)}`);
    if (fast) assert.equal(JSON.stringify(fast), JSON.stringify(full));
    assert.equal(JSON.stringify(updateManagedFields(old, structuredClone(updated), opts)), JSON.stringify(full));
    return stored(full);
  };
  const withData = (o: KubeObject, data: Record<string, string>) => ({ ...o, data }) as KubeObject;
  const unconditional = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined, managedFields: undefined } }) as KubeObject;

  const configMaps = builtinDef('', 'v1', 'configmaps');
  const created = updateManagedFields(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', labels: { a: 'b' } }, data: { x: '1', y: '2' } } as KubeObject, { manager: 'ctl', apiVersion: 'v1', def: configMaps, now: now() });
  let cm = stored(created);
  cm = write(configMaps, cm, withData(cm, { x: '3', y: '2' }), 'ctl', true);
  cm = write(configMaps, cm, unconditional(withData(cm, { x: '4', y: '5' })), 'ctl', true);
  cm = write(configMaps, cm, { ...withData(cm, { x: '6', y: '5' }), metadata: { ...cm.metadata, labels: { a: 'c' } } } as KubeObject, 'ctl', true);
  // What a request's own managedFields, a new key, an emptied value or another manager change goes the full way.
  write(configMaps, cm, { ...withData(cm, { x: '7', y: '5' }), metadata: { ...cm.metadata, managedFields: [] } } as KubeObject, 'ctl', false);
  write(configMaps, cm, withData(cm, { x: '7', y: '5', z: '1' }), 'ctl', false);
  write(configMaps, cm, withData(cm, { x: '', y: '5' }), 'ctl', false);
  write(configMaps, cm, withData(cm, { x: '7', y: '5' }), '', false);
  cm = write(configMaps, cm, withData(cm, { x: '7', y: '5' }), 'other', false);
  // 'other' now owns data.x: ctl's entry no longer owns all of the object.
  write(configMaps, cm, withData(cm, { x: '8', y: '6' }), 'ctl', false);
  cm = write(configMaps, cm, withData(cm, { x: '8', y: '6' }), 'other', false);
  // A request can leave fields owned by nobody: the writer of one takes it, the full way.
  const ownsX = [{ manager: 'ctl', operation: 'Update', apiVersion: 'v1', time: '2024-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:x': {} } } }];
  cm = write(configMaps, cm, { ...cm, metadata: { ...cm.metadata, managedFields: ownsX } } as KubeObject, 'ctl', false);
  cm = write(configMaps, cm, withData(cm, { x: '8', y: '9' }), 'ctl', false);
  cm = write(configMaps, cm, { ...withData(cm, { x: '1', y: '1' }), metadata: { ...cm.metadata, labels: { a: 'd' } } } as KubeObject, 'ctl', false);
  // Owned through updates now, x changes in place.
  write(configMaps, cm, withData(cm, { x: '2', y: '1' }), 'ctl', true);

  // A Deployment written through its main endpoint and its status, by different managers: neither shares a
  // top-level field with the other.
  const deployments = builtinDef('apps', 'v1', 'deployments');
  const spec = (replicas: number, image: string) => ({ replicas, selector: { matchLabels: { app: 'w' } }, template: { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'web', image }] } } });
  let d = stored(updateManagedFields(undefined, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'w', namespace: 'ns' }, spec: spec(1, 'nginx:1') } as KubeObject, { manager: 'ctl', apiVersion: 'apps/v1', def: deployments, now: now() }));
  const status = (replicas: number) => ({ observedGeneration: replicas, replicas, conditions: [{ type: 'Available', status: 'True' }] });
  d = write(deployments, d, { ...d, status: status(1) } as KubeObject, 'controller', false, 'status');
  d = write(deployments, d, { ...d, status: status(2) } as KubeObject, 'controller', true, 'status');
  d = write(deployments, d, { ...d, spec: spec(3, 'nginx:1') } as KubeObject, 'ctl', true);
  d = write(deployments, d, { ...unconditional(d), spec: spec(4, 'nginx:1') } as KubeObject, 'ctl', true);
  // The main resource cannot write status: a body without it is of the same shape there (the store keeps the status).
  d = { ...write(deployments, d, { ...d, spec: spec(4, 'nginx:1'), status: undefined } as KubeObject, 'ctl', true), status: d.status } as KubeObject;
  // Another entry that does not decode leaves the object untracked, the full way.
  const broken = { ...d, metadata: { ...d.metadata, managedFields: d.metadata.managedFields?.map((e) => (e.manager === 'controller' ? { ...e, fieldsV1: { 'f:status': { 'i:z': {} } } } : e)) } } as KubeObject;
  assert.equal(write(deployments, broken, { ...broken, spec: spec(5, 'nginx:1') } as KubeObject, 'ctl', false).metadata.managedFields, undefined);
  // Items of a keyed list are known by their keys: a new image is a value changed; a renamed or added container,
  // another shape; so is a zero.
  write(deployments, d, { ...d, spec: spec(4, 'nginx:2') } as KubeObject, 'ctl', true);
  const containers = (list: unknown[]) => ({ ...d, spec: { ...spec(4, 'nginx:1'), template: { ...spec(4, 'nginx:1').template, spec: { containers: list } } } }) as KubeObject;
  write(deployments, d, containers([{ name: 'other', image: 'nginx:1' }]), 'ctl', false);
  write(deployments, d, containers([{ name: 'web', image: 'nginx:1' }, { name: 'side', image: 'busybox' }]), 'ctl', false);
  const withArgs = write(deployments, d, containers([{ name: 'web', image: 'nginx:1', args: ['a'] }]), 'ctl', false);
  // An atomic list is one value, changed in place while it stays non-empty; emptied, the typed view drops it.
  write(deployments, withArgs, { ...containers([{ name: 'web', image: 'nginx:1', args: ['b', 'c'] }]), metadata: withArgs.metadata } as KubeObject, 'ctl', true);
  write(deployments, withArgs, { ...containers([{ name: 'web', image: 'nginx:1', args: [] }]), metadata: withArgs.metadata } as KubeObject, 'ctl', false);
  write(deployments, d, { ...d, spec: spec(0, 'nginx:1') } as KubeObject, 'ctl', false);
  // Through status, labels are reset: a write changing only them changes nothing, whoever writes.
  write(deployments, d, { ...d, metadata: { ...d.metadata, labels: { x: 'y' } } } as KubeObject, 'someone', true, 'status');
  // An applier of the same replicas shares them with ctl; ctl changing them takes them from it, the full way.
  const apply = (replicas: number) => stored(applyServerSide(d, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'w', namespace: 'ns' }, spec: { replicas } } as KubeObject, { manager: 'kubectl', apiVersion: 'apps/v1', def: deployments, now: now(), force: false }));
  d = apply(4);
  d = write(deployments, d, { ...d, spec: spec(5, 'nginx:1') } as KubeObject, 'ctl', false);
  assert.deepEqual(d.metadata.managedFields?.map((e) => e.manager), ['controller', 'ctl']);
  d = write(deployments, d, { ...d, spec: spec(6, 'nginx:1') } as KubeObject, 'ctl', true);
  d = apply(6);
  write(deployments, d, { ...d, spec: spec(7, 'nginx:1') } as KubeObject, 'ctl', false);
  write(deployments, d, { ...d, status: status(3) } as KubeObject, 'controller', true, 'status');
  // A write that changes no value leaves every entry as it was, whoever writes it.
  write(deployments, d, { ...d } as KubeObject, 'someone-else', true);

  // A Pod's kubelet owns its status only, though a create through status would own the labels too: the labels did
  // not change, so only status has to be the kubelet's alone.
  const pods = builtinDef('', 'v1', 'pods');
  const podStatus = (phase: string, ready = 'True', restarts = 1, conditions: { type: string; status: string }[] = [{ type: 'Ready', status: ready }]) => ({
    phase,
    conditions,
    podIP: '10.0.0.1',
    containerStatuses: [{ name: 'c', ready: ready === 'True', restartCount: restarts, image: 'i', imageID: 'sha256:1' }],
  });
  let pod = stored(updateManagedFields(undefined, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', labels: { app: 'p' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } as KubeObject, { manager: 'ctl', apiVersion: 'v1', def: pods, now: now() }));
  pod = write(pods, pod, { ...pod, status: podStatus('Pending') } as KubeObject, 'kubelet', false, 'status');
  pod = write(pods, pod, { ...pod, status: podStatus('Running') } as KubeObject, 'kubelet', true, 'status');
  // Conditions are known by type, container statuses are one atomic value: their values change in place.
  pod = write(pods, pod, { ...pod, status: podStatus('Running', 'False', 2) } as KubeObject, 'kubelet', true, 'status');
  pod = write(pods, pod, { ...pod, status: podStatus('Running', 'True', 3) } as KubeObject, 'kubelet', true, 'status');
  pod = write(pods, pod, { ...pod, status: podStatus('Running', 'True', 4) } as KubeObject, 'kubelet', true, 'status');
  write(pods, pod, { ...pod, status: podStatus('Running', 'True', 3, [{ type: 'Ready', status: 'True' }, { type: 'Initialized', status: 'True' }]) } as KubeObject, 'kubelet', false, 'status');
  write(pods, pod, { ...pod, status: podStatus('Running', 'True', 3, [{ type: 'Initialized', status: 'True' }]) } as KubeObject, 'kubelet', false, 'status');
  write(pods, pod, { ...pod, status: podStatus('Running', '', 3) } as KubeObject, 'kubelet', false, 'status');
  // A list naming an item twice is compared the full way.
  const twice = (status: string) => podStatus('Running', 'True', 4, [{ type: 'Ready', status: 'True' }, { type: 'Ready', status }]);
  const doubled = write(pods, pod, { ...pod, status: twice('True') } as KubeObject, 'kubelet', false, 'status');
  write(pods, doubled, { ...doubled, status: twice('False') } as KubeObject, 'kubelet', false, 'status');
  write(pods, pod, { ...pod, metadata: { ...pod.metadata, finalizers: ['x'] } } as KubeObject, 'ctl', false);
  write(pods, pod, { ...pod, metadata: { ...pod.metadata, labels: { app: 'q' } }, status: podStatus('Failed') } as KubeObject, 'kubelet', false, 'status');
  pod = write(pods, pod, { ...pod, metadata: { ...pod.metadata, labels: { app: 'q' } } } as KubeObject, 'ctl', true);
});

test('an apply that changes values in place gives what the full computation gives; any other apply goes the full way', () => {
  const deployments = builtinDef('apps', 'v1', 'deployments');
  let tick = 0;
  const opts = (manager: string) => ({ manager, apiVersion: 'apps/v1', def: deployments, now: `2024-01-01T00:00:${String(tick++ % 60).padStart(2, '0')}Z`, force: false });
  const stored = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, uid: 'u-1', creationTimestamp: '2024-01-01T00:00:00Z', resourceVersion: String(tick) } }) as KubeObject;
  const config = (replicas: number, containers: unknown[] = [{ name: 'web', image: 'nginx:1', ports: [{ containerPort: 80 }] }, { name: 'side', image: 'busybox' }], extra: Record<string, unknown> = {}) =>
    ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'w', namespace: 'ns', labels: { app: 'w' }, ...extra },
      spec: { replicas, selector: { matchLabels: { app: 'w' } }, template: { metadata: { labels: { app: 'w' } }, spec: { containers } } },
    }) as KubeObject;
  /** One apply both ways: the shortcut, when taken, must store what the full computation stores. */
  const apply = (current: KubeObject, applied: KubeObject, manager: string, shortcut: boolean) => {
    const o = opts(manager);
    const fast = inPlaceApply(current, structuredClone(applied), o);
    assert.equal(fast !== undefined, shortcut, `shortcut taken: ${manager} ${JSON.stringify(applied).slice(0, 160)}`);
    let full: KubeObject | Error;
    try {
      full = applyServerSide(current, structuredClone(applied), o, false);
    } catch (e) {
      full = e as Error;
    }
    if (fast) assert.equal(JSON.stringify(fast), JSON.stringify(full));
    return full;
  };
  let d = stored(applyServerSide(undefined, config(2), opts('m')));
  apply(d, config(2), 'm', true);
  // Values changed in place, of scalars and of a keyed list's item, zeros included.
  apply(d, config(3), 'm', true);
  apply(d, config(0), 'm', true);
  apply(d, config(2, [{ name: 'web', image: 'nginx:2', ports: [{ containerPort: 80 }] }, { name: 'side', image: 'busybox' }]), 'm', true);
  // A field added or dropped (pruned), an item added, a list reordered, a null, another applier, managedFields in the body.
  apply(d, { ...config(2), spec: { ...(config(2).spec as object), paused: true } } as KubeObject, 'm', false);
  apply(d, { ...config(2), spec: { ...(config(2).spec as object), replicas: undefined } } as KubeObject, 'm', false);
  apply(d, config(2, [{ name: 'web', image: 'nginx:1', ports: [{ containerPort: 80 }] }, { name: 'side', image: 'busybox' }, { name: 'third', image: 'x' }]), 'm', false);
  apply(d, config(2, [{ name: 'side', image: 'busybox' }, { name: 'web', image: 'nginx:1', ports: [{ containerPort: 80 }] }]), 'm', false);
  apply(d, { ...config(2), spec: { ...(config(2).spec as object), paused: null } } as KubeObject, 'm', false);
  apply(d, config(2), 'other', false);
  assert.ok(apply(d, config(2, undefined, { managedFields: [{ manager: 'x' }] }), 'm', false) instanceof Error);
  // Another writer took replicas: applying the old value changes it back (a conflict unless forced).
  const taken = stored(updateManagedFields(d, { ...d, spec: { ...(d.spec as object), replicas: 5 } } as KubeObject, { manager: 'scaler', apiVersion: 'apps/v1', def: deployments, now: '2024-01-01T00:01:00Z' }));
  assert.ok(apply(taken, config(2), 'm', false) instanceof Error);
  // A second applier of the same values shares them; both can then re-apply as they are.
  d = stored(apply(d, config(2), 'second', false) as KubeObject);
  apply(d, config(2), 'm', true);
  apply(d, config(2), 'second', true);
  // A shared value changed is a conflict (or, forced, taken from the other): the full way.
  assert.ok(apply(d, config(3), 'm', false) instanceof Error);
  // A set merges as a union: a different one goes the full way.
  const withFinalizers = stored(applyServerSide(undefined, config(2, undefined, { finalizers: ['a'] }), opts('m')));
  apply(withFinalizers, config(2, undefined, { finalizers: ['a'] }), 'm', true);
  apply(withFinalizers, config(2, undefined, { finalizers: ['b'] }), 'm', false);
  // An atomic map is replaced whole, as the merge replaces it: one the configuration holds less of too (the server
  // defaults a fieldRef's apiVersion on write, and the write is a no-op again). Not when someone else owns it.
  const env = (fieldRef: Record<string, string>) => [{ name: 'web', image: 'nginx:1', env: [{ name: 'POD', valueFrom: { fieldRef } }] }];
  const fieldRef = { fieldPath: 'metadata.name' };
  const defaulted = (o: KubeObject) => JSON.parse(JSON.stringify(o).replace('"fieldPath":"metadata.name"', '"fieldPath":"metadata.name","apiVersion":"v1"')) as KubeObject;
  const withEnv = defaulted(stored(applyServerSide(undefined, config(2, env(fieldRef)), opts('m'))));
  apply(withEnv, config(2, env(fieldRef)), 'm', true);
  apply(withEnv, config(2, env({ ...fieldRef, apiVersion: 'v1' })), 'm', true);
  apply(withEnv, config(2, env({ fieldPath: 'metadata.namespace' })), 'm', true);
  const sharedRef = defaulted(stored(apply(withEnv, config(2, env({ ...fieldRef, apiVersion: 'v1' })), 'second', false) as KubeObject));
  apply(sharedRef, config(2, env(fieldRef)), 'm', false);
  // Stored managedFields that do not decode are kube's 500.
  const broken = { ...d, metadata: { ...d.metadata, managedFields: d.metadata.managedFields?.map((e) => (e.manager === 'second' ? { ...e, fieldsV1: { 'f:spec': { 'i:z': {} } } } : e)) } } as KubeObject;
  assert.ok(apply(broken, config(2), 'm', false) instanceof Error);
  // An entry of another version is rewritten in the version applied.
  const older = { ...d, metadata: { ...d.metadata, managedFields: d.metadata.managedFields?.map((e) => (e.manager === 'm' ? { ...e, apiVersion: 'apps/v1beta2' } : e)) } } as KubeObject;
  apply(older, config(2), 'm', false);
  // kubectl's last-applied annotation is rewritten from each configuration, even one that changes nothing else.
  const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';
  const created = stored(updateManagedFields(undefined, config(2, undefined, { annotations: { [lastApplied]: '{}' } }), { manager: 'creator', apiVersion: 'apps/v1', def: deployments, now: '2024-01-01T00:02:00Z' }));
  const byKubectl = stored(applyServerSide(created, config(2), opts('kubectl')));
  assert.notEqual(byKubectl.metadata.annotations?.[lastApplied], '{}');
  const edited = stored(updateManagedFields(byKubectl, { ...byKubectl, metadata: { ...byKubectl.metadata, annotations: { [lastApplied]: '{}' } } } as KubeObject, { manager: 'editor', apiVersion: 'apps/v1', def: deployments, now: '2024-01-01T00:03:00Z' }));
  apply(edited, config(2), 'kubectl', false);
});
