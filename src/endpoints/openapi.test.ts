import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { parse as parseYaml } from 'yaml';
import { customDefinition, serve, smallRegistry } from './discovery-fixture.ts';
import { openApiV2Document, openApiV3Documents } from './openapi-documents.ts';
import { toValidOperationId } from './openapi-paths.ts';
import { openApiV2Protobuf } from './openapi-protobuf.ts';
import { createOpenApiHandler, negotiateOpenApiV2 } from './openapi.ts';
import { friendlyName, type Json } from './openapi-schemas.ts';
import type { SchemaNode } from '../apis/model-types.ts';

type Doc = Json & { paths: Record<string, Json>; definitions: Record<string, Json> };
type V3Doc = Json & { paths: Record<string, Json>; components: { schemas: Record<string, Json> } };

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const v2 = () => openApiV2Document(smallRegistry([customDefinition()]).all()) as Doc;
const v3 = () => openApiV3Documents(smallRegistry([customDefinition()]).all()) as Map<string, V3Doc>;

/** Every "$ref" value in a JSON document. */
function refsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsIn(v, out);
    }
  }
  return out;
}

const q = (name: string, type = 'string') => ({ name, in: 'query', type, uniqueItems: true });

test('operation ids and definition names follow kube-openapi', () => {
  assert.equal(toValidOperationId('rbac.authorization', true), 'RbacAuthorization');
  assert.equal(toValidOperationId('v1beta1', true), 'V1beta1');
  assert.equal(toValidOperationId('stable.example.com', false), 'stableExampleCom');
  assert.equal(friendlyName('stable.example.com', 'v1', 'CronTab'), 'com.example.stable.v1.CronTab');
  assert.equal(friendlyName('foo', 'v1', 'Bar'), 'foo.v1.Bar');
});

test('v2: ConfigMap definition translated back to OpenAPI exactly', () => {
  const doc = v2();
  assert.equal(doc.swagger, '2.0');
  assert.deepEqual(doc.info, { title: 'Kubernetes', version: 'v1.31.0' });
  assert.deepEqual(doc.definitions['io.k8s.api.core.v1.ConfigMap'], {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      binaryData: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } },
      data: { type: 'object', additionalProperties: { type: 'string' } },
      immutable: { type: 'boolean' },
      kind: { type: 'string' },
      metadata: { $ref: `#/definitions/${META}.ObjectMeta` },
    },
    'x-kubernetes-group-version-kind': [{ group: '', kind: 'ConfigMap', version: 'v1' }],
  });
  // x-kubernetes markers sit beside the $ref in v2.
  const strategy = (doc.definitions['io.k8s.api.apps.v1.DeploymentSpec'].properties as Json).strategy;
  assert.deepEqual(strategy, { $ref: '#/definitions/io.k8s.api.apps.v1.DeploymentStrategy', 'x-kubernetes-patch-strategy': 'retainKeys' });
  assert.deepEqual(doc.definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString'], { type: 'string', format: 'int-or-string' });
  const containers = (doc.definitions['io.k8s.api.core.v1.PodSpec'].properties as Json).containers;
  assert.deepEqual(containers, {
    type: 'array',
    items: { $ref: '#/definitions/io.k8s.api.core.v1.Container' },
    'x-kubernetes-list-map-keys': ['name'],
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-patch-merge-key': 'name',
    'x-kubernetes-patch-strategy': 'merge',
  });
});

test('v2 and v3: discriminated unions carry x-kubernetes-unions, as kube-openapi publishes them', () => {
  const union = [{ discriminator: 'type', 'fields-to-discriminateBy': { localhostProfile: 'LocalhostProfile' } }];
  assert.deepEqual(v2().definitions['io.k8s.api.core.v1.SeccompProfile'], {
    type: 'object',
    properties: { localhostProfile: { type: 'string' }, type: { type: 'string' } },
    required: ['type'],
    'x-kubernetes-unions': union,
  });
  const core = v3().get('api/v1')!;
  assert.deepEqual(core.components.schemas['io.k8s.api.core.v1.SeccompProfile']['x-kubernetes-unions'], union);
});

