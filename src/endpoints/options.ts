// Query parameters as kube-apiserver's ParameterCodec decodes them into ListOptions, GetOptions,
// CreateOptions, UpdateOptions, PatchOptions and DeleteOptions, with the same validation and messages:
// malformed values are 400 BadRequest, invalid combinations 422 Invalid "<Kind>.meta.k8s.io".

import { StatusError, badRequest, fieldErrorBody, goStringsText, type StatusCause, type StatusDetails } from '../apis/errors.ts';
import type { DeleteOptions, ListOptions } from '../registry/types.ts';
import { validateFieldManager } from '../registry/validation/meta.ts';

/** One field error with its message body already rendered the way Go's field.Error prints it. */
export interface OptionError {
  reason: 'FieldValueNotSupported' | 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueTooLong';
  field: string;
  body: string;
}

/** apierrors.NewInvalid(GroupKind{meta.k8s.io, kind}, "", errs). */
export function invalidOptions(kind: string, errs: readonly OptionError[]): StatusError {
  const causes: StatusCause[] = errs.map((e) => ({ reason: e.reason, message: e.body, field: e.field }));
  const messages = [...new Set(errs.map((e) => `${e.field}: ${e.body}`))];
  const agg = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  const details: StatusDetails = { group: 'meta.k8s.io', kind, causes };
  return new StatusError(422, 'Invalid', `${kind}.meta.k8s.io "" is invalid: ${agg}`, details);
}

const q = (s: string): string => JSON.stringify(s);

/** strconv.ParseInt(s, 10, 64) with Go's error text. */
export function parseGoInt64(s: string): number {
  if (!/^[+-]?\d+$/.test(s)) throw new Error(`strconv.ParseInt: parsing ${q(s)}: invalid syntax`);
  const big = BigInt(s);
  if (big > 9223372036854775807n || big < -9223372036854775808n) throw new Error(`strconv.ParseInt: parsing ${q(s)}: value out of range`);
  return Number(big);
}

/** Convert_Slice_string_To_bool: present and not "0"/"false" (any case) means true, even when empty. */
export function lenientBool(query: URLSearchParams, name: string): boolean | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** An int64 query parameter as kube's parameter codec reads it: undefined when absent, 400 when malformed. */
export function optionalInt(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  try {
    return parseGoInt64(v);
  } catch (e) {
    throw badRequest((e as Error).message);
  }
}

function optionalString(query: URLSearchParams, name: string): string | undefined {
  const v = query.get(name);
  return v === null ? undefined : v;
}

export interface ParsedListOptions extends ListOptions {
  watch: boolean;
  /** sendInitialEvents was given (even as false). */
  sendInitialEventsSet: boolean;
}

/** Decodes ListOptions from the query (400 on malformed numbers). */
export function decodeListOptions(query: URLSearchParams): ParsedListOptions {
  const opts: ParsedListOptions = { watch: false, sendInitialEventsSet: false };
  const labelSelector = optionalString(query, 'labelSelector');
  if (labelSelector) opts.labelSelector = labelSelector;
  const fieldSelector = optionalString(query, 'fieldSelector');
  if (fieldSelector) opts.fieldSelector = fieldSelector;
  opts.watch = lenientBool(query, 'watch') ?? false;
  opts.allowWatchBookmarks = lenientBool(query, 'allowWatchBookmarks') ?? false;
  const rv = optionalString(query, 'resourceVersion');
  if (rv) opts.resourceVersion = rv;
  const rvm = optionalString(query, 'resourceVersionMatch');
  if (rvm) opts.resourceVersionMatch = rvm;
  const timeoutSeconds = optionalInt(query, 'timeoutSeconds');
  if (timeoutSeconds !== undefined) opts.timeoutSeconds = timeoutSeconds;
  const limit = optionalInt(query, 'limit');
  if (limit !== undefined && limit !== 0) opts.limit = limit;
  const cont = optionalString(query, 'continue');
  if (cont) opts.continue = cont;
  const sie = lenientBool(query, 'sendInitialEvents');
  if (sie !== undefined) {
    opts.sendInitialEvents = sie;
    opts.sendInitialEventsSet = true;
  }
  return opts;
}

