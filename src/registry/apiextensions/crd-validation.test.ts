import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../apis/errors.ts';
import type { CustomResourceDefinition, CrdVersion } from './crd-types.ts';
import { validateCrd, validateCrdUpdate } from './crd-validation.ts';
import { issueCertificate } from '../../server/certificates.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

const SCHEMA = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'string' } } } } };

function crd(versions: CrdVersion[], extra: Partial<CustomResourceDefinition['spec']> = {}): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' }, conversion: { strategy: 'None' }, versions, ...extra },
    status: { storedVersions: ['v1'] },
  } as CustomResourceDefinition;
}

const messages = (c: CustomResourceDefinition) => validateCrd(c).map(fieldErrorString);
const NIL_VERSION_TAIL = 'Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}';

test('two storage versions: the versions print as Go does, a hoisted schema nil and a per-version one as an address', () => {
  const same = messages(crd([
    { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } },
    { name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } },
  ]));
  assert.deepEqual(same, [
    'spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{' +
      `apiextensions.CustomResourceDefinitionVersion{Name:"v1", Served:true, Storage:true, Deprecated:false, DeprecationWarning:(*string)(nil), ${NIL_VERSION_TAIL}, ` +
      `apiextensions.CustomResourceDefinitionVersion{Name:"v2", Served:true, Storage:true, Deprecated:false, DeprecationWarning:(*string)(nil), ${NIL_VERSION_TAIL}}: must have exactly one version marked as storage version`,
    // create records only the first storage version, as kube's PrepareForCreate does
    'status.storedVersions: Invalid value: []string{"v1"}: must have the storage version v2',
  ]);
  const differing = messages(crd([
    { name: 'v1', served: true, storage: false, schema: { openAPIV3Schema: SCHEMA }, deprecated: true, deprecationWarning: 'old' },
    { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
  ]));
  assert.equal(differing.length, 1);
  assert.match(differing[0], /^spec\.versions: Invalid value: \[\]apiextensions\.CustomResourceDefinitionVersion\{apiextensions\.CustomResourceDefinitionVersion\{Name:"v1", Served:true, Storage:false, Deprecated:true, DeprecationWarning:\(\*string\)\("old"\), Schema:\(\*apiextensions\.CustomResourceValidation\)\(0xc000a1b2c0\), /);
  assert.match(differing[0], /: must have exactly one version marked as storage version$/);
});

test('a version name that is not a DNS-1035 label is reported at the version and again as spec.version', () => {
  const label = 'a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')';
  assert.deepEqual(messages(crd([{ name: 'V1', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } }], {}) as never).filter((m) => !m.startsWith('status')), [
    `spec.versions[0].name: Invalid value: "V1": ${label}`,
    `spec.version: Invalid value: "V1": ${label}`,
  ]);
});

test('scale labelSelectorPath may be under .spec or .status', () => {
  const scaled = (labelSelectorPath: string) =>
    messages(crd([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA }, subresources: { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath } } }]));
  assert.deepEqual(scaled('.spec.selector'), []);
  assert.deepEqual(scaled('.metadata.labels'), ['spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status']);
});

test('conversion webhook errors are reported on the internal field names with the webhook URL checks', () => {
  const webhook = (webhook: unknown) => messages(crd([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } }], { conversion: { strategy: 'Webhook', webhook } as never }));
  assert.deepEqual(webhook(null), ['spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook', 'spec.conversion.conversionReviewVersions: Required value']);
  assert.deepEqual(webhook({ clientConfig: { url: 'http://example.com/convert' }, conversionReviewVersions: ['v2'] }), [
    'spec.conversion.webhookClientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
    'spec.conversion.conversionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
  ]);
  assert.deepEqual(webhook({ clientConfig: { service: { namespace: 'ns', port: 443 } }, conversionReviewVersions: ['v1'] }), ['spec.conversion.webhookClientConfig.service.namespace: Required value']);
});

test('preserveUnknownFields with defaults, and selectable fields without a schema', () => {
  const withDefault = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'string', default: 'm' } } } } };
  const errs = messages(crd([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: withDefault } }], { preserveUnknownFields: true }));
  assert.deepEqual(errs, [
    'spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema',
    'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
  ]);
  const differing = messages(crd([
    { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA }, selectableFields: [{ jsonPath: '.spec.size' }] },
    { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: SCHEMA } },
  ]));
  assert.deepEqual(differing, ['spec.versions[0].selectableFields: Invalid value: "": selectableFields may only be set when version.schema.openAPIV3Schema is not included']);
});

