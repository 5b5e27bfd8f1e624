// PATCH as kube-apiserver's PatchResource runs it: the patch type from Content-Type, PatchOptions,
// the patch applied to the live object inside the store's guaranteed update, strict field checks on the
// result, and apply-patch+yaml handed to server-side apply.

import { StatusError, conflict, invalid, notFound, unsupportedMediaType, fieldErrors } from '../../apis/errors.ts';
import type { KubeObject } from '../../registry/types.ts';
import { checkAgainstSchema, SCALE_SCHEMA, type SchemaCheckResult } from '../../registry/validation/schema-check.ts';
import { readBody } from '../body.ts';
import { managerOrUserAgent } from '../field-manager.ts';
import { goValue } from '../../encoding/go-format.ts';
import { decodeWriteOptions, type FieldValidation } from '../options.ts';
import { applySchemaCheck } from '../../registry/validation/prune-fields.ts';
import { requestHeader } from '../respond.ts';
import { applyContext, groupResource, writeContext, type Scope } from '../scope.ts';
import { checkName, enforceFieldValidation, negotiateResourceOutput, writeResult } from './common.ts';
import { cloneJson } from '../../apis/json-clone.ts';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

/** The patch types kube registers for an endpoint: no strategic merge for custom resources. */
export function declaredPatchTypes(custom: boolean): string[] {
  return custom ? [JSON_PATCH, MERGE_PATCH, APPLY_PATCH] : [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH];
}

/** The patch type of a request: Content-Type up to the first ';', as kube compares it. */
export function patchTypeOf(contentType: string | undefined): string {
  const ct = contentType ?? '';
  const semi = ct.indexOf(';');
  return semi > 0 ? ct.slice(0, semi) : ct;
}

/** The Invalid error kube returns when strict decoding of a patched object fails. */
/** The patcher's 422 for a patched object it cannot decode: the field "patch", the patched object, the decoder's error. */
function invalidPatch(badValue: string, detail: string): StatusError {
  return invalid({ group: '', kind: '' }, '', [fieldErrors.invalid('patch', badValue, detail)]);
}

function smpBadValue(patch: Buffer): string {
  try {
    return goValue(JSON.parse(patch.toString('utf8')));
  } catch {
    return patch.toString('utf8');
  }
}

export async function patchResource(scope: Scope): Promise<void> {
  const patchType = patchTypeOf(requestHeader(scope.r.req, 'content-type'));
  const allowed = declaredPatchTypes(scope.def.custom).filter((t) => t !== APPLY_PATCH || scope.deps.applyServerSide !== undefined);
  if (!allowed.includes(patchType)) throw unsupportedMediaType(allowed);
  const media = negotiateResourceOutput(scope);
  const patch = await readBody(scope.r.req);
  const isApply = patchType === APPLY_PATCH;
  const options = decodeWriteOptions(scope.r.query, 'PatchOptions', isApply);
  // Server-side apply records its own managedFields; every other patch is tracked as an Update.
  const fieldManager = managerOrUserAgent(options.fieldManager, scope.userAgent);
  const ctx = isApply ? await applyContext(scope, { dryRun: options.dryRun, fieldManager }) : await writeContext(scope, { dryRun: options.dryRun, fieldManager });
  const updateOptions: { subresource?: string; forceAllowCreate?: boolean } = {};
  if (scope.subresource) updateOptions.subresource = scope.subresource;

  let tryUpdate: (current: KubeObject | undefined) => Promise<KubeObject>;
  if (isApply) {
    const apply = scope.deps.applyServerSide;
    if (!apply) throw unsupportedMediaType(allowed);
    updateOptions.forceAllowCreate = true;
    tryUpdate = async (current) => {
      const applied = await apply({ ctx, def: scope.def, subresource: scope.subresource, current, patch, fieldManager: options.fieldManager, force: options.force ?? false });
      // kube's patcher.applyPatch: a uid cannot be made up for an object that does not exist.
      if (!current && applied.metadata?.uid) {
        throw conflict(groupResource(scope.def), scope.name, `uid mismatch: the provided object specified uid ${applied.metadata.uid}, and no existing object was found`);
      }
      checkName(scope, applied);
      return applied;
    };
  } else {
    const engine = patchType === JSON_PATCH ? 'json' : patchType === MERGE_PATCH ? 'merge' : 'strategic';
    const patchText = patch.toString('utf8');
    tryUpdate = async (current) => {
      if (!current || !current.metadata?.uid) throw notFound(groupResource(scope.def), scope.name);
      const bodyErrors: string[] = [];
      const patched = await scope.deps.applyPatch(engine, cloneJson(current), patchText, scope.def, { fieldValidation: options.fieldValidation, strictErrors: bodyErrors });
      checkPatchedFields(scope, patched, patchType, patch, bodyErrors, options.fieldValidation);
      checkName(scope, patched);
      return patched;
    };
  }
  const result = await scope.store.update(ctx, scope.name, tryUpdate, updateOptions);
  writeResult(scope, result.created ? 201 : 200, result.object, media);
}

/** Strict field validation of the patched object: the patch's duplicates and the result's unknown fields. */
function checkPatchedFields(scope: Scope, patched: KubeObject, patchType: string, patch: Buffer, duplicates: readonly string[], directive: FieldValidation): void {
  // A scale patch patches the Scale, an autoscaling/v1 object whatever the resource.
  const check: SchemaCheckResult = scope.subresource === 'scale' ? checkAgainstSchema(patched, SCALE_SCHEMA) : scope.deps.checkSchema(patched, scope.def);
  const badValue = () => (patchType === STRATEGIC_MERGE_PATCH ? smpBadValue(patch) : JSON.stringify(patched));
  // A strategic merge patch's result goes through the unstructured converter, the others' through the JSON decoder.
  if (check.fatal) throw invalidPatch(badValue(), (patchType === STRATEGIC_MERGE_PATCH ? check.unconvertible : check.decodeMessage) ?? check.fatal.message);
  const errors = [...duplicates, ...check.unknownFields.map((p) => `unknown field ${JSON.stringify(p)}`)];
  enforceFieldValidation(scope, directive, errors, () => invalidPatch(badValue(), `strict decoding error: ${errors.join(', ')}`));
  applySchemaCheck(patched, check);
}
