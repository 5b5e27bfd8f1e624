// The downward API's selectors, shared by environment variables and downwardAPI volume files (pkg/apis/core/validation:
// validateObjectFieldSelector, validateContainerResourceFieldSelector, validateContainerResourceDivisor; the field
// labels pkg/apis/core/pods.ConvertDownwardAPIFieldLabel converts).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { isQualifiedName } from '../../validation/names.ts';
import { canonicalQuantity, quantityNanos } from '../../validation/quantity.ts';
import type { Obj } from '../object.ts';

export const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];
export const VOLUME_FIELD_PATHS = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];

const CONVERTIBLE_FIELD_PATHS = new Set([
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
]);

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** fieldpath.SplitMaybeSubscriptedPath: "metadata.labels['app']" is the path "metadata.labels" and the subscript "app". */
function splitSubscript(fieldPath: string): { path: string; subscript: string } | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const open = fieldPath.indexOf("['");
  if (open <= 0 || open + 2 > fieldPath.length - 2) return undefined;
  return { path: fieldPath.slice(0, open), subscript: fieldPath.slice(open + 2, -2) };
}

/** ConvertDownwardAPIFieldLabel: the internal field path, or the error kube reports after "error converting fieldPath: ". */
function convertFieldLabel(apiVersion: string, label: string): { path: string } | { error: string } {
  if (apiVersion !== 'v1') return { error: `unsupported pod version: ${apiVersion}` };
  const sub = splitSubscript(label);
  if (sub) {
    return sub.path === 'metadata.annotations' || sub.path === 'metadata.labels' ? { path: label } : { error: `field label does not support subscript: ${label}` };
  }
  if (label === 'spec.host') return { path: 'spec.nodeName' };
  return CONVERTIBLE_FIELD_PATHS.has(label) ? { path: label } : { error: `field label not supported: ${label}` };
}

/** validateObjectFieldSelector: a fieldRef naming one of `supported`, or a label or annotation by key. */
export function objectFieldSelectorErrors(ref: Obj, supported: readonly string[], path: string): FieldError[] {
  const apiVersion = str(ref.apiVersion);
  const fieldPath = str(ref.fieldPath);
  if (apiVersion === '') return [fieldErrors.required(`${path}.apiVersion`)];
  if (fieldPath === '') return [fieldErrors.required(`${path}.fieldPath`)];
  const converted = convertFieldLabel(apiVersion, fieldPath);
  if ('error' in converted) return [fieldErrors.invalid(`${path}.fieldPath`, fieldPath, `error converting fieldPath: ${converted.error}`)];
  const sub = splitSubscript(converted.path);
  if (sub) {
    // Annotation keys are matched case-insensitively, so kube checks them lower-cased.
    const key = sub.path === 'metadata.annotations' ? sub.subscript.toLowerCase() : sub.subscript;
    return isQualifiedName(key).map((m) => fieldErrors.invalid(path, key, m));
  }
  if (!supported.includes(converted.path)) return [fieldErrors.notSupported(`${path}.fieldPath`, converted.path, [...supported].sort())];
  return [];
}

const RESOURCE_FIELD_PATHS = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];
const HUGEPAGES_PREFIXES = ['limits.hugepages-', 'requests.hugepages-'];
const CPU_DIVISORS = ['1m', '1'];
const BYTE_DIVISORS = ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei'];
const BYTE_DIVISORS_TEXT = BYTE_DIVISORS.join(', ');

/** validateContainerResourceDivisor: a set divisor must be one of the units the resource is counted in. */
function divisorErrors(resource: string, divisor: unknown, path: string): FieldError[] {
  const nanos = divisor === undefined || divisor === null ? undefined : quantityNanos(divisor);
  if (nanos === undefined || nanos === 0n) return [];
  const text = canonicalQuantity(divisor) ?? '';
  const errs: FieldError[] = [];
  const refuse = (allowed: string[], detail: string) => {
    if (!allowed.includes(text)) errs.push(fieldErrors.invalid(`${path}.divisor`, resource, detail));
  };
  switch (resource) {
    case 'limits.cpu':
    case 'requests.cpu':
      refuse(CPU_DIVISORS, "only divisor's values 1m and 1 are supported with the cpu resource");
      break;
    case 'limits.memory':
    case 'requests.memory':
      refuse(BYTE_DIVISORS, `only divisor's values ${BYTE_DIVISORS_TEXT} are supported with the memory resource`);
      break;
    case 'limits.ephemeral-storage':
    case 'requests.ephemeral-storage':
      refuse(BYTE_DIVISORS, `only divisor's values ${BYTE_DIVISORS_TEXT} are supported with the local ephemeral storage resource`);
      break;
  }
  if (HUGEPAGES_PREFIXES.some((p) => resource.startsWith(p))) {
    refuse(BYTE_DIVISORS, `only divisor's values ${BYTE_DIVISORS_TEXT} are supported with the hugepages resource`);
  }
  return errs;
}

/** validateContainerResourceFieldSelector: a volume file must also name its container. */
export function resourceFieldSelectorErrors(ref: Obj, path: string, forVolume: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const resource = str(ref.resource);
  if (forVolume && str(ref.containerName) === '') errs.push(fieldErrors.required(`${path}.containerName`));
  else if (resource === '') errs.push(fieldErrors.required(`${path}.resource`));
  else if (!RESOURCE_FIELD_PATHS.includes(resource) && !HUGEPAGES_PREFIXES.some((p) => resource.startsWith(p))) {
    errs.push(fieldErrors.notSupported(`${path}.resource`, resource, RESOURCE_FIELD_PATHS));
  }
  errs.push(...divisorErrors(resource, ref.divisor, path));
  return errs;
}
