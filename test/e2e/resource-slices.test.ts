// ResourceSlice (resource.k8s.io/v1alpha3): served only with the version enabled and DynamicResourceAllocation
// on; every field rule with kube's message; generation; atomic devices in apply; field selectors; Table columns.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.ts';

const PATH = '/apis/resource.k8s.io/v1alpha3/resourceslices';

function slice(name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'resource.k8s.io/v1alpha3', kind: 'ResourceSlice', metadata: { name }, spec });
}
const validSpec = (o: Record<string, unknown> = {}) => ({ driver: 'gpu.example.com', pool: { name: 'node-a', generation: 0, resourceSliceCount: 1 }, nodeName: 'node-a', devices: [{ name: 'gpu-0', basic: { attributes: { model: { string: 'X100' }, 'gpu.example.com/driverVersion': { version: '1.2.3' } }, capacity: { memory: '16Gi' } } }], ...o });

describe('ResourceSlice is served only when asked for', () => {
  test('absent without the version, and without the DynamicResourceAllocation gate', async () => {
    for (const options of [{}, { runtimeConfig: 'resource.k8s.io/v1alpha3=true' }, { featureGates: { DynamicResourceAllocation: true } }]) {
      const s = await startTestServer(options);
      try {
        const r = await s.adminRequest(PATH);
        assert.equal(r.status, 404, JSON.stringify(options));
        const groups = JSON.parse((await s.adminRequest('/apis')).body) as { groups: { name: string }[] };
        assert.ok(!groups.groups.some((g) => g.name === 'resource.k8s.io'), JSON.stringify(options));
      } finally {
        await s.close();
      }
    }
  });
});

