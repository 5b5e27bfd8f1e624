// applyPatch: what kube-apiserver's PATCH handler does between reading the current object and decoding the
// patched one (k8s.io/apiserver/pkg/endpoints/handlers/patch.go): read the patch body, apply it with the engine
// for its type, and turn every failure into the Status kube answers with.

import { fieldErrorBody, internalError, StatusError, unsupportedMediaType, type FieldError } from '../apis/errors.ts';
import type { KubeObject, ResourceDefinition } from '../registry/types.ts';
import { parseJson } from '../encoding/json.ts';
import { JsonSyntaxError } from '../encoding/json-syntax.ts';
import { jsonKind, type JsonObject, type JsonValue } from '../encoding/json-value.ts';
import { goMarshal, isJsonObject } from './go-text.ts';
import { decodeJsonPatch, JsonPatchApplyError, JsonPatchDecodeError, jsonPatch } from './json-patch.ts';
import { MergePatchError, mergePatch } from './merge-patch.ts';
import { StrategicMergePatchError, strategicMergePatch } from './strategic-merge-patch.ts';

export type PatchType = 'json' | 'merge' | 'strategic';

/** The Content-Type of each patch type. */
export const PATCH_MEDIA_TYPES: Readonly<Record<PatchType, string>> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

/** The Content-Types PATCH accepts for built-in resources, in the order kube lists them in its 415 answer. */
export const BUILTIN_PATCH_MEDIA_TYPES: readonly string[] = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/** The Content-Types PATCH accepts for custom resources (no strategic merge patch), in kube's order. */
export const CUSTOM_RESOURCE_PATCH_MEDIA_TYPES: readonly string[] = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/apply-patch+yaml',
];

/** The Content-Types PATCH accepts for a resource (server-side apply included). */
export function acceptedPatchMediaTypes(def: Pick<ResourceDefinition, 'custom'>): readonly string[] {
  return def.custom ? CUSTOM_RESOURCE_PATCH_MEDIA_TYPES : BUILTIN_PATCH_MEDIA_TYPES;
}

/** Maximum number of operations in one JSON patch (kube's maxJSONPatchOperations). */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

export interface ApplyPatchOptions {
  /** ?fieldValidation=; kube's default when absent is Warn. It changes how malformed bodies are reported. */
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  /**
   * Receives the body's own strict-decoding problems (duplicate fields; unknown fields of JSON patch operations)
   * in kube's wording, for Warn/Strict. kube reports them together with the unknown fields of the patched
   * object: as warnings (Warn) or as one 422 (Strict); that is the caller's part.
   */
  strictErrors?: string[];
}

/**
 * Applies a patch of the given type to `current` and returns the patched object (a new object; `current` is not
 * modified). Throws StatusError exactly as kube-apiserver answers a bad patch. Checking that apiVersion, kind,
 * name and namespace did not change, defaulting, and decoding into the schema are the caller's.
 */
export function applyPatch(
  patchType: PatchType,
  current: KubeObject,
  patch: string,
  def: ResourceDefinition,
  options: ApplyPatchOptions = {},
): KubeObject {
  if (patchType === 'strategic' && def.custom) throw unsupportedMediaType([...CUSTOM_RESOURCE_PATCH_MEDIA_TYPES]);
  const strict = (options.fieldValidation ?? 'Warn') !== 'Ignore';
  const doc = current as unknown as JsonObject;
  try {
    switch (patchType) {
      case 'json':
        return applyJsonPatch(doc, patch, strict, options.strictErrors);
      case 'merge':
        return applyMergePatch(doc, patch, strict, options.strictErrors);
      case 'strategic':
        return applyStrategicMergePatch(doc, patch, def, strict, options.strictErrors);
    }
  } catch (e) {
    // A safety net: the engines walk deep documents with explicit stacks up to the decoders' limit of 10000, so a
    // RangeError here is a defect; it is still answered as an error rather than let escape.
    if (e instanceof RangeError) throw internalError(e);
    throw e;
  }
  throw internalError(new Error(`unknown patch type: ${String(patchType)}`));
}

function readBody(patch: string, onSyntaxError: (message: string) => StatusError, duplicates: string[] | undefined, prefix: string): JsonValue {
  try {
    const parsed = parseJson(patch);
    if (duplicates) for (const path of parsed.duplicates) duplicates.push(`${prefix}duplicate field ${JSON.stringify(path)}`);
    return parsed.value;
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw onSyntaxError(e.message);
    throw e;
  }
}

function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

/**
 * errors.NewGenericServerResponse(422, ...): the library's message is not passed on (no causes), but the details
 * are always made, so kube sends `"details":{}`.
 */
