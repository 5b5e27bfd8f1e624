import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, statusUpdateErrors, updateErrors } from '../test-context.ts';

const pdbs = builtinTypeFacts('policy', 'poddisruptionbudgets');
const priorityClasses = builtinTypeFacts('scheduling.k8s.io', 'priorityclasses');
const runtimeClasses = builtinTypeFacts('node.k8s.io', 'runtimeclasses');
const pdb = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, ...spec } });

// Source: pkg/apis/policy/validation/validation.go (ValidatePodDisruptionBudgetSpec, ...StatusUpdate).
const pdbCases: [string, Record<string, unknown>, string[]][] = [
  ['minAvailable as a percent', { minAvailable: '50%' }, []],
  [
    'both bounds',
    { minAvailable: 1, maxUnavailable: '50%' },
    [
      'spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(intstr.IntOrString{Type:0, IntVal:1, StrVal:""}), ' +
        'Selector:(*v1.LabelSelector)(v1.LabelSelector{MatchLabels:map[string]string{"app":"web"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}), ' +
        'MaxUnavailable:(*intstr.IntOrString)(intstr.IntOrString{Type:1, IntVal:0, StrVal:"50%"}), UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: ' +
        'minAvailable and maxUnavailable cannot be both set',
    ],
  ],
  ['over 100%', { maxUnavailable: '150%' }, ['spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%']],
  ['negative', { minAvailable: -1 }, ['spec.minAvailable: Invalid value: -1: must be greater than or equal to 0']],
  ['unknown eviction policy', { unhealthyPodEvictionPolicy: 'Never' }, ['spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"']],
];
for (const [name, spec, want] of pdbCases) test(`pod disruption budgets: ${name}`, () => assert.deepEqual(createErrors(pdbs, pdb(spec)), want));

test('pod disruption budgets: zeroed status and generation on create; status counters not negative', () => {
  const obj = pdb({ minAvailable: 1 });
  obj.status = { disruptionsAllowed: 5 };
  assert.deepEqual(createErrors(pdbs, obj), []);
  assert.deepEqual(obj.status, {});
  assert.equal(obj.metadata?.generation, 1);
  obj.metadata = { ...obj.metadata, resourceVersion: '2' };
  const { errors } = statusUpdateErrors(pdbs, { ...structuredClone(obj), status: { disruptionsAllowed: -1 } }, obj);
  assert.deepEqual(errors, ['status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0']);
});

// Source: pkg/apis/policy/validation (ValidatePodDisruptionBudgetStatusUpdate); apimachinery metav1 ValidateConditions.
test('pod disruption budgets: status conditions are validated before the counters', () => {
  const obj = pdb({ minAvailable: 1 });
  createErrors(pdbs, obj);
  obj.metadata = { ...obj.metadata, resourceVersion: '2' };
  const condition = { type: 'DisruptionAllowed', status: 'True', lastTransitionTime: '2024-06-01T00:00:00Z', reason: 'SufficientPods', message: '' };
  const conditions = [condition, { ...condition, status: 'Yes', reason: '' }, { type: 'bad type', status: 'False', observedGeneration: -1, reason: 'no spaces' }];
  const { errors } = statusUpdateErrors(pdbs, { ...structuredClone(obj), status: { conditions, currentHealthy: -2 } }, obj);
  assert.deepEqual(errors, [
    'status.conditions[1].type: Duplicate value: "DisruptionAllowed"',
    'status.conditions[1].status: Unsupported value: "Yes": supported values: "False", "True", "Unknown"',
    'status.conditions[1].reason: Required value: must be set',
    'status.conditions[2].type: Invalid value: "bad type": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
    'status.conditions[2].observedGeneration: Invalid value: -1: must be greater than or equal to zero',
    'status.conditions[2].lastTransitionTime: Required value: must be set',
    "status.conditions[2].reason: Invalid value: \"no spaces\": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')",
    'status.currentHealthy: Invalid value: -2: must be greater than or equal to 0',
  ]);
});

