import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goFieldDefinitions, goFieldsOf } from './go-fields.ts';
import { loadModel, schemaByName } from './model.ts';
import type { SchemaNode } from './model-types.ts';

const CODES = new Set(['p', 'p?', 's', 's?', 'm', 'm?', 'v', 'v?', 'o', 't']);

function resolve(node: SchemaNode): SchemaNode {
  let n = node;
  for (let i = 0; n.ref && i < 32; i++) n = schemaByName(n.ref) ?? {};
  return n;
}

/** The structs a served kind's schema reaches (the kinds of group versions served by default). */
function reachableStructs(): Set<string> {
  const model = loadModel();
  const seen = new Set<string>();
  const visit = (node: SchemaNode | undefined): void => {
    if (!node) return;
    if (node.ref) {
      if (seen.has(node.ref)) return;
      const target = schemaByName(node.ref);
      if (!target) return;
      seen.add(node.ref);
      return visit(target);
    }
    for (const p of Object.values(node.properties ?? {})) visit(p);
    if (typeof node.additionalProperties === 'object') visit(node.additionalProperties);
    visit(node.items);
  };
  for (const g of model.groups) {
    for (const v of g.versions) {
      if (!v.defaultEnabled) continue;
      for (const r of v.resources) {
        if (!r.schema) continue;
        seen.add(r.schema);
        visit(schemaByName(r.schema));
      }
    }
  }
  return new Set([...seen].filter((name) => schemaByName(name)?.properties !== undefined));
}

test('every transcribed field is a field of the 1.31 schema, of a kind its type allows', () => {
  const problems: string[] = [];
  for (const name of goFieldDefinitions()) {
    const schema = schemaByName(name);
    const fields = goFieldsOf(name)!;
    if (!schema?.properties) {
      problems.push(`${name}: not a struct of the model`);
      continue;
    }
    const required = new Set(schema.required ?? []);
    for (const [field, code] of fields) {
      const prop = schema.properties[field];
      if (!CODES.has(code)) problems.push(`${name}.${field}: code ${code}`);
      if (!prop) {
        problems.push(`${name}.${field}: not in the schema`);
        continue;
      }
      const n = resolve(prop);
      const isArray = n.type === 'array';
      const isByteString = n.type === 'string' && n.format === 'byte';
      const isMap = n.properties === undefined && n.additionalProperties !== undefined && n.additionalProperties !== false && !prop.ref;
      if (code[0] === 's' && !isArray && !isByteString) problems.push(`${name}.${field}: a slice, but the schema's type is ${n.type}`);
      if (isArray && code[0] !== 's') problems.push(`${name}.${field}: the schema's array is coded ${code}`);
      if (code[0] === 'm' && !isMap) problems.push(`${name}.${field}: a map, but the schema's is not`);
      if (required.has(field) && code.endsWith('?')) problems.push(`${name}.${field}: required, but omitempty`);
    }
    for (const field of Object.keys(schema.properties)) {
      if (field !== 'apiVersion' && field !== 'kind' && !fields.has(field)) problems.push(`${name}.${field}: not transcribed`);
    }
  }
  assert.deepEqual(problems, []);
});

test('every struct of the served kinds is transcribed', () => {
  const transcribed = new Set(goFieldDefinitions());
  assert.deepEqual([...reachableStructs()].filter((name) => !transcribed.has(name)), []);
});

test('codes read back as transcribed', () => {
  const spec = goFieldsOf('io.k8s.api.core.v1.PodSpec')!;
  assert.equal(spec.get('containers'), 's');
  assert.equal(spec.get('nodeSelector'), 'm?');
  assert.equal(spec.get('hostname'), 'v?');
  assert.equal(spec.get('affinity'), 'p?');
  assert.equal(goFieldsOf('io.k8s.api.rbac.v1.Role')!.get('rules'), 's');
  assert.equal(goFieldsOf('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')!.get('creationTimestamp'), 't');
  assert.equal(goFieldsOf('io.k8s.api.apps.v1.DeploymentSpec')!.get('template'), 'o');
  assert.equal(goFieldsOf('no.such.Definition'), undefined);
});
