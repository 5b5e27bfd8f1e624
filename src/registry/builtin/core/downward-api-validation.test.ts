import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../../apis/errors.ts';
import { ENV_FIELD_PATHS, objectFieldSelectorErrors, resourceFieldSelectorErrors } from './downward-api-validation.ts';

// Sources: kube 1.31 pkg/apis/core/validation (validateObjectFieldSelector, validateContainerResourceFieldSelector,
// validateContainerResourceDivisor) and pkg/apis/core/pods.ConvertDownwardAPIFieldLabel.

const envField = (fieldPath: string, apiVersion = 'v1') => objectFieldSelectorErrors({ apiVersion, fieldPath }, ENV_FIELD_PATHS, 'env.fieldRef').map(fieldErrorString);
const envResource = (ref: Record<string, unknown>) => resourceFieldSelectorErrors(ref, 'env.resourceFieldRef', false).map(fieldErrorString);

test('environment field refs: the env field paths, spec.host read as spec.nodeName, labels and annotations by key', () => {
  for (const ok of ['metadata.name', 'status.podIPs', 'spec.host', "metadata.labels['app']", "metadata.annotations['Example.com/Key']"]) assert.deepEqual(envField(ok), [], ok);
  assert.deepEqual(envField('metadata.labels'), [
    'env.fieldRef.fieldPath: Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"',
  ]);
  assert.deepEqual(envField('spec.containers'), ['env.fieldRef.fieldPath: Invalid value: "spec.containers": error converting fieldPath: field label not supported: spec.containers']);
  assert.deepEqual(envField("metadata.uid['x']"), [`env.fieldRef.fieldPath: Invalid value: "metadata.uid['x']": error converting fieldPath: field label does not support subscript: metadata.uid['x']`]);
  assert.deepEqual(envField('metadata.name', ''), ['env.fieldRef.apiVersion: Required value']);
  assert.deepEqual(envField(''), ['env.fieldRef.fieldPath: Required value']);
});

test('environment resource refs: no container name needed, supported resources and divisors', () => {
  assert.deepEqual(envResource({ resource: 'limits.cpu', divisor: '1m' }), []);
  assert.deepEqual(envResource({ resource: 'requests.ephemeral-storage', divisor: '1Mi' }), []);
  assert.deepEqual(envResource({ resource: 'limits.cpu', divisor: '0' }), []);
  assert.deepEqual(envResource({}), ['env.resourceFieldRef.resource: Required value']);
  assert.deepEqual(envResource({ resource: 'limits.cpu', divisor: '10m' }), [
    `env.resourceFieldRef.divisor: Invalid value: "limits.cpu": only divisor's values 1m and 1 are supported with the cpu resource`,
  ]);
  assert.deepEqual(envResource({ resource: 'requests.ephemeral-storage', divisor: '2k' }), [
    `env.resourceFieldRef.divisor: Invalid value: "requests.ephemeral-storage": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the local ephemeral storage resource`,
  ]);
});