test('v2: every $ref resolves; definitions and paths are in name order', () => {
  const doc = v2();
  for (const ref of refsIn(doc)) {
    assert.ok(ref.startsWith('#/definitions/'), ref);
    assert.ok(doc.definitions[ref.slice('#/definitions/'.length)], `unresolved ${ref}`);
  }
  const names = Object.keys(doc.definitions);
  assert.deepEqual(names, [...names].sort());
  // Built-in kinds keep the model's names even though the registry holds their schemas inline.
  assert.deepEqual(names.filter((n) => !n.startsWith('io.k8s.')), ['com.example.stable.v1.CronTab', 'com.example.stable.v1.CronTabList']);
  assert.ok(names.includes(`${META}.WatchEvent`) && names.includes(`${META}.DeleteOptions`) && names.includes('io.k8s.api.autoscaling.v1.Scale'));
  const paths = Object.keys(doc.paths);
  assert.deepEqual(paths, [...paths].sort());
});

test('v2: deployments/scale path as kube publishes it', () => {
  const scale = v2().paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'];
  const gvk = { group: 'autoscaling', kind: 'Scale', version: 'v1' };
  const media = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
  const scaleRef = { $ref: '#/definitions/io.k8s.api.autoscaling.v1.Scale' };
  const common = { consumes: ['*/*'], produces: media, schemes: ['https'], tags: ['apps_v1'] };
  assert.deepEqual(scale, {
    get: {
      ...common,
      operationId: 'readAppsV1NamespacedDeploymentScale',
      responses: { '200': { description: 'OK', schema: scaleRef }, '401': { description: 'Unauthorized' } },
      'x-kubernetes-action': 'get',
      'x-kubernetes-group-version-kind': gvk,
    },
    put: {
      ...common,
      operationId: 'replaceAppsV1NamespacedDeploymentScale',
      parameters: [{ name: 'body', in: 'body', required: true, schema: scaleRef }, q('dryRun'), q('fieldManager'), q('fieldValidation')],
      responses: { '200': { description: 'OK', schema: scaleRef }, '201': { description: 'Created', schema: scaleRef }, '401': { description: 'Unauthorized' } },
      'x-kubernetes-action': 'put',
      'x-kubernetes-group-version-kind': gvk,
    },
    patch: {
      ...common,
      consumes: ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'],
      operationId: 'patchAppsV1NamespacedDeploymentScale',
      parameters: [
        { name: 'body', in: 'body', required: true, schema: { $ref: `#/definitions/${META}.Patch` } },
        q('dryRun'),
        q('fieldManager'),
        q('fieldValidation'),
        q('force', 'boolean'),
      ],
      responses: { '200': { description: 'OK', schema: scaleRef }, '201': { description: 'Created', schema: scaleRef }, '401': { description: 'Unauthorized' } },
      'x-kubernetes-action': 'patch',
      'x-kubernetes-group-version-kind': gvk,
    },
    parameters: [
      { name: 'name', in: 'path', required: true, type: 'string', uniqueItems: true },
      { name: 'namespace', in: 'path', required: true, type: 'string', uniqueItems: true },
      q('pretty'),
    ],
  });
});