test('status subresource: a root keyword outside the allowed list prints the root schema as Go does', () => {
  const errs = messages(crd([{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', minProperties: 1, properties: { spec: { type: 'object' } } } } }]));
  assert.equal(errs.length, 1);
  assert.match(errs[0], /^spec\.validation\.openAPIV3Schema: Invalid value: apiextensions\.JSONSchemaProps\{ID:"", Schema:"", Ref:\(\*string\)\(nil\), Description:"", Type:"object", Nullable:false, /);
  assert.match(errs[0], /MinProperties:\(\*int64\)\(1\), /);
  assert.match(errs[0], /Properties:map\[string\]apiextensions\.JSONSchemaProps\{"spec":apiextensions\.JSONSchemaProps\{ID:"", /);
  assert.match(errs[0], /XValidations:apiextensions\.ValidationRules\(nil\)\}: only \[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations\] fields are allowed at the root of the schema if the status subresource is enabled$/);
});

test('update: rules the stored CRD already broke are not enforced', () => {
  const badType = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'text' } } } } };
  const old = crd([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: badType } }]);
  const next = crd([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: badType } }]);
  old.metadata.resourceVersion = '5';
  next.metadata.resourceVersion = '5';
  next.metadata.labels = { a: 'b' };
  assert.deepEqual(validateCrdUpdate(next, old).map(fieldErrorString), []);
  assert.deepEqual(messages(next), ['spec.validation.openAPIV3Schema.properties[spec].properties[size].type: Unsupported value: "text": supported values: "array", "boolean", "integer", "number", "object", "string"']);
});

test('conversion caBundle: anything on create, and an established CRD may not turn a valid caBundle invalid', async () => {
  const ca = await issueCertificate({ subject: { commonName: 'ca' }, notBefore: new Date('2024-01-01T00:00:00Z'), notAfter: new Date('2034-01-01T00:00:00Z'), isCa: true });
  const withBundle = (caBundle: string) => {
    const c = crd([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } }], {
      conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://example.com/convert', caBundle }, conversionReviewVersions: ['v1'] } },
    });
    c.metadata.resourceVersion = '5';
    return c;
  };
  const established = (c: CustomResourceDefinition) => ({ ...c, status: { ...c.status, conditions: [{ type: 'Established', status: 'True' }] } }) as CustomResourceDefinition;
  const valid = Buffer.from(ca.certPem).toString('base64');
  const invalid = Buffer.from('x').toString('base64');
  const refused = ['spec.conversion.webhookClientConfig.caBundle: Invalid value: []byte{0x78}: unable to load root certificates: unable to parse bytes as PEM block'];
  assert.deepEqual(messages(withBundle(invalid)), []);
  assert.deepEqual(validateCrdUpdate(withBundle(invalid), withBundle(valid)).map(fieldErrorString), []);
  assert.deepEqual(validateCrdUpdate(withBundle(invalid), established(withBundle(valid))).map(fieldErrorString), refused);
  assert.deepEqual(validateCrdUpdate(withBundle(invalid), established(crd([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } }]))).map(fieldErrorString), refused);
  assert.deepEqual(validateCrdUpdate(withBundle(invalid), established(withBundle(Buffer.from('y').toString('base64')))).map(fieldErrorString), []);
});

test('a rule without its expression is reported beside the other schema errors, which keep CEL from compiling', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: { type: 'object', uniqueItems: true, 'x-kubernetes-validations': [{ rule: 'self.size(' }], properties: { size: { type: 'string', 'x-kubernetes-validations': [{ rule: ' ', reason: 'Nope' as never }] } } },
    },
  };
  assert.deepEqual(messages(crd([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }])), [
    'spec.validation.openAPIV3Schema.properties[spec].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
    'spec.validation.openAPIV3Schema.properties[spec].properties[size].x-kubernetes-validations[0].rule: Required value: rule is not specified',
    'spec.validation.openAPIV3Schema.properties[spec].properties[size].x-kubernetes-validations[0].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
  ]);
});