function genericInvalid(): StatusError {
  return new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

function applyJsonPatch(doc: JsonObject, patch: string, strict: boolean, strictErrors: string[] | undefined): KubeObject {
  const collect = strict ? strictErrors : undefined;
  const body = readBody(patch, (m) => badRequest(strict ? `error decoding patch: ${m}` : m), collect, 'json patch ');
  let ops;
  try {
    if (strict) checkJsonPatchOps(body, collect);
    ops = decodeJsonPatch(body);
  } catch (e) {
    if (e instanceof JsonPatchDecodeError) throw badRequest(e.message);
    throw e;
  }
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new StatusError(
      413,
      'RequestEntityTooLarge',
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`,
    );
  }
  let result: JsonValue;
  try {
    result = jsonPatch(doc, ops);
  } catch (e) {
    if (e instanceof JsonPatchApplyError) throw genericInvalid();
    throw e;
  }
  return requireObject(result);
}

const JSON_PATCH_OP_FIELDS = new Set(['op', 'path', 'from', 'value']);

/**
 * The strict decode kube runs first under Warn/Strict (into []jsonPatchOp{Op, Path, From string; Value any}):
 * type errors are 400 "error decoding patch: ...", unknown members are strict errors.
 */
function checkJsonPatchOps(body: JsonValue, strictErrors: string[] | undefined): void {
  const fail = (message: string): never => {
    throw new JsonPatchDecodeError(`error decoding patch: ${message}`);
  };
  if (body === null) return;
  if (!Array.isArray(body)) fail(`json: cannot unmarshal ${jsonKind(body)} into Go value of type []handlers.jsonPatchOp`);
  const unknown: string[] = [];
  let firstError: string | undefined;
  (body as JsonValue[]).forEach((op, i) => {
    if (op === null) return;
    if (!isJsonObject(op)) {
      firstError ??= `json: cannot unmarshal ${jsonKind(op)} into Go value of type handlers.jsonPatchOp`;
      return;
    }
    for (const key of Object.keys(op)) {
      if (!JSON_PATCH_OP_FIELDS.has(key)) {
        unknown.push(`json patch unknown field ${JSON.stringify(`[${i}].${key}`)}`);
        continue;
      }
      const v = op[key];
      if (key !== 'value' && v !== null && typeof v !== 'string') {
        firstError ??= `json: cannot unmarshal ${jsonKind(v)} into Go struct field jsonPatchOp.${key} of type string`;
      }
    }
  });
  if (firstError !== undefined) fail(firstError);
  strictErrors?.push(...unknown);
}

function applyMergePatch(doc: JsonObject, patch: string, strict: boolean, strictErrors: string[] | undefined): KubeObject {
  const body = readBody(patch, (m) => badRequest(strict ? `error decoding patch: ${m}` : 'Invalid JSON Patch'), strict ? strictErrors : undefined, '');
  if (strict && body !== null && !isJsonObject(body)) {
    throw badRequest(`error decoding patch: json: cannot unmarshal ${jsonKind(body)} into Go value of type map[string]interface {}`);
  }
  let result: JsonValue;
  try {
    result = mergePatch(doc, body);
  } catch (e) {
    if (e instanceof MergePatchError) throw badRequest(e.message);
    throw e;
  }
  return requireObject(result);
}

function applyStrategicMergePatch(
  doc: JsonObject,
  patch: string,
  def: ResourceDefinition,
  strict: boolean,
  strictErrors: string[] | undefined,
): KubeObject {
  const body = readBody(patch, badRequest, strict ? strictErrors : undefined, '');
  if (body !== null && !isJsonObject(body)) {
    throw badRequest(`json: cannot unmarshal ${jsonKind(body)} into Go value of type map[string]interface {}`);
  }
  try {
    return strategicMergePatch(doc, body, def.schema, (ref) => def.resolveRef(ref)) as unknown as KubeObject;
  } catch (e) {
    if (!(e instanceof StrategicMergePatchError)) throw e;
    switch (e.errorClass) {
      case 'BadRequest':
        throw badRequest(e.message);
      case 'Invalid':
        throw genericInvalid();
      default:
        // A plain error reaching kube's response writer: 500 with no reason and the error text.
        throw new StatusError(500, '', e.message);
    }
  }
}

/**
 * kube decodes the patched JSON back into an object; a document that is no longer a JSON object fails there with
 * 422 Invalid on the field "patch".
 */
function requireObject(result: JsonValue): KubeObject {
  if (isJsonObject(result)) return result as unknown as KubeObject;
  const error: FieldError = {
    type: 'FieldValueInvalid',
    field: 'patch',
    badValue: goMarshal(result),
    detail:
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(result)} into Go value of type ` +
      'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
  };
  return throwInvalidPatch(error);
}

function throwInvalidPatch(error: FieldError): never {
  const body = fieldErrorBody(error);
  throw new StatusError(422, 'Invalid', ` "" is invalid: ${error.field}: ${body}`, {
    causes: [{ reason: error.type, message: body, field: error.field }],
  });
}
