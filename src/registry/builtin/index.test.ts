import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModel } from '../../apis/model.ts';
import type { KubeObject } from '../types.ts';
import { builtinTypeFacts, typeRules } from './index.ts';
import { testContext as ctx } from './test-context.ts';

const resources = loadModel().groups.flatMap((g) => g.versions.flatMap((v) => v.resources));

test('every built-in resource gets facts whose scope agrees with the model', () => {
  for (const r of resources) {
    if (r.resource.includes('/')) continue;
    const facts = builtinTypeFacts(r.group, r.resource);
    assert.ok(facts.strategy.validate, `${r.group}/${r.resource}`);
    assert.equal(typeRules(r.group, r.resource).namespaced, r.namespaced, `${r.group}/${r.resource} scope`);
    const statusSub = (r.subresources ?? []).some((s) => s.name === 'status');
    assert.equal(Boolean(facts.strategy.subresources?.status), statusSub, `${r.group}/${r.resource} status subresource`);
  }
});

const malformed: unknown[] = [
  {},
  { metadata: { name: 'x', labels: 'nope', annotations: [1], finalizers: 'f', ownerReferences: [null, 3] } },
  { metadata: { name: 'x' }, spec: 'text', status: 7 },
  { metadata: { name: 'x' }, spec: { containers: [null, 1, 'c', { ports: 'p', env: {} }], template: [], selector: 'app=x', ports: [null] } },
  { metadata: { name: 'x' }, spec: { template: { metadata: 5, spec: { containers: [{ resources: { limits: { cpu: {} } } }] } }, jobTemplate: 'x' } },
  { metadata: { name: 'x' }, data: 'd', stringData: [1], binaryData: { a: 5 }, type: 9, subsets: [{ addresses: [null] }] },
];

test('no strategy throws on malformed objects', () => {
  for (const r of resources) {
    const facts = builtinTypeFacts(r.group, r.resource);
    const s = facts.strategy;
    for (const shape of malformed) {
      const obj = structuredClone(shape) as KubeObject;
      const old = structuredClone(shape) as KubeObject;
      const where = `${r.group}/${r.resource} ${JSON.stringify(shape)}`;
      assert.doesNotThrow(() => {
        s.defaults?.(obj);
        s.prepareForCreate?.(obj, ctx);
        s.validate?.(obj, ctx);
        s.prepareForUpdate?.(obj, old, ctx);
        s.validateUpdate?.(obj, old, ctx);
        for (const sub of Object.values(s.subresources ?? {})) {
          const merged = sub.prepareForUpdate(structuredClone(obj), old, ctx);
          sub.validateUpdate?.(merged, old, ctx);
        }
        for (const c of facts.printerColumns) c.cell(obj);
        for (const f of Object.values(facts.selectableFields)) f(obj);
      }, where);
    }
  }
});

test('printer columns match kube column names for the everyday types', () => {
  const names = (group: string, resource: string) => builtinTypeFacts(group, resource).printerColumns.map((c) => c.name);
  assert.deepEqual(names('', 'serviceaccounts'), ['Secrets', 'Age']);
  assert.deepEqual(names('', 'nodes'), ['Status', 'Roles', 'Age', 'Version', 'Internal-IP', 'External-IP', 'OS-Image', 'Kernel-Version', 'Container-Runtime']);
  assert.deepEqual(names('', 'services'), ['Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector']);
  assert.deepEqual(names('', 'events'), ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', 'Message', 'First Seen', 'Count', 'Name']);
  assert.deepEqual(names('networking.k8s.io', 'ingresses'), ['Class', 'Hosts', 'Address', 'Ports', 'Age']);
  assert.deepEqual(names('rbac.authorization.k8s.io', 'clusterroles'), []);
  assert.deepEqual(builtinTypeFacts('certificates.k8s.io', 'certificatesigningrequests').selectableFields['spec.signerName']({ metadata: {}, spec: { signerName: 's' } }), 's');
});

test('names: RBAC uses path segments, namespaces DNS labels, the rest DNS subdomains', () => {
  const nameErrors = (group: string, resource: string, name: string) => {
    const obj: KubeObject = { metadata: { name, namespace: typeRules(group, resource).namespaced ? 'default' : undefined } };
    return (builtinTypeFacts(group, resource).strategy.validate?.(obj, ctx) ?? []).filter((e) => e.field === 'metadata.name').length;
  };
  assert.equal(nameErrors('rbac.authorization.k8s.io', 'clusterroles', 'system:controller:x'), 0);
  assert.equal(nameErrors('rbac.authorization.k8s.io', 'clusterroles', 'a/b'), 1);
  assert.equal(nameErrors('', 'serviceaccounts', 'system:x'), 1);
  assert.equal(nameErrors('coordination.k8s.io', 'leases', 'kube-scheduler'), 0);
});

test('storage classes print their own Name cell, marking the default class as kube does', () => {
  const columns = builtinTypeFacts('storage.k8s.io', 'storageclasses').printerColumns;
  assert.deepEqual(columns.map((c) => c.name), ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']);
  assert.equal(columns[0].format, 'name');
  const sc = (annotations: Record<string, string>): KubeObject => ({ metadata: { name: 'standard', annotations }, provisioner: 'p' });
  assert.equal(columns[0].cell(sc({ 'storageclass.kubernetes.io/is-default-class': 'true' })), 'standard (default)');
  assert.equal(columns[0].cell(sc({ 'storageclass.beta.kubernetes.io/is-default-class': 'true' })), 'standard (default)');
  assert.equal(columns[0].cell(sc({})), 'standard');
});
