// Pieces shared by the verb handlers: output negotiation and transforms, body decoding for writes,
// the namespace/name checks, owner reference de-duplication.

import { badRequest, notAcceptable, type StatusError } from '../../apis/errors.ts';
import { goEscape } from '../../encoding/json.ts';
import { JSON_MEDIA_TYPE, negotiateOutput, prettyRequested, PROTOBUF_MEDIA_TYPE, PROTOBUF_SERVED_MEDIA_TYPES, SERVED_MEDIA_TYPES, type NegotiatedMediaType } from '../../encoding/negotiate.ts';
import { protobufDefinition } from '../../encoding/protobuf/envelope.ts';
import { itemFromLayout, layoutOf } from '../../registry/list-json.ts';
import { storedFormOf } from '../../registry/store-codec.ts';
import type { KubeList, KubeObject, OwnerReference } from '../../registry/types.ts';
import { matchRequestNamespace } from '../../registry/request-namespace.ts';
import { checkAgainstSchema, SCALE_SCHEMA, type SchemaCheckResult } from '../../registry/validation/schema-check.ts';
import { checkBodyKind, gvString, interpretBody, parseBody, parseProtobufBody, strictDecodingError, yamlStrictErrors, type BodyFormat, type GroupVersionKind } from '../body.ts';
import type { FieldValidation } from '../options.ts';
import { applySchemaCheck } from '../../registry/validation/prune-fields.ts';
import { requestHeader, writeBody, writeObject } from '../respond.ts';
import { encodeStoredListProtobuf } from '../protobuf-list.ts';
import type { Scope } from '../scope.ts';
import { parseTableOptions, toPartialObjectMetadata, toPartialObjectMetadataList, toTable } from '../table.ts';

/** Whether the endpoint's kind has a protobuf message: built-in kinds do, custom resources never. */
export function servesProtobuf(scope: Pick<Scope, 'def' | 'kind'>): boolean {
  return !scope.def.custom && protobufDefinition(gvString(scope.kind.group, scope.kind.version), scope.kind.kind) !== undefined;
}

/** Whether protobuf bodies are taken (and refused past the envelope for custom resources, as kube does). */
export function readsProtobuf(scope: Pick<Scope, 'def' | 'kind'>): boolean {
  return servedMediaTypes(scope) === PROTOBUF_SERVED_MEDIA_TYPES;
}

/**
 * The media types the endpoint's serializer lists, in kube's order: protobuf for built-in kinds with a message,
 * and for custom resources (whose serializer has it for PartialObjectMetadata, never for the objects themselves).
 */
export function servedMediaTypes(scope: Pick<Scope, 'def' | 'kind'>): readonly string[] {
  return scope.def.custom || servesProtobuf(scope) ? PROTOBUF_SERVED_MEDIA_TYPES : SERVED_MEDIA_TYPES;
}

/** NegotiateOutputMediaType for a resource endpoint (Table and PartialObjectMetadata allowed); 406 otherwise. */
export function negotiateResourceOutput(scope: Scope): NegotiatedMediaType {
  const served = servedMediaTypes(scope);
  const restrictions = { allowTransform: true, untransformed: scope.def.custom ? SERVED_MEDIA_TYPES : undefined };
  const media = negotiateOutput(requestHeader(scope.r.req, 'accept'), restrictions, served);
  if (!media) throw notAcceptable([...served]);
  return media;
}

function isList(value: KubeObject | KubeList): value is KubeList {
  return Array.isArray((value as KubeList).items);
}

function withoutTypeMeta(item: KubeObject): KubeObject {
  if (item.kind === undefined && item.apiVersion === undefined) return item;
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = item;
  return rest as KubeObject;
}

