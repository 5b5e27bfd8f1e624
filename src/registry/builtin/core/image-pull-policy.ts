// validatePullPolicy (pkg/apis/core/validation): a container's imagePullPolicy and an image volume's pullPolicy.

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];

export function pullPolicyErrors(policy: unknown, path: string): FieldError[] {
  const p = typeof policy === 'string' ? policy : '';
  if (p === '') return [fieldErrors.required(path)];
  return PULL_POLICIES.includes(p) ? [] : [fieldErrors.notSupported(path, p, PULL_POLICIES)];
}
