// ValidatingAdmissionPolicy end to end: a policy with params (a ConfigMap), variables and messageExpression, bound
// with Deny in one namespace and Warn in another; parameterNotFoundAction; runtime errors under both failure
// policies; a policy whose CEL does not compile is refused. kubectl and @kubernetes/client-node are the clients.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAuditLog } from '../../src/server/audit/log-backend.ts';
import { startTestServer, until, type TestServer } from './helpers.ts';

const json = (o: unknown): string => JSON.stringify(o);
const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

describe('ValidatingAdmissionPolicy', () => {
  let s: TestServer;
  let apps: k8s.AppsV1Api;

  before(async () => {
    s = await startTestServer();
    const kc = new k8s.KubeConfig();
    kc.loadFromString(s.kubeconfig);
    apps = kc.makeApiClient(k8s.AppsV1Api);
    for (const [ns, env] of [['prod', 'prod'], ['dev', 'dev']]) {
      await s.kubectlOk(['create', 'namespace', ns]);
      await s.kubectlOk(['label', 'namespace', ns, `env=${env}`]);
    }
    await s.kubectlOk(['create', 'configmap', 'limits', '-n', 'default', '--from-literal=maxReplicas=3']);
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'replica-limit.example.com' },
      spec: {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] },
        variables: [{ name: 'replicas', expression: 'object.spec.replicas' }],
        validations: [{ expression: 'variables.replicas <= int(params.data.maxReplicas)', messageExpression: "'replicas ' + string(variables.replicas) + ' exceeds ' + params.data.maxReplicas" }],
      },
    };
    const binding = (name: string, env: string, actions: string[]) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name },
      spec: {
        policyName: 'replica-limit.example.com',
        validationActions: actions,
        paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' },
        matchResources: { namespaceSelector: { matchLabels: { env } } },
      },
    });
    await s.kubectlOk(['create', '-f', '-'], { input: json({ apiVersion: 'v1', kind: 'List', items: [policy, binding('replica-limit-prod', 'prod', ['Deny']), binding('replica-limit-dev', 'dev', ['Warn', 'Audit'])] }) });
  });
  after(async () => {
    await s?.close();
  });

  test('defaults are applied to the stored policy; the status controller records the generation', async () => {
    let p = JSON.parse(await s.kubectlOk(['get', 'validatingadmissionpolicy', 'replica-limit.example.com', '-o', 'json']));
    for (let i = 0; i < 100 && p.status?.observedGeneration !== 1; i++) {
      await new Promise((r) => setTimeout(r, 50));
      p = JSON.parse(await s.kubectlOk(['get', 'validatingadmissionpolicy', 'replica-limit.example.com', '-o', 'json']));
    }
    assert.deepEqual(p.status, { observedGeneration: 1, typeChecking: {} });
    assert.equal(p.spec.failurePolicy, 'Fail');
    assert.deepEqual({ mp: p.spec.matchConstraints.matchPolicy, ns: p.spec.matchConstraints.namespaceSelector, scope: p.spec.matchConstraints.resourceRules[0].scope }, { mp: 'Equivalent', ns: {}, scope: '*' });
  });

  test('Deny refuses with the messageExpression; Warn passes with a Warning header', async () => {
    const denied = await s.kubectl(['create', '-n', 'prod', '-f', '-'], { input: json(deployment('big', 5)) });
    assert.equal(denied.code, 1);
    // kubectl renders a 422 from its causes (one, without a field), as it does against kube.
    assert.equal(denied.stderr.trim(), "The deployments \"big\" is invalid: : ValidatingAdmissionPolicy 'replica-limit.example.com' with binding 'replica-limit-prod' denied request: replicas 5 exceeds 3");
    await assert.rejects(apps.createNamespacedDeployment({ namespace: 'prod', body: deployment('big2', 4) as k8s.V1Deployment }), (e: { code?: number; body?: string }) => {
      assert.equal(e.code, 422);
      const status = JSON.parse(e.body!);
      assert.equal(status.reason, 'Invalid');
      assert.equal(status.message, "deployments.apps \"big2\" is forbidden: ValidatingAdmissionPolicy 'replica-limit.example.com' with binding 'replica-limit-prod' denied request: replicas 4 exceeds 3");
      assert.deepEqual(status.details, { name: 'big2', group: 'apps', kind: 'deployments', causes: [{ message: "ValidatingAdmissionPolicy 'replica-limit.example.com' with binding 'replica-limit-prod' denied request: replicas 4 exceeds 3" }] });
      return true;
    });
    assert.equal((await s.kubectl(['get', 'deployment', 'big', '-n', 'prod'])).code, 1);
    await s.kubectlOk(['create', '-n', 'prod', '-f', '-'], { input: json(deployment('small', 2)) });
    const scaled = await s.kubectl(['scale', 'deployment', 'small', '-n', 'prod', '--replicas=9']);
    assert.equal(scaled.code, 0, 'the scale subresource is not a deployments rule');

    const warned = await s.kubectl(['create', '-n', 'dev', '-f', '-'], { input: json(deployment('big', 5)) });
    assert.equal(warned.code, 0, warned.stderr);
    assert.equal(warned.stderr.trim(), "Warning: Validation failed for ValidatingAdmissionPolicy 'replica-limit.example.com' with binding 'replica-limit-dev': replicas 5 exceeds 3");
    await s.kubectlOk(['get', 'deployment', 'big', '-n', 'dev']);
  });

  test('a missing param with parameterNotFoundAction Deny refuses, whatever the binding\'s actions', async () => {
    await s.kubectlOk(['delete', 'configmap', 'limits', '-n', 'default']);
    const r = await s.kubectl(['create', '-n', 'prod', '-f', '-'], { input: json(deployment('one', 1)) });
    assert.equal(
      r.stderr.trim(),
      'The deployments "one" is invalid: : ValidatingAdmissionPolicy \'replica-limit.example.com\' with binding \'replica-limit-prod\' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction',
    );
    // A binding that cannot find its params is a configuration error: refused under failurePolicy Fail whatever the
    // binding's validationActions (the dev binding only warns and audits), as kube refuses it.
    const dev = await s.kubectl(['create', '-n', 'dev', '-f', '-'], { input: json(deployment('two', 1)) });
    assert.equal(
      dev.stderr.trim(),
      'The deployments "two" is invalid: : ValidatingAdmissionPolicy \'replica-limit.example.com\' with binding \'replica-limit-dev\' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction',
    );
    await s.kubectlOk(['create', 'configmap', 'limits', '-n', 'default', '--from-literal=maxReplicas=3']);
    await s.kubectlOk(['create', '-n', 'prod', '-f', '-'], { input: json(deployment('one', 1)) });
  });

  test('runtime errors follow failurePolicy; a policy that does not compile is refused', async () => {
    const policy = (name: string, failurePolicy: string, expression: string) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: { failurePolicy, matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['secrets'] }] }, validations: [{ expression, reason: 'Forbidden' }] },
    });
    const binding = (name: string) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName: name, validationActions: ['Deny'] } });
    await s.kubectlOk(['create', '-f', '-'], { input: json({ apiVersion: 'v1', kind: 'List', items: [policy('strict.example.com', 'Fail', 'object.data.missing == "x"'), binding('strict.example.com')] }) });
    const failed = await s.kubectl(['create', 'secret', 'generic', 's1', '--from-literal=a=b']);
    assert.equal(
      failed.stderr.trim(),
      'error: failed to create secret secrets "s1" is forbidden: ValidatingAdmissionPolicy \'strict.example.com\' with binding \'strict.example.com\' denied request: expression \'object.data.missing == "x"\' resulted in error: no such key: missing',
    );
    await s.kubectlOk(['patch', 'validatingadmissionpolicy', 'strict.example.com', '--type=merge', '-p', '{"spec":{"failurePolicy":"Ignore"}}']);
    await s.kubectlOk(['create', 'secret', 'generic', 's1', '--from-literal=a=b']);

    const bad = await s.kubectl(['create', '-f', '-'], { input: json(policy('broken.example.com', 'Fail', 'object.data.a ==')) });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^The ValidatingAdmissionPolicy "broken\.example\.com" is invalid: spec\.validations\[0\]\.expression: Invalid value: "object\.data\.a ==": compilation failed: ERROR: <input>:1:\d+: Syntax error: /);
    assert.equal((await s.kubectl(['get', 'validatingadmissionpolicy', 'broken.example.com'])).code, 1);
    assert.equal((await s.adminRequest('/readyz')).status, 200);
  });

  test('status.typeChecking warns of expressions that do not fit the kinds the policy matches, by their schemas', async () => {
    const name = 'typo.example.com';
    await s.kubectlOk(['create', '-f', '-'], {
      input: json({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name },
        spec: {
          paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
          // wildcard rules and subresources are not checked
          matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['replicasets', 'deployments', 'deployments/scale'] }, { apiGroups: ['*'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
          variables: [{ name: 'replicas', expression: 'object.spec.replicas' }],
          validations: [
            { expression: 'object.spec.replicass > 1' },
            { expression: 'variables.replicas <= int(params.data.max)', messageExpression: "'too many: ' + string(object.spec.replicas) + params.data.unit" },
            { expression: "object.spec.template.spec.containers.all(c, c.image.startsWith('registry/'))", messageExpression: "'image ' + object.spec.template.spec.containers[0].imagee" },
          ],
        },
      }),
    });
    const warningsOf = async () => {
      for (let i = 0; i < 50; i++) {
        const p = JSON.parse(await s.kubectlOk(['get', 'validatingadmissionpolicy', name, '-o', 'json']));
        if (p.status?.observedGeneration === 1) return p.status.typeChecking.expressionWarnings;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('no status');
    };
    const typo = (kind: string) => `apps/v1, Kind=${kind}: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^\n`;
    const image = (kind: string) => `apps/v1, Kind=${kind}: ERROR: <input>:1:51: undefined field 'imagee'\n | 'image ' + object.spec.template.spec.containers[0].imagee\n | ..................................................^\n`;
    assert.deepEqual(await warningsOf(), [
      { fieldRef: 'spec.validations[0].expression', warning: `${typo('Deployment')}\n${typo('ReplicaSet')}` },
      { fieldRef: 'spec.validations[2].messageExpression', warning: `${image('Deployment')}\n${image('ReplicaSet')}` },
    ]);
    await s.kubectlOk(['delete', 'validatingadmissionpolicy', name]);
  });

  test('expressions are typed as kube types them: bool results, typed request and namespaceObject, params only with a paramKind, variables by their results, overloads', async () => {
    const rules = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] };
    const create = async (name: string, spec: Record<string, unknown>) => {
      const r = await s.adminRequest('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: json({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { matchConstraints: rules, ...spec } }) });
      if (r.status === 201) return 'created';
      const status = JSON.parse(r.body) as { code: number; details: { causes: { field: string; message: string }[] } };
      assert.equal(status.code, 422);
      return status.details.causes.map((c) => `${c.field}: ${c.message.split('\n')[0]}`);
    };
    const validation = (expression: string, extra: Record<string, unknown> = {}) => ({ validations: [{ expression, ...extra }] });
    assert.deepEqual(await create('dyn-result.example.com', validation('object.data.enabled')), ['spec.validations[0].expression: Invalid value: "object.data.enabled": must evaluate to bool']);
    assert.deepEqual(await create('int-result.example.com', validation('size(object.data)')), ['spec.validations[0].expression: Invalid value: "size(object.data)": must evaluate to bool']);
    assert.deepEqual(await create('no-params.example.com', validation('params.data.x == "y"')), [
      `spec.validations[0].expression: Invalid value: "params.data.x == \\"y\\"": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')`,
    ]);
    assert.equal(await create('params.example.com', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, ...validation('params.data.x == "y"') }), 'created');
    assert.deepEqual(await create('request-field.example.com', validation('request.verb == "create"')), [
      `spec.validations[0].expression: Invalid value: "request.verb == \\"create\\"": compilation failed: ERROR: <input>:1:8: undefined field 'verb'`,
    ]);
    assert.deepEqual(await create('namespace-uid.example.com', validation('namespaceObject.metadata.uid != ""')), [
      `spec.validations[0].expression: Invalid value: "namespaceObject.metadata.uid != \\"\\"": compilation failed: ERROR: <input>:1:25: undefined field 'uid'`,
    ]);
    assert.deepEqual(await create('overload.example.com', validation('request.userInfo.groups.size() > "1" || false.size() == 0')), [
      `spec.validations[0].expression: Invalid value: "request.userInfo.groups.size() > \\"1\\" || false.size() == 0": compilation failed: ERROR: <input>:1:32: found no matching overload for '_>_' applied to '(int, string)'`,
    ]);
    assert.deepEqual(await create('logical.example.com', validation('request.dryRun && request.name')), [
      `spec.validations[0].expression: Invalid value: "request.dryRun && request.name": compilation failed: ERROR: <input>:1:26: expected type 'bool' but found 'string'`,
    ]);
    assert.deepEqual(await create('has.example.com', validation('has(object)')), [`spec.validations[0].expression: Invalid value: "has(object)": compilation failed: ERROR: <input>:1:5: invalid argument to has() macro`]);
    assert.deepEqual(await create('message.example.com', validation('true', { messageExpression: 'object.metadata.name' })), ['spec.validations[0].messageExpression: Invalid value: "object.metadata.name": must evaluate to string']);
    assert.deepEqual(await create('audit.example.com', { auditAnnotations: [{ key: 'who', valueExpression: 'request.userInfo' }] }), ['spec.auditAnnotations[0].valueExpression: Invalid value: "request.userInfo": must evaluate to one of [string null_type]']);
    // Each variable sees the ones before it, typed by its result: a bool variable is a validation's bool; a dyn one is not.
    const variables = [
      { name: 'big', expression: 'size(object.data) > 2' },
      { name: 'name', expression: 'object.metadata.name' },
      { name: 'both', expression: 'variables.big && variables.name.startsWith("x")' },
    ];
    assert.equal(await create('variables.example.com', { variables, validations: [{ expression: 'variables.both' }, { expression: '!variables.big' }] }), 'created');
    assert.deepEqual(await create('dyn-variable.example.com', { variables, validations: [{ expression: 'variables.name' }] }), ['spec.validations[0].expression: Invalid value: "variables.name": must evaluate to bool']);
    assert.deepEqual(await create('later-variable.example.com', { variables: [{ name: 'a', expression: 'variables.b' }, { name: 'b', expression: 'true' }], validations: [{ expression: 'variables.a == variables.b' }] }), [
      `spec.variables[0].expression: Invalid value: "variables.b": compilation failed: ERROR: <input>:1:10: undefined field 'b'`,
    ]);
    // matchConditions are compiled without variables, and with params only when there is a paramKind.
    assert.deepEqual(await create('condition.example.com', { matchConditions: [{ name: 'p', expression: 'params == null' }, { name: 'v', expression: 'variables.x' }], ...validation('true') }), [
      `spec.matchConditions[0].expression: Invalid value: "params == null": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')`,
      `spec.matchConditions[1].expression: Invalid value: "variables.x": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')`,
    ]);
    // A webhook's matchConditions: the same typed request, no params, a bool result.
    const webhook = (expression: string) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'conditions.example.com' },
      webhooks: [{ name: 'w.example.com', clientConfig: { url: 'https://127.0.0.1:1/' }, sideEffects: 'None', admissionReviewVersions: ['v1'], matchConditions: [{ name: 'c', expression }] }],
    });
    const hook = async (expression: string) => {
      const r = await s.adminRequest('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations?dryRun=All', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: json(webhook(expression)) });
      return r.status === 201 ? 'created' : (JSON.parse(r.body) as { details: { causes: { field: string; message: string }[] } }).details.causes.map((c) => `${c.field}: ${c.message.split('\n')[0]}`);
    };
    assert.equal(await hook('request.operation == "CREATE" && namespaceObject == null'), 'created');
    assert.deepEqual(await hook('object.metadata.name'), ['webhooks[0].matchConditions[0].expression: Invalid value: "object.metadata.name": must evaluate to bool']);
    assert.deepEqual(await hook('params == null'), [`webhooks[0].matchConditions[0].expression: Invalid value: "params == null": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')`]);
  });
});

