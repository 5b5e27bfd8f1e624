// kubectl apply of wrong CustomResourceDefinitions against a real Capstan: kube 1.31's messages, field paths and
// Go-printed values (apiextensions-apiserver pkg/apis/apiextensions/validation).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

type Obj = Record<string, unknown>;

const SCHEMA = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'string' } } } } };

function crd(spec: Obj = {}, name = 'gadgets.rules.example.com'): string {
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group: 'rules.example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } }],
      ...spec,
    },
  });
}

const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

describe('CustomResourceDefinition rules through kubectl', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const refused = (input: string) => s.kubectlRefused(['apply', '-f', '-'], { input });

  test('a name that is not plural.group, and a group without a dot', async () => {
    assert.equal(
      await refused(crd({}, 'gadget.rules.example.com')),
      'The CustomResourceDefinition "gadget.rules.example.com" is invalid: metadata.name: Invalid value: "gadget.rules.example.com": must be spec.names.plural+"."+spec.group',
    );
    assert.equal(
      await refused(crd({ group: 'rules' }, 'gadgets.rules')),
      'The CustomResourceDefinition "gadgets.rules" is invalid: spec.group: Invalid value: "rules": should be a domain with at least one dot',
    );
  });

  test('a version name that is not a DNS-1035 label is reported at the version and as spec.version', async () => {
    const versions = [{ name: 'V1', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } }];
    assert.equal(
      await refused(crd({ versions })),
      [
        'The CustomResourceDefinition "gadgets.rules.example.com" is invalid: ',
        `* spec.versions[0].name: Invalid value: "V1": ${DNS1035}`,
        `* spec.version: Invalid value: "V1": ${DNS1035}`,
      ].join('\n'),
    );
  });

  test('two storage versions print the versions as Go does', async () => {
    const versions = ['v1', 'v2'].map((name) => ({ name, served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } }));
    const version = (name: string) =>
      `apiextensions.CustomResourceDefinitionVersion{Name:"${name}", Served:true, Storage:true, Deprecated:false, DeprecationWarning:(*string)(nil), ` +
      'Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), ' +
      'AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}';
    assert.equal(
      await refused(crd({ versions })),
      [
        'The CustomResourceDefinition "gadgets.rules.example.com" is invalid: ',
        `* spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${version('v1')}, ${version('v2')}}: must have exactly one version marked as storage version`,
        '* status.storedVersions: Invalid value: []string{"v1"}: must have the storage version v2',
      ].join('\n'),
    );
  });

  test('missing schema and an untyped field', async () => {
    assert.equal(
      await refused(crd({ versions: [{ name: 'v1', served: true, storage: true }] })),
      'The CustomResourceDefinition "gadgets.rules.example.com" is invalid: spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required',
    );
    const untyped = { type: 'object', properties: { spec: { type: 'object', properties: { size: { description: 'no type' } } } } };
    assert.equal(
      await refused(crd({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: untyped } }] })),
      'The CustomResourceDefinition "gadgets.rules.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].properties[size].type: Required value: must not be empty for specified object fields',
    );
  });

  test('nullable at the root and a labelSelectorPath outside spec and status', async () => {
    assert.equal(
      await refused(crd({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { ...SCHEMA, nullable: true } } }] })),
      'The CustomResourceDefinition "gadgets.rules.example.com" is invalid: spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root',
    );
    const subresources = { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.metadata.labels' } };
    assert.equal(
      await refused(crd({ versions: [{ name: 'v1', served: true, storage: true, subresources, schema: { openAPIV3Schema: SCHEMA } }] })),
      'The CustomResourceDefinition "gadgets.rules.example.com" is invalid: spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status',
    );
  });

  test('a conversion webhook with an http URL and no recognized review version', async () => {
    const conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://convert.example.com/convert' }, conversionReviewVersions: ['v3'] } };
    assert.equal(
      await refused(crd({ conversion })),
      [
        'The CustomResourceDefinition "gadgets.rules.example.com" is invalid: ',
        "* spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
        '* spec.conversion.conversionReviewVersions: Invalid value: []string{"v3"}: must include at least one of v1, v1beta1',
      ].join('\n'),
    );
  });

  test('a rule using the format library 1.31 added is refused on create, as 1.31 compiles new rules in 1.30 terms', async () => {
    const rule = "!format.dns1123Label().validate(self).hasValue()";
    const schema = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'string', maxLength: 63, 'x-kubernetes-validations': [{ rule }] } } } } };
    const versions = [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }];
    assert.equal(
      await refused(crd({ versions })),
      'The CustomResourceDefinition "gadgets.rules.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].properties[size].x-kubernetes-validations[0].rule: ' +
        `Invalid value: apiextensions.ValidationRule{Rule:"${rule}", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ` +
        `ERROR: <input>:1:2: undeclared reference to 'format' (in container '')\n | ${rule}\n | .^\n` +
        `ERROR: <input>:1:21: undeclared reference to 'dns1123Label' (in container '')\n | ${rule}\n | ....................^\n` +
        `ERROR: <input>:1:32: undeclared reference to 'validate' (in container '')\n | ${rule}\n | ...............................^`,
    );
    // the IP and CIDR libraries came in 1.30: a new rule may use them
    const cidr = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'string', maxLength: 63, 'x-kubernetes-validations': [{ rule: 'isCIDR(self)' }] } } } } };
    const applied = await s.kubectl(['apply', '-f', '-'], { input: crd({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: cidr } }] }) });
    assert.equal(applied.stdout.trim(), 'customresourcedefinition.apiextensions.k8s.io/gadgets.rules.example.com created');
  });

  test('a schema error keeps the rules of its own node and those above it from compiling, not a sibling rule', async () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-validations': [{ rule: 'self.size' }],
          properties: { size: { type: 'text' }, count: { type: 'integer', 'x-kubernetes-validations': [{ rule: "self == 'x'" }] } },
        },
      },
    };
    assert.equal(
      await refused(crd({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] }, 'widgets.rules.example.com').replaceAll('gadget', 'widget').replaceAll('Gadget', 'Widget')),
      [
        'The CustomResourceDefinition "widgets.rules.example.com" is invalid: ',
        '* spec.validation.openAPIV3Schema.properties[spec].properties[size].type: Unsupported value: "text": supported values: "array", "boolean", "integer", "number", "object", "string"',
        `* spec.validation.openAPIV3Schema.properties[spec].properties[count].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self == 'x'", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:6: found no matching overload for '_==_' applied to '(int, string)'`,
        ' | self == \'x\'',
        ' | .....^',
      ].join('\n'),
    );
  });
});
