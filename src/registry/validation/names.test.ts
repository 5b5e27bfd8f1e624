import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isEnvVarName,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegment,
  isValidPortName,
  nameIsDNSSubdomain,
} from './names.ts';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

test('DNS-1123 subdomain: kube message and length', () => {
  assert.deepEqual(isDNS1123Subdomain('example.com'), []);
  assert.deepEqual(isDNS1123Subdomain('Foo'), [SUBDOMAIN_MSG]);
  assert.deepEqual(isDNS1123Subdomain('a'.repeat(254)), ['must be no more than 253 characters']);
});

test('DNS-1123 label: dots get their own message', () => {
  assert.deepEqual(isDNS1123Label('my-name'), []);
  assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
  assert.deepEqual(isDNS1123Label('-x'), [LABEL_MSG]);
  assert.deepEqual(isDNS1123Label('a'.repeat(64)), ['must be no more than 63 characters']);
});

test('DNS-1035 label must start with a letter', () => {
  assert.deepEqual(isDNS1035Label('web'), []);
  assert.deepEqual(isDNS1035Label('1web'), [
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  ]);
});

test('qualified names: prefix and name parts', () => {
  assert.deepEqual(isQualifiedName('example.com/MyName'), []);
  assert.deepEqual(isQualifiedName('/x'), ['prefix part must be non-empty']);
  assert.deepEqual(isQualifiedName('a/b/c'), [
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
  ]);
  assert.deepEqual(isQualifiedName('Foo_/x'), [`prefix part ${SUBDOMAIN_MSG}`]);
});

test('label values may be empty, at most 63 characters', () => {
  assert.deepEqual(isValidLabelValue(''), []);
  assert.equal(isValidLabelValue('a'.repeat(64))[0], 'must be no more than 63 characters');
  assert.equal(isValidLabelValue('-bad').length, 1);
});

test('config map keys', () => {
  assert.deepEqual(isConfigMapKey('key.name'), []);
  assert.deepEqual(isConfigMapKey('..x'), ["must not start with '..'"]);
  assert.deepEqual(isConfigMapKey('a b'), [
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
  ]);
});

test('port names and env var names', () => {
  assert.deepEqual(isValidPortName('http'), []);
  assert.deepEqual(isValidPortName('80'), ['must contain at least one letter (a-z)']);
  assert.deepEqual(isValidPortName('a--b'), ['must not contain consecutive hyphens']);
  assert.deepEqual(isEnvVarName('MY_VAR'), []);
  assert.equal(isEnvVarName('1X').length, 1);
});

test('path segment names and generateName prefixes', () => {
  assert.deepEqual(isValidPathSegment('..', false), ["may not be '..'"]);
  assert.deepEqual(isValidPathSegment('a/b%', false), ["may not contain '/'", "may not contain '%'"]);
  assert.deepEqual(isValidPathSegment('..', true), []);
  // A generateName may end in '-': kube masks the end before checking.
  assert.deepEqual(nameIsDNSSubdomain('web-', true), []);
  assert.deepEqual(nameIsDNSSubdomain('web-', false), [SUBDOMAIN_MSG]);
});
