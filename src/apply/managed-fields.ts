// metadata.managedFields <-> the field manager's working form (k8s.io/apimachinery managedfields/internal
// managedfields.go): one versioned field set per manager identity, plus each entry's timestamp. A manager's
// identity is its entry without fields, time and (for appliers) apiVersion, as Go's JSON of that entry.

import type { ManagedFieldsEntry } from '../registry/types.ts';
import { FieldSet } from './field-set.ts';
import { goQuote } from '../encoding/go-format.ts';
import { compareGoStrings, goJsonString } from './go-format.ts';

export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  readonly applied: boolean;
}

export interface Managed {
  readonly fields: Map<string, VersionedSet>;
  /** RFC 3339 (seconds, UTC) per identity; undefined for entries without a time. */
  readonly times: Map<string, string | undefined>;
}

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

export function copyManaged(m: Managed): Managed {
  return { fields: new Map(m.fields), times: new Map(m.times) };
}

export interface ManagerInfo {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  subresource?: string;
}

/** Identifiers by their fields, and fields by identifier: a server sees few managers, and every write names one. */
const identifiers = new Map<string, string>();
const parsedIdentifiers = new Map<string, Readonly<ManagerInfo> | undefined>();
const MAX_MEMO = 1000;

/** BuildManagerIdentifier: Go's JSON of the entry's identifying fields, in ManagedFieldsEntry field order. */
export function managerIdentifier(info: ManagerInfo): string {
  const memoKey = `${info.manager ?? ''}\0${info.operation ?? ''}\0${info.apiVersion ?? ''}\0${info.subresource ?? ''}`;
  let identity = identifiers.get(memoKey);
  if (identity === undefined) {
    identity = buildManagerIdentifier(info);
    if (identifiers.size < MAX_MEMO) identifiers.set(memoKey, identity);
  }
  return identity;
}

function buildManagerIdentifier(info: ManagerInfo): string {
  const parts: string[] = [];
  if (info.manager) parts.push(`"manager":${goJsonString(info.manager)}`);
  if (info.operation) parts.push(`"operation":${goJsonString(info.operation)}`);
  if (info.apiVersion && info.operation !== 'Apply') parts.push(`"apiVersion":${goJsonString(info.apiVersion)}`);
  if (info.subresource) parts.push(`"subresource":${goJsonString(info.subresource)}`);
  return `{${parts.join(',')}}`;
}

export function parseManagerIdentifier(identity: string): Readonly<ManagerInfo> | undefined {
  if (parsedIdentifiers.has(identity)) return parsedIdentifiers.get(identity);
  const info = parseIdentifier(identity);
  if (parsedIdentifiers.size < MAX_MEMO) parsedIdentifiers.set(identity, info && Object.freeze(info));
  return info;
}

function parseIdentifier(identity: string): ManagerInfo | undefined {
  try {
    const v = JSON.parse(identity) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
    const o = v as Record<string, unknown>;
    const str = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : undefined);
    return { manager: str('manager'), operation: str('operation'), apiVersion: str('apiVersion'), subresource: str('subresource') };
  } catch {
    return undefined;
  }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** metav1.Time's wire form: RFC 3339 in UTC, whole seconds. Undefined when the text is not RFC 3339. */
