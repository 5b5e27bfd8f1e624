import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSupportedFields, escapeFieldValue, fieldSelectorString, fieldsMatch, parseFieldSelector, requiresExactMatch } from './fields.ts';

const get = (fields: Record<string, string>) => (f: string) => fields[f];
const parseError = (sel: string) => {
  try {
    parseFieldSelector(sel);
  } catch (e) {
    return (e as Error).message;
  }
  return 'no error';
};

test('operators =, == and !=', () => {
  assert.equal(fieldsMatch(parseFieldSelector('metadata.name=a'), get({ 'metadata.name': 'a' })), true);
  assert.equal(fieldsMatch(parseFieldSelector('metadata.name==a'), get({ 'metadata.name': 'a' })), true);
  assert.equal(fieldsMatch(parseFieldSelector('metadata.name!=a'), get({ 'metadata.name': 'a' })), false);
  assert.equal(fieldsMatch(parseFieldSelector('metadata.name!=a'), get({ 'metadata.name': 'b' })), true);
  assert.equal(fieldsMatch(parseFieldSelector('a=1,b=2'), get({ a: '1', b: '3' })), false);
});

test('a missing field reads as the empty string', () => {
  assert.equal(fieldsMatch(parseFieldSelector('spec.nodeName='), get({})), true);
  assert.equal(fieldsMatch(parseFieldSelector('spec.nodeName!='), get({})), false);
});

test('escapes', () => {
  const s = parseFieldSelector('a=x\\,y\\=z\\\\,b=c');
  assert.deepEqual(s.requirements, [
    { field: 'a', operator: '=', value: 'x,y=z\\' },
    { field: 'b', operator: '=', value: 'c' },
  ]);
  assert.equal(escapeFieldValue('x,y=z\\'), 'x\\,y\\=z\\\\');
  assert.equal(fieldSelectorString(s), 'a=x\\,y\\=z\\\\,b=c');
});

test("kube's parse errors", () => {
  assert.equal(parseError('abc'), "invalid selector: 'abc'; can't understand 'abc'");
  assert.equal(parseError('a=b,c'), "invalid selector: 'a=b,c'; can't understand 'c'");
  assert.equal(parseError('a=b\\x'), 'invalid field selector: invalid escape sequence: \\x');
  assert.equal(parseError('a=b\\'), 'invalid field selector: invalid escape sequence: \\');
  assert.equal(parseError('a=b=c'), 'invalid field selector: unescaped character in value: 61');
  assert.equal(parseFieldSelector('').empty, true);
  assert.equal(parseFieldSelector(',').empty, true);
});

test('supported fields and exact matches', () => {
  const s = parseFieldSelector('metadata.namespace=ns,spec.x!=y');
  assert.equal(requiresExactMatch(s, 'metadata.namespace'), 'ns');
  assert.equal(requiresExactMatch(s, 'spec.x'), undefined);
  assert.throws(() => checkSupportedFields(s, (f) => f.startsWith('metadata.')), { message: 'field label not supported: spec.x' });
  assert.doesNotThrow(() => checkSupportedFields(s, () => true));
});
