import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../../apis/errors.ts';
import { schedulingUpdateOptions, validateAffinity, validateTopologySpreadConstraints, type SchedulingValidationOptions } from './pod-scheduling-validation.ts';
import { validatePodSpec } from './pod-validation.ts';

const NAME_PART_ERROR =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_ERROR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const LABEL_ERROR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const affinityErrors = (affinity: unknown, opts?: SchedulingValidationOptions) => validateAffinity(affinity, 'spec.affinity', opts).map(fieldErrorString);
const spreadErrors = (constraints: unknown, opts?: SchedulingValidationOptions) => validateTopologySpreadConstraints(constraints, 'spec.topologySpreadConstraints', opts).map(fieldErrorString);

const NA = 'spec.affinity.nodeAffinity';
const PA = 'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution';
const AA = 'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution';
const TSC = 'spec.topologySpreadConstraints';

test('valid affinity and spread constraints pass', () => {
  const selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] };
  assert.deepEqual(
    affinityErrors({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }] },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, preference: { matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['node-1'] }] } }],
      },
      podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: selector, namespaces: ['default'], topologyKey: 'topology.kubernetes.io/zone', matchLabelKeys: ['pod-template-hash'] }] },
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { labelSelector: selector, namespaceSelector: {}, topologyKey: 'kubernetes.io/hostname', mismatchLabelKeys: ['tenant'] } }] },
    }),
    [],
  );
  assert.deepEqual(affinityErrors({}), []);
  assert.deepEqual(affinityErrors(undefined), []);
  assert.deepEqual(
    spreadErrors([
      { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: selector, minDomains: 3, nodeAffinityPolicy: 'Honor', nodeTaintsPolicy: 'Ignore', matchLabelKeys: ['pod-template-hash'] },
      { maxSkew: 2, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway' },
    ]),
    [],
  );
});

test('node affinity: the required selector through ValidateNodeSelector, preferred terms weighted 1-100', () => {
  assert.deepEqual(affinityErrors({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } }), [
    `${NA}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term`,
  ]);
  assert.deepEqual(
    affinityErrors({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Near', values: ['a'] }] }] },
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 0, preference: { matchExpressions: [{ key: 'disk', operator: 'In' }] } },
          { weight: 101, preference: { matchFields: [{ key: 'metadata.uid', operator: 'In', values: ['x'] }] } },
          { preference: {} },
        ],
      },
    }),
    [
      `${NA}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator`,
      `${NA}.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100`,
      `${NA}.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`,
      `${NA}.preferredDuringSchedulingIgnoredDuringExecution[1].weight: Invalid value: 101: must be in the range 1-100`,
      `${NA}.preferredDuringSchedulingIgnoredDuringExecution[1].preference.matchFields[0].key: Invalid value: "metadata.uid": not a valid field selector key`,
      `${NA}.preferredDuringSchedulingIgnoredDuringExecution[2].weight: Invalid value: 0: must be in the range 1-100`,
    ],
  );
});

test('pod affinity terms: selectors, namespaces and a topology key that is a label name', () => {
  assert.deepEqual(
    affinityErrors({
      podAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: { app: 'a b' } }, namespaceSelector: { matchExpressions: [{ key: 'k', operator: 'Is' }] }, namespaces: ['ok', 'Bad_NS'], topologyKey: 'zone' },
          {},
          { topologyKey: 'bad key' },
        ],
      },
    }),
    [
      `${PA}[0].labelSelector.matchLabels: Invalid value: "a b": ${LABEL_VALUE_ERROR}`,
      `${PA}[0].namespaceSelector.matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator`,
      `${PA}[0].namespace: Invalid value: "Bad_NS": ${LABEL_ERROR}`,
      `${PA}[1].topologyKey: Required value: can not be empty`,
      `${PA}[1].topologyKey: Invalid value: "": name part must be non-empty`,
      `${PA}[1].topologyKey: Invalid value: "": ${NAME_PART_ERROR}`,
      `${PA}[2].topologyKey: Invalid value: "bad key": ${NAME_PART_ERROR}`,
    ],
  );
});

test('weighted pod anti-affinity terms: weight 1-100 and the term itself', () => {
  assert.deepEqual(affinityErrors({ podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 200, podAffinityTerm: { topologyKey: 'zone' } }, { weight: 5 }] } }), [
    `${AA}[0].weight: Invalid value: 200: must be in the range 1-100`,
    `${AA}[1].podAffinityTerm.topologyKey: Required value: can not be empty`,
    `${AA}[1].podAffinityTerm.topologyKey: Invalid value: "": name part must be non-empty`,
    `${AA}[1].podAffinityTerm.topologyKey: Invalid value: "": ${NAME_PART_ERROR}`,
  ]);
});

test('matchLabelKeys and mismatchLabelKeys: label names, a selector, no key in both', () => {
  assert.deepEqual(affinityErrors({ podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ matchLabelKeys: ['a'], mismatchLabelKeys: ['b'], topologyKey: 'zone' }] } }), [
    `${PA}[0].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set`,
    `${PA}[0].mismatchLabelKeys: Forbidden: must not be specified when labelSelector is not set`,
  ]);
  assert.deepEqual(
    affinityErrors({
      podAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          {
            // The expression on app is what kube's strategy merges in from matchLabelKeys at creation.
            labelSelector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'app', operator: 'In', values: ['db'] }] },
            matchLabelKeys: ['app', 'bad key', 'tenant'],
            mismatchLabelKeys: ['tenant'],
            topologyKey: 'zone',
          },
        ],
      },
    }),
    [
      `${PA}[0].matchLabelKeys[1]: Invalid value: "bad key": ${NAME_PART_ERROR}`,
      `${PA}[0][0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector`,
      `${PA}[0].matchLabelKeys[2]: Invalid value: "tenant": exists in both matchLabelKeys and mismatchLabelKeys`,
    ],
  );
  // A key only in matchLabels (not repeated by an expression) passes, as in kube.
  assert.deepEqual(affinityErrors({ podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, matchLabelKeys: ['app'], topologyKey: 'zone' }] } }), []);
});

