import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../../apis/errors.ts';
import { applyAppArmorVersionSkew, podDeletionCost, podSpecificAnnotationErrors, podSpecificAnnotationUpdateErrors } from './pod-annotations.ts';

const spec = { containers: [{ name: 'app', image: 'nginx' }], initContainers: [{ name: 'init', image: 'busybox' }] };
const errors = (annotations: object, s: object = spec, path = 'metadata.annotations', allow = false) => podSpecificAnnotationErrors(annotations, s, path, allow).map(fieldErrorString);

test('pod deletion cost: a 32-bit integer without a plus sign or leading zeros', () => {
  const cost = (v: string) => podDeletionCost({ 'controller.kubernetes.io/pod-deletion-cost': v });
  assert.equal(podDeletionCost(undefined), 0);
  assert.equal(cost('0'), 0);
  assert.equal(cost('-10'), -10);
  assert.equal(cost('-007'), -7);
  assert.equal(cost('2147483647'), 2147483647);
  for (const bad of ['', '+1', '007', '00', '1.5', 'abc', '2147483648', '-2147483649', '-', ' 1']) assert.equal(cost(bad), undefined, bad);
  assert.deepEqual(errors({ 'controller.kubernetes.io/pod-deletion-cost': '+1' }), [
    'metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "+1": must be a 32bit integer',
  ]);
  // An update may keep an invalid cost the old pod already had.
  assert.deepEqual(errors({ 'controller.kubernetes.io/pod-deletion-cost': '+1' }, spec, 'metadata.annotations', true), []);
});

test('the mirror pod annotation needs a node; seccomp and AppArmor annotations name valid profiles of existing containers', () => {
  assert.deepEqual(
    errors({
      'kubernetes.io/config.mirror': 'x',
      'seccomp.security.alpha.kubernetes.io/pod': 'localhost/../etc',
      'container.seccomp.security.alpha.kubernetes.io/app': 'default',
      'container.seccomp.security.alpha.kubernetes.io/init': 'localhost//abs',
      'container.apparmor.security.beta.kubernetes.io/app': 'runtime/default',
      'container.apparmor.security.beta.kubernetes.io/ghost': 'enforce',
    }),
    [
      'metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "x": must set spec.nodeName if mirror pod annotation is set',
      `metadata.annotations.seccomp.security.alpha.kubernetes.io/pod: Invalid value: "../etc": must not contain '..'`,
      'metadata.annotations.container.seccomp.security.alpha.kubernetes.io/app: Invalid value: "default": must be a valid seccomp profile',
      'metadata.annotations.container.seccomp.security.alpha.kubernetes.io/init: Invalid value: "/abs": must be a relative path',
      'metadata.annotations[container.apparmor.security.beta.kubernetes.io/ghost]: Invalid value: "ghost": container not found',
      'metadata.annotations[container.apparmor.security.beta.kubernetes.io/ghost]: Invalid value: "enforce": invalid AppArmor profile name: "enforce"',
    ],
  );
  assert.deepEqual(errors({ 'kubernetes.io/config.mirror': 'x', 'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default' }, { ...spec, nodeName: 'n1' }, 'spec.template.annotations'), []);
});

