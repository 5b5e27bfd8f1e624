import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, statusUpdateErrors, updateErrors } from '../test-context.ts';

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
  ['precedence 1 for a non-exempt schema', { matchingPrecedence: 1 }, ["spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"]],
  ['precedence too high', { matchingPrecedence: 10001 }, ['spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000']],
  ['no priority level', { priorityLevelConfiguration: {} }, ['spec.priorityLevelConfiguration.name: Required value: must reference a priority level']],
  ['unknown distinguisher', { distinguisherMethod: { type: 'ByHost' } }, ['spec.distinguisherMethod.type: Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:"ByHost"}: supported values: "ByNamespace", "ByUser"']],
  ['rule without subjects', { rules: [{ nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['/healthz'] }] }] }, ['spec.rules[0].subjects: Required value: subjects must contain at least one value']],
  [
    'wildcard with other verbs',
    { rules: [{ ...rule, resourceRules: [{ verbs: ['*', 'get'], apiGroups: ['*'], resources: ['*'], clusterScope: true }] }] },
    ['spec.rules[0].resourceRules[0].verbs: Invalid value: []string{"*", "get"}: if \'*\' is present, must not specify other verbs'],
  ],
  [
    'service account subject without name nor namespace',
    { rules: [{ ...rule, subjects: [{ kind: 'ServiceAccount', serviceAccount: {}, user: { name: 'x' } }] }] },
    [
      'spec.rules[0].subjects[0].serviceAccount.name: Required value',
      'spec.rules[0].subjects[0].serviceAccount.namespace: Required value: must specify namespace for service account',
      "spec.rules[0].subjects[0].user: Forbidden: user is forbidden when subject kind is not 'User'",
    ],
  ],
  [
    'non-resource URLs: wildcards only as a suffix',
    { rules: [{ subjects: rule.subjects, nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/a/*/b', 'healthz', '/a//b'] }, { verbs: ['get'], nonResourceURLs: ['*', '/x'] }] }] },
    [
      'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "/a/*/b": wildcard can only do suffix matching',
      'spec.rules[0].nonResourceRules[0].nonResourceURLs[1]: Invalid value: "healthz": must start with slash',
      'spec.rules[0].nonResourceRules[0].nonResourceURLs[2]: Invalid value: "/a//b": must not contain double slash',
      'spec.rules[0].nonResourceRules[1].nonResourceURLs: Invalid value: []string{"*", "/x"}: if \'*\' is present, must not specify other non-resource URLs',
    ],
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

test('flow schemas and priority levels: status writes check condition types', () => {
  const old = fs({});
  createErrors(schemas, old);
  const { errors } = statusUpdateErrors(schemas, { ...old, status: { conditions: [{ type: 'Dangling', status: 'False' }, { type: 'Dangling' }, { status: 'True' }] } }, old);
  assert.deepEqual(errors, ['status.conditions[1].type: Duplicate value: "Dangling"', 'status.conditions[2].type: Required value: must not be empty']);
  const level = pl({ type: 'Limited', limited: { limitResponse: { type: 'Reject' } } });
  createErrors(levels, level);
  assert.deepEqual(statusUpdateErrors(levels, { ...level, status: { conditions: [{}] } }, level).errors, ['status.conditions[0].type: Required value: must not be empty']);
});

// pkg/apis/flowcontrol/validation ValidateFlowSchema and ValidateIfMandatoryPriorityLevelConfigurationObject: the
// mandatory objects keep the spec the apiserver bootstraps.
const catchAllRules = {
  subjects: [{ kind: 'Group', group: { name: 'system:unauthenticated' } }, { kind: 'Group', group: { name: 'system:authenticated' } }],
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};
const catchAllSchema = (precedence: number): KubeObject => ({
  metadata: { name: 'catch-all' },
  spec: { priorityLevelConfiguration: { name: 'catch-all' }, matchingPrecedence: precedence, distinguisherMethod: { type: 'ByUser' }, rules: [catchAllRules] },
});
const GROUP_SUBJECT = 'flowcontrol.Subject{Kind:"Group", User:(*flowcontrol.UserSubject)(nil), Group:(*flowcontrol.GroupSubject)(0xc000a1b2c0), ServiceAccount:(*flowcontrol.ServiceAccountSubject)(nil)}';

test('mandatory flow schemas: their bootstrap spec is accepted, any other refused on create and update', () => {
  assert.deepEqual(createErrors(schemas, catchAllSchema(10000)), []);
  const want = [
    'spec: Invalid value: flowcontrol.FlowSchemaSpec{PriorityLevelConfiguration:flowcontrol.PriorityLevelConfigurationReference{Name:"catch-all"}, MatchingPrecedence:9999, ' +
      'DistinguisherMethod:(*flowcontrol.FlowDistinguisherMethod)(0xc000a1b2c0), Rules:[]flowcontrol.PolicyRulesWithSubjects{flowcontrol.PolicyRulesWithSubjects{' +
      `Subjects:[]flowcontrol.Subject{${GROUP_SUBJECT}, ${GROUP_SUBJECT}}, ` +
      'ResourceRules:[]flowcontrol.ResourcePolicyRule{flowcontrol.ResourcePolicyRule{Verbs:[]string{"*"}, APIGroups:[]string{"*"}, Resources:[]string{"*"}, ClusterScope:true, Namespaces:[]string{"*"}}}, ' +
      'NonResourceRules:[]flowcontrol.NonResourcePolicyRule{flowcontrol.NonResourcePolicyRule{Verbs:[]string{"*"}, NonResourceURLs:[]string{"*"}}}}}}' +
      ": spec of 'catch-all' must equal the fixed value",
  ];
  assert.deepEqual(createErrors(schemas, catchAllSchema(9999)), want);
  const old = catchAllSchema(10000);
  createErrors(schemas, old);
  assert.deepEqual(updateErrors(schemas, catchAllSchema(9999), old), want);
});

test('mandatory flow schemas: compared as Go compares the internal structs (false and empty lists are zero values)', () => {
  const exempt: KubeObject = {
    metadata: { name: 'exempt' },
    spec: {
      priorityLevelConfiguration: { name: 'exempt' },
      matchingPrecedence: 1,
      rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:masters' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }],
    },
  };
  assert.deepEqual(createErrors(schemas, exempt), []);
  // A subject with an empty user is a non-nil pointer: no longer the fixed value.
  const withUser = structuredClone(exempt);
  ((withUser.spec as { rules: { subjects: Record<string, unknown>[] }[] }).rules[0].subjects[0]).user = {};
  const errs = createErrors(schemas, withUser);
  assert.equal(errs[0], "spec.rules[0].subjects[0].user: Forbidden: user is forbidden when subject kind is not 'User'");
  assert.match(errs[1], /^spec: Invalid value: flowcontrol\.FlowSchemaSpec\{.*User:\(\*flowcontrol\.UserSubject\)\(0xc000a1b2c0\).*: spec of 'exempt' must equal the fixed value$/);
});

const level = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', metadata: { name }, spec });

test('mandatory priority levels: catch-all keeps its spec; exempt may change spec.exempt only', () => {
  assert.deepEqual(createErrors(levels, level('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } })), []);
  assert.deepEqual(createErrors(levels, level('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 6, limitResponse: { type: 'Reject' } } })), [
    'spec: Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:"Limited", Limited:(*flowcontrol.LimitedPriorityLevelConfiguration)(0xc000a1b2c0), Exempt:(*flowcontrol.ExemptPriorityLevelConfiguration)(nil)}' +
      ": spec of 'catch-all' must equal the fixed value",
  ]);
  assert.deepEqual(createErrors(levels, level('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 10, lendablePercent: 20 } })), []);
  assert.deepEqual(createErrors(levels, level('exempt', { type: 'Exempt', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } })), [
    'spec.limited: Forbidden: must be nil if the type is not Limited',
    'spec: Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:"Exempt", Limited:(*flowcontrol.LimitedPriorityLevelConfiguration)(0xc000a1b2c0), Exempt:(*flowcontrol.ExemptPriorityLevelConfiguration)(nil)}' +
      ": spec of 'exempt' except the 'spec.exempt' field must equal the fixed value",
  ]);
});
