// Server-side apply and managedFields (k8s.io/apimachinery managedfields + sigs.k8s.io/structured-merge-diff).
// Pure functions: the endpoints and the store call them with the objects; nothing here does I/O.

export { applyServerSide, updateManagedFields } from './field-manager.ts';
export type { ApplyOptions, UpdateManagedFieldsOptions } from './field-manager.ts';
export { revertManagedFieldsTimestamps } from './revert-timestamps.ts';
export { decodeApplyBody, prepareApplyBody, serverSideApply } from './apply-request.ts';
export type { ApplyRequest } from './apply-request.ts';
export { FieldSet } from './field-set.ts';
export { LAST_APPLIED_ANNOTATION } from './last-applied.ts';
