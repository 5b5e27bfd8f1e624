// The generic ObjectMeta checks the store applies to every resource on top of the type's own validation, as
// rest.BeforeCreate/BeforeUpdate do: ValidateObjectMetaAccessor with path-segment names, and on update
// ValidateObjectMetaAccessorUpdate. The rules themselves live in ./validation/meta.ts.

import type { FieldError } from '../apis/errors.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './validation/meta.ts';
import { nameIsPathSegment } from './validation/names.ts';
import type { KubeObject, ObjectMeta } from './types.ts';

export function validateCreateMeta(meta: ObjectMeta, namespaced: boolean): FieldError[] {
  return validateObjectMeta(meta, { namespaced, nameFn: nameIsPathSegment });
}

export function validateUpdateMeta(meta: ObjectMeta, old: ObjectMeta, namespaced: boolean): FieldError[] {
  return [...validateObjectMeta(meta, { namespaced, nameFn: nameIsPathSegment }), ...validateObjectMetaUpdate(meta, old)];
}

/** Ensure obj.metadata is an object (decoders may hand over objects without one). */
export function metaOf(obj: KubeObject): ObjectMeta {
  if (!obj.metadata || typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) obj.metadata = {};
  return obj.metadata;
}