test('an update keeps invalid label values its old affinity selectors had', () => {
  const affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchExpressions: [{ key: 'k', operator: 'In', values: ['a b'] }] }, topologyKey: 'zone' }] } };
  assert.deepEqual(affinityErrors(affinity), [`${PA}[0].labelSelector.matchExpressions[0].values[0]: Invalid value: "a b": ${LABEL_VALUE_ERROR}`]);
  const opts = schedulingUpdateOptions({ affinity });
  assert.deepEqual(opts, { allowInvalidLabelValueInSelector: true, allowInvalidTopologySpreadConstraintLabelSelector: false });
  assert.deepEqual(affinityErrors(affinity, opts), []);
  assert.deepEqual(schedulingUpdateOptions(undefined), { allowInvalidLabelValueInSelector: false, allowInvalidTopologySpreadConstraintLabelSelector: false });
});

test('spread constraints: maxSkew, topologyKey, whenUnsatisfiable, minDomains and node inclusion policies', () => {
  assert.deepEqual(spreadErrors([{ maxSkew: 0, topologyKey: '', whenUnsatisfiable: 'Never', minDomains: 0, nodeAffinityPolicy: 'Sometimes', nodeTaintsPolicy: '' }, {}]), [
    `${TSC}[0].maxSkew: Invalid value: 0: must be greater than zero`,
    `${TSC}[0].topologyKey: Required value: can not be empty`,
    `${TSC}[0].whenUnsatisfiable: Unsupported value: "Never": supported values: "DoNotSchedule", "ScheduleAnyway"`,
    `${TSC}[0].minDomains: Invalid value: 0: must be greater than zero`,
    `${TSC}[0].minDomains: Invalid value: 0: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not Never`,
    `${TSC}[0].nodeAffinityPolicy: Unsupported value: "Sometimes": supported values: "Honor", "Ignore"`,
    `${TSC}[0].nodeTaintsPolicy: Unsupported value: "": supported values: "Honor", "Ignore"`,
    `${TSC}[1].maxSkew: Invalid value: 0: must be greater than zero`,
    `${TSC}[1].topologyKey: Required value: can not be empty`,
    `${TSC}[1].whenUnsatisfiable: Unsupported value: "": supported values: "DoNotSchedule", "ScheduleAnyway"`,
  ]);
  assert.deepEqual(spreadErrors([{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', minDomains: 2 }]), [
    `${TSC}[0].minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway`,
  ]);
});

test('spread constraints: a topologyKey and whenUnsatisfiable pair appears once', () => {
  const c = (topologyKey: string, whenUnsatisfiable: string) => ({ maxSkew: 1, topologyKey, whenUnsatisfiable });
  assert.deepEqual(spreadErrors([c('zone', 'DoNotSchedule'), c('zone', 'ScheduleAnyway'), c('node', 'DoNotSchedule'), c('zone', 'DoNotSchedule'), c('zone', 'DoNotSchedule')]), [
    `${TSC}[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, DoNotSchedule}"`,
    `${TSC}[3].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, DoNotSchedule}"`,
  ]);
});

test('spread constraints: matchLabelKeys need a selector that does not name them, and the selector is valid', () => {
  const base = { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' };
  assert.deepEqual(spreadErrors([{ ...base, matchLabelKeys: ['a b'] }]), [
    `${TSC}[0].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set`,
    `${TSC}[0].matchLabelKeys[0]: Invalid value: "a b": ${NAME_PART_ERROR}`,
  ]);
  const labelSelector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a b'] }] };
  assert.deepEqual(spreadErrors([{ ...base, labelSelector, matchLabelKeys: ['app', 'tier', 'pod-template-hash'] }]), [
    `${TSC}[0].matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector`,
    `${TSC}[0].matchLabelKeys[1]: Invalid value: "tier": exists in both matchLabelKeys and labelSelector`,
    `${TSC}[0].labelSelector.matchExpressions[0].values[0]: Invalid value: "a b": ${LABEL_VALUE_ERROR}`,
  ]);
  // An update whose old constraints had an invalid selector skips the selector check.
  const opts = schedulingUpdateOptions({ topologySpreadConstraints: [{ ...base, labelSelector }] });
  assert.deepEqual(opts, { allowInvalidLabelValueInSelector: false, allowInvalidTopologySpreadConstraintLabelSelector: true });
  assert.deepEqual(spreadErrors([{ ...base, labelSelector }], opts), []);
});

test('validatePodSpec reports scheduling and DNS errors in kube order', () => {
  const spec = {
    containers: [{ name: 'c', image: 'i', imagePullPolicy: 'Always', terminationMessagePolicy: 'File' }],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'None',
    dnsConfig: { nameservers: ['nope'] },
    affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone', namespaces: ['X'] }] } },
    schedulingGates: [{ name: 'bad gate' }],
    topologySpreadConstraints: [{ maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' }],
    tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }],
    hostAliases: [{ ip: 'localhost' }],
  };
  const paths = validatePodSpec(spec, 'spec', { isPod: true }).map((e) => e.field);
  assert.deepEqual(paths, [
    'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespace',
    'spec.dnsConfig.nameservers[0]',
    'spec.schedulingGates[0]',
    'spec.topologySpreadConstraints[0].maxSkew',
    'spec.tolerations[0].operator',
    'spec.hostAliases[0].ip',
  ]);
});
