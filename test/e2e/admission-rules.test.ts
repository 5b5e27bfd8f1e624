// kubectl against a real Capstan for admissionregistration, flowcontrol and RBAC objects: kube 1.31's messages,
// field paths and order on create and update.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

describe('admissionregistration, flowcontrol and RBAC rules through kubectl', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const refused = (args: string[], input: unknown) => s.kubectlRefused(args, { input: JSON.stringify(input) });

  test('webhook configuration: URL scheme with the desired format, swapped service paths, typed operations', async () => {
    const hook = { name: 'a.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'] };
    const stderr = await refused(['create', '-f', '-'], {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'bad' },
      webhooks: [
        { ...hook, clientConfig: { url: 'http://h/x' }, rules: [{ operations: ['*', 'CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
        { ...hook, clientConfig: { service: { namespace: 'ns' } } },
      ],
    });
    assert.equal(
      stderr.trim(),
      'The ValidatingWebhookConfiguration "bad" is invalid: \n' +
        '* webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "CREATE"}: if \'*\' is present, must not specify other operations\n' +
        '* webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]\n' +
        '* webhooks[1].clientConfig.service.namespace: Required value\n' +
        '* webhooks[1].name: Duplicate value: "a.example.com"',
    );
  });

  test('admission policy: both lists required, reasons kube knows; binding actions last', async () => {
    const rules = { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] };
    const policy = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { matchConstraints: rules, ...spec } });
    assert.equal(
      (await refused(['create', '-f', '-'], policy('empty.example.com', {}))).trim(),
      'The ValidatingAdmissionPolicy "empty.example.com" is invalid: \n' +
        '* spec.validations: Required value: validations or auditAnnotations must contain at least one item\n' +
        '* spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
    );
    assert.equal(
      (await refused(['create', '-f', '-'], policy('reason.example.com', { validations: [{ expression: 'true', reason: 'Unauthorized' }] }))).trim(),
      'The ValidatingAdmissionPolicy "reason.example.com" is invalid: spec.validations[0].reason: Unsupported value: "Unauthorized": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
    );
    const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: ['Deny', 'Warn'], paramRef: { name: 'x', parameterNotFoundAction: 'Ignore' } } };
    assert.equal(
      (await refused(['create', '-f', '-'], binding)).trim(),
      'The ValidatingAdmissionPolicyBinding "b" is invalid: \n' +
        '* spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"\n' +
        '* spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    );
  });

  test('expressions a write brings in compile without the format library 1.31 added; the 1.30 libraries are there', async () => {
    const rules = { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] };
    const expression = "!format.dns1123Label().validate(object.metadata.name).hasValue()";
    const policy = (name: string, validation: string) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { matchConstraints: rules, validations: [{ expression: validation }] } });
    assert.equal(
      (await refused(['create', '-f', '-'], policy('format.example.com', expression))).trim(),
      `The ValidatingAdmissionPolicy "format.example.com" is invalid: spec.validations[0].expression: Invalid value: "${expression.replaceAll('"', '\\"')}": compilation failed: ` +
        `ERROR: <input>:1:2: undeclared reference to 'format' (in container '')\n | ${expression}\n | .^\n` +
        `ERROR: <input>:1:21: undeclared reference to 'dns1123Label' (in container '')\n | ${expression}\n | ....................^\n` +
        `ERROR: <input>:1:32: undeclared reference to 'validate' (in container '')\n | ${expression}\n | ...............................^`,
    );
    const created = await s.kubectl(['create', '-f', '-'], { input: JSON.stringify(policy('cidr.example.com', "!has(object.data) || !('cidr' in object.data) || isCIDR(object.data.cidr)")) });
    assert.equal(created.stdout.trim(), 'validatingadmissionpolicy.admissionregistration.k8s.io/cidr.example.com created');
    const hookStderr = await refused(['create', '-f', '-'], {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'format-condition' },
      webhooks: [{ name: 'a.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: 'https://127.0.0.1:1/x' }, matchConditions: [{ name: 'named', expression: "format.named('uuid').hasValue()" }] }],
    });
    assert.match(hookStderr, /^The ValidatingWebhookConfiguration "format-condition" is invalid: webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: "format\.named\('uuid'\)\.hasValue\(\)": compilation failed: ERROR: <input>:1:1: undeclared reference to 'format' \(in container ''\)\n/);
  });

  test('flow schema: matchingPrecedence 1 and non-resource URL paths', async () => {
    const stderr = await refused(['create', '-f', '-'], {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'FlowSchema',
      metadata: { name: 'mine' },
      spec: { matchingPrecedence: 1, priorityLevelConfiguration: { name: 'workload-low' }, rules: [{ subjects: [{ kind: 'Group', group: { name: 'g' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/a/*/b'] }] }] },
    });
    assert.equal(
      stderr.trim(),
      'The FlowSchema "mine" is invalid: \n' +
        "* spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1\n" +
        '* spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "/a/*/b": wildcard can only do suffix matching',
    );
  });

  test('role binding: a roleRef name with a slash, and the roleRef may not change', async () => {
    const rb = (name: string) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'rb', namespace: 'default' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name } });
    assert.equal((await refused(['create', '-f', '-'], rb('a/b'))).trim(), 'The RoleBinding "rb" is invalid: roleRef.name: Invalid value: "a/b": may not contain \'/\'');
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(rb('view')) });
    const stderr = await s.kubectlRefused(['patch', 'rolebinding', 'rb', '--type=merge', '-p', '{"roleRef":{"name":"edit"}}']);
    assert.match(stderr, /roleRef: Invalid value: rbac\.RoleRef\{APIGroup:"rbac\.authorization\.k8s\.io", Kind:"ClusterRole", Name:"edit"\}: cannot change roleRef/);
  });
});
