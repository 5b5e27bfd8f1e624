// What encoding/json says when a JSON value does not fit the Go type it is decoded into: the webhook reviews kube's
// clients decode (AdmissionReview, ConversionReview, TokenReview, SubjectAccessReview) fail on a mistyped field
// with these words, where a lenient reading would take the answer.

import { base64ErrorOffset } from './go-decode.ts';
import { jsonKind } from './json-value.ts';

/** A Go type a JSON value decodes into, for the errors encoding/json gives on a mistyped field. */
export type GoType =
  | { readonly go: string; readonly scalar: 'string' | 'bool' | 'int32' | 'int64' | 'bytes' | 'raw' }
  | { readonly go: string; readonly struct: string; readonly fields: Readonly<Record<string, GoType>> }
  | { readonly go: string; readonly elem: GoType; readonly map?: true };

export const GO_STRING: GoType = { go: 'string', scalar: 'string' };
export const GO_BOOL: GoType = { go: 'bool', scalar: 'bool' };
/** runtime.RawExtension: any JSON value. */
export const GO_RAW: GoType = { go: 'runtime.RawExtension', scalar: 'raw' };
/** A named string type (types.UID, v1.StatusReason). */
export const goNamedString = (go: string): GoType => ({ go, scalar: 'string' });
const STATUS_DETAILS: GoType = {
  go: 'v1.StatusDetails',
  struct: 'StatusDetails',
  fields: {
    name: GO_STRING,
    group: GO_STRING,
    kind: GO_STRING,
    uid: goNamedString('types.UID'),
    causes: { go: '[]v1.StatusCause', elem: { go: 'v1.StatusCause', struct: 'StatusCause', fields: { reason: goNamedString('v1.CauseType'), message: GO_STRING, field: GO_STRING } } },
    retryAfterSeconds: { go: 'int32', scalar: 'int32' },
  },
};
/** metav1.Status, as every review's result or status carries it. */
export const GO_STATUS: GoType = {
  go: 'v1.Status',
  struct: 'Status',
  fields: {
    kind: GO_STRING,
    apiVersion: GO_STRING,
    metadata: { go: 'v1.ListMeta', struct: 'ListMeta', fields: { selfLink: GO_STRING, resourceVersion: GO_STRING, continue: GO_STRING, remainingItemCount: { go: 'int64', scalar: 'int64' } } },
    status: GO_STRING,
    message: GO_STRING,
    reason: goNamedString('v1.StatusReason'),
    details: STATUS_DETAILS,
    code: { go: 'int32', scalar: 'int32' },
  },
};
const INT_RANGE = { int32: [-(2 ** 31), 2 ** 31 - 1], int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] } as const;

/**
 * The first error encoding/json reports decoding `value` into `type` at `fields` below a struct named `struct` (it
 * goes on past a mistyped field and returns the first error at the end): a type mismatch, an integer out of range or
 * malformed base64; undefined when the value decodes.
 */
export function goDecodeError(value: unknown, type: GoType, struct: string, fields: readonly string[]): string | undefined {
  let first: string | undefined;
  const walk = (v: unknown, t: GoType, struct: string, fields: readonly string[]): void => {
    if (first !== undefined || v === null || v === undefined) return;
    const mismatch = (value: string) => {
      first = `json: cannot unmarshal ${value} into Go struct field ${struct}.${fields.join('.')} of type ${t.go}`;
    };
    if ('scalar' in t) {
      if (t.scalar === 'raw') return;
      if (t.scalar === 'bool') {
        if (typeof v !== 'boolean') mismatch(jsonKind(v));
      } else if (t.scalar === 'int32' || t.scalar === 'int64') {
        const [min, max] = INT_RANGE[t.scalar];
        if (typeof v !== 'number') mismatch(jsonKind(v));
        else if (!Number.isInteger(v) || v < min || v > max) mismatch(`number ${String(v)}`);
      } else if (typeof v !== 'string') mismatch(jsonKind(v));
      else if (t.scalar === 'bytes') {
        const at = base64ErrorOffset(v);
        if (at >= 0) first = `illegal base64 data at input byte ${at}`;
      }
      return;
    }
    if ('struct' in t) {
      if (typeof v !== 'object' || Array.isArray(v)) return mismatch(jsonKind(v));
      for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
        const field = t.fields[key];
        if (field && Object.hasOwn(t.fields, key)) walk(value, field, t.struct, [...fields, key]);
      }
      return;
    }
    const isMap = t.map === true;
    if (isMap ? typeof v !== 'object' || Array.isArray(v) : !Array.isArray(v)) return mismatch(jsonKind(v));
    for (const item of Object.values(v as object)) walk(item, t.elem, struct, fields);
  };
  walk(value, type, struct, fields);
  return first;
}

const INTERPRET_TARGET = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * How a review a webhook answered fails to decode, as the client's serializer words it: a body that is not a JSON
 * object, or a mistyped apiVersion or kind, fails Interpret ("couldn't get version/kind; json parse error: ..."); then
 * the fields of the review's `field` (its response or status); undefined when it decodes. A null body decodes to an
 * empty review.
 */
export function reviewDecodeError(body: unknown, review: string, field: string, type: GoType): string | undefined {
  if (body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body)) return `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(body)} into Go value of type ${INTERPRET_TARGET}`;
  const o = body as Record<string, unknown>;
  for (const key of ['apiVersion', 'kind']) {
    const v = o[key];
    if (v !== undefined && v !== null && typeof v !== 'string') return `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(v)} into Go struct field .${key} of type string`;
  }
  return goDecodeError(o[field], type, review, [field]);
}
