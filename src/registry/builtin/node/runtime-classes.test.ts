import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, updateErrors } from '../test-context.ts';

const runtimeClasses = builtinTypeFacts('node.k8s.io', 'runtimeclasses');

// Source: pkg/apis/node/validation/validation.go validateTolerations.
test('runtime classes: a toleration repeated by key, operator, value and effect is printed as the Go struct', () => {
  const tolerations = [{ key: 'a', operator: 'Exists' }, { key: 'a', operator: 'Exists', effect: '', tolerationSeconds: 5 }];
  assert.deepEqual(createErrors(runtimeClasses, { metadata: { name: 'x' }, handler: 'h', scheduling: { tolerations } }), [
    "scheduling.tolerations[1].effect: Invalid value: \"\": effect must be 'NoExecute' when `tolerationSeconds` is set",
    'scheduling.tolerations[1]: Duplicate value: core.Toleration{Key:"a", Operator:"Exists", Value:"", Effect:"", TolerationSeconds:(*int64)(5)}',
  ]);
});

// Source: pkg/registry/node/runtimeclass/strategy.go ValidateUpdate (ValidateRuntimeClass, then the update rules).
test('runtime classes: an update reports the create checks before ObjectMeta update rules and the fixed handler', () => {
  const old: KubeObject = { metadata: { name: 'gvisor', resourceVersion: '2' }, handler: 'runsc' };
  assert.deepEqual(updateErrors(runtimeClasses, { metadata: { name: 'gvisor', uid: 'changed' }, handler: 'Kata' }, { ...old, metadata: { ...old.metadata, uid: 'u1' } }), [
    'handler: Invalid value: "Kata": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
    'metadata.uid: Invalid value: "changed": field is immutable',
    'handler: Invalid value: "Kata": field is immutable',
  ]);
});