/** transformResponseObject: the value to encode for the negotiated media type. */
export function transformResult(scope: Scope, result: KubeObject | KubeList, media: NegotiatedMediaType): unknown {
  if (result.kind === 'Status') return result;
  const convert = media.convert;
  if (convert) {
    switch (convert.kind) {
      case 'Table':
        return toTable(scope.def, result, parseTableOptions(scope.r.query), convert.version, scope.subresource);
      case 'PartialObjectMetadata':
        return toPartialObjectMetadata(scope.def, result, convert.version);
      case 'PartialObjectMetadataList':
        return toPartialObjectMetadataList(scope.def, result, convert.version);
    }
  }
  if (isList(result)) {
    // Items go out without their kind and apiVersion (protobuf messages have no place for them anyway).
    if (media.mediaType === PROTOBUF_MEDIA_TYPE) return result;
    const items = scope.def.custom ? result.items : result.items.map(withoutTypeMeta);
    return { ...result, items };
  }
  return result;
}

/** Compact JSON of the object itself (no Table or metadata-only conversion, not indented). */
export function plainJson(scope: Scope, media: NegotiatedMediaType): boolean {
  return media.mediaType === JSON_MEDIA_TYPE && !media.convert && !media.pretty && !prettyRequested(scope.r.query, requestHeader(scope.r.req, 'user-agent'));
}

/** A write's answer in compact JSON spliced from the value it stored, as a get of it would be; undefined otherwise. */
function writtenJson(result: KubeObject | KubeList): string | undefined {
  const kv = storedFormOf(result as KubeObject);
  if (kv === undefined || typeof result.apiVersion !== 'string') return undefined;
  const layout = layoutOf(kv);
  const json = layout && itemFromLayout(kv.value, layout, kv.modRevision, { apiVersion: result.apiVersion });
  return json === undefined ? undefined : `${goEscape(json)}\n`;
}

export function writeResult(scope: Scope, code: number, result: KubeObject | KubeList, media: NegotiatedMediaType): void {
  const written = plainJson(scope, media) ? writtenJson(result) : undefined;
  if (written !== undefined) {
    writeBody(scope.r, code, JSON_MEDIA_TYPE, written);
    return;
  }
  // A list of stored values (not touching `items`, which would decode them all).
  if (media.mediaType === PROTOBUF_MEDIA_TYPE && !media.convert) {
    const bytes = encodeStoredListProtobuf(result as KubeList, scope.r.res);
    if (bytes) {
      writeBody(scope.r, code, PROTOBUF_MEDIA_TYPE, bytes);
      return;
    }
  }
  writeObject(scope.r, code, transformResult(scope, result, media), media);
}

/** Strict decoding errors under a fieldValidation directive: warnings, a 400, or nothing. */
export function enforceFieldValidation(scope: Scope, directive: FieldValidation, errors: readonly string[], fail: () => StatusError): void {
  if (errors.length === 0 || directive === 'Ignore') return;
  if (directive === 'Warn') {
    scope.r.warnings.push(...errors);
    return;
  }
  throw fail();
}

function knownGroupVersion(scope: Scope) {
  return (group: string, version: string) => scope.deps.registry.all().some((d) => d.group === group && d.version === version);
}

function knownKind(scope: Scope) {
  return (group: string, version: string, kind: string) => scope.deps.registry.all().some((d) => d.group === group && d.version === version && d.kind === kind);
}

/**
 * Decodes a create/update body into the endpoint's kind: 400 for unreadable bodies or another kind or
 * version, the schema's type errors, strict field errors per fieldValidation; unknown fields are dropped.
 */
