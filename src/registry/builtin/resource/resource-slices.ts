// ResourceSlice (resource.k8s.io/v1alpha3; pkg/apis/resource/validation ValidateResourceSlice(Update), the
// resourceslice strategy and printResourceSlice of kube 1.31): generation 1 on create, +1 on spec changes;
// field selectors spec.nodeName and spec.driver.

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goPointer, goText } from '../../../apis/go-bad-values.ts';
import { isDNS1123Label, isDNS1123Subdomain, regexError } from '../../validation/names.ts';
import { parseQuantity } from '../../validation/quantity.ts';
import type { KubeObject } from '../../types.ts';
import { goNodeSelectorTerms, nodeSelectorErrors } from '../core/node-selector-validation.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { isObj, semanticEqual, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

// pkg/apis/resource/types.go limits.
const DRIVER_NAME_MAX = 63;
const POOL_NAME_MAX = 253;
const MAX_DEVICES = 128;
const MAX_ATTRIBUTES_AND_CAPACITIES = 32;
const DEVICE_MAX_DOMAIN = 63;
const DEVICE_MAX_ID = 32;
const ATTRIBUTE_MAX_VALUE = 64;

// semver.org 2.0.0's regular expression, as kube's validation uses it.
const SEMVER_RE = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
const C_IDENTIFIER_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Obj = Record<string, unknown>;

const tooLong = (field: string, value: unknown, max: number): FieldError => ({ type: 'FieldValueTooLong', field, badValue: value, detail: `may not be longer than ${max}` });
const invalidEach = (field: string, value: string, messages: string[]): FieldError[] => messages.map((m) => fieldErrors.invalid(field, value, m));

function driverNameErrors(name: unknown, path: string): FieldError[] {
  if (typeof name !== 'string' || name === '') return [fieldErrors.required(path)];
  const errs: FieldError[] = [];
  if (name.length > DRIVER_NAME_MAX) errs.push(tooLong(path, name, DRIVER_NAME_MAX));
  errs.push(...invalidEach(path, name, isDNS1123Subdomain(name)));
  return errs;
}

/** validatePoolName: DNS subdomains separated by slashes, at most 253 characters. */
function poolNameErrors(name: unknown, path: string): FieldError[] {
  if (typeof name !== 'string' || name === '') return [fieldErrors.required(path)];
  const errs: FieldError[] = [];
  if (name.length > POOL_NAME_MAX) errs.push(tooLong(path, name, POOL_NAME_MAX));
  for (const part of name.split('/')) errs.push(...invalidEach(path, part, isDNS1123Subdomain(part)));
  return errs;
}

function cIdentifierErrors(id: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (id.length > DEVICE_MAX_ID) errs.push(tooLong(path, id, DEVICE_MAX_ID));
  if (!C_IDENTIFIER_RE.test(id)) {
    errs.push(fieldErrors.typeInvalid(path, id, regexError("a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'", '[A-Za-z_][A-Za-z0-9_]*', 'my_name', 'MY_NAME', 'MyName')));
  }
  return errs;
}

/** validateQualifiedName: a C identifier, or <domain>/<C identifier>. */
function qualifiedNameErrors(name: string, path: string): FieldError[] {
  if (name === '') return [fieldErrors.required(path, 'name required')];
  const parts = name.split('/');
  if (parts.length === 1) return cIdentifierErrors(name, path);
  if (parts.length === 2) {
    const errs: FieldError[] = [];
    if (parts[0] === '') errs.push(fieldErrors.required(path, 'the domain must not be empty'));
    else errs.push(...driverNameErrors(parts[0], path));
    if (parts[1] === '') errs.push(fieldErrors.required(path, 'the name must not be empty'));
    else errs.push(...cIdentifierErrors(parts[1]!, path));
    return errs;
  }
  return [fieldErrors.invalid(path, name, 'must be either <domain>/<identifier> or a C identifier')];
}

