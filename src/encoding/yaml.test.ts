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

test('only the first document is read; the rest of the stream is never parsed', () => {
  const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: m-}\n' + '---\n'.repeat(700_000);
  assert.deepEqual(parseYaml(text).value, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'm-' } });
  // Even a broken second document is not looked at (yaml.Unmarshal stops after the first).
  assert.deepEqual(parseYaml('a: 1\n---\n[unclosed\n').value, { a: 1 });
});

test('an alias inside the value it names is go-yaml\'s "contains itself"', () => {
  assert.throws(() => parseYaml('a: &a [*a]'), { message: "error converting YAML to JSON: yaml: anchor 'a' value contains itself" });
  assert.throws(() => parseYaml('a: &a {b: {c: *a}}'), { message: "error converting YAML to JSON: yaml: anchor 'a' value contains itself" });
  assert.deepEqual(parseYaml('a: &a [1]\nb: *a').value, { a: [1], b: [1] });
});

test('billion laughs is "document contains excessive aliasing"; moderate reuse is fine', () => {
  const lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 10; i++) lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(',')}]`);
  assert.throws(() => parseYaml(lines.join('\n')), { message: 'error converting YAML to JSON: yaml: document contains excessive aliasing' });
  const reuse = ['base: &b {x: 1, y: 2}', ...Array.from({ length: 200 }, (_, i) => `k${i}: *b`)].join('\n');
  assert.equal(Object.keys(parseYaml(reuse).value as object).length, 201);
});

test('nesting past 10000 levels is go-yaml\'s "exceeded max depth of 10000"', () => {
  assert.throws(() => parseYaml('['.repeat(10001) + ']'.repeat(10001)), { message: 'error converting YAML to JSON: yaml: exceeded max depth of 10000' });
  assert.throws(() => parseYaml('a: 1\nb:\n' + '- '.repeat(10001) + 'x'), { message: 'error converting YAML to JSON: yaml: line 3: exceeded max depth of 10000' });
});
