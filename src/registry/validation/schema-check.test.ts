import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resourceFacts } from '../../apis/model.ts';
import type { SchemaNode } from '../../apis/model-types.ts';
import { builtinDefinition } from '../registry.ts';
import type { ResourceDefinition } from '../types.ts';
import { checkAgainstSchema, strictDecodingError, unknownFieldWarnings } from './schema-check.ts';

function builtinDef(group: string, version: string, resource: string): ResourceDefinition {
  const r = resourceFacts(group, version, resource);
  assert.ok(r, `${group}/${version}/${resource} in the model`);
  return builtinDefinition(r);
}

function customDef(schema: SchemaNode): ResourceDefinition {
  return { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', schema, resolveRef: () => undefined, custom: true } as unknown as ResourceDefinition;
}

const configMaps = builtinDef('', 'v1', 'configmaps');
const pods = builtinDef('', 'v1', 'pods');
const deployments = builtinDef('apps', 'v1', 'deployments');
const secrets = builtinDef('', 'v1', 'secrets');

function fatal(obj: unknown, def: ResourceDefinition): string {
  const r = checkAgainstSchema(obj, def);
  assert.ok(r.fatal, 'expected a fatal decode error');
  assert.equal(r.fatal.code, 400);
  assert.equal(r.fatal.reason, 'BadRequest');
  return r.fatal.message;
}

test('a wrong JSON type is the 400 of a failed Go decode', () => {
  assert.equal(
    fatal({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 1 } }, configMaps),
    'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
  );
  assert.equal(
    fatal({ kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', command: ['sleep', 1200] }] } }, pods),
    'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field Container.spec.containers.command of type string',
  );
  assert.equal(
    fatal({ metadata: { name: 'd' }, spec: { template: { spec: { containers: [{ name: 'c', ports: ['80'] }] } } } }, deployments),
    'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field Container.spec.template.spec.containers.ports of type v1.ContainerPort',
  );
  assert.equal(
    fatal({ metadata: { name: 'd' }, spec: { template: { spec: { containers: [{ name: 'c', env: { A: 'b' } }] } } } }, deployments),
    'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal object into Go struct field Container.spec.template.spec.containers.env of type []v1.EnvVar',
  );
});

test('integers: fractions and overflow show the literal, named Go types show their name', () => {
  assert.match(fatal({ metadata: { name: 'd' }, spec: { replicas: 1.5 } }, deployments), /cannot unmarshal number 1\.5 into Go struct field DeploymentSpec\.spec\.replicas of type int32$/);
  assert.match(fatal({ metadata: { name: 'd' }, spec: { replicas: 3000000000 } }, deployments), /cannot unmarshal number 3000000000 into Go struct field/);
  assert.match(fatal({ metadata: { generation: 'x' } }, configMaps), /cannot unmarshal string into Go struct field ObjectMeta\.metadata\.generation of type int64$/);
  assert.match(fatal({ spec: { restartPolicy: 1, containers: [] } }, pods), /Go struct field PodSpec\.spec\.restartPolicy of type v1\.RestartPolicy$/);
});

test('Quantity, IntOrString, Time and []byte decode as their Go types do', () => {
  const withResources = (requests: unknown) => ({ spec: { containers: [{ name: 'c', image: 'i', resources: { requests } }] } });
  assert.equal(checkAgainstSchema(withResources({ cpu: '100m', memory: 128 }), pods).fatal, undefined);
  assert.equal(
    fatal(withResources({ cpu: 'lots' }), pods),
    `Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
  );
  assert.equal(fatal(withResources({ cpu: '1Gk' }), pods), `Pod in version "v1" cannot be handled as a Pod: unable to parse quantity's suffix`);
  const strategy = (maxSurge: unknown) => ({ spec: { strategy: { rollingUpdate: { maxSurge } } } });
  assert.equal(checkAgainstSchema(strategy('25%'), deployments).fatal, undefined);
  assert.equal(checkAgainstSchema(strategy(1), deployments).fatal, undefined);
  assert.match(fatal(strategy(true), deployments), /: json: cannot unmarshal bool into Go value of type int32$/);
  assert.match(
    fatal({ metadata: { creationTimestamp: 'yesterday' } }, configMaps),
    /: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"$/,
  );
  assert.equal(checkAgainstSchema({ data: { k: 'aGVsbG8=' } }, secrets).fatal, undefined);
  assert.match(fatal({ data: { k: 'not base64!' } }, secrets), /cannot be handled as a Secret: illegal base64 data at input byte 3$/);
  assert.match(fatal({ data: { k: 5 } }, secrets), /Go struct field Secret\.data of type \[\]uint8$/);
});

test('built-in Time and MicroTime values are noted as kube encodes them again: UTC, whole seconds or six digits', () => {
  const condition = (lastTransitionTime: string) => ({ status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime }] } });
  assert.deepEqual(checkAgainstSchema(condition('2024-01-02T03:04:05.999+01:00'), deployments).reencoded, [
    { steps: ['status', 'conditions', 0, 'lastTransitionTime'], value: '2024-01-02T02:04:05Z' },
  ]);
  assert.deepEqual(checkAgainstSchema(condition('2024-01-02T03:04:05Z'), deployments).reencoded, []);
  const leases = builtinDef('coordination.k8s.io', 'v1', 'leases');
  assert.deepEqual(checkAgainstSchema({ spec: { renewTime: '2024-01-02T00:04:05.123456-01:30' } }, leases).reencoded, [
    { steps: ['spec', 'renewTime'], value: '2024-01-02T01:34:05.123456Z' },
  ]);
  // A custom resource is stored untyped: its timestamps stay as written.
  const custom = customDef({ type: 'object', properties: { spec: { type: 'object', properties: { at: { type: 'string', format: 'date-time' } } } } });
  assert.deepEqual(checkAgainstSchema({ metadata: { creationTimestamp: '2024-01-02T03:04:05+01:00' }, spec: { at: '2024-01-02T03:04:05+01:00' } }, custom).reencoded, []);
});

