// Validation of a CustomResourceDefinition as apiextensions-apiserver 1.31 does it (pkg/apis/apiextensions/
// validation/validation.go, on the internal form: see crd-layout.ts for why paths say spec.validation): names,
// group, scope, versions, schemas (structural checks in ./schema, CEL rules in ./cel-rules.ts), subresources,
// printer columns, selectable fields, conversion, stored versions, API approval and preserveUnknownFields.

import { fieldErrors, type FieldError } from '../../apis/errors.ts';
import { goStrings } from '../../apis/go-bad-values.ts';
import { reviewVersionListErrors, validateWebhookService, validateWebhookURL } from '../builtin/admissionregistration/webhook-client.ts';
import { validateCABundle } from '../../webhook/ca-bundle.ts';
import { semanticEqual } from '../builtin/object.ts';
import { validateObjectMeta, validateObjectMetaUpdate, validateImmutableField } from '../validation/meta.ts';
import { isDNS1035Label, isDNS1123Subdomain, nameIsDNSSubdomain } from '../validation/names.ts';
import { compileValidationRules, preexistingExpressions, ruleFieldErrors, type PreexistingExpressions } from './cel-rules.ts';
import { crdLayout, type CrdLayout } from './crd-layout.ts';
import { crdConditionTrue, type CrdColumn, type CrdConversion, type CrdNames, type CrdSelectableField, type CrdSpec, type CrdSubresources, type CrdVersion, type CustomResourceDefinition } from './crd-types.ts';
import { goCrdVersions } from './go-crd-values.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { isPrint } from '../../encoding/go-format.ts';
import { hasDefaults, hasKubernetesExtensions, ratchetsFromOld, STRICT_RATCHETS, checkCrdSchema, type CrdSchemaOptions, type SchemaRatchets } from './schema/index.ts';
import { structuralConversionError } from './schema/structural.ts';
import { validateSelectableFieldPath } from './selectable-fields.ts';

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const ACCEPTED_CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const MAX_SELECTABLE_FIELDS = 8;
const API_APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';
interface Options extends SchemaRatchets {
  /** Names (kind, scope) may not change once the CRD is established. */
  requireImmutableNames: boolean;
  /** conversionReviewVersions must name one this server understands (unless the stored CRD already did not). */
  requireRecognizedConversionReviewVersion: boolean;
  /** An invalid conversion caBundle is let through: on create, before the CRD is established, or when it already was invalid. */
  allowInvalidCABundle: boolean;
  /** On update, the stored CRD's CEL expressions: they compile in the stored environment, the others as new ones. */
  preexistingExpressions?: PreexistingExpressions;
  /** On update, the versions whose schema the update leaves as it was (kube's versionsWithUnchangedSchemas). */
  versionsWithUnchangedSchemas?: ReadonlySet<string>;
}

function validateNames(names: CrdNames | undefined, path: string): FieldError[] {
  const n = names ?? {};
  const errs: FieldError[] = [];
  const label = (v: string | undefined, p: string, mixedCase = false) => {
    if (!v) return;
    const msgs = isDNS1035Label(mixedCase ? v.toLowerCase() : v);
    if (msgs.length) errs.push(fieldErrors.invalid(p, v, mixedCase ? `may have mixed case, but should otherwise match: ${msgs.join(',')}` : msgs.join(',')));
  };
  label(n.plural, `${path}.plural`);
  label(n.singular, `${path}.singular`);
  label(n.kind, `${path}.kind`, true);
  label(n.listKind, `${path}.listKind`, true);
  (n.shortNames ?? []).forEach((s, i) => {
    const msgs = isDNS1035Label(s);
    if (msgs.length) errs.push(fieldErrors.invalid(`${path}.shortNames[${i}]`, s, msgs.join(',')));
  });
  if (n.kind && n.kind === n.listKind) errs.push(fieldErrors.invalid(`${path}.listKind`, n.listKind, 'kind and listKind may not be the same'));
  (n.categories ?? []).forEach((c, i) => {
    const msgs = isDNS1035Label(c);
    if (msgs.length) errs.push(fieldErrors.invalid(`${path}.categories[${i}]`, c, msgs.join(',')));
  });
  return errs;
}