/** metainternalversion validation.ValidateListOptions (422 ListOptions.meta.k8s.io). */
export function validateListOptions(opts: ParsedListOptions, watchListEnabled: boolean): void {
  const errs: OptionError[] = [];
  const forbidden = (field: string, detail: string) => errs.push({ reason: 'FieldValueForbidden', field, body: `Forbidden: ${detail}` });
  const match = opts.resourceVersionMatch ?? '';
  if (opts.watch) {
    if (opts.sendInitialEventsSet) {
      if (match !== 'NotOlderThan') forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
      if (!watchListEnabled) forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
    }
    if (match) {
      if (!opts.sendInitialEventsSet) forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
      if (match !== 'NotOlderThan') errs.push({ reason: 'FieldValueNotSupported', field: 'resourceVersionMatch', body: `Unsupported value: ${q(match)}: supported values: "NotOlderThan"` });
      if (opts.continue) forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
    }
  } else {
    if (match) {
      if (!opts.resourceVersion) forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided');
      if (opts.continue) forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
      if (match !== 'Exact' && match !== 'NotOlderThan') {
        errs.push({ reason: 'FieldValueNotSupported', field: 'resourceVersionMatch', body: `Unsupported value: ${q(match)}: supported values: "Exact", "NotOlderThan", ""` });
      }
      if (match === 'Exact' && opts.resourceVersion === '0') forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    }
    if (opts.sendInitialEventsSet) forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list');
  }
  if (errs.length > 0) throw invalidOptions('ListOptions', errs);
}

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface WriteOptions {
  dryRun: boolean;
  fieldManager: string;
  fieldValidation: FieldValidation;
  /** PatchOptions.force (apply only). */
  force: boolean | undefined;
}

function dryRunErrors(values: readonly string[]): OptionError[] {
  if (values.every((v) => v === 'All')) return [];
  return [{ reason: 'FieldValueNotSupported', field: 'dryRun', body: `Unsupported value: ${goStringsText(values)}: supported values: "All"` }];
}

function fieldValidationErrors(value: string): OptionError[] {
  if (value === '' || value === 'Ignore' || value === 'Warn' || value === 'Strict') return [];
  return [{ reason: 'FieldValueNotSupported', field: 'fieldValidation', body: `Unsupported value: ${q(value)}: supported values: "", "Ignore", "Strict", "Warn"` }];
}

/**
 * Create/Update/PatchOptions from the query, validated as ValidateCreateOptions & co.
 * `kind` names the options in the 422 message; patchType enables PatchOptions' apply rules.
 */
export function decodeWriteOptions(query: URLSearchParams, kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', isApply = false): WriteOptions {
  const dryRun = query.getAll('dryRun');
  const fieldManager = query.get('fieldManager') ?? '';
  const fieldValidation = query.get('fieldValidation') ?? '';
  const force = kind === 'PatchOptions' ? lenientBool(query, 'force') : undefined;
  const errs: OptionError[] = [];
  if (kind === 'PatchOptions') {
    if (!isApply) {
      if (force !== undefined) errs.push({ reason: 'FieldValueForbidden', field: 'force', body: 'Forbidden: may not be specified for non-apply patch' });
    } else if (fieldManager === '') {
      errs.push({ reason: 'FieldValueRequired', field: 'fieldManager', body: 'Required value: is required for apply patch' });
    }
  }
  for (const e of validateFieldManager(fieldManager, 'fieldManager')) errs.push({ reason: e.type as OptionError['reason'], field: e.field, body: fieldErrorBody(e) });
  errs.push(...dryRunErrors(dryRun));
  errs.push(...fieldValidationErrors(fieldValidation));
  if (errs.length > 0) throw invalidOptions(kind, errs);
  return {
    dryRun: dryRun.length > 0,
    fieldManager,
    fieldValidation: fieldValidation === '' ? 'Warn' : (fieldValidation as FieldValidation),
    force,
  };
}

export interface ParsedDeleteOptions extends DeleteOptions {
  dryRun: boolean;
  /** The raw dryRun values, validated later. */
  dryRunValues: string[];
}