describe('ValidatingAdmissionPolicy configuration errors, null params and audited failures', () => {
  let s: TestServer;
  let dir: string;
  const policy = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec });
  const binding = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName: name, ...spec } });
  const configMapsLabelled = (test: string) => ({ resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }], objectSelector: { matchLabels: { test } } });
  const configMap = (name: string, test: string, data: Record<string, string> = {}) => json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { test } }, data });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-vap-audit-'));
    await writeFile(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n');
    s = await startTestServer({ audit: { policyFile: join(dir, 'policy.yaml'), logPath: join(dir, 'audit.log') } });
    await s.kubectlOk(['create', '-f', '-'], {
      input: json({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          // the second validation fails: the audit annotation names its index
          policy('audited.example.com', { matchConstraints: configMapsLabelled('audited'), validations: [{ expression: 'true' }, { expression: "!('bad' in object.data)" }] }),
          binding('audited.example.com', { validationActions: ['Audit', 'Warn'] }),
          // a paramKind and no paramRef: params is null
          policy('null-params.example.com', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, matchConstraints: configMapsLabelled('null-params'), validations: [{ expression: 'params == null' }] }),
          binding('null-params.example.com', { validationActions: ['Deny'] }),
          // a paramKind no resource serves: the policy's own configuration error
          policy('unknown-param.example.com', { paramKind: { apiVersion: 'example.com/v1', kind: 'Nope' }, matchConstraints: configMapsLabelled('unknown-param'), validations: [{ expression: 'true' }] }),
          binding('unknown-param.example.com', { validationActions: ['Warn'], paramRef: { name: 'x', namespace: 'default', parameterNotFoundAction: 'Allow' } }),
        ],
      }),
    });
  });
  after(async () => {
    await s?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('Audit records the failing validation by its index; Warn warns; the write goes through', async () => {
    const r = await s.kubectl(['create', '-f', '-'], { input: configMap('flagged', 'audited', { bad: 'yes' }) });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr.trim(), "Warning: Validation failed for ValidatingAdmissionPolicy 'audited.example.com' with binding 'audited.example.com': failed expression: !('bad' in object.data)");
    const event = await until('the audit event of the create', async () =>
      parseAuditLog(await readFile(join(dir, 'audit.log'), 'utf8').catch(() => '')).find((e) => e.verb === 'create' && e.objectRef?.name === 'flagged' && e.stage === 'ResponseComplete'),
    );
    assert.equal(
      event.annotations?.['validation.policy.admission.k8s.io/validation_failure'],
      JSON.stringify([{ message: "failed expression: !('bad' in object.data)", policy: 'audited.example.com', binding: 'audited.example.com', expressionIndex: 1, validationActions: ['Audit', 'Warn'] }]),
    );
  });

  test('a binding without paramRef evaluates with null params; a paramKind no resource serves refuses at the policy', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: configMap('nulls', 'null-params') });
    const r = await s.kubectl(['create', '-f', '-'], { input: configMap('unknown', 'unknown-param') });
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr.trim(),
      "The configmaps \"unknown\" is invalid: : ValidatingAdmissionPolicy 'unknown-param.example.com' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nope'",
    );
  });
});