test('nulls are accepted anywhere in built-in objects, and left out as Go encodes them', () => {
  assert.deepEqual(checkAgainstSchema({ metadata: { labels: null }, data: null }, configMaps), { unknownFields: [], unknownFieldSteps: [], reencoded: [], omitted: [['metadata', 'labels'], ['data']] });
});

test('zero values the typed object cannot tell from absent are written as Go writes them', () => {
  const pods = builtinDef('', 'v1', 'pods');
  const body = {
    metadata: { name: 'p', labels: {}, finalizers: [], managedFields: [] },
    spec: {
      nodeSelector: {}, // map, omitempty: left out
      tolerations: [], // slice, omitempty
      hostname: '', // string value, omitempty
      affinity: {}, // pointer to a struct: kept
      runtimeClassName: '', // pointer to a string: kept
      priority: 0, // pointer to an int: kept
      securityContext: null, // pointer: left out
      containers: [{ name: 'c', image: 'x', args: [], env: null, resources: null, stdin: false, tty: true, ports: [{ containerPort: 80, hostPort: 0 }] }],
    },
  };
  const r = checkAgainstSchema(body, pods);
  assert.deepEqual(r.omitted, [
    ['metadata', 'labels'],
    ['metadata', 'finalizers'],
    ['spec', 'nodeSelector'],
    ['spec', 'tolerations'],
    ['spec', 'hostname'],
    ['spec', 'securityContext'],
    ['spec', 'containers', 0, 'args'],
    ['spec', 'containers', 0, 'env'],
    ['spec', 'containers', 0, 'stdin'],
    ['spec', 'containers', 0, 'ports', 0, 'hostPort'],
  ]);
  // A null struct value is the zero struct; an empty managedFields list stays (it asks for a reset).
  assert.deepEqual(r.reencoded, [{ steps: ['spec', 'containers', 0, 'resources'], value: {} }]);
  // A slice without omitempty keeps its null and its emptiness.
  const roles = builtinDef('rbac.authorization.k8s.io', 'v1', 'roles');
  assert.deepEqual(checkAgainstSchema({ metadata: { name: 'r' }, rules: null }, roles).omitted, []);
  assert.deepEqual(checkAgainstSchema({ metadata: { name: 'r' }, rules: [] }, roles).omitted, []);
  // Custom resources keep what they were sent (outside metadata).
  const custom = customDef({ type: 'object', properties: { spec: { type: 'object', properties: { list: { type: 'array', items: { type: 'string' } }, s: { type: 'string' } } } } });
  assert.deepEqual(checkAgainstSchema({ metadata: { labels: {} }, spec: { list: [], s: '' } }, custom).omitted, [['metadata', 'labels']]);
});