function validateSimpleJsonPath(s: string, path: string): FieldError[] {
  if (s.length === 0) return [fieldErrors.invalid(path, s, 'must not be empty')];
  if (s[0] !== '.') return [fieldErrors.invalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

function validateSubresources(sub: CrdSubresources | undefined, path: string): FieldError[] {
  const scale = sub?.scale;
  if (!scale) return [];
  const errs: FieldError[] = [];
  const under = (value: string | undefined, field: string, prefixes: string[], where: string, required: boolean) => {
    const p = `${path}.scale.${field}`;
    if (!value) {
      if (required) errs.push(fieldErrors.required(p));
      return;
    }
    const syntax = validateSimpleJsonPath(value, p);
    if (syntax.length) errs.push(...syntax);
    else if (!prefixes.some((prefix) => value.startsWith(prefix))) errs.push(fieldErrors.invalid(p, value, `should be a json path under ${where}`));
  };
  under(scale.specReplicasPath, 'specReplicasPath', ['.spec.'], '.spec', true);
  under(scale.statusReplicasPath, 'statusReplicasPath', ['.status.'], '.status', true);
  under(scale.labelSelectorPath, 'labelSelectorPath', ['.spec.', '.status.'], 'either .spec or .status', false);
  return errs;
}

function validateColumn(col: CrdColumn, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!col.name) errs.push(fieldErrors.required(`${path}.name`));
  const types = `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`;
  if (!col.type) errs.push(fieldErrors.required(`${path}.type`, types));
  else if (!PRINTER_COLUMN_TYPES.includes(col.type)) errs.push(fieldErrors.invalid(`${path}.type`, col.type, types));
  if (col.format && !PRINTER_COLUMN_FORMATS.includes(col.format)) {
    errs.push(fieldErrors.invalid(`${path}.format`, col.format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`));
  }
  if (!col.jsonPath) errs.push(fieldErrors.required(`${path}.JSONPath`));
  else errs.push(...validateSimpleJsonPath(col.jsonPath, `${path}.JSONPath`));
  return errs;
}

/** ValidateCustomResourceSelectableFields against a schema NewStructural accepted. */
function validateSelectableFields(fields: readonly CrdSelectableField[], schema: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const unique = new Set<string>();
  fields.forEach((f, i) => {
    const p = `${path}[${i}].jsonPath`;
    if (!f.jsonPath) {
      errs.push(fieldErrors.required(p));
      return;
    }
    const checked = validateSelectableFieldPath(f.jsonPath, schema);
    if ('error' in checked) {
      errs.push(fieldErrors.invalid(p, f.jsonPath, checked.error));
      return;
    }
    if (checked.root === 'metadata') errs.push(fieldErrors.invalid(p, f.jsonPath, 'must not point to fields in metadata'));
    if (!['string', 'boolean', 'integer'].includes(checked.type ?? '')) {
      errs.push(fieldErrors.invalid(p, f.jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (unique.has(checked.normalized)) errs.push(fieldErrors.duplicate(p, f.jsonPath));
    else unique.add(checked.normalized);
  });
  if (unique.size > MAX_SELECTABLE_FIELDS) errs.push(fieldErrors.tooMany(path, unique.size, MAX_SELECTABLE_FIELDS));
  return errs;
}

/**
 * validateCustomResourceDefinitionValidation for one schema at `path` (".../validation" or ".../schema"); `version`
 * names the version whose schema it is (the first one for the shared schema), whose unchanged schema keeps its
 * expressions clear of the per-expression cost limit.
 */
function validateValidation(schema: JSONSchemaProps | undefined, statusEnabled: boolean, opts: Options, version: string | undefined, path: string): FieldError[] {
  if (!schema) return [];
  const schemaOptions: CrdSchemaOptions = {
    requireStructural: opts.requireStructural,
    statusSubresource: statusEnabled,
    requirePrunedDefaults: opts.requirePrunedDefaults,
    requireValidPropertyType: opts.requireValidPropertyType,
    requireAtomicSetType: opts.requireAtomicSetType,
    requireMapListKeysMapSetValidation: opts.requireMapListKeysMapSetValidation,
  };
  const checked = checkCrdSchema(schema, `${path}.openAPIV3Schema`, schemaOptions);
  const suppressPerExpressionCost = version !== undefined && (opts.versionsWithUnchangedSchemas?.has(version) ?? false);
  // on create every expression is new
  const preexisting = opts.preexistingExpressions ?? { rules: new Set<string>(), messageExpressions: new Set<string>() };
  // CEL rules compile node by node where kube's CELSchemaContext lets them (see RuleCompileOptions.gate); the checks of
  // a rule's own fields are schema checks, made either way
  const rulesPath = `${path}.openAPIV3Schema`;
  if (!checked.celAllowed) return [...checked.errors, ...ruleFieldErrors(schema, rulesPath)];
  const gate = { celAllowed: true, nodeErrors: checked.nodeErrors };
  return [...checked.errors, ...compileValidationRules(schema, rulesPath, { preexisting, suppressPerExpressionCost, gate }).errors];
}

function isValidUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * validateCustomResourceConversion on the internal form: v1's webhook.clientConfig and webhook.conversionReviewVersions
 * are reported as webhookClientConfig and conversionReviewVersions, directly under spec.conversion.
 */
function validateConversion(conversion: CrdConversion | null | undefined, opts: Options, path: string): FieldError[] {
  if (!conversion) return [];
  const errs: FieldError[] = [];
  const strategy = conversion.strategy ?? '';
  if (strategy === '') errs.push(fieldErrors.required(`${path}.strategy`));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(fieldErrors.notSupported(`${path}.strategy`, strategy, ['None', 'Webhook']));
  const clientConfig = conversion.webhook?.clientConfig ?? undefined;
  const reviewVersions = conversion.webhook?.conversionReviewVersions ?? undefined;
  const ccPath = `${path}.webhookClientConfig`;
  if (strategy === 'Webhook') {
    if (!clientConfig) errs.push(fieldErrors.required(ccPath, 'required when strategy is set to Webhook'));
    else if ((clientConfig.url === undefined) === (clientConfig.service === undefined)) errs.push(fieldErrors.required(ccPath, 'exactly one of url or service is required'));
    else if (clientConfig.url !== undefined) errs.push(...validateWebhookURL(`${ccPath}.url`, clientConfig.url));
    // ValidateWebhookService takes (namespace, name); kube passes the service's name first, as admission webhooks do
    else errs.push(...validateWebhookService(`${ccPath}.service`, { ...clientConfig.service }, true));
    if (clientConfig?.caBundle && !opts.allowInvalidCABundle) errs.push(...validateCABundle(`${ccPath}.caBundle`, clientConfig.caBundle));
    errs.push(...validateConversionReviewVersions(reviewVersions ?? [], opts.requireRecognizedConversionReviewVersion, `${path}.conversionReviewVersions`));
  } else {
    if (clientConfig) errs.push(fieldErrors.forbidden(ccPath, 'should not be set when strategy is not set to Webhook'));
    if ((reviewVersions?.length ?? 0) > 0) errs.push(fieldErrors.forbidden(`${path}.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

function validateConversionReviewVersions(versions: readonly string[], requireRecognizedVersion: boolean, path: string): FieldError[] {
  if (versions.length === 0) return [fieldErrors.required(path)];
  return reviewVersionListErrors(versions, ACCEPTED_CONVERSION_REVIEW_VERSIONS, requireRecognizedVersion, path);
}

/** allowInvalidCABundle: until the stored CRD is established anything goes; after, only an already invalid caBundle may stay invalid. */
function allowsInvalidCABundle(old: CustomResourceDefinition): boolean {
  if (!crdConditionTrue(old, 'Established')) return true;
  const caBundle = old.spec.conversion?.webhook?.clientConfig?.caBundle;
  if (!caBundle) return false;
  return validateCABundle('caBundle', caBundle).length > 0;
}

/** hasValidConversionReviewVersionOrEmpty of the stored CRD: whether a recognized review version stays required. */
function requiresRecognizedReviewVersion(old: CustomResourceDefinition): boolean {
  const versions = old.spec.conversion?.webhook?.conversionReviewVersions ?? [];
  return versions.length === 0 || versions.some((v) => ACCEPTED_CONVERSION_REVIEW_VERSIONS.includes(v));
}

function validateDeprecationWarning(deprecated: boolean, warning: string | undefined): string[] {
  if (!deprecated && warning !== undefined) return ['can only be set for deprecated versions'];
  if (warning === undefined) return [];
  const msgs: string[] = [];
  if (warning.length > 256) msgs.push('must be <= 256 characters long');
  if (warning.length === 0) msgs.push('must not be an empty string');
  let index = 0;
  for (const ch of warning) {
    if (/\p{Cc}/u.test(ch)) {
      msgs.push(`must only contain printable UTF-8 characters; control character found at index ${index}`);
      break;
    }
    if (!isPrint(ch)) {
      msgs.push(`must only contain printable UTF-8 characters; non-printable character found at index ${index}`);
      break;
    }
    index += Buffer.byteLength(ch);
  }
  return msgs;
}

const versionSchemas = (spec: CrdSpec): (JSONSchemaProps | undefined)[] => (spec.versions ?? []).map((v) => v.schema?.openAPIV3Schema ?? undefined);

/** The names of the versions whose schema an update leaves semantically equal (kube's findVersionsWithUnchangedSchemas). */
function versionsWithUnchangedSchemas(spec: CrdSpec, oldSpec: CrdSpec): Set<string> {
  const unchanged = new Set<string>();
  for (const v of spec.versions ?? []) {
    const old = (oldSpec.versions ?? []).find((o) => o.name === v.name);
    if (old && semanticEqual(v.schema?.openAPIV3Schema, old.schema?.openAPIV3Schema)) unchanged.add(v.name ?? '');
  }
  return unchanged;
}

function validateGroup(group: string): FieldError[] {
  if (group === '') return [fieldErrors.required('spec.group')];
  const msgs = isDNS1123Subdomain(group);
  if (msgs.length) return [fieldErrors.invalid('spec.group', group, msgs.join(','))];
  if (group.split('.').length < 2) return [fieldErrors.invalid('spec.group', group, 'should be a domain with at least one dot')];
  return [];
}

/** The schema checks that need every version: a schema in each, and no defaults while unknown fields are kept. */
function validateSchemaPresence(spec: CrdSpec, layout: CrdLayout, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const preserveUnknown = spec.preserveUnknownFields === true;
  if (!layout.schema.top) {
    (spec.versions ?? []).forEach((v, i) => {
      const p = `spec.versions[${i}].schema.openAPIV3Schema`;
      if (v.schema?.openAPIV3Schema) return;
      if (opts.requireOpenAPISchema) errs.push(fieldErrors.required(p, 'schemas are required'));
      else if (!preserveUnknown && v.served) errs.push(fieldErrors.required(p, 'because otherwise all fields are pruned'));
    });
  }
  if (preserveUnknown && versionSchemas(spec).some(hasDefaults)) {
    errs.push(fieldErrors.invalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));
  }
  return errs;
}

/** Selectable fields need a schema NewStructural accepts; `schemaPath` is where kube reports its refusal. */
function validateSelectableFieldsWithSchema(fields: readonly CrdSelectableField[], schema: JSONSchemaProps, schemaPath: string, path: string): FieldError[] {
  const refusal = structuralConversionError(schema);
  if (refusal !== undefined) return [fieldErrors.invalid(schemaPath, '', refusal)];
  return validateSelectableFields(fields, schema, path);
}

/** validateCustomResourceDefinitionVersion: what stays in a version once shared settings moved up. */
function validateVersion(v: CrdVersion, layout: CrdLayout, statusEnabled: boolean, opts: Options, p: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const m of validateDeprecationWarning(v.deprecated === true, v.deprecationWarning)) errs.push(fieldErrors.invalid(`${p}.deprecationWarning`, v.deprecationWarning ?? null, m));
  if (!layout.schema.hoisted) errs.push(...validateValidation(v.schema?.openAPIV3Schema, statusEnabled, opts, v.name, `${p}.schema`));
  if (!layout.subresources.hoisted) errs.push(...validateSubresources(v.subresources ?? undefined, `${p}.subresources`));
  if (!layout.columns.hoisted) (v.additionalPrinterColumns ?? []).forEach((c, j) => errs.push(...validateColumn(c, `${p}.additionalPrinterColumns[${j}]`)));
  const fields = layout.selectableFields.hoisted ? [] : (v.selectableFields ?? []);
  if (fields.length > 0) {
    // a hoisted schema is no longer in the version, so its selectable fields find none
    const schema = layout.schema.hoisted ? undefined : v.schema?.openAPIV3Schema;
    if (!schema) errs.push(fieldErrors.invalid(`${p}.selectableFields`, '', 'selectableFields may only be set when version.schema.openAPIV3Schema is not included'));
    else errs.push(...validateSelectableFieldsWithSchema(fields, schema, `${p}.schema.openAPIV3Schema`, `${p}.selectableFields`));
  }
  return errs;
}

function validateVersions(spec: CrdSpec, layout: CrdLayout, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const versions = spec.versions ?? [];
  let storageCount = 0;
  const names = new Set<string>();
  let uniqueNames = true;
  versions.forEach((v, i) => {
    const p = `spec.versions[${i}]`;
    if (v.storage) storageCount++;
    const name = v.name ?? '';
    if (names.has(name)) uniqueNames = false;
    names.add(name);
    const msgs = isDNS1035Label(name);
    if (msgs.length) errs.push(fieldErrors.invalid(`${p}.name`, name, msgs.join(',')));
    errs.push(...validateVersion(v, layout, hasStatusSubresource(v), opts, p));
  });
  if (!uniqueNames) errs.push(fieldErrors.invalid('spec.versions', goCrdVersions(versions, layout), 'must contain unique version names'));
  if (storageCount !== 1) errs.push(fieldErrors.invalid('spec.versions', goCrdVersions(versions, layout), 'must have exactly one version marked as storage version'));
  // the internal form's spec.version is versions[0].name, checked once more on its own
  const first = versions[0]?.name ?? '';
  if (first !== '') {
    const msgs = isDNS1035Label(first);
    if (msgs.length) errs.push(fieldErrors.invalid('spec.version', first, msgs.join(',')));
  }
  return errs;
}

const hasStatusSubresource = (v: CrdVersion): boolean => v.subresources?.status !== undefined && v.subresources?.status !== null;

function validateRequiredNames(n: CrdNames): FieldError[] {
  const missing = (['plural', 'singular', 'kind', 'listKind'] as const).filter((k) => !n[k]);
  return missing.map((k) => fieldErrors.required(`spec.names.${k}`));
}

/** What kube validates at the top level of the internal form: the settings every version shares. */
function validateTopLevel(spec: CrdSpec, layout: CrdLayout, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const statusEnabledAnywhere = (spec.versions ?? []).some((v) => hasStatusSubresource(v));
  if (layout.schema.hoisted) errs.push(...validateValidation(layout.schema.top, statusEnabledAnywhere, opts, spec.versions?.[0]?.name, 'spec.validation'));
  if (layout.subresources.hoisted) errs.push(...validateSubresources(layout.subresources.top, 'spec.subresources'));
  if (layout.columns.hoisted) (layout.columns.top ?? []).forEach((c, j) => errs.push(...validateColumn(c, `spec.additionalPrinterColumns[${j}]`)));
  const fields = layout.selectableFields.hoisted ? (layout.selectableFields.top ?? []) : [];
  if (fields.length > 0) {
    const validation = spec.versions?.[0]?.schema;
    if (!validation) errs.push(fieldErrors.invalid('spec.selectableFields', '', 'selectableFields may only be set when validations.schema is included'));
    else if (validation.openAPIV3Schema) {
      // kube names the schema "spec.schema.openAPIV3Schema" here, a path that does not exist
      errs.push(...validateSelectableFieldsWithSchema(fields, validation.openAPIV3Schema, 'spec.schema.openAPIV3Schema', 'spec.selectableFields'));
    }
  }
  return errs;
}

function validateSpec(spec: CrdSpec, layout: CrdLayout, options: Options): FieldError[] {
  const preserveUnknown = spec.preserveUnknownFields === true;
  const schemas = versionSchemas(spec);
  // pruning, defaults and x-kubernetes-* extensions each need a structural schema
  const requireStructural = options.requireStructural || !preserveUnknown || schemas.some(hasDefaults) || schemas.some(hasKubernetesExtensions);
  const opts: Options = { ...options, requireStructural };
  const errs: FieldError[] = [...validateGroup(spec.group ?? '')];
  const scope = spec.scope ?? '';
  if (scope === '') errs.push(fieldErrors.required('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(fieldErrors.notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));
  errs.push(...validateSchemaPresence(spec, layout, opts));
  errs.push(...validateVersions(spec, layout, opts));
  errs.push(...validateRequiredNames(spec.names ?? {}));
  errs.push(...validateNames(spec.names, 'spec.names'));
  errs.push(...validateTopLevel(spec, layout, opts));
  const strategy = spec.conversion?.strategy;
  if (spec.conversion && strategy !== 'None' && preserveUnknown) {
    errs.push(fieldErrors.invalid('spec.conversion.strategy', strategy ?? '', 'must be None if spec.preserveUnknownFields is true'));
  }
  errs.push(...validateConversion(spec.conversion, opts, 'spec.conversion'));
  return errs;
}

function validateStoredVersions(crd: CustomResourceDefinition): FieldError[] {
  const stored = crd.status?.storedVersions ?? [];
  const path = 'status.storedVersions';
  if (stored.length === 0) return [fieldErrors.invalid(path, goStrings(crd.status?.storedVersions), 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map(stored.map((v, i) => [v, i]));
  for (const v of crd.spec.versions ?? []) {
    const name = v.name ?? '';
    if (v.storage && !remaining.has(name)) errs.push(fieldErrors.invalid(path, goStrings(stored), `must have the storage version ${name}`));
    remaining.delete(name);
  }
  for (const [v, i] of remaining) {
    errs.push(
      fieldErrors.invalid(
        `${path}[${i}]`,
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  }
  return errs;
}

/** apihelpers.IsProtectedCommunityGroup: groups under k8s.io and kubernetes.io need the approval annotation. */
function isProtectedGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
}

type ApprovalState = 'approved' | 'bypassed' | 'missing' | 'invalid';

function approvalState(annotations: Record<string, string> | undefined): ApprovalState {
  const value = annotations?.[API_APPROVAL_ANNOTATION];
  if (value === undefined) return 'missing';
  if (value.startsWith('unapproved')) return 'bypassed';
  const u = isValidUrl(value);
  return u && u.protocol !== '' && u.host !== '' ? 'approved' : 'invalid';
}

function validateApiApproval(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  if (!isProtectedGroup(crd.spec.group ?? '')) return [];
  const next = approvalState(crd.metadata.annotations);
  if (old && approvalState(old.metadata.annotations) === next) return [];
  const path = `metadata.annotations[${API_APPROVAL_ANNOTATION}]`;
  if (next === 'missing') {
    return [fieldErrors.required(path, `protected groups must have approval annotation "${API_APPROVAL_ANNOTATION}", see https://github.com/kubernetes/enhancements/pull/1111`)];
  }
  if (next === 'invalid') {
    return [
      fieldErrors.invalid(
        path,
        crd.metadata.annotations?.[API_APPROVAL_ANNOTATION] ?? '',
        `protected groups must have approval annotation "${API_APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
      ),
    ];
  }
  return [];
}

function validatePreserveUnknownFields(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  if (old?.spec.preserveUnknownFields === true) return [];
  if (crd.spec.preserveUnknownFields !== true) return [];
  return [fieldErrors.invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead')];
}

function crdNameErrors(crd: CustomResourceDefinition) {
  const required = `${crd.spec.names?.plural ?? ''}.${crd.spec.group ?? ''}`;
  return (name: string, prefix: boolean): string[] => {
    const msgs = nameIsDNSSubdomain(name, prefix);
    return name === required ? msgs : [...msgs, 'must be spec.names.plural+"."+spec.group'];
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The CRD with its spec, names, versions and status in the shapes validation reads (decoding let through the rest). */
function wellShaped(obj: CustomResourceDefinition): CustomResourceDefinition {
  const spec: CrdSpec = isRecord(obj.spec) ? { ...obj.spec } : {};
  if (!isRecord(spec.names)) delete spec.names;
  spec.versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
  const status = isRecord(obj.status) ? obj.status : undefined;
  return { ...obj, metadata: isRecord(obj.metadata) ? obj.metadata : {}, spec, ...(status ? { status } : {}) };
}

export function validateCrd(obj: CustomResourceDefinition): FieldError[] {
  const crd = wellShaped(obj);
  const spec = crd.spec;
  return [
    ...validateObjectMeta(crd.metadata, { namespaced: false, nameFn: crdNameErrors(crd) }),
    ...validateSpec(spec, crdLayout(spec), { ...STRICT_RATCHETS, requireImmutableNames: false, requireRecognizedConversionReviewVersion: true, allowInvalidCABundle: true }),
    ...validateNames(crd.status?.acceptedNames, 'status.acceptedNames'),
    ...validateStoredVersions(crd),
    ...validateApiApproval(crd, undefined),
    ...validatePreserveUnknownFields(crd, undefined),
  ];
}

export function validateCrdUpdate(obj: CustomResourceDefinition, oldObj: CustomResourceDefinition): FieldError[] {
  const crd = wellShaped(obj);
  const old = wellShaped(oldObj);
  const spec = crd.spec;
  const oldSpec = old.spec;
  const opts: Options = {
    ...ratchetsFromOld(versionSchemas(oldSpec)),
    requireImmutableNames: crdConditionTrue(old, 'Established'),
    requireRecognizedConversionReviewVersion: requiresRecognizedReviewVersion(old),
    allowInvalidCABundle: allowsInvalidCABundle(old),
    preexistingExpressions: preexistingExpressions(versionSchemas(oldSpec)),
    versionsWithUnchangedSchemas: versionsWithUnchangedSchemas(spec, oldSpec),
  };
  const errs = [...validateObjectMetaUpdate(crd.metadata, old.metadata), ...validateSpec(spec, crdLayout(spec), opts)];
  if (opts.requireImmutableNames) {
    errs.push(...validateImmutableField(spec.scope, oldSpec.scope, 'spec.scope'));
    errs.push(...validateImmutableField(spec.names?.kind, oldSpec.names?.kind, 'spec.names.kind'));
  }
  errs.push(...validateImmutableField(spec.group, oldSpec.group, 'spec.group'));
  errs.push(...validateImmutableField(spec.names?.plural, oldSpec.names?.plural, 'spec.names.plural'));
  errs.push(...validateNames(crd.status?.acceptedNames, 'status.acceptedNames'));
  errs.push(...validateStoredVersions(crd));
  errs.push(...validateApiApproval(crd, old));
  errs.push(...validatePreserveUnknownFields(crd, old));
  return errs;
}

/** ValidateUpdateCustomResourceDefinitionStatus. */
export function validateCrdStatusUpdate(obj: CustomResourceDefinition, oldObj: CustomResourceDefinition): FieldError[] {
  const crd = wellShaped(obj);
  const old = wellShaped(oldObj);
  return [...validateObjectMetaUpdate(crd.metadata, old.metadata), ...validateNames(crd.status?.acceptedNames, 'status.acceptedNames')];
}
