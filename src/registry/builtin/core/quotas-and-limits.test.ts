import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, statusUpdateErrors, updateErrors } from '../test-context.ts';

const limitRanges = builtinTypeFacts('', 'limitranges');
const quotas = builtinTypeFacts('', 'resourcequotas');
const lr = (limits: unknown[]): KubeObject => ({ metadata: { name: 'limits', namespace: 'default' }, spec: { limits } });
const quota = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'q', namespace: 'default' }, spec });
/** Go's %#v of a resource.Quantity held as an int64Amount. */
const goQuantity = (value: number, scale: number, s: string, format = 'DecimalSI') =>
  `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"${s}", Format:"${format}"}`;

// Source: pkg/apis/core/validation/validation.go ValidateLimitRange.
const limitCases: [string, unknown[], string[]][] = [
  ['a valid container range', [{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '2' }, default: { cpu: '500m' }, defaultRequest: { cpu: '200m' } }], []],
  ['unknown type', [{ type: 'Node' }], ['spec.limits[0].type: Invalid value: "Node": must be a standard limit type or fully qualified']],
  ['duplicate type', [{ type: 'Container' }, { type: 'Container' }], ['spec.limits[1].type: Duplicate value: "Container"']],
  // Container items are defaulted first (SetDefaults_LimitRangeItem): the default limit from the max, the default request from it.
  [
    'min above max',
    [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }],
    // The bad value is the Quantity itself, printed as Go's %#v; the messages use its canonical text.
    [
      `spec.limits[0].min[cpu]: Invalid value: ${goQuantity(2, 0, '2')}: min value 2 is greater than max value 1`,
      `spec.limits[0].defaultRequest[cpu]: Invalid value: ${goQuantity(1, 0, '1')}: min value 2 is greater than default request value 1`,
      `spec.limits[0].default[cpu]: Invalid value: ${goQuantity(2, 0, '2')}: min value 2 is greater than default value 1`,
    ],
  ],
  ['pod defaults', [{ type: 'Pod', default: { cpu: '1' } }], ["spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"]],
  ['claim without storage bounds', [{ type: 'PersistentVolumeClaim' }], ['spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided']],
  ['ratio below 1', [{ type: 'Container', maxLimitRequestRatio: { cpu: '500m' } }], [`spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: ${goQuantity(500, -3, '500m')}: ratio 500m is less than 1`]],
  [
    'ratio above max over min, with the limit printed as %f',
    [{ type: 'Pod', min: { memory: '1Gi' }, max: { memory: '3Gi' }, maxLimitRequestRatio: { memory: '4' } }],
    [`spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: ${goQuantity(4, 0, '4')}: ratio 4 is greater than max/min = 3.000000`],
  ],
  [
    'default above max: the max is the bad value',
    [{ type: 'PersistentVolumeClaim', max: { storage: '1Gi' }, default: { storage: '2Gi' } }],
    [`spec.limits[0].default[storage]: Invalid value: ${goQuantity(1073741824, 0, '1Gi', 'BinarySI')}: default value 2Gi is greater than max value 1Gi`],
  ],
  [
    // A ResourceName is a fmt.Stringer: printed bare. validateContainerResourceName adds its own error to
    // validateResourceName's.
    'non-container resource',
    [{ type: 'Container', max: { pods: '1' } }],
    ['max', 'default', 'defaultRequest'].map((field) => `spec.limits[0].${field}[pods]: Invalid value: pods: must be a standard resource for containers`),
  ],
  [
    'unknown resource',
    [{ type: 'Pod', max: { gpu: '1' } }],
    ['spec.limits[0].max[gpu]: Invalid value: gpu: must be a standard resource type or fully qualified', 'spec.limits[0].max[gpu]: Invalid value: gpu: must be a standard resource for containers'],
  ],
  [
    'the claim bounds are checked before the ratio names',
    [{ type: 'PersistentVolumeClaim', maxLimitRequestRatio: { 'bad name': '2' } }],
    [
      'spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided',
      `spec.limits[0].maxLimitRequestRatio[bad name]: Invalid value: bad name: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ],
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
  ['negative, written in another form: printed canonically', { hard: { 'requests.cpu': '-0.5' } }, ['spec.hard[requests.cpu]: Invalid value: "-500m": must be greater than or equal to 0']],
  ['fractional count', { hard: { pods: '1500m' } }, [`spec.hard[pods]: Invalid value: ${goQuantity(1500, -3, '1500m')}: must be an integer`]],
  ['not a quota resource', { hard: { storage: '1Gi' } }, ['spec.hard[storage]: Invalid value: storage: must be a standard resource for quota']],
  [
    'not a resource at all',
    { hard: { 'limits.pods': '1' } },
    ['spec.hard[limits.pods]: Invalid value: limits.pods: must be a standard resource type or fully qualified', 'spec.hard[limits.pods]: Invalid value: limits.pods: must be a standard resource for quota'],
  ],
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
    'conflicting scopes in the selector: spec.scopes is the bad value',
    { scopeSelector: { matchExpressions: [{ scopeName: 'Terminating', operator: 'Exists' }, { scopeName: 'NotTerminating', operator: 'Exists' }] } },
    ['spec.scopeSelector.matchExpressions: Invalid value: []core.ResourceQuotaScope(nil): conflicting scopes'],
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
  // An update checks the spec only: a bad status kept from before is not reported.
  const badStatus = structuredClone(old);
  badStatus.status = { used: { pods: '-1' } };
  assert.deepEqual(updateErrors(quotas, quota({ hard: { pods: '3' }, scopes: ['BestEffort'] }), badStatus), []);
  assert.deepEqual(quotas.printerColumns.map((c) => c.name), ['Age', 'Request', 'Limit']);
  assert.deepEqual(limitRanges.printerColumns, []);
});

test('resource quotas: a status write checks the status lists only, names and quantities', () => {
  const old = quota({ hard: { pods: '2' } });
  createErrors(quotas, old);
  old.metadata = { ...old.metadata, resourceVersion: '2' };
  const { errors } = statusUpdateErrors(quotas, { ...structuredClone(old), status: { hard: { pods: '2' }, used: { pods: '-1', widgets: '1' } } }, old);
  assert.deepEqual(errors, [
    'status.used[pods]: Invalid value: "-1": must be greater than or equal to 0',
    'status.used[widgets]: Invalid value: widgets: must be a standard resource type or fully qualified',
    'status.used[widgets]: Invalid value: widgets: must be a standard resource for quota',
  ]);
});