test('v2: configmaps collection, all-namespaces and watch paths', () => {
  const doc = v2();
  const collection = doc.paths['/api/v1/namespaces/{namespace}/configmaps'] as Record<string, Json>;
  assert.deepEqual(Object.keys(collection), ['get', 'post', 'delete', 'parameters']);
  assert.equal(collection.get.operationId, 'listCoreV1NamespacedConfigMap');
  assert.equal(collection.delete.operationId, 'deleteCoreV1CollectionNamespacedConfigMap');
  assert.equal(collection.delete['x-kubernetes-action'], 'deletecollection');
  assert.deepEqual(collection.parameters, [{ name: 'namespace', in: 'path', required: true, type: 'string', uniqueItems: true }, q('pretty')]);
  assert.deepEqual(
    (collection.get.parameters as Json[]).map((p) => p.name),
    ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch'],
  );
  const all = doc.paths['/api/v1/configmaps'] as Record<string, Json>;
  assert.equal(all.get.operationId, 'listCoreV1ConfigMapForAllNamespaces');
  assert.equal(all.get.parameters, undefined);
  assert.equal((all.parameters as unknown as Json[]).length, 11);
  const watch = doc.paths['/api/v1/watch/namespaces/{namespace}/configmaps/{name}'] as Record<string, Json>;
  assert.equal(watch.get.operationId, 'watchCoreV1NamespacedConfigMap');
  assert.deepEqual(watch.get.responses, {
    '200': { description: 'OK', schema: { $ref: `#/definitions/${META}.WatchEvent` } },
    '401': { description: 'Unauthorized' },
  });
  // Pod deletion answers with the pod, as kube's pod storage returns the deleted object.
  const pod = doc.paths['/api/v1/namespaces/{namespace}/pods/{name}'] as Record<string, Json>;
  assert.deepEqual((pod.delete.responses as Record<string, Json>)['200'], { description: 'OK', schema: { $ref: '#/definitions/io.k8s.api.core.v1.Pod' } });
  const exec = doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/exec'] as Record<string, Json>;
  assert.deepEqual(Object.keys(exec), ['get', 'post', 'parameters']);
  assert.equal(exec.post.operationId, 'connectCoreV1PostNamespacedPodExec');
  assert.deepEqual(
    (exec.parameters as unknown as Json[]).map((p) => `${p.in}:${p.name}`),
    ['query:command', 'query:container', 'path:name', 'path:namespace', 'query:stderr', 'query:stdin', 'query:stdout', 'query:tty'],
  );
  const proxyPath = doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}'] as Record<string, Json>;
  assert.deepEqual(Object.keys(proxyPath), ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'parameters']);
  assert.equal(proxyPath.head.operationId, 'connectCoreV1HeadNamespacedPodProxyWithPath');
  assert.deepEqual(doc.paths['/apis/apps/'], {
    get: {
      consumes: ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'],
      produces: ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'],
      schemes: ['https'],
      tags: ['apps'],
      operationId: 'getAppsAPIGroup',
      responses: { '200': { description: 'OK', schema: { $ref: `#/definitions/${META}.APIGroup` } }, '401': { description: 'Unauthorized' } },
    },
  });
});

test('custom resources: kind and list schemas as apiextensions publishes them, in v2 and v3', () => {
  const doc = v2();
  assert.deepEqual(doc.definitions['com.example.stable.v1.CronTab'], {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
          image: { type: 'string' },
          replicas: { type: 'integer', maximum: 10, minimum: 1 },
          port: { 'x-kubernetes-int-or-string': true },
          // nullable: no type, no properties in v2.
          labels: { additionalProperties: { type: 'string' } },
        },
        required: ['cronSpec'],
      },
      status: { type: 'object', properties: { replicas: { type: 'integer' } } },
      metadata: { $ref: `#/definitions/${META}.ObjectMeta` },
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
    },
    'x-kubernetes-group-version-kind': [{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }],
  });
  assert.deepEqual(doc.definitions['com.example.stable.v1.CronTabList'], {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      items: { type: 'array', items: { $ref: '#/definitions/com.example.stable.v1.CronTab' } },
      kind: { type: 'string' },
      metadata: { $ref: `#/definitions/${META}.ListMeta` },
    },
    required: ['items'],
    'x-kubernetes-group-version-kind': [{ group: 'stable.example.com', kind: 'CronTabList', version: 'v1' }],
  });
  const spec = (v3().get('apis/stable.example.com/v1')!.components.schemas['com.example.stable.v1.CronTab'].properties as Record<string, Json>).spec;
  assert.deepEqual((spec.properties as Json).port, { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true });
  assert.deepEqual((spec.properties as Json).labels, { type: 'object', additionalProperties: { type: 'string' }, nullable: true });
});

test('a custom resource whose schema cannot be published gets an open schema; the documents still build', () => {
  const broken = customDefinition({ schema: { type: 'object', properties: { spec: null } } as unknown as SchemaNode });
  const defs = smallRegistry([broken]).all();
  const doc = openApiV2Document(defs) as Doc;
  assert.deepEqual(doc.definitions['com.example.stable.v1.CronTab'], {
    type: 'object',
    'x-kubernetes-group-version-kind': [{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }],
  });
  assert.ok(doc.definitions['io.k8s.api.core.v1.ConfigMap']);
  assert.ok(openApiV3Documents(defs).get('apis/stable.example.com/v1'));
});

