import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, statusUpdateErrors, updateErrors } from '../test-context.ts';
import { parseGoURL } from './webhook-client.ts';

// Sources: pkg/apis/admissionregistration/validation/validation.go (kube 1.31), k8s.io/apiserver/pkg/util/webhook/validation.go.
const validating = builtinTypeFacts('admissionregistration.k8s.io', 'validatingwebhookconfigurations');
const mutating = builtinTypeFacts('admissionregistration.k8s.io', 'mutatingwebhookconfigurations');
const policies = builtinTypeFacts('admissionregistration.k8s.io', 'validatingadmissionpolicies');
const bindings = builtinTypeFacts('admissionregistration.k8s.io', 'validatingadmissionpolicybindings');

type Obj = Record<string, unknown>;
const hook = (extra: Obj = {}): Obj => ({ name: 'a.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: 'https://hooks.example.com/x' }, ...extra });
const config = (...webhooks: Obj[]): KubeObject => ({ metadata: { name: 'c' }, webhooks });

const webhookCases: [string, Obj[], string[]][] = [
  ['a name of two segments', [hook({ name: 'a.example' })], ['webhooks[0].name: Invalid value: "a.example": should be a domain with at least three segments separated by dots']],
  [
    'a duplicate name is reported after the webhook own errors',
    [hook(), hook({ timeoutSeconds: 31 })],
    ['webhooks[1].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds', 'webhooks[1].name: Duplicate value: "a.example.com"'],
  ],
  [
    'review versions come after the client config',
    [hook({ admissionReviewVersions: ['v2', 'v2'], clientConfig: {} })],
    [
      'webhooks[0].clientConfig: Required value: exactly one of url or service is required',
      'webhooks[0].admissionReviewVersions[1]: Invalid value: "v2": duplicate version',
      'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2", "v2"}: must include at least one of v1, v1beta1',
    ],
  ],
  [
    'an http URL shows the scheme and the desired format',
    [hook({ clientConfig: { url: 'http://u:p@h/x?q=1#f' } })],
    [
      "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
      'webhooks[0].clientConfig.url: Invalid value: "u:p": user information is not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "f": fragments are not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL',
    ],
  ],
  ['an empty URL is still a URL', [hook({ clientConfig: { url: '' } })], [
    "webhooks[0].clientConfig.url: Invalid value: \"\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
    'webhooks[0].clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]',
  ]],
  ['a URL Go cannot parse', [hook({ clientConfig: { url: 'https://[::1/x' } })], ['webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://[::1/x": missing \']\' in host; desired format: https://host[/path]']],
  [
    'a service without a name is reported at namespace, as kube passes them swapped',
    [hook({ clientConfig: { service: { namespace: 'ns', path: 'x//' } } })],
    ['webhooks[0].clientConfig.service.namespace: Required value', "webhooks[0].clientConfig.service.path: Invalid value: \"x//\": must start with a '/'", 'webhooks[0].clientConfig.service.path: Invalid value: "x//": segment[0] may not be empty', 'webhooks[0].clientConfig.service.path: Invalid value: "x//": segment[1] may not be empty'],
  ],
  [
    'rules: operations typed, empty versions, resources wildcards',
    [hook({ rules: [{ operations: ['*', 'CREATE', 'PATCH'], apiGroups: [''], apiVersions: ['v1', ''], resources: ['pods/*', 'pods/log', '*'] }] })],
    [
      'webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "CREATE", "PATCH"}: if \'*\' is present, must not specify other operations',
      'webhooks[0].rules[0].operations[2]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      'webhooks[0].rules[0].apiVersions[1]: Required value',
      "webhooks[0].rules[0].resources[1]: Invalid value: \"pods/log\": if 'pods/*' is present, must not specify pods/log",
    ],
  ],
  [
    'match conditions: expression first, then the name as a qualified name',
    [hook({ matchConditions: [{ name: 'bad name', expression: ' ' }, { name: 'c', expression: 'true' }, { name: 'c', expression: 'true' }] })],
    [
      'webhooks[0].matchConditions[0].expression: Required value',
      "webhooks[0].matchConditions[0].name: Invalid value: \"bad name\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'webhooks[0].matchConditions[2].name: Duplicate value: "c"',
    ],
  ],
];
for (const [name, hooks, want] of webhookCases) test(`webhook configurations: ${name}`, () => assert.deepEqual(createErrors(validating, config(...hooks)), want));

test('webhook configurations: mutating reinvocationPolicy comes after the selectors', () => {
  assert.deepEqual(createErrors(mutating, config(hook({ reinvocationPolicy: 'Always', objectSelector: { matchLabels: { a: '-' } } }))), [
    "webhooks[0].objectSelector.matchLabels: Invalid value: \"-\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
  ]);
});

test('webhook configurations: an update keeps what the stored webhooks already had', () => {
  const old = config(hook({ sideEffects: 'Some', matchConditions: [{ name: 'c', expression: 'params == null' }] }), hook());
  assert.deepEqual(updateErrors(validating, config(hook({ sideEffects: 'Unknown', matchConditions: [{ name: 'c', expression: 'params == null' }] }), hook()), old), []);
  assert.deepEqual(createErrors(validating, config(hook({ sideEffects: 'Some' }))), ['webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"']);
});

test('Go url.Parse errors', () => {
  assert.deepEqual(parseGoURL('https://h:x/'), { error: 'parse "https://h:x/": invalid port ":x" after host' });
  assert.deepEqual(parseGoURL(':x'), { error: 'parse ":x": missing protocol scheme' });
  assert.deepEqual(parseGoURL('https://h/%zz'), { error: 'parse "https://h/%zz": invalid URL escape "%zz"' });
});

const policy = (spec: Obj, name = 'p.example.com'): KubeObject => ({ metadata: { name }, spec: { matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }, ...spec } });

const policyCases: [string, Obj, string[]][] = [
  ['no validations nor audit annotations', {}, ['spec.validations: Required value: validations or auditAnnotations must contain at least one item', 'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item']],
  ['an Unauthorized reason', { validations: [{ expression: 'true', reason: 'Unauthorized' }] }, ['spec.validations[0].reason: Unsupported value: "Unauthorized": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"']],
  ['an empty expression', { validations: [{ expression: ' ', message: ' ' }] }, ['spec.validations[0].expression: Required value: expression is not specified', 'spec.validations[0].message: Invalid value: " ": message must be non-empty if specified']],
  [
    'a paramKind of a bad version and kind',
    { paramKind: { apiVersion: 'a/b/c', kind: 'Config_Map' }, validations: [{ expression: 'true' }] },
    ['spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c', "spec.paramKind.kind: Invalid value: \"Config_Map\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"],
  ],
  [
    'match conditions see params only with a paramKind',
    { matchConditions: [{ name: 'p', expression: 'params == null' }], validations: [{ expression: 'true' }] },
    [`spec.matchConditions[0].expression: Invalid value: "params == null": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params == null\n | ^`],
  ],
  ['variables: a name that is no CEL identifier, duplicates allowed', { variables: [{ name: 'in', expression: '1' }, { name: 'in', expression: '2' }], validations: [{ expression: 'true' }] }, [
    'spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier',
    'spec.variables[1].name: Invalid value: "in": name is not a valid CEL identifier',
  ]],
  [
    'audit annotations: key joined to the policy name, duplicates after',
    { auditAnnotations: [{ key: 'a b', valueExpression: '"x"' }, { key: 'k', valueExpression: '"x"' }, { key: 'k', valueExpression: ' ' }] },
    [
      "spec.auditAnnotations[0].key: Invalid value: \"p.example.com/a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'spec.auditAnnotations[2].valueExpression: Required value: valueExpression is not specified',
      'spec.auditAnnotations[2].key: Duplicate value: "k"',
    ],
  ],
  [
    'match constraints: resource names and the rules required',
    { matchConstraints: { resourceRules: [], excludeResourceRules: [{ resourceNames: ['a/b', 'a/b'], operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] }, validations: [{ expression: 'true' }] },
    [
      "spec.matchConstraints.excludeResourceRules[0].resourceNames[0]: Invalid value: \"a/b\": may not contain '/'",
      "spec.matchConstraints.excludeResourceRules[0].resourceNames[1]: Invalid value: \"a/b\": may not contain '/'",
      'spec.matchConstraints.excludeResourceRules[0].resourceNames[1]: Duplicate value: "a/b"',
      'spec.matchConstraints.resourceRules: Required value',
    ],
  ],
];
for (const [name, spec, want] of policyCases) test(`admission policies: ${name}`, () => assert.deepEqual(createErrors(policies, policy(spec)), want));

test('admission policies: status writes check type checking warnings and conditions', () => {
  const old = policy({ validations: [{ expression: 'true' }] });
  createErrors(policies, old);
  const { errors } = statusUpdateErrors(policies, { ...old, status: { typeChecking: { expressionWarnings: [{ fieldRef: ' ', warning: '' }] } } }, old);
  assert.deepEqual(errors, ['status.typeChecking.expressionWarnings[0].warning: Required value', 'status.typeChecking.expressionWarnings[0].fieldRef: Required value']);
});

const binding = (spec: Obj): KubeObject => ({ metadata: { name: 'b' }, spec: { policyName: 'p.example.com', validationActions: ['Deny'], ...spec } });
const bindingCases: [string, Obj, string[]][] = [
  [
    'paramRef with name and selector, a bad not-found action',
    { paramRef: { name: 'x', selector: {}, parameterNotFoundAction: 'Ignore' } },
    [
      'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"',
    ],
  ],
  [
    'validation actions come last',
    { policyName: 'P', validationActions: ['Deny', 'Warn', 'Deny'], paramRef: { name: 'x' } },
    [
      "spec.policyName: Invalid value: \"P\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      'spec.paramRef.parameterNotFoundAction: Required value',
      'spec.validationActions[2]: Duplicate value: "Deny"',
      'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Deny"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    ],
  ],
];
for (const [name, spec, want] of bindingCases) test(`admission policy bindings: ${name}`, () => assert.deepEqual(createErrors(bindings, binding(spec)), want));
