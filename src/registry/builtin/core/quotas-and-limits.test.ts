import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, updateErrors } from '../test-context.ts';

const limitRanges = builtinTypeFacts('', 'limitranges');
const quotas = builtinTypeFacts('', 'resourcequotas');
const lr = (limits: unknown[]): KubeObject => ({ metadata: { name: 'limits', namespace: 'default' }, spec: { limits } });
const quota = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'q', namespace: 'default' }, spec });

// Source: pkg/apis/core/validation/validation.go ValidateLimitRange.
const limitCases: [string, unknown[], string[]][] = [
  ['a valid container range', [{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '2' }, default: { cpu: '500m' }, defaultRequest: { cpu: '200m' } }], []],
  ['unknown type', [{ type: 'Node' }], ['spec.limits[0].type: Invalid value: "Node": must be a standard limit type or fully qualified']],
  ['duplicate type', [{ type: 'Container' }, { type: 'Container' }], ['spec.limits[1].type: Duplicate value: "Container"']],
  // Container items are defaulted first (SetDefaults_LimitRangeItem): the default limit from the max, the default request from it.
  [
    'min above max',
    [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }],
    [
      'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
      'spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1',
      'spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1',
    ],
  ],
  ['pod defaults', [{ type: 'Pod', default: { cpu: '1' } }], ["spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"]],
  ['claim without storage bounds', [{ type: 'PersistentVolumeClaim' }], ['spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided']],
  ['ratio below 1', [{ type: 'Container', maxLimitRequestRatio: { cpu: '500m' } }], ['spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "500m": ratio 500m is less than 1']],
  [
    'non-container resource',
    [{ type: 'Container', max: { pods: '1' } }],
    ['max', 'default', 'defaultRequest'].map((field) => `spec.limits[0].${field}[pods]: Invalid value: "pods": must be a standard resource for containers`),
  ],
];
for (const [name, limits, want] of limitCases) test(`limit ranges: ${name}`, () => assert.deepEqual(createErrors(limitRanges, lr(limits)), want));

test('limit ranges: a Container item gets the default limit from the max, the default request from the default limit, then the min', () => {
  const obj = lr([{ type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '100m', 'ephemeral-storage': '1Gi' }, default: { cpu: '1' } }, { type: 'Pod', max: { cpu: '4' } }]);
  limitRanges.strategy.defaults?.(obj);
  assert.deepEqual((obj.spec as { limits: unknown[] }).limits, [
    { type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '100m', 'ephemeral-storage': '1Gi' }, default: { cpu: '1', memory: '1Gi' }, defaultRequest: { cpu: '1', memory: '1Gi', 'ephemeral-storage': '1Gi' } },
    { type: 'Pod', max: { cpu: '4' } },
  ]);
});

// Source: pkg/apis/core/validation/validation.go ValidateResourceQuota, ValidateResourceQuotaUpdate.
const quotaCases: [string, Record<string, unknown>, string[]][] = [
  ['a valid quota', { hard: { pods: '10', 'requests.cpu': '4', 'count/deployments.apps': '5' } }, []],
  ['negative quantity', { hard: { 'limits.memory': '-1Gi' } }, ['spec.hard[limits.memory]: Invalid value: "-1Gi": must be greater than or equal to 0']],
  ['fractional count', { hard: { pods: '1500m' } }, ['spec.hard[pods]: Invalid value: "1500m": must be an integer']],
  ['not a quota resource', { hard: { storage: '1Gi' } }, ['spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota']],
  ['unknown scope', { scopes: ['Sometimes'] }, ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"Sometimes"}: unsupported scope']],
  ['conflicting scopes', { scopes: ['BestEffort', 'NotBestEffort'] }, ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: conflicting scopes']],
  ['scopes that apply to the resources', { hard: { pods: '2', 'requests.cpu': '1', 'count/deployments.apps': '1' }, scopes: ['NotTerminating'] }, []],
  [
    'a scope that does not apply to a resource',
    { hard: { cpu: '1', memory: '1G', pods: '2', services: '1' }, scopes: ['BestEffort'] },
    // One per resource it does not apply to (cpu, memory, services), as kube lists them.
    Array(3).fill('spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource'),
  ],
  [
    'a scope selector that does not apply to a resource',
    { hard: { 'requests.storage': '1Gi' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } },
    [
      'spec.scopeSelector.matchExpressions: Invalid value: core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{core.ScopedResourceSelectorRequirement{ScopeName:"PriorityClass", Operator:"In", Values:[]string{"high"}}}}: unsupported scope applied to resource',
    ],
  ],
  [
    'scope selector In without values',
    { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In' }] } },
    ["spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"],
  ],
];
for (const [name, spec, want] of quotaCases) test(`resource quotas: ${name}`, () => assert.deepEqual(createErrors(quotas, quota(spec)), want));

test('resource quotas: status starts empty, scopes are immutable, columns are Age, Request, Limit', () => {
  const q = quota({ hard: { pods: '2' }, scopes: ['BestEffort'] });
  q.status = { hard: { pods: '99' } };
  assert.deepEqual(createErrors(quotas, q), []);
  assert.deepEqual(q.status, {});
  const old = structuredClone(q);
  old.metadata = { ...old.metadata, resourceVersion: '2' };
  assert.deepEqual(updateErrors(quotas, quota({ hard: { pods: '3' }, scopes: ['NotBestEffort'] }), old), [
    'spec.scopes: Invalid value: []core.ResourceQuotaScope{"NotBestEffort"}: field is immutable',
  ]);
  assert.deepEqual(quotas.printerColumns.map((c) => c.name), ['Age', 'Request', 'Limit']);
  assert.deepEqual(limitRanges.printerColumns, []);
});
