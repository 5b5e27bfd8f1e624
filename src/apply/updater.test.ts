import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConflictsError } from './conflicts.ts';
import { FieldSet } from './field-set.ts';
import { fieldElement, keyElement } from './path-element.ts';
import { rootTypeOf } from './schema.ts';
import { toFieldSet } from './typed-fieldset.ts';
import { applyManagers, type ManagerSets, type UpdaterContext } from './updater.ts';
import { widgetDef } from './test-fixtures.ts';

const type = rootTypeOf(widgetDef());
const ctx: UpdaterContext = { type, ignored: new FieldSet(), view: (v) => v };
const widget = (spec: Record<string, unknown>) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec });
const fields = (set: FieldSet | undefined) => JSON.stringify(set?.toFieldsV1());

const live = widget({ replicas: 2, labels: { a: '1', b: '2' }, ports: [{ name: 'http', port: 80 }] });
function managers(): ManagerSets {
  return new Map([
    ['alice', { set: toFieldSet(widget({ replicas: 2, labels: { a: '1' }, ports: [{ name: 'http', port: 80 }] }), type), apiVersion: 'example.com/v1', applied: true }],
    ['bob', { set: toFieldSet(widget({ labels: { b: '2' } }), type), apiVersion: 'example.com/v1', applied: true }],
  ]);
}

test('an apply that leaves the object as it is: no object, no conflict, shared ownership, others keep their fields', () => {
  const config = widget({ labels: { a: '1', b: '2' }, ports: [{ name: 'http', port: 80 }] });
  const out = applyManagers(ctx, live, config, 'example.com/v1', managers(), 'bob', false);
  assert.equal(out.object, undefined);
  assert.equal(fields(out.managers.get('alice')?.set), fields(managers().get('alice')!.set));
  assert.equal(fields(out.managers.get('bob')?.set), fields(toFieldSet(config, type)));
});

test('an apply that changes one nested field of another manager conflicts, and forced takes it over', () => {
  const config = widget({ ports: [{ name: 'http', port: 81 }] });
  assert.throws(() => applyManagers(ctx, live, config, 'example.com/v1', managers(), 'bob', false), (e: unknown) => {
    assert.ok(e instanceof ConflictsError);
    assert.deepEqual(e.conflicts.map((c) => c.manager), ['alice']);
    return true;
  });
  const out = applyManagers(ctx, live, config, 'example.com/v1', managers(), 'bob', true);
  assert.deepEqual((out.object as { spec: { ports: unknown } }).spec.ports, [{ name: 'http', port: 81 }]);
  const port = [fieldElement('spec'), fieldElement('ports'), keyElement([['name', 'http']]), fieldElement('port')];
  assert.equal(managers().get('alice')!.set.has(port), true);
  assert.equal(out.managers.get('alice')!.set.has(port), false);
  assert.equal(out.managers.get('bob')!.set.has(port), true);
});

test('an apply that changes nothing still drops managers left with no fields', () => {
  const input = managers();
  input.set('carol', { set: new FieldSet(), apiVersion: 'example.com/v1', applied: false });
  const out = applyManagers(ctx, live, widget({ labels: { b: '2' } }), 'example.com/v1', input, 'bob', false);
  assert.equal(out.object, undefined);
  assert.deepEqual([...out.managers.keys()].sort(), ['alice', 'bob']);
});
