// kube's checks of paths inside a volume or profile directory (pkg/apis/core/validation: validatePathNoBacksteps,
// validateLocalDescendingPath, ValidateLocalNonReservedPath).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';

/** validatePathNoBacksteps: no '..' element (one error for any number of them). */
export function noBackstepsErrors(target: string, path: string): FieldError[] {
  return target.split('/').includes('..') ? [fieldErrors.invalid(path, target, "must not contain '..'")] : [];
}

/** validateLocalDescendingPath: relative, without a '..' element. */
export function localDescendingPathErrors(target: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith('/')) errs.push(fieldErrors.invalid(path, target, 'must be a relative path'));
  errs.push(...noBackstepsErrors(target, path));
  return errs;
}

/** ValidateLocalNonReservedPath: a local descending path that does not start with '..' either ("..data" is the kubelet's). */
export function localNonReservedPathErrors(target: string, path: string): FieldError[] {
  const errs = localDescendingPathErrors(target, path);
  // A leading '../' is already reported as a '..' element.
  if (target.startsWith('..') && !target.startsWith('../')) errs.push(fieldErrors.invalid(path, target, "must not start with '..'"));
  return errs;
}
