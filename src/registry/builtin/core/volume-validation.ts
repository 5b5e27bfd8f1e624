// Checks PersistentVolumes and their claims share (pkg/apis/core/validation): access modes, storage class
// names, volume modes, positive storage quantities, and the spec-diff note kube appends to immutability errors.

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { isDNS1123Subdomain } from '../../validation/names.ts';
import { quantityNanos } from '../../validation/quantity.ts';
import { isObj, semanticEqual } from '../object.ts';

export const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export const VOLUME_MODES = ['Block', 'Filesystem'];

/** Supported access modes, and ReadWriteOncePod alone. */
export function accessModeErrors(modes: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  let rwop = false;
  let other = false;
  for (const mode of modes) {
    if (!ACCESS_MODES.includes(String(mode))) errs.push(fieldErrors.notSupported(path, mode, ACCESS_MODES));
    if (mode === 'ReadWriteOncePod') rwop = true;
    else if (ACCESS_MODES.includes(String(mode))) other = true;
  }
  if (rwop && other) errs.push(fieldErrors.forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

/** ValidateClassName (a DNS subdomain), for a set, non-empty class name. */
export function classNameErrors(name: unknown, path: string): FieldError[] {
  if (typeof name !== 'string' || name === '') return [];
  return isDNS1123Subdomain(name).map((m) => fieldErrors.invalid(path, name, m));
}

export function volumeModeErrors(mode: unknown, path: string): FieldError[] {
  return typeof mode === 'string' && !VOLUME_MODES.includes(mode) ? [fieldErrors.notSupported(path, mode, VOLUME_MODES)] : [];
}

/** ValidatePositiveQuantityValue. */
export function positiveQuantityErrors(q: unknown, path: string): FieldError[] {
  const nanos = quantityNanos(q);
  return nanos !== undefined && nanos <= 0n ? [fieldErrors.invalid(path, String(q), 'must be greater than zero')] : [];
}

/**
 * The diff kube appends to "is immutable after creation" messages is cmp.Diff output, which is deliberately
 * unstable; this lists the changed fields instead, one per line.
 */
export function changedFieldsNote(oldValue: unknown, newValue: unknown): string {
  const o = isObj(oldValue) ? oldValue : {};
  const n = isObj(newValue) ? newValue : {};
  const keys = [...new Set([...Object.keys(o), ...Object.keys(n)])].sort();
  const lines: string[] = [];
  for (const k of keys) {
    if (semanticEqual(o[k], n[k])) continue;
    if (o[k] !== undefined) lines.push(`- ${k}: ${JSON.stringify(o[k])}`);
    if (n[k] !== undefined) lines.push(`+ ${k}: ${JSON.stringify(n[k])}`);
  }
  return lines.join('\n');
}