describe('ResourceSlice rules', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ runtimeConfig: 'resource.k8s.io/v1alpha3=true', featureGates: { DynamicResourceAllocation: true } });
  });
  after(async () => s.close());

  const create = (name: string, spec: Record<string, unknown>) => s.adminRequest(PATH, { method: 'POST', headers: { 'content-type': 'application/json' }, body: slice(name, spec) });

  test('a valid slice is created with generation 1; a spec change bumps it; kubectl lists it in kube\'s columns', async () => {
    const r = await create('valid', validSpec());
    assert.equal(r.status, 201, r.body);
    assert.equal(JSON.parse(r.body).metadata.generation, 1);
    const discovery = JSON.parse((await s.adminRequest('/apis/resource.k8s.io/v1alpha3')).body) as { resources: { name: string }[] };
    assert.ok(discovery.resources.some((x) => x.name === 'resourceslices'));
    const patched = await s.adminRequest(`${PATH}/valid`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ spec: { pool: { generation: 1 } } }) });
    assert.equal(JSON.parse(patched.body).metadata.generation, 2);
    const labelled = await s.adminRequest(`${PATH}/valid`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ metadata: { labels: { a: 'b' } } }) });
    assert.equal(JSON.parse(labelled.body).metadata.generation, 2);
    const table = await s.kubectlOk(['get', 'resourceslices']);
    assert.match(table, /^NAME\s+NODE\s+DRIVER\s+POOL\s+AGE\nvalid\s+node-a\s+gpu\.example\.com\s+node-a\s+\S+\n$/);
  });

  test('driver, pool name and nodeName are immutable', async () => {
    for (const [change, field] of [[{ driver: 'other.example.com' }, 'spec.driver'], [{ pool: { name: 'node-b', generation: 0, resourceSliceCount: 1 } }, 'spec.pool.name'], [{ nodeName: 'node-b' }, 'spec.nodeName']] as const) {
      const r = await s.adminRequest(`${PATH}/valid`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ spec: change }) });
      assert.equal(r.status, 422);
      const value = field === 'spec.driver' ? 'other.example.com' : 'node-b';
      assert.equal(JSON.parse(r.body).message, `ResourceSlice.resource.k8s.io "valid" is invalid: ${field}: Invalid value: "${value}": field is immutable`);
    }
  });

  const invalidCases: [string, Record<string, unknown>, string][] = [
    ['driver not a DNS subdomain', validSpec({ driver: 'GPU_driver' }), `spec.driver: Invalid value: "GPU_driver": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`],
    ['driver missing', validSpec({ driver: '' }), 'spec.driver: Required value'],
    ['pool name too long', validSpec({ pool: { name: `${'a'.repeat(200)}/${'b'.repeat(60)}`, generation: 0, resourceSliceCount: 1 } }), 'spec.pool.name: Too long: may not be longer than 253'],
    ['pool name part not a subdomain', validSpec({ pool: { name: 'a/B', generation: 0, resourceSliceCount: 1 } }), `spec.pool.name: Invalid value: "B": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`],
    ['resourceSliceCount zero', validSpec({ pool: { name: 'p', generation: 0, resourceSliceCount: 0 } }), 'spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero'],
    ['no node choice', validSpec({ nodeName: undefined }), 'spec: Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required'],
    ['two node choices', validSpec({ allNodes: true }), 'spec: Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required'],
    ['two selector terms', validSpec({ nodeName: undefined, nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }, { matchExpressions: [{ key: 'b', operator: 'Exists' }] }] } }), 'spec.nodeSelector.nodeSelectorTerms: Invalid value: []core.NodeSelectorTerm{core.NodeSelectorTerm{MatchExpressions:[]core.NodeSelectorRequirement{core.NodeSelectorRequirement{Key:"a", Operator:"Exists", Values:[]string(nil)}}, MatchFields:[]core.NodeSelectorRequirement(nil)}, core.NodeSelectorTerm{MatchExpressions:[]core.NodeSelectorRequirement{core.NodeSelectorRequirement{Key:"b", Operator:"Exists", Values:[]string(nil)}}, MatchFields:[]core.NodeSelectorRequirement(nil)}}: must have exactly one node selector term'],
    ['too many devices', validSpec({ devices: Array.from({ length: 129 }, (_, i) => ({ name: `d${i}`, basic: {} })) }), 'spec.devices: Too many: 129: must have at most 128 items'],
    ['device name with a dot', validSpec({ devices: [{ name: 'gpu.0', basic: {} }] }), 'spec.devices[0].name: Invalid value: "gpu.0": must not contain dots'],
    ['device name not a DNS label', validSpec({ devices: [{ name: 'GPU', basic: {} }] }), `spec.devices[0].name: Invalid value: "GPU": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`],
    ['duplicate device names', validSpec({ devices: [{ name: 'd', basic: {} }, { name: 'd', basic: {} }] }), 'spec.devices[1].name: Duplicate value: "d"'],
    ['no basic', validSpec({ devices: [{ name: 'd' }] }), 'spec.devices[0].basic: Required value'],
    ['too many attributes and capacities', validSpec({ devices: [{ name: 'd', basic: { attributes: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`a${i}`, { int: i }])), capacity: Object.fromEntries(Array.from({ length: 13 }, (_, i) => [`c${i}`, '1'])) } }] }), 'spec.devices[0].basic: Invalid value: 33: the total number of attributes and capacities must not exceed 32'],
    ['two attribute values', validSpec({ devices: [{ name: 'd', basic: { attributes: { a: { int: 1, bool: true } } } }] }), 'spec.devices[0].basic.attributes[a]: Invalid value: resource.DeviceAttribute{IntValue:(*int64)(1), BoolValue:(*bool)(true), StringValue:(*string)(nil), VersionValue:(*string)(nil)}: exactly one value must be specified'],
    ['no attribute value', validSpec({ devices: [{ name: 'd', basic: { attributes: { a: {} } } }] }), 'spec.devices[0].basic.attributes[a]: Required value: exactly one value must be specified'],
    ['string over 64', validSpec({ devices: [{ name: 'd', basic: { attributes: { a: { string: 'x'.repeat(65) } } } }] }), 'spec.devices[0].basic.attributes[a].string: Too long: may not be longer than 64'],
    ['version not semver', validSpec({ devices: [{ name: 'd', basic: { attributes: { a: { version: '1.2' } } } }] }), 'spec.devices[0].basic.attributes[a].version: Invalid value: "1.2": must be a string compatible with semver.org spec 2.0.0'],
    ['attribute name not a C identifier', validSpec({ devices: [{ name: 'd', basic: { attributes: { '1a': { int: 1 } } } }] }), `spec.devices[0].basic.attributes[1a]: Invalid value: "1a": a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')`],
    ['attribute domain not a subdomain', validSpec({ devices: [{ name: 'd', basic: { attributes: { 'Bad_Domain/a': { int: 1 } } } }] }), 'spec.devices[0].basic.attributes[Bad_Domain/a]: Invalid value: "Bad_Domain": a lowercase RFC 1123 subdomain'],
  ];
  for (const [title, spec, message] of invalidCases) {
    test(`refused: ${title}`, async () => {
      const r = await create('bad', spec);
      assert.equal(r.status, 422, r.body);
      const status = JSON.parse(r.body) as { message: string };
      assert.ok(status.message.startsWith('ResourceSlice.resource.k8s.io "bad" is invalid: '), status.message);
      assert.ok(status.message.includes(message), `${status.message}\n  lacks\n${message}`);
    });
  }

  test('a quantity that does not parse is refused', async () => {
    const r = await create('badq', validSpec({ devices: [{ name: 'd', basic: { capacity: { memory: '16 GiB' } } }] }));
    assert.ok(r.status === 400 || r.status === 422, r.body);
    assert.match(JSON.parse(r.body).message, /quantities must match the regular expression/);
  });

  test('field selectors spec.driver and spec.nodeName', async () => {
    assert.equal((await create('other', validSpec({ driver: 'nic.example.com', nodeName: 'node-b', pool: { name: 'node-b', generation: 0, resourceSliceCount: 1 } }))).status, 201);
    const names = async (selector: string) => (JSON.parse((await s.adminRequest(`${PATH}?fieldSelector=${encodeURIComponent(selector)}`)).body) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name);
    assert.deepEqual(await names('spec.driver=nic.example.com'), ['other']);
    assert.deepEqual(await names('spec.nodeName=node-a'), ['valid']);
    assert.deepEqual(await names('spec.nodeName!=node-a'), ['other']);
    const bad = await s.adminRequest(`${PATH}?fieldSelector=spec.pool.name%3Dx`);
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.body).message, 'field label not supported: spec.pool.name');
  });

  test('spec.devices is atomic in server-side apply', async () => {
    const apply = (manager: string, devices: string[], force = false) =>
      s.adminRequest(`${PATH}/applied?fieldManager=${manager}${force ? '&force=true' : ''}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/apply-patch+yaml' },
        body: slice('applied', validSpec({ devices: devices.map((name) => ({ name, basic: {} })) })),
      });
    assert.equal((await apply('a', ['d1', 'd2'])).status, 201);
    const conflict = await apply('b', ['d3']);
    assert.equal(conflict.status, 409);
    assert.match(JSON.parse(conflict.body).message, /\.spec\.devices/);
    const forced = await apply('b', ['d3'], true);
    assert.equal(forced.status, 200, forced.body);
    assert.deepEqual((JSON.parse(forced.body).spec.devices as { name: string }[]).map((d) => d.name), ['d3']);
  });
});