test('custom resources: paths tagged with the resource kind, no watch paths, JSON and YAML only', () => {
  const paths = v2().paths;
  const crontabPaths = Object.keys(paths).filter((p) => p.includes('stable.example.com'));
  assert.deepEqual(crontabPaths, [
    '/apis/stable.example.com/v1/crontabs',
    '/apis/stable.example.com/v1/namespaces/{namespace}/crontabs',
    '/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}',
    '/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/scale',
    '/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/status',
  ]);
  const scale = paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/scale'] as Record<string, Json>;
  assert.equal(scale.get.operationId, 'readStableExampleComV1NamespacedCronTabScale');
  assert.deepEqual(scale.get['x-kubernetes-group-version-kind'], { group: 'stable.example.com', kind: 'CronTab', version: 'v1' });
  assert.deepEqual((scale.get.responses as Record<string, Json>)['200'].schema, { $ref: '#/definitions/io.k8s.api.autoscaling.v1.Scale' });
  assert.deepEqual(scale.get.produces, ['application/json', 'application/yaml']);
  assert.deepEqual(scale.patch.consumes, ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
  const list = paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs'] as Record<string, Json>;
  assert.equal(list.get.operationId, 'listStableExampleComV1NamespacedCronTab');
  assert.deepEqual(list.get.tags, ['stableExampleCom_v1']);
});

test('v3: one document per group version, group and root, each self-contained', () => {
  const docs = v3();
  assert.deepEqual(
    [...docs.keys()],
    [
      'api',
      'api/v1',
      'apis',
      'apis/apps',
      'apis/apps/v1',
      'apis/autoscaling',
      'apis/autoscaling/v1',
      'apis/autoscaling/v2',
      'apis/events.k8s.io',
      'apis/events.k8s.io/v1',
      'apis/stable.example.com/v1',
      'version',
    ],
  );
  for (const [key, doc] of docs) {
    assert.equal(doc.openapi, '3.0.0');
    for (const ref of refsIn(doc)) {
      assert.ok(ref.startsWith('#/components/schemas/'), `${key}: ${ref}`);
      assert.ok(doc.components.schemas[ref.slice('#/components/schemas/'.length)], `${key}: unresolved ${ref}`);
    }
  }
  assert.deepEqual(docs.get('apis/stable.example.com/v1')!.info, { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' });
  const apps = docs.get('apis/apps/v1')!;
  assert.deepEqual(Object.keys(apps.paths).every((p) => p.startsWith('/apis/apps/v1/')), true);
  // kubectl explain finds the kind by its x-kubernetes-group-version-kind.
  assert.deepEqual(apps.components.schemas['io.k8s.api.apps.v1.Deployment']['x-kubernetes-group-version-kind'], [
    { group: 'apps', kind: 'Deployment', version: 'v1' },
  ]);
  // A ref with sibling keywords is wrapped in allOf in OpenAPI 3.
  assert.deepEqual((apps.components.schemas['io.k8s.api.apps.v1.DeploymentSpec'].properties as Json).strategy, {
    'x-kubernetes-patch-strategy': 'retainKeys',
    allOf: [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy' }],
  });
  assert.deepEqual(apps.components.schemas['io.k8s.apimachinery.pkg.util.intstr.IntOrString'], {
    oneOf: [{ type: 'integer' }, { type: 'string' }],
    format: 'int-or-string',
  });
  // kubectl's field-validation check looks for the fieldValidation query parameter of the kind's PATCH.
  const patch = (apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'] as Record<string, Json>).patch;
  assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'apps', kind: 'Deployment', version: 'v1' });
  assert.ok((patch.parameters as Json[]).some((p) => p.name === 'fieldValidation' && p.in === 'query'));
  assert.deepEqual(patch.requestBody, {
    content: Object.fromEntries(
      ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'].map((mt) => [
        mt,
        { schema: { $ref: `#/components/schemas/${META}.Patch` } },
      ]),
    ),
    required: true,
  });
  const get = (apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'] as Record<string, Json>).get;
  assert.deepEqual(get.responses, {
    '200': {
      description: 'OK',
      content: Object.fromEntries(
        ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'].map((mt) => [mt, { schema: { $ref: '#/components/schemas/io.k8s.api.autoscaling.v1.Scale' } }]),
      ),
    },
    '401': { description: 'Unauthorized' },
  });
});

// ---- protobuf ---------------------------------------------------------------------------------------------

interface Field {
  no: number;
  wire: number;
  value: number | Buffer;
}

/** A minimal protobuf wire reader: the top-level fields of one message. */
function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let i = 0;
  const varint = () => {
    let result = 0;
    let mul = 1;
    for (;;) {
      const b = buf[i++];
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
  };
  while (i < buf.length) {
    const key = varint();
    const no = Math.floor(key / 8);
    const wire = key % 8;
    if (wire === 0) out.push({ no, wire, value: varint() });
    else if (wire === 1) {
      out.push({ no, wire, value: buf.subarray(i, i + 8) });
      i += 8;
    } else if (wire === 2) {
      const len = varint();
      out.push({ no, wire, value: buf.subarray(i, i + len) });
      i += len;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}
const one = (buf: Buffer, no: number) => fields(buf).find((f) => f.no === no)?.value as Buffer;
const all = (buf: Buffer, no: number) => fields(buf).filter((f) => f.no === no).map((f) => f.value as Buffer);
const str = (buf: Buffer | undefined) => buf?.toString('utf8');

test('v2 protobuf: gnostic Document with definitions, vendor extensions as YAML and oneof booleans', () => {
  const doc = {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: 'v1.31.0' },
    paths: {
      '/api/v1/namespaces/{namespace}/configmaps': {
        get: { operationId: 'listCoreV1NamespacedConfigMap', parameters: [{ name: 'limit', in: 'query', type: 'integer', uniqueItems: true }], 'x-kubernetes-action': 'list' },
        parameters: [{ name: 'namespace', in: 'path', required: true, type: 'string', uniqueItems: true }],
      },
    },
    definitions: {
      'io.k8s.api.core.v1.ConfigMap': {
        type: 'object',
        properties: { data: { type: 'object', additionalProperties: { type: 'string' } }, closed: { type: 'object', additionalProperties: false } },
        required: ['data'],
        'x-kubernetes-group-version-kind': [{ group: '', kind: 'ConfigMap', version: 'v1' }],
      },
    },
  };
  const bytes = Buffer.from(openApiV2Protobuf(doc));
  assert.equal(str(one(bytes, 1)), '2.0');
  assert.equal(str(one(one(bytes, 2), 2)), 'v1.31.0');

  const namedPath = one(one(bytes, 8), 2);
  assert.equal(str(one(namedPath, 1)), '/api/v1/namespaces/{namespace}/configmaps');
  const item = one(namedPath, 2);
  const get = one(item, 2);
  assert.equal(str(one(get, 5)), 'listCoreV1NamespacedConfigMap');
  // Operation.parameters -> ParametersItem.parameter -> Parameter.non_body_parameter -> query_parameter_sub_schema.
  const query = one(one(one(one(get, 8), 1), 2), 3);
  assert.equal(str(one(query, 2)), 'query');
  assert.equal(str(one(query, 4)), 'limit');
  assert.equal(str(one(query, 6)), 'integer');
  assert.equal(fields(query).find((f) => f.no === 20)?.value, 1);
  const action = one(get, 13);
  assert.equal(str(one(action, 1)), 'x-kubernetes-action');
  assert.equal(parseYaml(str(one(one(action, 2), 2))!), 'list');
  // PathItem.parameters -> path_parameter_sub_schema with required = true.
  const pathParam = one(one(one(one(item, 9), 1), 2), 4);
  assert.equal(str(one(pathParam, 4)), 'namespace');
  assert.equal(fields(pathParam).find((f) => f.no === 1)?.value, 1);

  const namedSchema = one(one(bytes, 9), 1);
  assert.equal(str(one(namedSchema, 1)), 'io.k8s.api.core.v1.ConfigMap');
  const schema = one(namedSchema, 2);
  assert.equal(str(one(one(schema, 22), 1)), 'object');
  assert.deepEqual(all(schema, 19).map(str), ['data']);
  const props = all(one(schema, 25), 1);
  assert.deepEqual(props.map((p) => str(one(p, 1))), ['data', 'closed']);
  const closedAdditional = one(one(props[1], 2), 21);
  // additionalProperties: false is a oneof member and must be present with value 0.
  assert.deepEqual(fields(closedAdditional), [{ no: 2, wire: 0, value: 0 }]);
  const gvk = one(schema, 31);
  assert.equal(str(one(gvk, 1)), 'x-kubernetes-group-version-kind');
  assert.deepEqual(parseYaml(str(one(one(gvk, 2), 2))!), [{ group: '', kind: 'ConfigMap', version: 'v1' }]);
});

// ---- HTTP -------------------------------------------------------------------------------------------------

test('negotiation of /openapi/v2 as kube-openapi does it', () => {
  assert.equal(negotiateOpenApiV2(undefined), 'json');
  assert.equal(negotiateOpenApiV2('application/com.github.proto-openapi.spec.v2@v1.0+protobuf'), 'protobuf');
  assert.equal(negotiateOpenApiV2('application/com.github.proto-openapi.spec.v2.v1.0+protobuf, application/json'), 'protobuf');
  assert.equal(negotiateOpenApiV2('application/json;q=0.5, application/com.github.proto-openapi.spec.v2.v1.0+protobuf'), 'protobuf');
  assert.equal(negotiateOpenApiV2('text/html'), undefined);
});

test('HTTP: /openapi/v2 in JSON and protobuf with one ETag, 304, gzip and 406', async () => {
  const server = await serve(createOpenApiHandler(smallRegistry()));
  try {
    const json = await server.get('/openapi/v2', { Accept: 'application/json' });
    assert.equal(json.status, 200);
    assert.equal(json.headers['content-type'], 'application/json');
    const etag = `"${createHash('sha512').update(json.body).digest('hex').toUpperCase()}"`;
    assert.equal(json.headers['etag'], etag);
    assert.ok(json.headers['last-modified']);
    assert.equal((JSON.parse(json.text) as Json).swagger, '2.0');

    const pb = await server.get('/openapi/v2', { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
    assert.equal(pb.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    assert.equal(pb.headers['etag'], etag);
    assert.equal(str(one(pb.body, 1)), '2.0');

    const cached = await server.get('/openapi/v2', { 'If-None-Match': etag });
    assert.equal(cached.status, 304);
    assert.equal(cached.body.length, 0);

    const zipped = await server.get('/openapi/v2', { 'Accept-Encoding': 'gzip' });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(zipped.body), json.body);

    const refused = await server.get('/openapi/v2', { Accept: 'text/html' });
    assert.equal(refused.status, 406);
    assert.equal(refused.body.length, 0);
  } finally {
    await server.close();
  }
});

test('HTTP: /openapi/v3 index, hash-addressed immutable documents, redirects for stale hashes', async () => {
  const registry = smallRegistry();
  const server = await serve(createOpenApiHandler(registry));
  try {
    const index = await server.get('/openapi/v3');
    assert.equal(index.status, 200);
    assert.equal(index.headers['content-type'], 'application/json');
    const paths = (JSON.parse(index.text) as { paths: Record<string, { serverRelativeURL: string }> }).paths;
    const url = paths['apis/apps/v1'].serverRelativeURL;
    assert.match(url, /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);

    const doc = await server.get(url);
    assert.equal(doc.status, 200);
    assert.equal(doc.headers['cache-control'], 'public, immutable');
    assert.ok(Date.parse(String(doc.headers['expires'])) > Date.now() + 360 * 24 * 3600 * 1000);
    assert.equal(url.split('hash=')[1], createHash('sha512').update(doc.body).digest('hex').toUpperCase());
    assert.equal((JSON.parse(doc.text) as Json).openapi, '3.0.0');

    const unhashed = await server.get('/openapi/v3/apis/apps/v1');
    assert.equal(unhashed.status, 200);
    assert.equal(unhashed.headers['cache-control'], undefined);
    assert.equal(unhashed.headers['etag'], `"${url.split('hash=')[1]}"`);

    const stale = await server.get('/openapi/v3/apis/apps/v1?hash=0123');
    assert.equal(stale.status, 301);
    assert.equal(stale.headers['location'], url);

    assert.equal((await server.get('/openapi/v3/apis/batch/v1')).text, 'declined');
    assert.equal((await server.get('/openapi/v3/apis/apps/v1', { Accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf' })).status, 406);

    // A CRD added: its document appears; documents of other group versions keep their hashes.
    registry.set([...registry.all(), customDefinition()]);
    const after = (JSON.parse((await server.get('/openapi/v3')).text) as { paths: Record<string, { serverRelativeURL: string }> }).paths;
    assert.equal(after['apis/apps/v1'].serverRelativeURL, url);
    assert.match(after['apis/stable.example.com/v1'].serverRelativeURL, /hash=/);
    assert.equal((await server.get(after['apis/stable.example.com/v1'].serverRelativeURL)).status, 200);
  } finally {
    await server.close();
  }
});
