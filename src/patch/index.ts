// The patch engines: JSON Patch (RFC 6902), JSON Merge Patch (RFC 7386) and strategic merge patch, each with the
// behaviour of the libraries kube-apiserver uses, and applyPatch, which answers failures as kube does.

export {
  acceptedPatchMediaTypes,
  applyPatch,
  BUILTIN_PATCH_MEDIA_TYPES,
  CUSTOM_RESOURCE_PATCH_MEDIA_TYPES,
  MAX_JSON_PATCH_OPERATIONS,
  PATCH_MEDIA_TYPES,
  type ApplyPatchOptions,
  type PatchType,
} from './apply-patch.ts';
export { decodeJsonPatch, jsonEqual, jsonPatch, JsonPatchApplyError, JsonPatchDecodeError, JsonPatchPanic, type JsonPatchOperation } from './json-patch.ts';
export { mergePatch, MergePatchError } from './merge-patch.ts';
export { strategicMergePatch, StrategicMergePatchError, type StrategicMergePatchErrorClass } from './strategic-merge-patch.ts';