test('quantities of built-in objects are noted as MarshalJSON writes them; custom resources keep theirs', () => {
  const body = { spec: { overhead: { cpu: 0.5 }, containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '100m', memory: '1.5Gi' }, limits: { memory: 1e9 } } }] } };
  assert.deepEqual(checkAgainstSchema(body, pods).reencoded, [
    { steps: ['spec', 'overhead', 'cpu'], value: '500m' },
    { steps: ['spec', 'containers', 0, 'resources', 'requests', 'memory'], value: '1536Mi' },
    { steps: ['spec', 'containers', 0, 'resources', 'limits', 'memory'], value: '1G' },
  ]);
  const custom = customDef({ type: 'object', properties: { spec: { type: 'object', properties: { cpu: { 'x-kubernetes-int-or-string': true } as SchemaNode } } } });
  assert.deepEqual(checkAgainstSchema({ spec: { cpu: '0.5' } }, custom).reencoded, []);
});

test('a null list item or map value of a built-in object is the zero of its element type, as Go decodes it', () => {
  const body = {
    metadata: { labels: { a: null }, annotations: { b: null } },
    spec: {
      overhead: { cpu: null },
      containers: [{ name: 'c', image: 'x', args: ['a', null], ports: [null], env: [{ name: 'E', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: null } } }] }],
      volumes: [{ name: 'v', projected: { sources: [{ downwardAPI: { items: [null] } }] } }],
    },
  };
  assert.deepEqual(checkAgainstSchema(body, pods).reencoded, [
    { steps: ['metadata', 'labels', 'a'], value: '' },
    { steps: ['metadata', 'annotations', 'b'], value: '' },
    { steps: ['spec', 'overhead', 'cpu'], value: '0' },
    { steps: ['spec', 'containers', 0, 'args', 1], value: '' },
    { steps: ['spec', 'containers', 0, 'ports', 0], value: {} },
    { steps: ['spec', 'containers', 0, 'env', 0, 'valueFrom', 'resourceFieldRef', 'divisor'], value: '0' },
    { steps: ['spec', 'volumes', 0, 'projected', 'sources', 0, 'downwardAPI', 'items', 0], value: {} },
  ]);
  // A Secret's bytes stay null (Go's nil []byte); a custom resource keeps its nulls.
  assert.deepEqual(checkAgainstSchema({ data: { k: null } }, secrets).reencoded, []);
  const custom = customDef({ type: 'object', properties: { spec: { type: 'object', properties: { list: { type: 'array', items: { type: 'string' } } } } } });
  assert.deepEqual(checkAgainstSchema({ spec: { list: [null] } }, custom).reencoded, []);
});