test('AppArmor version skew on create: fields become annotations, annotations become fields with a warning', () => {
  const pod = {
    metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/b': 'localhost/custom', 'container.apparmor.security.beta.kubernetes.io/c': 'runtime/default', 'container.apparmor.security.beta.kubernetes.io/d': 'bogus' } },
    spec: {
      securityContext: { appArmorProfile: { type: 'RuntimeDefault' } },
      containers: [
        { name: 'a', securityContext: { appArmorProfile: { type: 'Unconfined' } } },
        { name: 'b' },
        { name: 'c' },
        { name: 'd' },
        { name: 'e' },
      ],
    },
  };
  const warnings: string[] = [];
  applyAppArmorVersionSkew(pod, warnings);
  assert.deepEqual(pod.metadata.annotations, {
    'container.apparmor.security.beta.kubernetes.io/b': 'localhost/custom',
    'container.apparmor.security.beta.kubernetes.io/c': 'runtime/default',
    'container.apparmor.security.beta.kubernetes.io/d': 'bogus',
    'container.apparmor.security.beta.kubernetes.io/a': 'unconfined',
    'container.apparmor.security.beta.kubernetes.io/e': 'runtime/default',
  });
  assert.deepEqual(
    pod.spec.containers.map((c) => (c as { securityContext?: unknown }).securityContext),
    [{ appArmorProfile: { type: 'Unconfined' } }, { appArmorProfile: { type: 'Localhost', localhostProfile: 'custom' } }, undefined, undefined, undefined],
  );
  // c's annotation says what the pod's field says: nothing copied, no warning; d's names no profile: a warning alone.
  assert.deepEqual(warnings, [
    'metadata.annotations[container.apparmor.security.beta.kubernetes.io/b]: deprecated since v1.30; use the "appArmorProfile" field instead',
    'metadata.annotations[container.apparmor.security.beta.kubernetes.io/d]: deprecated since v1.30; use the "appArmorProfile" field instead',
  ]);
  const windows = { metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/a': 'runtime/default' } }, spec: { os: { name: 'windows' }, containers: [{ name: 'a' }] } };
  applyAppArmorVersionSkew(windows, warnings);
  assert.deepEqual(windows.spec.containers, [{ name: 'a' }]);
  assert.equal(warnings.length, 2);
});

test('the tolerations annotation: JSON decoded as Go decodes []core.Toleration, then each toleration validated', () => {
  const key = 'scheduler.alpha.kubernetes.io/tolerations';
  assert.deepEqual(errors({ [key]: '' }), []);
  assert.deepEqual(errors({ [key]: 'null' }), []);
  assert.deepEqual(errors({ [key]: '[{"key":"a","operator":"Exists","effect":"NoSchedule"}]' }), []);
  assert.deepEqual(errors({ [key]: '[{"key":"a"' }), [`metadata.annotations: Invalid value: "${key}": unexpected end of JSON input`]);
  assert.deepEqual(errors({ [key]: '{"key":"a"}' }), [`metadata.annotations: Invalid value: "${key}": json: cannot unmarshal object into Go value of type []core.Toleration`]);
  assert.deepEqual(errors({ [key]: '["a"]' }), [`metadata.annotations: Invalid value: "${key}": json: cannot unmarshal string into Go value of type core.Toleration`]);
  assert.deepEqual(errors({ [key]: '[{"key":"a","tolerationSeconds":1.5}]' }), [
    `metadata.annotations: Invalid value: "${key}": json: cannot unmarshal number 1.5 into Go struct field Toleration.tolerationSeconds of type int64`,
  ]);
  assert.deepEqual(errors({ [key]: '[{"key":"a b","operator":"Exists","value":"x"},{"operator":"Equal"},null]' }), [
    `metadata.annotations.${key}[0].key: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    `metadata.annotations.${key}[0].operator: Invalid value: core.Toleration{Key:"a b", Operator:"Exists", Value:"x", Effect:"", TolerationSeconds:(*int64)(nil)}: value must be empty when \`operator\` is 'Exists'`,
    `metadata.annotations.${key}[1].operator: Invalid value: "Equal": operator must be Exists when \`key\` is empty, which means "match all values and all keys"`,
    `metadata.annotations.${key}[2].operator: Invalid value: "": operator must be Exists when \`key\` is empty, which means "match all values and all keys"`,
  ]);
});

test('a pod update may not add, change or remove AppArmor annotations or the mirror pod marker', () => {
  const apparmor = 'container.apparmor.security.beta.kubernetes.io/';
  const updateErrors = (now: object, before: object) => podSpecificAnnotationUpdateErrors(now, before, 'metadata.annotations').map(fieldErrorString);
  assert.deepEqual(updateErrors({ a: '1', [`${apparmor}app`]: 'unconfined', 'kubernetes.io/config.mirror': 'x' }, { [`${apparmor}app`]: 'unconfined', 'kubernetes.io/config.mirror': 'x' }), []);
  assert.deepEqual(updateErrors({ [`${apparmor}app`]: 'runtime/default', [`${apparmor}init`]: 'unconfined', 'kubernetes.io/config.mirror': 'x' }, { [`${apparmor}app`]: 'unconfined', [`${apparmor}gone`]: 'unconfined' }), [
    `metadata.annotations[${apparmor}app]: Forbidden: may not remove or update AppArmor annotations`,
    `metadata.annotations[${apparmor}gone]: Forbidden: may not remove or update AppArmor annotations`,
    `metadata.annotations[${apparmor}init]: Forbidden: may not add AppArmor annotations`,
    'metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod annotation',
  ]);
  assert.deepEqual(updateErrors({}, { 'kubernetes.io/config.mirror': 'x' }), ['metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not remove or update mirror pod annotation']);
});
