// Checks PersistentVolumes and their claims share (pkg/apis/core/validation): access modes, storage class
// names, volume modes, the update rules of volumeMode and volumeAttributesClassName, and the spec-diff note kube
// appends to immutability errors.

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { isDNS1123Subdomain } from '../../validation/names.ts';
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

type Gates = Readonly<Record<string, boolean>>;

/**
 * A change of spec.volumeAttributesClassName: refused while its gate is off; once set it may not be unset (nor, on a
 * claim, emptied) where the class is validated at all (`enabled`: the gate on, or the old object had one).
 */
export function attributesClassUpdateErrors(name: unknown, oldName: unknown, gates: Gates, enabled: boolean, claim: boolean): FieldError[] {
  if ((name ?? null) === (oldName ?? null)) return [];
  const path = 'spec.volumeAttributesClassName';
  const errs: FieldError[] = [];
  if (gates.VolumeAttributesClass !== true) errs.push(fieldErrors.forbidden(path, 'update is forbidden when the VolumeAttributesClass feature gate is disabled'));
  if (enabled && oldName != null) {
    if (name == null) errs.push(fieldErrors.forbidden(path, 'update from non-nil value to nil is forbidden'));
    else if (claim && name === '') errs.push(fieldErrors.forbidden(path, 'update from non-nil value to an empty string is forbidden'));
  }
  return errs;
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
