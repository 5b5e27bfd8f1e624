import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAuthenticationConfiguration } from './authentication-config.ts';
import { TokenRefused, userFromClaims } from './jwt.ts';

const file = (jwt: string) => `apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt:\n${jwt}`;
const issuer = '- issuer: {url: "https://issuer.example", audiences: [capstan]}\n';

test('claim mappings by claim and prefix; the email_verified rule; required claim values', () => {
  const config = parseAuthenticationConfiguration(
    file(`${issuer}  claimValidationRules: [{claim: hd, requiredValue: example.com}]\n  claimMappings:\n    username: {claim: email, prefix: ""}\n    groups: {claim: groups, prefix: "oidc:"}\n`),
  ).jwt[0];
  const claims = { email: 'a@example.com', hd: 'example.com', groups: ['dev'] };
  assert.deepEqual(userFromClaims(config, claims), { name: 'a@example.com', groups: ['oidc:dev'] });
  assert.deepEqual(userFromClaims(config, { ...claims, email_verified: true, groups: 'ops' }), { name: 'a@example.com', groups: ['oidc:ops'] });
  const refusal = (claims: Record<string, unknown>) => {
    try {
      userFromClaims(config, claims);
    } catch (e) {
      assert.ok(e instanceof TokenRefused);
      return e.message;
    }
    return 'accepted';
  };
  assert.equal(refusal({ ...claims, email_verified: false }), 'oidc: email not verified');
  assert.equal(refusal({ ...claims, hd: 'other.com' }), 'oidc: required claim hd value does not match. Got = other.com, want = example.com');
  assert.equal(refusal({ email: 'a@example.com' }), 'oidc: required claim hd not present');
  assert.equal(refusal({ hd: 'example.com' }), 'oidc: parse username claims "email": claim not present');
  assert.equal(refusal({ ...claims, groups: [1] }), 'oidc: parse groups claim "groups": claim is not a string or a list of strings');
});

test('CEL: claim validation with its message, user validation on user, extra values', () => {
  const config = parseAuthenticationConfiguration(
    file(
      `${issuer}  claimValidationRules: [{expression: "claims.exp - claims.iat <= 3600", message: "token lives too long"}]\n  claimMappings:\n    username: {expression: "claims.sub + '@corp'"}\n    extra: [{key: "corp.io/levels", valueExpression: "claims.levels"}, {key: "corp.io/empty", valueExpression: "''"}]\n  userValidationRules: [{expression: "user.extra['corp.io/levels'].size() < 3", message: "too many levels"}]\n`,
    ),
  ).jwt[0];
  assert.deepEqual(userFromClaims(config, { sub: 'bob', iat: 0, exp: 600, levels: ['a', 'b'] }), { name: 'bob@corp', groups: [], extra: { 'corp.io/levels': ['a', 'b'] } });
  assert.throws(() => userFromClaims(config, { sub: 'bob', iat: 0, exp: 7200, levels: [] }), {
    message: "oidc: error evaluating claim validation expression: validation expression 'claims.exp - claims.iat <= 3600' failed: token lives too long",
  });
  assert.throws(() => userFromClaims(config, { sub: 'bob', iat: 0, exp: 600, levels: ['a', 'b', 'c'] }), {
    message: "oidc: error evaluating user info validation rule: validation expression 'user.extra['corp.io/levels'].size() < 3' failed: too many levels",
  });
});

test("validation with kube's field errors", () => {
  const errorOf = (text: string) => {
    try {
      parseAuthenticationConfiguration(text);
    } catch (e) {
      return (e as Error).message;
    }
    return 'valid';
  };
  const many = Array.from({ length: 65 }, (_, i) => `- issuer: {url: "https://i${i}.example", audiences: [a]}\n  claimMappings: {username: {claim: sub, prefix: ""}}\n`).join('');
  assert.equal(errorOf(file(many)), 'jwt: Too many: 65: must have at most 64 items');
  assert.equal(
    errorOf(file(`${issuer}  claimMappings:\n    username: {claim: sub, expression: "claims.sub"}\n${issuer}  claimMappings: {username: {expression: "claims.sub", prefix: "x:"}}\n`)),
    '[jwt[0].claimMappings.username: Invalid value: "": claim and expression can\'t both be set, jwt[1].issuer.url: Duplicate value: "https://issuer.example", jwt[1].claimMappings.username.prefix: Invalid value: "x:": may not be specified when expression is set]',
  );
  assert.equal(errorOf(file('- issuer: {url: "https://x.example"}\n  claimMappings: {}\n')), '[jwt[0].issuer.audiences: Required value: at least one issuer.audiences is required, jwt[0].claimMappings.username: Required value: claim or expression is required]');
  assert.equal(
    errorOf(file(`${issuer}  claimMappings: {username: {expression: "claims.email"}}\n`)),
    'jwt[0].claimMappings.username.expression: Invalid value: "claims.email": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claimMappings.username.expression uses claims.email',
  );
  assert.equal(errorOf(file(`${issuer}  claimValidationRules: [{expression: "claims.?email_verified.orValue(true)"}]\n  claimMappings: {username: {expression: "claims.email"}}\n`)), 'valid');
  // validation rules must evaluate to bool: a claim is any type, and a user field a string
  assert.equal(
    errorOf(file(`${issuer}  claimValidationRules: [{expression: "claims.admin"}]\n  claimMappings: {username: {claim: sub, prefix: ""}}\n  userValidationRules: [{expression: "user.username"}]\n`)),
    '[jwt[0].claimValidationRules[0].expression: Invalid value: "claims.admin": must evaluate to bool, jwt[0].userValidationRules[0].expression: Invalid value: "user.username": must evaluate to bool]',
  );
  const sa = 'https://kubernetes.default.svc.cluster.local';
  assert.throws(() => parseAuthenticationConfiguration(file(`- issuer: {url: "${sa}", audiences: [a]}\n  claimMappings: {username: {claim: sub, prefix: ""}}\n`), [sa]), {
    message: `jwt[0].issuer.url: Invalid value: "${sa}": URL must not overlap with disallowed issuers: [${sa}]`,
  });
  assert.equal(errorOf('apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthorizationConfiguration\n'), 'no kind "AuthorizationConfiguration" is registered for version "apiserver.config.k8s.io/v1beta1" in scheme "pkg/apis/apiserver"');
});
