import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeYaml, parseYaml, YamlSyntaxError, yamlDuplicateError } from './yaml.ts';

test('YAML output sorts keys, does not indent sequences and quotes ambiguous strings', () => {
  assert.equal(encodeYaml({ kind: 'X', a: [{ b: 1 }], s: '123', t: 'yes', e: {} }), 'a:\n- b: 1\ne: {}\nkind: X\ns: "123"\nt: "yes"\n');
});

test('YAML input follows YAML 1.1 scalars and reads the first document only', () => {
  assert.deepEqual(parseYaml('a: yes\nb: 0755\n---\nc: 1\n').value, { a: true, b: 493 });
  assert.deepEqual(parseYaml('').value, null);
});

test('duplicate keys are reported with their line as go-yaml strict mode does', () => {
  const { duplicates, value } = parseYaml('a: 1\nb:\n  c: 2\n  c: 3\n');
  assert.deepEqual(value, { a: 1, b: { c: 3 } });
  assert.deepEqual(duplicates, ['line 4: key "c" already set in map']);
  assert.equal(yamlDuplicateError(duplicates), 'error converting YAML to JSON: yaml: unmarshal errors:\n  line 4: key "c" already set in map');
});

test('syntax errors name the line', () => {
  assert.throws(() => parseYaml('a: [1\nb: 2'), (e: unknown) => e instanceof YamlSyntaxError && /^error converting YAML to JSON: yaml: line \d+: /.test(e.message));
});
