import { test } from 'node:test';
import assert from 'node:assert/strict';
import { invalid, fieldErrorString } from '../../apis/errors.ts';
import { validateFieldManager, validateObjectMeta, validateObjectMetaUpdate } from './meta.ts';
import { nameIsDNSLabel, nameIsDNSSubdomain } from './names.ts';

const cm = { namespaced: true, nameFn: nameIsDNSSubdomain, kubeFinalizers: true };

function messages(errs: ReturnType<typeof validateObjectMeta>): string[] {
  return errs.map(fieldErrorString);
}

test('an invalid name gives kube exact 422 message', () => {
  const errs = validateObjectMeta({ name: 'Foo', namespace: 'default' }, cm);
  assert.equal(
    invalid({ group: '', kind: 'ConfigMap' }, 'Foo', errs).message,
    `ConfigMap "Foo" is invalid: metadata.name: Invalid value: "Foo": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  );
});

test('name or generateName is required; namespace rules follow the scope', () => {
  assert.deepEqual(messages(validateObjectMeta({ namespace: 'default' }, cm)), ['metadata.name: Required value: name or generateName is required']);
  assert.deepEqual(messages(validateObjectMeta({ name: 'x' }, cm)), ['metadata.namespace: Required value']);
  assert.deepEqual(messages(validateObjectMeta({ name: 'x', namespace: 'a' }, { namespaced: false, nameFn: nameIsDNSLabel })), [
    'metadata.namespace: Forbidden: not allowed on this type',
  ]);
});

test('generateName is checked as a prefix', () => {
  assert.deepEqual(validateObjectMeta({ generateName: 'web-', name: 'web-x7k2p', namespace: 'd' }, cm), []);
  const errs = messages(validateObjectMeta({ generateName: 'Web-', name: 'web-x7k2p', namespace: 'd' }, cm));
  assert.equal(errs.length, 1);
  assert.match(errs[0], /^metadata\.generateName: Invalid value: "Web-": a lowercase RFC 1123 subdomain/);
});

test('labels and annotations are validated with the map path', () => {
  const errs = messages(validateObjectMeta({ name: 'x', namespace: 'd', labels: { 'a/b/c': 'v', ok: '-bad' } }, cm));
  assert.equal(errs.length, 2);
  assert.match(errs[0], /^metadata\.labels: Invalid value: "a\/b\/c": a qualified name must consist/);
  assert.match(errs[1], /^metadata\.labels: Invalid value: "-bad": a valid label must be an empty string/);
  const big = { name: 'x', namespace: 'd', annotations: { k: 'v'.repeat(256 * 1024) } };
  assert.deepEqual(messages(validateObjectMeta(big, cm)), ['metadata.annotations: Too long: may not be more than 262144 bytes']);
  // Annotation keys are compared in lower case: upper case is fine.
  assert.deepEqual(validateObjectMeta({ name: 'x', namespace: 'd', annotations: { 'Example.com/Key': 'v' } }, cm), []);
});

test('finalizers: qualified names, standard names for core types, no orphan with foreground', () => {
  assert.deepEqual(validateObjectMeta({ name: 'x', namespace: 'd', finalizers: ['example.com/cleanup', 'kubernetes'] }, cm), []);
  assert.deepEqual(messages(validateObjectMeta({ name: 'x', namespace: 'd', finalizers: ['cleanup'] }, cm)), [
    'metadata.finalizers[0]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified',
  ]);
  assert.deepEqual(validateObjectMeta({ name: 'x', namespace: 'd', finalizers: ['cleanup'] }, { ...cm, kubeFinalizers: false }), []);
  const both = messages(validateObjectMeta({ name: 'x', namespace: 'd', finalizers: ['orphan', 'foregroundDeletion'] }, cm));
  assert.deepEqual(both, ['metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set']);
});

test('owner references need version, kind, name and uid, and one controller at most', () => {
  const refs = [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'a', uid: '1', controller: true },
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'b', uid: '2', controller: true },
    { apiVersion: '', kind: '', name: '', uid: '' },
  ];
  const errs = messages(validateObjectMeta({ name: 'x', namespace: 'd', ownerReferences: refs }, cm));
  assert.match(errs[0], /Only one reference can have Controller set to true\. Found "true" in references for ReplicaSet\/a and ReplicaSet\/b$/);
  assert.deepEqual(errs.slice(1), [
    'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
    'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
    'metadata.ownerReferences.name: Invalid value: "": must not be empty',
    'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
  ]);
});

test('updates: identity fields are immutable, generation never decreases, resourceVersion is needed', () => {
  const old = { name: 'a', namespace: 'd', uid: 'u1', resourceVersion: '5', generation: 3, creationTimestamp: '2024-01-01T00:00:00Z' };
  assert.deepEqual(validateObjectMetaUpdate({ ...old }, old), []);
  assert.deepEqual(messages(validateObjectMetaUpdate({ ...old, name: 'b', uid: 'u2' }, old)), [
    'metadata.name: Invalid value: "b": field is immutable',
    'metadata.uid: Invalid value: "u2": field is immutable',
  ]);
  assert.deepEqual(messages(validateObjectMetaUpdate({ ...old, generation: 2 }, old)), ['metadata.generation: Invalid value: 2: must not be decremented']);
  assert.deepEqual(messages(validateObjectMetaUpdate({ ...old, resourceVersion: '' }, old)), [
    'metadata.resourceVersion: Invalid value: "": must be specified for an update',
  ]);
});

test('no new finalizers on an object being deleted', () => {
  const old = { name: 'a', resourceVersion: '1', deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['a.io/x'] };
  assert.deepEqual(messages(validateObjectMetaUpdate({ ...old, finalizers: ['a.io/x', 'b.io/y', 'a.io/z'] }, old)), [
    'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"a.io/z", "b.io/y"}',
  ]);
});

test('field managers: at most 128 bytes, printable runes only (Go\'s unicode.IsPrint), as a query option or a managedFields entry', () => {
  const check = (m: string) => validateFieldManager(m, 'fieldManager').map(fieldErrorString);
  assert.deepEqual(check('kubectl-edit'), []);
  assert.deepEqual(check('a\u0001b'), ['fieldManager: Invalid value: "a\\x01b": invalid character U+0001 (at position 1)']);
  assert.deepEqual(check('a\u007f'), ['fieldManager: Invalid value: "a\\x7f": invalid character U+007F (at position 1)']);
  // letters, marks and symbols beyond ASCII are printable; a zero-width space (Cf) and a no-break space (Zs) are not
  assert.deepEqual(check('é-ctl-✓'), []);
  assert.deepEqual(check('é\u200bx\u00a0'), [
    'fieldManager: Invalid value: "é\\u200bx\\u00a0": invalid character U+200B (at position 2)',
    'fieldManager: Invalid value: "é\\u200bx\\u00a0": invalid character U+00A0 (at position 6)',
  ]);
  // the length is counted in bytes, as Go's len(string)
  assert.deepEqual(check('a'.repeat(128)), []);
  assert.deepEqual(check('a'.repeat(129)), ['fieldManager: Too long: may not be more than 128 bytes']);
  assert.deepEqual(check('é'.repeat(64)), []);
  assert.deepEqual(check('é'.repeat(65)), ['fieldManager: Too long: may not be more than 128 bytes']);
});