/** DeleteOptions from the query (used when the request has no body). */
export function decodeDeleteOptionsQuery(query: URLSearchParams): ParsedDeleteOptions {
  const opts: ParsedDeleteOptions = { dryRun: false, dryRunValues: query.getAll('dryRun') };
  const grace = optionalInt(query, 'gracePeriodSeconds');
  if (grace !== undefined) opts.gracePeriodSeconds = grace;
  const orphan = lenientBool(query, 'orphanDependents');
  if (orphan !== undefined) opts.orphanDependents = orphan;
  const policy = optionalString(query, 'propagationPolicy');
  if (policy !== undefined) opts.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  return opts;
}

/** Decoded DeleteOptions body (meta.k8s.io/v1 or the group's own version), in the same shape. */
export function deleteOptionsFromBody(body: Record<string, unknown>): ParsedDeleteOptions {
  const opts: ParsedDeleteOptions = { dryRun: false, dryRunValues: [] };
  const typeErr = (field: string, want: string, got: unknown): never => {
    throw badRequest(`json: cannot unmarshal ${goJsonType(got)} into Go struct field DeleteOptions.${field} of type ${want}`);
  };
  if (body.gracePeriodSeconds !== undefined && body.gracePeriodSeconds !== null) {
    if (typeof body.gracePeriodSeconds !== 'number' || !Number.isInteger(body.gracePeriodSeconds)) typeErr('gracePeriodSeconds', 'int64', body.gracePeriodSeconds);
    opts.gracePeriodSeconds = body.gracePeriodSeconds as number;
  }
  if (body.orphanDependents !== undefined && body.orphanDependents !== null) {
    if (typeof body.orphanDependents !== 'boolean') typeErr('orphanDependents', 'bool', body.orphanDependents);
    opts.orphanDependents = body.orphanDependents as boolean;
  }
  if (body.propagationPolicy !== undefined && body.propagationPolicy !== null) {
    if (typeof body.propagationPolicy !== 'string') typeErr('propagationPolicy', 'v1.DeletionPropagation', body.propagationPolicy);
    opts.propagationPolicy = body.propagationPolicy as DeleteOptions['propagationPolicy'];
  }
  if (body.preconditions !== undefined && body.preconditions !== null) {
    const p = body.preconditions;
    if (typeof p !== 'object' || Array.isArray(p)) typeErr('preconditions', 'v1.Preconditions', p);
    const pre = p as Record<string, unknown>;
    opts.preconditions = {};
    if (typeof pre.uid === 'string') opts.preconditions.uid = pre.uid;
    if (typeof pre.resourceVersion === 'string') opts.preconditions.resourceVersion = pre.resourceVersion;
  }
  if (body.dryRun !== undefined && body.dryRun !== null) {
    if (!Array.isArray(body.dryRun) || body.dryRun.some((v) => typeof v !== 'string')) typeErr('dryRun', '[]string', body.dryRun);
    opts.dryRunValues = body.dryRun as string[];
  }
  return opts;
}

function goJsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  switch (typeof v) {
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}

/** ValidateDeleteOptions (422 DeleteOptions.meta.k8s.io); sets dryRun. */
export function validateDeleteOptions(opts: ParsedDeleteOptions): void {
  const errs: OptionError[] = [];
  if (opts.orphanDependents !== undefined && opts.propagationPolicy !== undefined) {
    errs.push({ reason: 'FieldValueInvalid', field: 'propagationPolicy', body: `Invalid value: ${q(opts.propagationPolicy)}: orphanDependents and deletionPropagation cannot be both set` });
  }
  const p = opts.propagationPolicy;
  if (p !== undefined && p !== 'Foreground' && p !== 'Background' && p !== 'Orphan') {
    errs.push({ reason: 'FieldValueNotSupported', field: 'propagationPolicy', body: `Unsupported value: ${q(p)}: supported values: "Foreground", "Background", "Orphan", "nil"` });
  }
  errs.push(...dryRunErrors(opts.dryRunValues));
  if (errs.length > 0) throw invalidOptions('DeleteOptions', errs);
  opts.dryRun = opts.dryRunValues.length > 0;
}