// kube 1.31 compiles the expressions a write brings in with its compatibility version's (1.30) libraries, which
// lack the format library 1.31 added; the ones the stored CRD already held compile with everything.
test('CEL rules new to a CRD compile without the format library; rules the stored CRD held keep it', () => {
  const rule = '!format.dns1123Label().validate(self).hasValue()';
  const withRule = (extra: Record<string, unknown>) =>
    crd([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { name: { type: 'string', maxLength: 63, ...extra } } } } } } }]);
  const next = withRule({ 'x-kubernetes-validations': [{ rule }] });
  const bare = withRule({});
  for (const c of [next, bare]) c.metadata.resourceVersion = '5';
  const path = 'spec.validation.openAPIV3Schema.properties[spec].properties[name].x-kubernetes-validations[0].rule';
  const refusal =
    `${path}: Invalid value: apiextensions.ValidationRule{Rule:"${rule}", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ` +
    `ERROR: <input>:1:2: undeclared reference to 'format' (in container '')\n | ${rule}\n | .^\n` +
    `ERROR: <input>:1:21: undeclared reference to 'dns1123Label' (in container '')\n | ${rule}\n | ....................^\n` +
    `ERROR: <input>:1:32: undeclared reference to 'validate' (in container '')\n | ${rule}\n | ...............................^`;
  assert.deepEqual(messages(next), [refusal]);
  assert.deepEqual(validateCrdUpdate(next, bare).map(fieldErrorString), [refusal]);
  // the same rule text anywhere in the old CRD makes it a stored one
  const anywhere = "format.named('uuid').hasValue()";
  const atRoot = crd([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-validations': [{ rule: anywhere }], properties: { spec: { type: 'object' } } } } }]);
  const moved = withRule({ 'x-kubernetes-validations': [{ rule: anywhere }] });
  for (const c of [atRoot, moved]) c.metadata.resourceVersion = '5';
  assert.deepEqual(validateCrdUpdate(moved, atRoot).map(fieldErrorString), []);
  assert.equal(validateCrdUpdate(moved, bare).length, 1);
  assert.deepEqual(validateCrdUpdate(next, withRule({ 'x-kubernetes-validations': [{ rule, message: 'not a label' }] })).map(fieldErrorString), []);
  // messageExpressions likewise
  const messageExpression = "format.dns1123Label().validate(self).value().join(', ')";
  const withMessage = withRule({ 'x-kubernetes-validations': [{ rule: 'self.size() > 1', messageExpression }] });
  withMessage.metadata.resourceVersion = '5';
  assert.match(messages(withMessage)[0], /x-kubernetes-validations\[0\]\.messageExpression: Invalid value: apiextensions\.ValidationRule\{.*\}: messageExpression compilation failed: ERROR: <input>:1:1: undeclared reference to 'format'/);
  assert.deepEqual(validateCrdUpdate(withMessage, withMessage).map(fieldErrorString), []);
});

test('update: a version whose schema is unchanged is not held to the per-expression cost limit, the total limit stays', () => {
  const costly = (maxLength?: number) => ({
    type: 'object',
    properties: { spec: { type: 'object', properties: { list: { type: 'array', items: { type: 'string', maxLength: 63, 'x-kubernetes-validations': [{ rule: "self.contains('gpu')" }] } }, note: { type: 'string', maxLength } } } },
  });
  const old = crd([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: costly() } }]);
  old.metadata.resourceVersion = '5';
  const relabelled = structuredClone(old);
  relabelled.metadata.labels = { a: 'b' };
  const forbidden = 'spec.validation.openAPIV3Schema.properties[spec].properties[list].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 2.9x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
  assert.deepEqual(messages(old), [forbidden]);
  assert.deepEqual(validateCrdUpdate(relabelled, old).map(fieldErrorString), []);
  const changed = crd([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: costly(10) } }]);
  changed.metadata.resourceVersion = '5';
  assert.deepEqual(validateCrdUpdate(changed, old).map(fieldErrorString), [forbidden]);
  // a second version with its own schema: only the changed one is checked, under its own path
  const two = (v2: JSONSchemaProps) => {
    const c = crd([
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: costly() } },
      { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: v2 } },
    ]);
    c.metadata.resourceVersion = '5';
    return c;
  };
  assert.deepEqual(validateCrdUpdate(two(costly(10)), two(SCHEMA)).map(fieldErrorString), [forbidden.replace('spec.validation', 'spec.versions[1].schema')]);
});
