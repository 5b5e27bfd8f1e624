import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors } from '../test-context.ts';

const schemas = builtinTypeFacts('flowcontrol.apiserver.k8s.io', 'flowschemas');
const levels = builtinTypeFacts('flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations');

const rule = { subjects: [{ kind: 'User', user: { name: 'alice' } }], resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }] };
const fs = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'mine' }, spec: { priorityLevelConfiguration: { name: 'workload-low' }, rules: [rule], ...spec } });
const pl = (spec: Record<string, unknown>, apiVersion = 'flowcontrol.apiserver.k8s.io/v1', annotations?: Record<string, string>): KubeObject => ({
  apiVersion,
  metadata: { name: 'low', ...(annotations ? { annotations } : {}) },
  spec,
});

// Sources: pkg/apis/flowcontrol/v1/defaults.go, v1beta3/defaults.go, pkg/apis/flowcontrol/validation/validation.go.
test('flow schemas: matchingPrecedence defaults to 1000; generation starts at 1', () => {
  const obj = fs({});
  assert.deepEqual(createErrors(schemas, obj), []);
  assert.equal((obj.spec as Record<string, unknown>).matchingPrecedence, 1000);
  assert.equal(obj.metadata?.generation, 1);
});

const schemaCases: [string, Record<string, unknown>, string[]][] = [
  ['precedence 1 for a non-exempt schema', { matchingPrecedence: 1 }, ["spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matching precedence 1"]],
  ['precedence too high', { matchingPrecedence: 10001 }, ['spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000']],
  ['no priority level', { priorityLevelConfiguration: {} }, ['spec.priorityLevelConfiguration.name: Required value: must reference a priority level']],
  ['unknown distinguisher', { distinguisherMethod: { type: 'ByHost' } }, ['spec.distinguisherMethod.type: Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:"ByHost"}: supported values: "ByNamespace", "ByUser"']],
  ['rule without subjects', { rules: [{ nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['/healthz'] }] }] }, ['spec.rules[0].subjects: Required value: subjects must contain at least one value']],
  [
    'wildcard with other verbs',
    { rules: [{ ...rule, resourceRules: [{ verbs: ['*', 'get'], apiGroups: ['*'], resources: ['*'], clusterScope: true }] }] },
    ['spec.rules[0].resourceRules[0].verbs: Invalid value: []string{"*", "get"}: if \'*\' is present, must not specify other verbs'],
  ],
  ['user subject without user', { rules: [{ ...rule, subjects: [{ kind: 'User' }] }] }, ["spec.rules[0].subjects[0].user: Required value: user is required when subject kind is 'User'"]],
];
for (const [name, spec, want] of schemaCases) test(`flow schemas: ${name}`, () => assert.deepEqual(createErrors(schemas, fs(spec)), want));

test('priority levels: v1 defaults nominalConcurrencyShares only when unset, queuing defaults', () => {
  const obj = pl({ type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } });
  assert.deepEqual(createErrors(levels, obj), []);
  assert.deepEqual(obj.spec, { type: 'Limited', limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { handSize: 8, queues: 64, queueLengthLimit: 50 } } } });
  const zero = pl({ type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } });
  assert.deepEqual(createErrors(levels, zero), []);
  assert.equal((zero.spec as { limited: Record<string, unknown> }).limited.nominalConcurrencyShares, 0);
});

test('priority levels: v1beta3 treats 0 as unset unless the round-trip annotation is present', () => {
  const beta = pl({ type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } }, 'flowcontrol.apiserver.k8s.io/v1beta3');
  createErrors(levels, beta);
  assert.equal((beta.spec as { limited: Record<string, unknown> }).limited.nominalConcurrencyShares, 30);
  const kept = pl({ type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } }, 'flowcontrol.apiserver.k8s.io/v1beta3', { 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares': '' });
  assert.deepEqual(createErrors(levels, kept), []);
  assert.equal((kept.spec as { limited: Record<string, unknown> }).limited.nominalConcurrencyShares, 0);
  const v1 = pl({ type: 'Limited', limited: { limitResponse: { type: 'Reject' } } }, 'flowcontrol.apiserver.k8s.io/v1', { 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares': '' });
  assert.deepEqual(createErrors(levels, v1), ["metadata.annotations: Forbidden: annotation 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares' is forbidden"]);
});

const levelCases: [string, Record<string, unknown>, string[]][] = [
  ['Exempt type for a non-exempt name', { type: 'Exempt' }, ["spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'"]],
  ['negative shares', { type: 'Limited', limited: { nominalConcurrencyShares: -1, limitResponse: { type: 'Reject' } } }, ['spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer']],
  ['hand bigger than queues', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 5 } } } }, ['spec.limited.limitResponse.queuing.handSize: Invalid value: 5: should not be greater than queues (4)']],
  ['queuing with Reject', { type: 'Limited', limited: { limitResponse: { type: 'Reject', queuing: {} } } }, ['spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited']],
  ['lendablePercent over 100', { type: 'Limited', limited: { lendablePercent: 101, limitResponse: { type: 'Reject' } } }, ['spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive']],
];
for (const [name, spec, want] of levelCases) test(`priority levels: ${name}`, () => assert.deepEqual(createErrors(levels, pl(spec)), want));
