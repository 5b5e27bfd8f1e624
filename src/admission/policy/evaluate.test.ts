import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer } from '../../auth/authz/builtin.ts';
import { celAuthorizer, toCel } from '../cel-context.ts';
import { compilePolicy } from './compile.ts';
import { evaluatePolicy } from './evaluate.ts';

const user = { name: 'alice', groups: ['devs'] };

function run(spec: object, vars: Record<string, unknown>) {
  return evaluatePolicy(compilePolicy({ metadata: { name: 'p' }, spec }), vars);
}

test('the authorizer variable checks through the server authorizer', () => {
  const spec = { validations: [{ expression: "authorizer.group('apps').resource('deployments').namespace('ns').check('create').allowed()", message: 'not allowed' }] };
  assert.equal(run(spec, { authorizer: celAuthorizer(alwaysAllowAuthorizer(), user) }).decisions[0].action, 'admit');
  const denied = run(spec, { authorizer: celAuthorizer(alwaysDenyAuthorizer(), user) }).decisions[0];
  assert.deepEqual([denied.action, denied.message], ['deny', 'not allowed']);
});

test('variables, matchConditions, messageExpression, errors and audit annotations', () => {
  const obj = { metadata: { name: 'x', labels: { team: 'a' } }, spec: { replicas: 5 } };
  const spec = {
    variables: [{ name: 'team', expression: 'object.metadata.labels.team' }],
    matchConditions: [{ name: 'has-team', expression: "has(object.metadata.labels) && 'team' in object.metadata.labels" }],
    validations: [
      { expression: 'object.spec.replicas < 3', messageExpression: "'team ' + variables.team + ' asked for ' + string(object.spec.replicas)", reason: 'Forbidden' },
      { expression: 'object.spec.missing > 1' },
    ],
    auditAnnotations: [
      { key: 'team', valueExpression: "'  ' + string(variables.team) + ' '" },
      { key: 'blank', valueExpression: "' '" },
      { key: 'none', valueExpression: 'null' },
      { key: 'broken', valueExpression: 'string(object.spec.missing)' },
    ],
  };
  const out = run(spec, { object: toCel(obj), oldObject: toCel(null), request: toCel({}), params: toCel(null) });
  assert.deepEqual(out.decisions.map((d) => [d.action, d.error, d.reason, d.message]), [
    ['deny', false, 'Forbidden', 'team a asked for 5'],
    ['deny', true, 'Invalid', "expression 'object.spec.missing > 1' resulted in error: no such key: missing"],
  ]);
  // trimmed; blank and null values left out; an error is the annotation's (a denial under failurePolicy Fail)
  assert.deepEqual(out.auditAnnotations, [
    { key: 'p/team', value: 'a' },
    { key: 'p/broken', error: "expression 'string(object.spec.missing)' resulted in error: no such key: missing" },
  ]);
  const unmatched = run(spec, { object: toCel({ metadata: { name: 'y' }, spec: { replicas: 9 } }), oldObject: toCel(null), request: toCel({}), params: toCel(null) });
  assert.equal(unmatched.matched, false);
});