export function normalizeTime(text: string): string | undefined {
  if (!RFC3339.test(text)) return undefined;
  const ms = Date.parse(text.toUpperCase());
  if (Number.isNaN(ms)) return undefined;
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function unixSeconds(time: string | undefined): number {
  if (time === undefined) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** Go's %v of a ManagedFieldsEntry struct, as decode errors print it. */
function entryV(e: Record<string, unknown>): string {
  const s = (k: string) => (typeof e[k] === 'string' ? (e[k] as string) : '');
  const time = e.time === undefined || e.time === null ? '<nil>' : String(e.time);
  return `{${s('manager')} ${s('operation')} ${s('apiVersion')} ${time} ${s('fieldsType')} ${e.fieldsV1 === undefined || e.fieldsV1 === null ? '<nil>' : 'FieldsV1'} ${s('subresource')}}`;
}

/** DecodeManagedFields; throws an Error with kube's message for an invalid list. */
export function decodeManagedFields(entries: unknown): Managed {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new Error('managedFields must be a list');
  entries.forEach((raw, i) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`managed fields entry ${i} is not an object`);
    const e = raw as Record<string, unknown>;
    for (const k of ['manager', 'operation', 'apiVersion', 'fieldsType', 'subresource']) {
      if (e[k] !== undefined && e[k] !== null && typeof e[k] !== 'string') throw new Error(`managed fields entry ${i}: ${k} must be a string`);
    }
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    if (typeof e.apiVersion !== 'string' || e.apiVersion.length < 1) throw new Error('apiVersion must not be empty');
    if (e.fieldsType === undefined || e.fieldsType === null || e.fieldsType === '') throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new Error(`invalid fieldsType ${goQuote(String(e.fieldsType))} in managed fields entry ${i}`);
    let time: string | undefined;
    if (e.time !== undefined && e.time !== null) {
      time = typeof e.time === 'string' ? normalizeTime(e.time) : undefined;
      if (time === undefined) throw new Error(`managed fields entry ${i}: invalid time ${JSON.stringify(e.time)}`);
    }
    const identity = managerIdentifier({
      manager: e.manager as string | undefined,
      operation: e.operation,
      apiVersion: e.apiVersion,
      subresource: e.subresource as string | undefined,
    });
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(e.fieldsV1 ?? {});
    } catch (err) {
      throw new Error(`error decoding versioned set from ${entryV(e)}: error decoding set: ${(err as Error).message}`);
    }
    managed.fields.set(identity, { set, apiVersion: e.apiVersion, applied: e.operation === 'Apply' });
    managed.times.set(identity, time);
  });
  return managed;
}

/** encodeManagedFields: the wire entries, sorted as kube sorts them; undefined when there are none. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [identity, vs] of managed.fields) {
    const info = parseManagerIdentifier(identity) ?? {};
    const entry: ManagedFieldsEntry = {};
    if (info.manager) entry.manager = info.manager;
    const operation = vs.applied ? 'Apply' : info.operation;
    if (operation === 'Apply' || operation === 'Update') entry.operation = operation;
    if (vs.apiVersion) entry.apiVersion = vs.apiVersion;
    const time = managed.times.get(identity);
    if (time !== undefined) entry.time = time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = vs.set.toFieldsV1();
    if (info.subresource) entry.subresource = info.subresource;
    entries.push(entry);
  }
  return entries.sort(compareEntries);
}

/** The order kube keeps managedFields entries in: by operation, then time (in seconds), manager, version, subresource. */
export function compareEntries(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  if (p.operation !== q.operation) return compareGoStrings(p.operation ?? '', q.operation ?? '');
  const ps = unixSeconds(p.time);
  const qs = unixSeconds(q.time);
  if (ps !== qs) return ps < qs ? -1 : 1;
  if (p.manager !== q.manager) return compareGoStrings(p.manager ?? '', q.manager ?? '');
  if (p.apiVersion !== q.apiVersion) return compareGoStrings(p.apiVersion ?? '', q.apiVersion ?? '');
  return compareGoStrings(p.subresource ?? '', q.subresource ?? '');
}

/** isResetManagedFields: an explicitly empty list, or a list of one empty entry, asks to clear managedFields. */
export function isResetManagedFields(list: unknown): boolean {
  if (!Array.isArray(list)) return false;
  if (list.length === 0) return true;
  if (list.length !== 1) return false;
  const e = list[0];
  if (typeof e !== 'object' || e === null || Array.isArray(e)) return false;
  return Object.values(e as Record<string, unknown>).every((v) => v === undefined || v === null || v === '');
}
