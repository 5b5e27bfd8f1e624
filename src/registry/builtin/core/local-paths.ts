// validateLocalDescendingPath (pkg/apis/core/validation): a path inside a volume or profile directory, relative and
// without a '..' element (one error for any number of them).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';

export function localDescendingPathErrors(target: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith('/')) errs.push(fieldErrors.invalid(path, target, 'must be a relative path'));
  if (target.split('/').includes('..')) errs.push(fieldErrors.invalid(path, target, "must not contain '..'"));
  return errs;
}
