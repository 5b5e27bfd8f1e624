import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthzAttributes, Authorizer } from '../../../auth/authz/types.ts';
import { createMemoryStorage } from '../../../storage/memory/memory-storage.ts';
import { createRegistry } from '../../registry.ts';
import type { KubeObject } from '../../types.ts';
import { goUserText, paramKindRefusal, paramRefRefusal } from './param-access.ts';

// Sources: pkg/registry/admissionregistration/validatingadmissionpolicy{,binding}/authz.go (kube 1.31).

/** An authorizer that denies everything and records what it was asked. */
function recordingAuthorizer(): Authorizer & { asked: AuthzAttributes[] } {
  const asked: AuthzAttributes[] = [];
  return { asked, authorize: (attrs) => (asked.push(attrs), { decision: 'noopinion', reason: '' }) };
}

const alice = { name: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'] };
const policy = (paramKind?: Record<string, string>): KubeObject => ({ metadata: { name: 'p' }, spec: paramKind ? { paramKind } : {} });

test('the user prints as fmt prints a *user.DefaultInfo', () => {
  assert.equal(goUserText(alice), '&{alice u-1 [dev system:authenticated] map[]}');
  assert.equal(goUserText({ name: 'sa', groups: [], extra: { 'b.io/x': ['2', '3'], 'a.io/y': ['1'] } }), '&{sa  [] map[a.io/y:[1] b.io/x:[2 3]]}');
});

test('paramKind: get on every object of the resolved resource, "*" for a kind not served; skipped when unchanged or for system:masters', async () => {
  const registry = await createRegistry({ storage: createMemoryStorage(), runtimeConfig: '', featureGates: {} });
  const authz = recordingAuthorizer();
  const checks = { authorizer: () => authz, registry: () => registry };
  assert.equal(
    await paramKindRefusal(checks, alice, policy({ apiVersion: 'apps/v1', kind: 'Deployment' }), undefined),
    'user &{alice u-1 [dev system:authenticated] map[]} must have "get" permission on all objects of the referenced paramKind (kind=Deployment, apiVersion=apps/v1)',
  );
  await paramKindRefusal(checks, alice, policy({ apiVersion: 'example.com/v1', kind: 'Widget' }), undefined);
  assert.deepEqual(
    authz.asked.map((a) => [a.verb, a.apiGroup, a.apiVersion, a.resource, a.namespace, a.name]),
    [
      ['get', 'apps', 'v1', 'deployments', '*', '*'],
      ['get', 'example.com', 'v1', '*', '*', '*'],
    ],
  );
  assert.equal(await paramKindRefusal(checks, alice, policy(), undefined), undefined);
  assert.equal(await paramKindRefusal(checks, alice, policy({ apiVersion: 'v1', kind: 'Secret' }), policy({ apiVersion: 'v1', kind: 'Secret' })), undefined);
  assert.equal(await paramKindRefusal(checks, { name: 'root', groups: ['system:masters'] }, policy({ apiVersion: 'v1', kind: 'Secret' }), undefined), undefined);
  assert.equal(authz.asked.length, 2);
  await registry.close();
});

test('paramRef: get on the named object, the resource of the bound policy paramKind ("*" when the policy is missing)', async () => {
  const registry = await createRegistry({ storage: createMemoryStorage(), runtimeConfig: '', featureGates: {} });
  const authz = recordingAuthorizer();
  const checks = { authorizer: () => authz, registry: () => registry };
  const binding = (policyName: string, extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { name: 'b' }, spec: { policyName, paramRef: { name: 'limits', namespace: 'team', ...extra } } });
  assert.equal(await paramRefRefusal(checks, alice, binding('missing'), undefined), 'user &{alice u-1 [dev system:authenticated] map[]} does not have "get" permission on the object referenced by paramRef');
  assert.deepEqual(
    authz.asked.map((a) => [a.apiGroup, a.apiVersion, a.resource, a.namespace, a.name]),
    [['*', '*', '*', 'team', 'limits']],
  );
  // An unchanged ref is skipped only when Go's == holds: no selector nor parameterNotFoundAction (pointers).
  assert.equal(await paramRefRefusal(checks, alice, binding('missing'), binding('missing')), undefined);
  assert.notEqual(await paramRefRefusal(checks, alice, binding('missing', { parameterNotFoundAction: 'Deny' }), binding('missing', { parameterNotFoundAction: 'Deny' })), undefined);
  await registry.close();
});
