import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { buildConfiguredAuthorizer, configuredModes, goDurationString, parseAuthorizationConfiguration } from './authorization-config.ts';
import { builtinAuthorizerFactories, type AuthorizerFactoryContext } from './modes.ts';
import type { AuthzAttributes } from './types.ts';

const file = (authorizers: string) => `apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthorizationConfiguration\nauthorizers:\n${authorizers}`;
const attrs = (namespace: string): AuthzAttributes => ({
  user: { name: 'alice', groups: ['system:authenticated'] },
  verb: 'get',
  isResourceRequest: true,
  path: `/api/v1/namespaces/${namespace}/pods/p`,
  namespace,
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'pods',
  subresource: '',
  name: 'p',
});

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

test('failurePolicy and matchConditions: an unreachable webhook denies (Deny) or passes on (NoOpinion); unmatched requests skip it', async () => {
  const port = await closedPort();
  const target = async () => ({ url: new URL(`https://127.0.0.1:${port}/`), serverName: '127.0.0.1', ca: undefined });
  const webhook = (name: string, policy: string) =>
    `- type: Webhook\n  name: ${name}\n  webhook:\n    subjectAccessReviewVersion: v1\n    matchConditionSubjectAccessReviewVersion: v1\n    failurePolicy: ${policy}\n    connectionInfo: {type: KubeConfigFile, kubeConfigFile: ${import.meta.filename}}\n    matchConditions: [{expression: "request.resourceAttributes.namespace == 'hooked'"}]\n`;
  const ctx = {} as AuthorizerFactoryContext;
  const deny = await buildConfiguredAuthorizer(parseAuthorizationConfiguration(file(`${webhook('strict', 'Deny')}- {type: AlwaysAllow, name: allow}\n`)), builtinAuthorizerFactories, ctx, target);
  const denied = await deny.authorize(attrs('hooked'));
  assert.equal(denied.decision, 'deny');
  assert.ok(denied.error);
  assert.equal((await deny.authorize(attrs('other'))).decision, 'allow', 'the condition is false: the webhook is skipped');
  const config = parseAuthorizationConfiguration(file(`${webhook('lenient', 'NoOpinion')}- {type: AlwaysAllow, name: allow}\n`));
  assert.deepEqual(configuredModes(config), ['Webhook', 'AlwaysAllow']);
  const lenient = await buildConfiguredAuthorizer(config, builtinAuthorizerFactories, ctx, target);
  assert.equal((await lenient.authorize(attrs('hooked'))).decision, 'allow');
});

test("validation with kube's field errors", () => {
  const errorOf = (text: string) => {
    try {
      parseAuthorizationConfiguration(text);
    } catch (e) {
      return (e as Error).message;
    }
    return 'valid';
  };
  assert.equal(errorOf(file('').replace('authorizers:\n', 'authorizers: []\n')), 'authorizers: Required value: at least one authorization mode must be defined');
  assert.equal(
    errorOf(file('- {type: Magic, name: m}\n- {type: RBAC, name: "Not_A_Name"}\n- {type: Node, name: n, webhook: {}}\n- {type: Webhook, name: w}\n')),
    '[authorizers[0].type: Unsupported value: "Magic": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook", ' +
      "authorizers[1].name: Invalid value: \"Not_A_Name\": authorizer name is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), " +
      'authorizers[2].webhook: Invalid value: "non-null": may only be specified when type=Webhook, authorizers[3].webhook: Required value: required when type=Webhook]',
  );
  const conditions = Array.from({ length: 65 }, (_, i) => `{expression: "request.user == 'u${i}'"}`).join(', ');
  assert.equal(
    errorOf(file(`- type: Webhook\n  name: w\n  webhook: {subjectAccessReviewVersion: v1, matchConditionSubjectAccessReviewVersion: v1, failurePolicy: Deny, connectionInfo: {type: KubeConfigFile, kubeConfigFile: relative.yaml}, matchConditions: [${conditions}]}\n`)),
    '[authorizers[0].webhook.connectionInfo.kubeConfigFile: Invalid value: "relative.yaml": must be an absolute path, authorizers[0].webhook.matchConditions: Too many: 65: must have at most 64 items]',
  );
  // request is the typed SubjectAccessReview spec, and a condition must evaluate to bool
  const hook = (expression: string) =>
    errorOf(file(`- type: Webhook\n  name: w\n  webhook: {subjectAccessReviewVersion: v1, matchConditionSubjectAccessReviewVersion: v1, failurePolicy: Deny, connectionInfo: {type: InClusterConfig}, matchConditions: [{expression: "${expression}"}]}\n`));
  assert.equal(hook("request.resourceAttributes.namespace == 'x' && 'admins' in request.groups"), 'valid');
  assert.equal(hook('request.user'), 'authorizers[0].webhook.matchConditions[0].expression: Invalid value: "request.user": expression must evaluate to bool but got string');
  assert.match(hook("request.resourceAttributes.labelSelector.rawSelector == 'x'"), /compilation failed: ERROR: <input>:1:27: undefined field 'labelSelector'/);
  assert.deepEqual([goDurationString(45_000), goDurationString(90_000), goDurationString(3_600_000), goDurationString(1500)], ['45s', '1m30s', '1h0m0s', '1.5s']);
});