function attributeErrors(attr: unknown, path: string): FieldError[] {
  const a = isObj(attr) ? attr : {};
  const errs: FieldError[] = [];
  let set = 0;
  if (a.bool !== undefined && a.bool !== null) set++;
  if (a.int !== undefined && a.int !== null) set++;
  if (typeof a.string === 'string') {
    if (a.string.length > ATTRIBUTE_MAX_VALUE) errs.push(tooLong(`${path}.string`, a.string, ATTRIBUTE_MAX_VALUE));
    set++;
  }
  if (typeof a.version === 'string') {
    set++;
    if (!SEMVER_RE.test(a.version)) errs.push(fieldErrors.invalid(`${path}.version`, a.version, 'must be a string compatible with semver.org spec 2.0.0'));
    if (a.version.length > ATTRIBUTE_MAX_VALUE) errs.push(tooLong(`${path}.version`, a.version, ATTRIBUTE_MAX_VALUE));
  }
  if (set === 0) errs.push(fieldErrors.required(path, 'exactly one value must be specified'));
  else if (set > 1) errs.push(fieldErrors.invalid(path, goDeviceAttribute(a), 'exactly one value must be specified'));
  return errs;
}

/** resource.DeviceAttribute as field.Error prints it. */
function goDeviceAttribute(a: Obj): unknown {
  const num = (v: unknown) => String(v);
  return renderedBadValue(
    `resource.DeviceAttribute{IntValue:${goPointer('int64', a.int, num)}, BoolValue:${goPointer('bool', a.bool, num)}, ` +
      `StringValue:${goPointer('string', a.string, goText)}, VersionValue:${goPointer('string', a.version, goText)}}`,
  );
}

/** fldPath.Key(truncateIfTooLong(key)): long keys are shortened in the path. */
function keyPath(path: string, key: string): string {
  const max = DEVICE_MAX_DOMAIN + 1 + DEVICE_MAX_ID;
  const shown = key.length > max ? `${key.slice(0, max / 2)}...${key.slice(key.length - (max / 2 - 1))}` : key;
  return `${path}[${shown}]`;
}

function basicDeviceErrors(basic: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const attributes = isObj(basic.attributes) ? basic.attributes : {};
  const capacity = isObj(basic.capacity) ? basic.capacity : {};
  for (const [k, v] of Object.entries(attributes)) {
    const p = keyPath(`${path}.attributes`, k);
    errs.push(...qualifiedNameErrors(k, p), ...attributeErrors(v, p));
  }
  for (const [k, v] of Object.entries(capacity)) {
    const p = keyPath(`${path}.capacity`, k);
    errs.push(...qualifiedNameErrors(k, p));
    const q = typeof v === 'string' ? parseQuantity(v) : typeof v === 'number' ? parseQuantity(String(v)) : { ok: false as const, error: 'must be a quantity' };
    if (!q.ok) errs.push(fieldErrors.invalid(p, v, q.error));
  }
  const combined = Object.keys(attributes).length + Object.keys(capacity).length;
  if (combined > MAX_ATTRIBUTES_AND_CAPACITIES) errs.push(fieldErrors.invalid(path, combined, `the total number of attributes and capacities must not exceed ${MAX_ATTRIBUTES_AND_CAPACITIES}`));
  return errs;
}

function deviceErrors(device: unknown, path: string): FieldError[] {
  const d = isObj(device) ? device : {};
  const errs: FieldError[] = [];
  const name = typeof d.name === 'string' ? d.name : '';
  if (name === '') errs.push(fieldErrors.required(`${path}.name`));
  else errs.push(...invalidEach(`${path}.name`, name, isDNS1123Label(name)));
  if (!isObj(d.basic)) errs.push(fieldErrors.required(`${path}.basic`));
  else errs.push(...basicDeviceErrors(d.basic, `${path}.basic`));
  return errs;
}

