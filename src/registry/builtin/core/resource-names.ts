// Resource name rules (pkg/apis/core/helper and validateResourceName/validateContainerResourceName): standard,
// native, extended and hugepages names, and which ones are counted in whole units or may be overcommitted.

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { isQualifiedName } from '../../validation/names.ts';

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const STANDARD_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu',
  'limits.memory', 'limits.ephemeral-storage', 'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets',
  'configmaps', 'persistentvolumeclaims', 'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
]);

export function isHugePagesResourceName(name: string): boolean {
  return name.startsWith('hugepages-');
}

/** helper.IsNativeResource: no domain, or a kubernetes.io domain. */
export function isNativeResourceName(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

export function isExtendedResourceName(name: string): boolean {
  if (isNativeResourceName(name) || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

export function overcommitAllowed(name: string): boolean {
  return isNativeResourceName(name) && !isHugePagesResourceName(name);
}

/**
 * A core.ResourceName as a bad value: the type has a String() method, so field.Error prints it bare
 * (`Invalid value: foo`), not quoted as it prints a plain string.
 */
export const resourceNameValue = (name: string): unknown => renderedBadValue(name);

/** helper.IsStandardResourceName: a standard name, or a hugepages one (requests. included). */
function isStandardResourceName(name: string): boolean {
  return STANDARD_RESOURCES.has(name) || isQuotaHugePagesResourceName(name);
}

/** helper.IsQuotaHugePageResourceName. */
export function isQuotaHugePagesResourceName(name: string): boolean {
  return isHugePagesResourceName(name) || name.startsWith('requests.hugepages-');
}

/** validateResourceName: a qualified name, standard when it has no domain. */
export function resourceNameErrors(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((m) => fieldErrors.invalid(path, resourceNameValue(name), m));
  if (errs.length) return errs;
  if (!name.includes('/') && !isStandardResourceName(name)) return [fieldErrors.invalid(path, resourceNameValue(name), 'must be a standard resource type or fully qualified')];
  return [];
}

/** validateContainerResourceName: validateResourceName's errors, then the container rules on top of them. */
export function containerResourceNameErrors(name: string, path: string): FieldError[] {
  const errs = resourceNameErrors(name, path);
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePagesResourceName(name)) errs.push(fieldErrors.invalid(path, resourceNameValue(name), 'must be a standard resource for containers'));
  } else if (!isNativeResourceName(name) && !isExtendedResourceName(name)) {
    errs.push(fieldErrors.invalid(path, resourceNameValue(name), "doesn't follow extended resource name standard"));
  }
  return errs;
}

const INTEGER_RESOURCES = new Set([
  'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers',
]);

/** helper.IsIntegerResourceName: object counts and extended resources come in whole units. */
export function isIntegerResourceName(name: string): boolean {
  return INTEGER_RESOURCES.has(name) || isExtendedResourceName(name);
}