export function decodeObjectForWrite(scope: Scope, data: Buffer, format: BodyFormat, directive: FieldValidation): KubeObject {
  const raw = format === 'protobuf' ? parseProtobufBody(data, scope.kind, scope.def.custom) : parseBody(data, format, scope.kind.kind);
  const { object, gvk } = interpretBody(raw, data, scope.kind, scope.def.custom);
  checkBodyKind(gvk, scope.kind, scope.def.custom, knownGroupVersion(scope), knownKind(scope));
  const yamlErrors = yamlStrictErrors(raw);
  if (yamlErrors.length > 0 && directive !== 'Ignore') throw strictDecodingError(gvk, scope.kind.kind, yamlErrors);
  if (!scope.def.custom) {
    object.apiVersion = gvString(gvk.group, gvk.version);
    object.kind = gvk.kind;
  }
  if (object.metadata === undefined || object.metadata === null) object.metadata = {};
  const obj = object as KubeObject;
  let check: SchemaCheckResult | undefined;
  // A subresource of another kind is checked against its own kind's schema: the Scale of every scale subresource.
  if (scope.subresource === '' || scope.kind.kind === scope.def.kind) check = scope.deps.checkSchema(obj, scope.def);
  else if (scope.subresource === 'scale') check = checkAgainstSchema(obj, SCALE_SCHEMA);
  if (check?.fatal) throw check.fatal;
  const strictErrors = [...(check?.unknownFields ?? []).map((p) => `unknown field ${JSON.stringify(p)}`), ...raw.duplicateErrors];
  enforceFieldValidation(scope, directive, strictErrors, () => strictDecodingError(gvk, scope.kind.kind, strictErrors));
  if (check) applySchemaCheck(obj, check);
  return obj;
}

/** EnsureObjectNamespaceMatchesRequestNamespace with ExpectedNamespaceForResource. */
export function ensureNamespace(scope: Scope, obj: KubeObject): void {
  matchRequestNamespace(obj.metadata, scope.def.namespaced && !(scope.def.group === '' && scope.def.resource === 'namespaces') ? scope.namespace : '');
}

/** checkName: the object's name must be the URL's (update, patch). */
export function checkName(scope: Scope, obj: KubeObject): void {
  const objName = obj.metadata?.name ?? '';
  if (objName !== scope.name) throw badRequest(`the name of the object (${objName}) does not match the name on the URL (${scope.name})`);
  const objNamespace = obj.metadata?.namespace ?? '';
  if (scope.namespace !== '' && scope.def.namespaced && objNamespace !== '' && objNamespace !== scope.namespace) {
    throw badRequest(`the namespace of the object (${objNamespace}) does not match the namespace on the request (${scope.namespace})`);
  }
}

function sameOwnerReference(a: OwnerReference, b: OwnerReference): boolean {
  return (
    a.apiVersion === b.apiVersion &&
    a.kind === b.kind &&
    a.name === b.name &&
    a.uid === b.uid &&
    (a.controller ?? null) === (b.controller ?? null) &&
    (a.blockOwnerDeletion ?? null) === (b.blockOwnerDeletion ?? null)
  );
}

/** dedupOwnerReferencesAndAddWarning: identical owner references are dropped with a warning. */
export function dedupOwnerReferences(scope: Scope, obj: KubeObject, afterMutatingAdmission: boolean): void {
  const refs = obj.metadata?.ownerReferences;
  if (!Array.isArray(refs) || refs.length < 2) return;
  const kept: OwnerReference[] = [];
  const duplicates: string[] = [];
  for (const entry of refs as (OwnerReference | null)[]) {
    // Go decodes a null element as an OwnerReference of zero values (which validation then refuses).
    const ref = entry ?? ({} as OwnerReference);
    if (kept.some((k) => k.uid === ref.uid && sameOwnerReference(k, ref))) duplicates.push(ref.uid ?? '');
    else kept.push(ref);
  }
  if (duplicates.length === 0) return;
  const which = afterMutatingAdmission ? ' after mutating admission happens' : '';
  scope.r.warnings.push(
    `.metadata.ownerReferences contains duplicate entries${which}; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${duplicates.join(', ')}`,
  );
  obj.metadata.ownerReferences = kept;
}

export function expectedGroupVersion(kind: GroupVersionKind): string {
  return gvString(kind.group, kind.version);
}