/** validateResourceSliceSpec (create: old undefined). */
export function resourceSliceSpecErrors(obj: KubeObject, old?: KubeObject): FieldError[] {
  const spec = isObj(obj.spec) ? obj.spec : {};
  const pool = isObj(spec.pool) ? spec.pool : {};
  const errs: FieldError[] = [...driverNameErrors(spec.driver, 'spec.driver'), ...poolNameErrors(pool.name, 'spec.pool.name')];
  const count = typeof pool.resourceSliceCount === 'number' ? pool.resourceSliceCount : 0;
  if (count <= 0) errs.push(fieldErrors.invalid('spec.pool.resourceSliceCount', count, 'must be greater than zero'));
  const generation = typeof pool.generation === 'number' ? pool.generation : 0;
  if (generation < 0) errs.push(fieldErrors.invalid('spec.pool.generation', generation, 'must be greater than or equal to zero'));
  if (old) {
    const oldSpec = isObj(old.spec) ? old.spec : {};
    const oldPool = isObj(oldSpec.pool) ? oldSpec.pool : {};
    const immutable = (path: string, now: unknown, before: unknown): void => {
      if (!semanticEqual(now ?? '', before ?? '')) errs.push(fieldErrors.invalid(path, now ?? '', 'field is immutable'));
    };
    immutable('spec.pool.name', pool.name, oldPool.name);
    immutable('spec.driver', spec.driver, oldSpec.driver);
    immutable('spec.nodeName', spec.nodeName, oldSpec.nodeName);
  }
  const set: string[] = [];
  if (typeof spec.nodeName === 'string' && spec.nodeName !== '') {
    set.push('`nodeName`');
    errs.push(...invalidEach('spec.nodeName', spec.nodeName, isDNS1123Subdomain(spec.nodeName)));
  }
  if (isObj(spec.nodeSelector)) {
    set.push('`nodeSelector`');
    errs.push(...nodeSelectorErrors(spec.nodeSelector, 'spec.nodeSelector'));
    const terms = Array.isArray(spec.nodeSelector.nodeSelectorTerms) ? spec.nodeSelector.nodeSelectorTerms : [];
    if (terms.length !== 1) errs.push(fieldErrors.invalid('spec.nodeSelector.nodeSelectorTerms', renderedBadValue(goNodeSelectorTerms(terms)), 'must have exactly one node selector term'));
  }
  if (spec.allNodes === true) set.push('`allNodes`');
  if (set.length === 0) errs.push(fieldErrors.required('spec', 'exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required'));
  else if (set.length > 1) errs.push(fieldErrors.invalid('spec', `{${set.join(', ')}}`, 'exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required'));

  const devices = Array.isArray(spec.devices) ? spec.devices : [];
  if (devices.length > MAX_DEVICES) errs.push(fieldErrors.tooMany('spec.devices', devices.length, MAX_DEVICES));
  const seen = new Set<string>();
  devices.forEach((d: unknown, i: number) => {
    const path = `spec.devices[${i}]`;
    errs.push(...deviceErrors(d, path));
    const name = isObj(d) && typeof d.name === 'string' ? d.name : '';
    if (seen.has(name)) errs.push(fieldErrors.duplicate(`${path}.name`, name));
    else seen.add(name);
  });
  return errs;
}

export const resourceSliceFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    validate: (obj) => resourceSliceSpecErrors(obj),
    validateUpdate: (obj, old) => resourceSliceSpecErrors(obj, old),
  }),
  printerColumns: [
    column('Node', 'string', 'NodeName identifies the node which provides the resources in this pool.', (o) => strAt(o, 'spec', 'nodeName') ?? ''),
    column('Driver', 'string', 'Driver identifies the DRA driver providing the capacity information.', (o) => strAt(o, 'spec', 'driver') ?? ''),
    column('Pool', 'string', 'Name is used to identify the pool.', (o) => strAt(o, 'spec', 'pool', 'name') ?? ''),
    ageColumn,
  ],
  selectableFields: {
    'spec.nodeName': (o) => strAt(o, 'spec', 'nodeName') ?? '',
    'spec.driver': (o) => strAt(o, 'spec', 'driver') ?? '',
  },
});
