import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, statusUpdateErrors, updateErrors } from '../test-context.ts';

const revisions = builtinTypeFacts('apps', 'controllerrevisions');
const rcs = builtinTypeFacts('', 'replicationcontrollers');
const rev = (extra: Record<string, unknown>): KubeObject => ({ metadata: { name: 'web-7d', namespace: 'default' }, ...extra });

// Source: pkg/apis/apps/validation/validation.go ValidateControllerRevision/ValidateControllerRevisionUpdate.
test('controller revisions: data is mandatory and fixed, revision not negative', () => {
  assert.deepEqual(createErrors(revisions, rev({ data: { spec: {} }, revision: 1 })), []);
  assert.deepEqual(createErrors(revisions, rev({ revision: -1 })), ['data: Required value: data is mandatory', 'revision: Invalid value: -1: must be greater than or equal to 0']);
  const old = rev({ data: { a: 1 }, revision: 1 });
  old.metadata = { ...old.metadata, resourceVersion: '3' };
  assert.deepEqual(updateErrors(revisions, rev({ data: { a: 2 }, revision: 2 }), old), ['data: Invalid value: {"a":2}: field is immutable']);
});

// Source: pkg/apis/core/validation/validation.go ValidateReplicationControllerStatus.
test('replication controllers: status counters are consistent', () => {
  const rc: KubeObject = {
    metadata: { name: 'web', namespace: 'default', resourceVersion: '2' },
    spec: { selector: { app: 'web' }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
  assert.deepEqual(createErrors(rcs, rc), []);
  const { errors } = statusUpdateErrors(rcs, { ...structuredClone(rc), status: { replicas: 1, readyReplicas: 2, availableReplicas: 1 } }, rc);
  assert.deepEqual(errors, ['status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas']);
});

// Source: pkg/registry/core/podtemplate/strategy.go (generation 1 on create, +1 on template changes).
test('pod templates track generation', () => {
  const templates = builtinTypeFacts('', 'podtemplates');
  const pt: KubeObject = { metadata: { name: 'pt', namespace: 'default' }, template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } };
  assert.deepEqual(createErrors(templates, pt), []);
  assert.equal(pt.metadata?.generation, 1);
  const old = structuredClone(pt);
  old.metadata = { ...old.metadata, resourceVersion: '2' };
  const next = structuredClone(old);
  (next.template as { spec: { containers: { image: string }[] } }).spec.containers[0].image = 'nginx:2';
  assert.deepEqual(updateErrors(templates, next, old), []);
  assert.equal(next.metadata?.generation, 2);
});