// Source: pkg/registry/policy/poddisruptionbudget/strategy.go (Validate, ValidateUpdate, AllowUnconditionalUpdate).
test('pod disruption budgets: no ObjectMeta checks of their own; an invalid stored selector lets bad values stay', () => {
  const odd: KubeObject = { metadata: { name: 'Web_Budget', namespace: 'default', finalizers: ['custom'] }, spec: { minAvailable: 1 } };
  assert.deepEqual(createErrors(pdbs, odd), []);
  const badValues = { matchExpressions: [{ key: 'app', operator: 'In', values: ['a b'] }] };
  assert.deepEqual(createErrors(pdbs, pdb({ selector: badValues })), [
    "spec.selector.matchExpressions[0].values[0]: Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  ]);
  const stored: KubeObject = { metadata: { name: 'web', namespace: 'default', resourceVersion: '2', generation: 1 }, spec: { minAvailable: 1, selector: { matchExpressions: [{ key: 'app', operator: 'Maybe' }] } } };
  assert.deepEqual(updateErrors(pdbs, pdb({ minAvailable: 2, selector: badValues }), stored), []);
  assert.equal(pdbs.strategy.allowUnconditionalUpdate, false);
});

// Source: pkg/apis/scheduling/validation/validation.go; pkg/apis/scheduling/v1/defaults.go.
test('priority classes: preemptionPolicy defaults, reserved names, the user ceiling', () => {
  const pc: KubeObject = { metadata: { name: 'high' }, value: 1000 };
  assert.deepEqual(createErrors(priorityClasses, pc), []);
  assert.equal(pc.preemptionPolicy, 'PreemptLowerPriority');
  assert.deepEqual(createErrors(priorityClasses, { metadata: { name: 'huge' }, value: 1_000_000_001 }), ['value: Forbidden: maximum allowed value of a user defined priority is 1000000000']);
  assert.deepEqual(createErrors(priorityClasses, { metadata: { name: 'system-mine' }, value: 1 }), [
    "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
  ]);
  assert.deepEqual(createErrors(priorityClasses, { metadata: { name: 'system-node-critical' }, value: 2_000_001_000 }), []);
  assert.deepEqual(createErrors(priorityClasses, { metadata: { name: 'x' }, value: 1, preemptionPolicy: 'Always' }), [
    'preemptionPolicy: Unsupported value: "Always": supported values: "PreemptLowerPriority", "Never"',
  ]);
});

test('priority classes: value and preemptionPolicy are fixed', () => {
  const old: KubeObject = { metadata: { name: 'high', resourceVersion: '2' }, value: 1000, preemptionPolicy: 'PreemptLowerPriority' };
  assert.deepEqual(updateErrors(priorityClasses, { metadata: { name: 'high' }, value: 2000, preemptionPolicy: 'Never' }, old), [
    'value: Forbidden: may not be changed in an update.',
    'preemptionPolicy: Invalid value: "Never": field is immutable',
  ]);
  assert.deepEqual(updateErrors(priorityClasses, { metadata: { name: 'high' }, value: 1000, description: 'changed' }, old), []);
});

// Source: pkg/apis/node/validation/validation.go.
test('runtime classes: handler is a DNS label fixed at creation', () => {
  assert.deepEqual(createErrors(runtimeClasses, { metadata: { name: 'gvisor' }, handler: 'runsc' }), []);
  assert.equal(createErrors(runtimeClasses, { metadata: { name: 'bad' }, handler: 'Run_SC' })[0].split(':')[0], 'handler');
  assert.deepEqual(createErrors(runtimeClasses, { metadata: { name: 'x' }, handler: 'h', scheduling: { tolerations: [{ operator: 'Maybe' }] } }), [
    'scheduling.tolerations[0].operator: Invalid value: "Maybe": operator must be Exists when `key` is empty, which means "match all values and all keys"',
    'scheduling.tolerations[0].operator: Unsupported value: "Maybe": supported values: "Equal", "Exists"',
  ]);
  const old: KubeObject = { metadata: { name: 'gvisor', resourceVersion: '2' }, handler: 'runsc' };
  assert.deepEqual(updateErrors(runtimeClasses, { metadata: { name: 'gvisor' }, handler: 'kata' }, old), ['handler: Invalid value: "kata": field is immutable']);
});
