import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatLabelSelector, isQualifiedName, isValidLabelValue, labelSelectorString, labelsMatch, parseLabelSelector } from './labels.ts';

const matches = (sel: string, labels?: Record<string, string>) => labelsMatch(parseLabelSelector(sel), labels);
const parseError = (sel: string) => {
  try {
    parseLabelSelector(sel);
  } catch (e) {
    return (e as Error).message;
  }
  return 'no error';
};

test('empty selector selects everything', () => {
  const s = parseLabelSelector('');
  assert.equal(s.empty, true);
  assert.equal(matches('', undefined), true);
  assert.equal(matches('   ', { a: 'b' }), true);
});

test('equality operators', () => {
  assert.equal(matches('a=b', { a: 'b' }), true);
  assert.equal(matches('a==b', { a: 'b' }), true);
  assert.equal(matches('a=b', { a: 'c' }), false);
  assert.equal(matches('a=b', {}), false);
  assert.equal(matches('a!=b', { a: 'c' }), true);
  assert.equal(matches('a!=b', {}), true, '!= matches a missing key');
  assert.equal(matches('a!=b', { a: 'b' }), false);
  assert.equal(matches('a=', { a: '' }), true, 'empty value');
  assert.equal(matches('a=,b=c', { a: '', b: 'c' }), true);
});

test('set operators', () => {
  assert.equal(matches('env in (prod, dev)', { env: 'dev' }), true);
  assert.equal(matches('env in (prod,dev)', { env: 'qa' }), false);
  assert.equal(matches('env in (prod)', {}), false);
  assert.equal(matches('env notin (prod)', {}), true);
  assert.equal(matches('env notin (prod)', { env: 'prod' }), false);
  assert.equal(matches('env notin (prod)', { env: 'dev' }), true);
  assert.equal(matches('x in ()', { x: '' }), true, '() is the set of the empty value');
  assert.equal(matches('x in (a,,b)', { x: '' }), true);
  assert.equal(matches('x in (in, notin)', { x: 'notin' }), true, 'keywords are values inside a set');
});

test('existence operators', () => {
  assert.equal(matches('a', { a: 'x' }), true);
  assert.equal(matches('a', {}), false);
  assert.equal(matches('!a', {}), true);
  assert.equal(matches('!a', { a: '' }), false);
  assert.equal(matches('a,!b', { a: '1' }), true);
  assert.equal(matches('a,!b', { a: '1', b: '2' }), false);
});

test('gt and lt', () => {
  assert.equal(matches('n>3', { n: '4' }), true);
  assert.equal(matches('n>3', { n: '3' }), false);
  assert.equal(matches('n<3', { n: '2' }), true);
  assert.equal(matches('n<3', { n: 'x' }), false);
  assert.equal(matches('n<3', {}), false);
});

test('requirements are sorted by key and values de-duplicated', () => {
  const s = parseLabelSelector('z=1,a in (c,b,c),m');
  assert.deepEqual(
    s.requirements.map((r) => r.key),
    ['a', 'm', 'z'],
  );
  assert.deepEqual(s.requirements[0].values, ['b', 'c']);
  assert.equal(labelSelectorString(s), 'a in (b,c),m,z=1');
});

test("kube's parse errors", () => {
  assert.equal(parseError('a b'), "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
  assert.equal(parseError('a,'), "found '', expected: identifier after ','");
  assert.equal(parseError(','), "found ',', expected: !, identifier, or 'end of string'");
  assert.equal(parseError('env IN (a)'), "unable to parse requirement: found 'IN', expected: in, notin, =, ==, !=, gt, lt");
  assert.equal(parseError('a in b'), "unable to parse requirement: found 'b' expected: '('");
  assert.equal(parseError('a in (b'), "unable to parse requirement: found '', expected: ',' or ')'");
  assert.equal(parseError('!a=b'), "found '=', expected: ',' or 'end of string'");
  assert.equal(parseError('a=b=c'), "found '=', expected: ',' or 'end of string'");
  assert.equal(parseError('a=(b)'), "unable to parse requirement: found '(', expected: identifier");
  assert.equal(
    parseError('a:=b'),
    `unable to parse requirement: <nil>: Invalid value: "a:": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
  );
  assert.equal(
    parseError('a=b$'),
    `unable to parse requirement: values[0][a]: Invalid value: "b$": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
  );
  assert.equal(parseError('n>x'), `unable to parse requirement: values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`);
});

test('qualified names and label values', () => {
  assert.deepEqual(isQualifiedName('example.com/name'), []);
  assert.deepEqual(isQualifiedName('/name'), ['prefix part must be non-empty']);
  assert.equal(isQualifiedName('a/b/c').length, 1);
  assert.match(isQualifiedName('Example.com/x')[0], /^prefix part a lowercase RFC 1123 subdomain/);
  assert.deepEqual(isQualifiedName('x'.repeat(64)), ['name part must be no more than 63 characters']);
  assert.deepEqual(isValidLabelValue(''), []);
  assert.deepEqual(isValidLabelValue('v'.repeat(64)), ['must be no more than 63 characters']);
});

test('formatLabelSelector renders metav1.LabelSelector as kube does', () => {
  assert.equal(formatLabelSelector({ matchLabels: { b: '2', a: '1' } }), 'a=1,b=2');
  assert.equal(
    formatLabelSelector({ matchLabels: { app: 'x' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }, { key: 'gone', operator: 'DoesNotExist' }] }),
    'app=x,!gone,tier in (api,web)',
  );
  assert.equal(formatLabelSelector(undefined), '');
  assert.equal(formatLabelSelector({}), '');
});
