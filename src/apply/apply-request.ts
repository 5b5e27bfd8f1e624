// The apply-patch+yaml request as kube-apiserver's applyPatcher handles it: decode the YAML body into an
// object, then apply it with the request's field manager at the current time. Shaped to serve as the
// endpoints' ServerSideApply dependency.

import { clockDate } from '../apis/clock.ts';
import { badRequest, StatusError } from '../apis/errors.ts';
import { parseJson } from '../encoding/json.ts';
import { jsonKind } from '../encoding/json-value.ts';
import { prepareYaml, readYaml } from '../encoding/yaml-offthread.ts';
import type { KubeObject, ResourceDefinition } from '../registry/types.ts';
import { encodedAsTyped } from '../registry/validation/prune-fields.ts';
import { applyServerSide, changedNothing, gvkString, objectGVKNN } from './field-manager.ts';

export interface ApplyRequest {
  def: ResourceDefinition;
  /** '' for the main resource. */
  subresource: string;
  /** The live object; undefined when the apply creates it. */
  current: KubeObject | undefined;
  /** The application/apply-patch+yaml body (YAML or JSON). */
  patch: Uint8Array;
  fieldManager: string;
  force: boolean;
}

/**
 * kubectl sends apply bodies as JSON, which is YAML: a well-formed JSON object without duplicate keys reads the
 * same either way, and JSON.parse is many times faster. Anything else goes through the YAML reader (and its errors).
 */
function plainJsonObject(text: string): unknown {
  if (text.trimStart()[0] !== '{') return undefined;
  try {
    const parsed = parseJson(text);
    return parsed.duplicates.length === 0 ? parsed.value : undefined;
  } catch {
    return undefined;
  }
}

/** Plain JSON bodies prepareApplyBody parsed, each handed once to decodeApplyBody (so never shared). */
const preparedJson = new WeakMap<Uint8Array, unknown>();

function utf8(patch: Uint8Array): string {
  return Buffer.from(patch.buffer, patch.byteOffset, patch.byteLength).toString('utf8');
}

/** Readies an apply body for decodeApplyBody: parsed now, YAML off the event loop when large. */
export async function prepareApplyBody(patch: Uint8Array): Promise<void> {
  const text = utf8(patch);
  const json = plainJsonObject(text);
  if (json !== undefined) preparedJson.set(patch, json);
  else await prepareYaml(text);
}

function takePreparedJson(patch: Uint8Array): unknown {
  const value = preparedJson.get(patch);
  if (value !== undefined) preparedJson.delete(patch);
  return value;
}

/** yaml.Unmarshal of the body into map[string]interface{}, with kube's "error decoding YAML" messages. */
export function decodeApplyBody(patch: Uint8Array): KubeObject {
  let value: unknown = takePreparedJson(patch);
  const text = value === undefined ? utf8(patch) : '';
  if (value === undefined) value = plainJsonObject(text);
  if (value === undefined) {
    try {
      value = readYaml(text).value;
    } catch (e) {
      throw badRequest(`error decoding YAML: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (value === null) return {} as KubeObject;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest(`error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKind(value)} into Go value of type map[string]interface {}`);
  }
  return value as KubeObject;
}

/**
 * The object an apply makes, as kube's typed object writes it (Go's encoding leaves out null and zero omitempty
 * fields): checked unless the apply changed nothing, as the live object is stored that way already.
 */
export function serverSideApply(request: ApplyRequest): KubeObject {
  const applied = decodeApplyBody(request.patch);
  const def = request.def;
  const result = applyServerSide(request.current, applied, {
    manager: request.fieldManager,
    force: request.force,
    apiVersion: def.group ? `${def.group}/${def.version}` : def.version,
    subresource: request.subresource || undefined,
    def,
    now: clockDate().toISOString(),
  });
  if (request.subresource === 'scale' || changedNothing(result)) return result;
  const typed = encodedAsTyped(result, def);
  if ('object' in typed) return typed.object;
  // kube's structuredMergeManager turns the merged object into its Go type; a value that type cannot hold (a malformed
  // timestamp, quantity or base64) fails there, and the plain error becomes a 500.
  throw new StatusError(500, '', `failed to convert new object (${objectGVKNN(applied)}) to proper version: unable to convert unstructured object to ${gvkString(def.group, def.version, def.kind)}: ${typed.unconvertible}`);
}
