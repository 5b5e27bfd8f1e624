import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_REFERENCE_DIR, MODEL_PATH, PROTOBUF_PATH, compareKubeAwareVersions, generateModelFiles } from '../../scripts/generate-model.ts';
import { enabledGroupVersions, loadModel, resourceFacts, schemaByName, schemaNameForKind } from './model.ts';

const referenceMissing = !fs.existsSync(path.join(DEFAULT_REFERENCE_DIR, 'openapi-v2.json'));
const skipGenerator = referenceMissing ? `reference data not found at ${DEFAULT_REFERENCE_DIR}` : false;

const STANDARD_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function served(runtimeConfig: string): string[] {
  return enabledGroupVersions(runtimeConfig).map((gv) => (gv.group ? `${gv.group}/${gv.version}` : gv.version));
}

test('the committed model is what the generator produces, byte for byte, and generation is deterministic', { skip: skipGenerator }, () => {
  const files = generateModelFiles();
  assert.equal(files.model, fs.readFileSync(MODEL_PATH, 'utf8'), 'src/apis/generated/model.json is stale: run node scripts/generate-model.ts');
  assert.equal(files.protobuf, fs.readFileSync(PROTOBUF_PATH, 'utf8'), 'src/apis/generated/protobuf.json is stale: run node scripts/generate-model.ts');
  assert.deepEqual(generateModelFiles(), files);
  assert.ok(files.model.length + files.protobuf.length < 2 * 1024 * 1024, `model is ${files.model.length + files.protobuf.length} bytes`);
  assert.doesNotMatch(files.model + files.protobuf, /"description":"/);
});

test("schemas parsed one by one on first lookup are the file's, the same object every time; every kind finds its schema", () => {
  const whole = JSON.parse(fs.readFileSync(MODEL_PATH, 'utf8')) as import('./model-types.ts').ApiModel;
  assert.deepEqual(loadModel(), whole);
  assert.equal(schemaByName('io.k8s.api.core.v1.Pod'), schemaByName('io.k8s.api.core.v1.Pod'));
  const kinds = new Map<string, string>();
  for (const [name, node] of Object.entries(whole.schemas)) {
    for (const { group, version, kind } of node.gvk ?? []) if (!kinds.has(`${group}/${version}/${kind}`)) kinds.set(`${group}/${version}/${kind}`, name);
  }
  assert.ok(kinds.size > 150, `${kinds.size} kinds`);
  for (const [key, name] of kinds) {
    const [group, version, kind] = key.split('/') as [string, string, string];
    assert.equal(schemaNameForKind(group, version, kind), name, key);
  }
});

test('pods: namespaced, short name po, category all, verbs and subresources as discovery reports them', () => {
  const pods = resourceFacts('', 'v1', 'pods');
  assert.ok(pods);
  assert.equal(pods.kind, 'Pod');
  assert.equal(pods.singularName, 'pod');
  assert.equal(pods.namespaced, true);
  assert.deepEqual(pods.shortNames, ['po']);
  assert.deepEqual(pods.categories, ['all']);
  assert.deepEqual(pods.verbs, STANDARD_VERBS);
  assert.equal(pods.schema, 'io.k8s.api.core.v1.Pod');
  assert.deepEqual(pods.subresources, [
    { name: 'attach', kind: 'PodAttachOptions', verbs: ['create', 'get'] },
    { name: 'binding', kind: 'Binding', verbs: ['create'] },
    { name: 'ephemeralcontainers', kind: 'Pod', verbs: ['get', 'patch', 'update'] },
    { name: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] },
    { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'] },
    { name: 'log', kind: 'Pod', verbs: ['get'] },
    { name: 'portforward', kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
    { name: 'proxy', kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
    { name: 'status', kind: 'Pod', verbs: ['get', 'patch', 'update'] },
  ]);
});

test('deployments/scale serves autoscaling/v1 Scale; namespaces are cluster-scoped with status and finalize', () => {
  const deployments = resourceFacts('apps', 'v1', 'deployments');
  assert.deepEqual(deployments?.shortNames, ['deploy']);
  assert.deepEqual(deployments?.categories, ['all']);
  assert.deepEqual(deployments?.subresources?.find((s) => s.name === 'scale'), {
    name: 'scale',
    kind: 'Scale',
    group: 'autoscaling',
    version: 'v1',
    verbs: ['get', 'patch', 'update'],
  });
  assert.equal(schemaNameForKind('autoscaling', 'v1', 'Scale'), 'io.k8s.api.autoscaling.v1.Scale');

  const namespaces = resourceFacts('', 'v1', 'namespaces');
  assert.equal(namespaces?.namespaced, false);
  assert.deepEqual(namespaces?.verbs, ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
  assert.deepEqual(namespaces?.subresources, [
    { name: 'finalize', kind: 'Namespace', verbs: ['update'] },
    { name: 'status', kind: 'Namespace', verbs: ['get', 'patch', 'update'] },
  ]);
});

test('verbs: configmaps have exactly the 8 standard verbs; review kinds are create-only; componentstatuses are get/list', () => {
  assert.deepEqual(resourceFacts('', 'v1', 'configmaps')?.verbs, STANDARD_VERBS);
  assert.deepEqual(resourceFacts('', 'v1', 'configmaps')?.shortNames, ['cm']);
  assert.deepEqual(resourceFacts('authorization.k8s.io', 'v1', 'selfsubjectaccessreviews')?.verbs, ['create']);
  assert.deepEqual(resourceFacts('', 'v1', 'componentstatuses')?.verbs, ['get', 'list']);
  assert.deepEqual(resourceFacts('', 'v1', 'serviceaccounts')?.subresources, [
    { name: 'token', kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1', verbs: ['create'] },
  ]);
  assert.deepEqual(resourceFacts('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')?.shortNames, ['crd', 'crds']);
  assert.deepEqual(resourceFacts('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')?.categories, ['api-extensions']);
  assert.equal(resourceFacts('', 'v1', 'endpoints')?.singularName, 'endpoints');
  assert.equal(resourceFacts('apps', 'v1', 'nosuchthings'), undefined);
});

test('groups are in kube-apiserver discovery order, versions by priority', () => {
  assert.deepEqual(
    loadModel().groups.map((g) => g.name),
    [
      '', 'apiregistration.k8s.io', 'apps', 'events.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io',
      'autoscaling', 'batch', 'certificates.k8s.io', 'networking.k8s.io', 'policy', 'rbac.authorization.k8s.io',
      'storage.k8s.io', 'admissionregistration.k8s.io', 'apiextensions.k8s.io', 'scheduling.k8s.io',
      'coordination.k8s.io', 'node.k8s.io', 'discovery.k8s.io', 'flowcontrol.apiserver.k8s.io',
      'internal.apiserver.k8s.io', 'resource.k8s.io', 'storagemigration.k8s.io',
    ],
  );
  const autoscaling = loadModel().groups.find((g) => g.name === 'autoscaling');
  assert.deepEqual(autoscaling?.versions.map((v) => v.version), ['v2', 'v1']);
  assert.deepEqual(['v1alpha1', 'v2beta1', 'v1', 'foo', 'v1beta2', 'v2', 'v1beta1'].sort(compareKubeAwareVersions), [
    'v2', 'v1', 'v2beta1', 'v1beta2', 'v1beta1', 'v1alpha1', 'foo',
  ]);
});

test('schemas: refs shortened, x-kubernetes markers renamed, protobuf numbers from generated.proto, meta extras', () => {
  const configMap = schemaByName('io.k8s.api.core.v1.ConfigMap');
  assert.deepEqual(configMap?.properties?.['metadata'], { ref: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', protobuf: 1 });
  assert.deepEqual(configMap?.properties?.['data'], { type: 'object', additionalProperties: { type: 'string' }, protobuf: 2 });
  assert.deepEqual(configMap?.gvk, [{ group: '', version: 'v1', kind: 'ConfigMap' }]);

  const containers = schemaByName('io.k8s.api.core.v1.PodSpec')?.properties?.['containers'];
  assert.equal(containers?.patchStrategy, 'merge');
  assert.equal(containers?.patchMergeKey, 'name');
  assert.equal(containers?.listType, 'map');
  assert.deepEqual(containers?.listMapKeys, ['name']);
  assert.deepEqual(containers?.items, { ref: 'io.k8s.api.core.v1.Container' });
  assert.equal(containers?.protobuf, 2);

  assert.deepEqual(schemaByName('io.k8s.apimachinery.pkg.util.intstr.IntOrString'), { format: 'int-or-string', intOrString: true });
  // Spelled "aPIGroup" in generated.proto.
  assert.equal(schemaByName('io.k8s.api.networking.v1.IngressClassParametersReference')?.properties?.['apiGroup']?.protobuf, 1);
  assert.equal(schemaByName('io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector')?.mapType, 'atomic');
  for (const name of ['Status', 'DeleteOptions', 'APIResourceList', 'ObjectMeta', 'ListMeta', 'Table', 'WatchEvent', 'PartialObjectMetadata', 'PartialObjectMetadataList']) {
    assert.ok(schemaByName(`io.k8s.apimachinery.pkg.apis.meta.v1.${name}`), name);
  }
  assert.equal(schemaNameForKind('meta.k8s.io', 'v1', 'Table'), 'io.k8s.apimachinery.pkg.apis.meta.v1.Table');
  assert.equal(schemaByName('io.k8s.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata')?.properties?.['metadata']?.protobuf, 1);
  assert.ok(schemaByName('io.k8s.api.apps.v1.DeploymentList'));
  assert.equal(schemaByName('toString'), undefined);

  // Every ref resolves.
  const model = loadModel();
  const dangling: string[] = [];
  const visit = (node: import('./model-types.ts').SchemaNode) => {
    if (node.ref && !model.schemas[node.ref]) dangling.push(node.ref);
    for (const p of Object.values(node.properties ?? {})) visit(p);
    if (node.items) visit(node.items);
    if (node.additionalProperties && typeof node.additionalProperties === 'object') visit(node.additionalProperties);
  };
  for (const node of Object.values(model.schemas)) visit(node);
  for (const g of model.groups) for (const v of g.versions) for (const r of v.resources) if (!model.schemas[r.schema]) dangling.push(r.schema);
  assert.deepEqual(dangling, []);
});

test('default runtime config serves GA versions plus flowcontrol v1beta3, in order', () => {
  assert.deepEqual(served(''), [
    'v1', 'apiregistration.k8s.io/v1', 'apps/v1', 'events.k8s.io/v1', 'authentication.k8s.io/v1', 'authorization.k8s.io/v1',
    'autoscaling/v2', 'autoscaling/v1', 'batch/v1', 'certificates.k8s.io/v1', 'networking.k8s.io/v1', 'policy/v1',
    'rbac.authorization.k8s.io/v1', 'storage.k8s.io/v1', 'admissionregistration.k8s.io/v1', 'apiextensions.k8s.io/v1',
    'scheduling.k8s.io/v1', 'coordination.k8s.io/v1', 'node.k8s.io/v1', 'discovery.k8s.io/v1',
    'flowcontrol.apiserver.k8s.io/v1', 'flowcontrol.apiserver.k8s.io/v1beta3',
  ]);
});

test('runtime config: api/alpha, api/beta, api/all, group versions, resources and v1', () => {
  const alpha = served('api/alpha=true');
  assert.ok(alpha.includes('resource.k8s.io/v1alpha3'));
  assert.ok(alpha.includes('storagemigration.k8s.io/v1alpha1'));
  assert.ok(!alpha.includes('storage.k8s.io/v1beta1'));
  assert.deepEqual(
    enabledGroupVersions('api/alpha=true').find((gv) => gv.group === 'resource.k8s.io')?.resources.map((r) => r.resource),
    ['deviceclasses', 'podschedulingcontexts', 'resourceclaims', 'resourceclaimtemplates', 'resourceslices'],
  );

  assert.ok(!served('batch/v1=false').some((gv) => gv.startsWith('batch/')));
  assert.ok(served('api/beta=true').includes('networking.k8s.io/v1beta1'));
  assert.ok(!served('api/beta=false').includes('flowcontrol.apiserver.k8s.io/v1beta3'));
  assert.deepEqual(served('api/all=false,apps/v1=true'), ['apps/v1']);
  assert.deepEqual(served('api/all=false, v1 = true'), ['v1']);
  assert.ok(!served('v1=false').includes('v1'));
  assert.equal(served('api/all=true').length, 34);
  // A bare key means true; a group version setting beats api/*; the last duplicate wins.
  assert.ok(served('api/beta=false,storage.k8s.io/v1beta1').includes('storage.k8s.io/v1beta1'));
  assert.ok(!served('batch/v1=false,batch/v1=true,batch/v1=0').includes('batch/v1'));

  // Resource level: beats its version's setting either way.
  const apps = enabledGroupVersions('apps/v1/deployments=false').find((gv) => gv.group === 'apps');
  assert.deepEqual(apps?.resources.map((r) => r.resource), ['controllerrevisions', 'daemonsets', 'replicasets', 'statefulsets']);
  const claims = enabledGroupVersions('resource.k8s.io/v1alpha3/resourceclaims=true').find((gv) => gv.group === 'resource.k8s.io');
  assert.deepEqual(claims?.resources.map((r) => r.resource), ['resourceclaims']);
  assert.equal(claims?.defaultEnabled, false);
  assert.ok(!served('apps/v1=false,apps/v1/deployments=true,api/all=false').includes('batch/v1'));
  assert.deepEqual(
    enabledGroupVersions('apps/v1=false,apps/v1/deployments=true').find((gv) => gv.group === 'apps')?.resources.map((r) => r.resource),
    ['deployments'],
  );

  // Registered but unserved versions, and resources that do not exist, are accepted and change nothing.
  assert.deepEqual(served('batch/v1beta1=true,extensions/v1beta1=true'), served(''));
  assert.deepEqual(enabledGroupVersions('apps/v1/Deployments=false,apps/v1/nosuchthings=true'), enabledGroupVersions(''));
});

test('runtime config: invalid entries throw with kube-apiserver messages', () => {
  assert.throws(() => enabledGroupVersions('apps/v7=true'), { message: 'group version apps/v7 that has not been registered' });
  assert.throws(() => enabledGroupVersions('apps/v1=maybe'), {
    message: 'invalid value of apps/v1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax',
  });
  assert.throws(() => enabledGroupVersions('api/all=yes'), { message: 'invalid value api/all=yes' });
  assert.throws(() => enabledGroupVersions('api/beta'), { message: 'invalid value api/beta=' });
  assert.throws(() => enabledGroupVersions('api/all=false'), { message: 'invalid key with only api/all=false' });
  assert.throws(() => enabledGroupVersions('apiall=false'), { message: 'runtime-config invalid key apiall' });
  assert.throws(() => enabledGroupVersions('a/b/c/d=true'), { message: 'runtime-config invalid key a/b/c/d' });
  assert.throws(() => enabledGroupVersions('foo.example.com/v1=true,api/v1=true'), { message: 'unknown api groups foo.example.com,api' });
});