test('a CRD schema under items or additionalProperties is decoded on its own: type errors name JSONSchemaProps, unknown fields are dropped unreported', () => {
  const crds = builtinDef('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
  const crd = (spec: Record<string, unknown>) => ({ spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }] } });
  assert.equal(fatal(crd({ type: 'array', items: { type: 'object', required: { a: 1 } } }), crds), 'CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: json: cannot unmarshal object into Go struct field JSONSchemaProps.required of type []string');
  assert.equal(fatal(crd({ type: 'object', additionalProperties: 'yes' }), crds), 'CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: boolean or JSON schema expected');
  // Outside such a value, the field stack runs from the CRD.
  assert.equal(fatal(crd({ type: 'object', required: { a: 1 } }), crds), 'CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: json: cannot unmarshal object into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.required of type []string');
  const r = checkAgainstSchema(crd({ type: 'array', items: { type: 'string', bogus: 1 } }), crds);
  assert.deepEqual(r.unknownFields, []);
  assert.deepEqual(r.unknownFieldSteps, [['spec', 'versions', 0, 'schema', 'openAPIV3Schema', 'properties', 'spec', 'items', 'bogus']]);
});

test('unknown fields are collected as strict decoding paths', () => {
  const body = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', colour: 'red' },
    spec: { replicass: 2, template: { spec: { containers: [{ name: 'c', imagee: 'x' }] } } },
  };
  const r = checkAgainstSchema(body, deployments);
  assert.equal(r.fatal, undefined);
  assert.deepEqual(r.unknownFields, ['metadata.colour', 'spec.replicass', 'spec.template.spec.containers[0].imagee']);
  assert.deepEqual(r.unknownFieldSteps, [['metadata', 'colour'], ['spec', 'replicass'], ['spec', 'template', 'spec', 'containers', 0, 'imagee']]);
  // A path cannot tell an empty key or one with dots; the steps can.
  assert.deepEqual(checkAgainstSchema({ metadata: { '': 1, 'a.b': 2 } }, deployments).unknownFieldSteps, [['metadata', ''], ['metadata', 'a.b']]);
  assert.equal(
    strictDecodingError(body, deployments, r.unknownFields).message,
    'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "metadata.colour", unknown field "spec.replicass", unknown field "spec.template.spec.containers[0].imagee"',
  );
  assert.deepEqual(unknownFieldWarnings(['spec.foo']), ['unknown field "spec.foo"']);
});

test('maps take any key; RawExtension-like fields take anything', () => {
  assert.deepEqual(checkAgainstSchema({ data: { 'any.key': 'v' }, metadata: { annotations: { x: 'y' } } }, configMaps).unknownFields, []);
  const crds = builtinDef('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
  const body = { spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object', default: { anything: [1, 2] } } } }] } };
  assert.deepEqual(checkAgainstSchema(body, crds), { unknownFields: [], unknownFieldSteps: [], reencoded: [], omitted: [] });
});

test('custom resources: pruning rules, no type errors outside metadata', () => {
  const def = customDef({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer' },
          config: { type: 'object', preserveUnknownFields: true },
          template: { type: 'object', embeddedResource: true, properties: { spec: { type: 'object' } } },
          tags: { type: 'object', additionalProperties: { type: 'object', properties: { on: { type: 'boolean' } } } },
          empty: { type: 'object' },
        },
      },
    },
  });
  const r = checkAgainstSchema(
    {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: {
        replicas: 'three',
        config: { free: { form: 1 } },
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', bogus: 1 }, spec: { a: 1 } },
        tags: { blue: { on: true, off: false } },
        empty: { gone: 1 },
        extra: 1,
      },
    },
    def,
  );
  assert.equal(r.fatal, undefined);
  assert.deepEqual(r.unknownFields, ['spec.template.metadata.bogus', 'spec.template.spec.a', 'spec.tags.blue.off', 'spec.empty.gone', 'spec.extra']);
  assert.match(fatal({ metadata: { name: 5 } }, def), /^Widget in version "v1" cannot be handled as a Widget: json: cannot unmarshal number into Go struct field ObjectMeta\.metadata\.name of type string$/);
});
