// Event conversion between core v1 and events.k8s.io/v1 (kube's pkg/apis/events/v1 conversion through the
// internal core Event). Both APIs share one storage location (/registry/events), stored as core v1.
// Fields are emitted in each version's serialization order, with the values Go writes for unset fields
// (object references and sources as {}, timestamps as null, core's reporting fields as "").

import type { KubeObject } from '../../types.ts';
import { cloneJson } from '../../../apis/json-clone.ts';

export const CORE_EVENT_VERSION = 'v1';
export const EVENTS_GROUP_VERSION = 'events.k8s.io/v1';

type Obj = Record<string, unknown>;

/** The version-independent content of an Event (kube's internal core.Event). */
interface InternalEvent {
  metadata: KubeObject['metadata'];
  involvedObject: unknown;
  reason: unknown;
  message: unknown;
  source: unknown;
  firstTimestamp: unknown;
  lastTimestamp: unknown;
  count: unknown;
  type: unknown;
  eventTime: unknown;
  series: unknown;
  action: unknown;
  related: unknown;
  reportingController: unknown;
  reportingInstance: unknown;
}

export function isEventsGroupVersion(apiVersion: unknown): boolean {
  return typeof apiVersion === 'string' && apiVersion.startsWith('events.k8s.io/');
}

/** Go's omitempty: drop "", 0, null and undefined (undefined here means "not written"). */
const omitEmpty = (v: unknown): unknown => (v === undefined || v === null || v === '' || v === 0 ? undefined : v);
const orEmptyObject = (v: unknown): unknown => (v && typeof v === 'object' ? v : {});
const orNull = (v: unknown): unknown => (v === undefined || v === '' ? null : v);
const orEmptyString = (v: unknown): unknown => (v === undefined || v === null ? '' : v);

/** A field of one version: its name there, the internal field it carries, and what Go writes for it. */
type EventField = [name: string, internal: Exclude<keyof InternalEvent, 'metadata'>, write: (v: unknown) => unknown];

/** core v1 Event fields after metadata, in serialization order. */
const CORE_FIELDS: EventField[] = [
  ['involvedObject', 'involvedObject', orEmptyObject],
  ['reason', 'reason', omitEmpty],
  ['message', 'message', omitEmpty],
  ['source', 'source', orEmptyObject],
  ['firstTimestamp', 'firstTimestamp', orNull],
  ['lastTimestamp', 'lastTimestamp', orNull],
  ['count', 'count', omitEmpty],
  ['type', 'type', omitEmpty],
  ['eventTime', 'eventTime', orNull],
  ['series', 'series', omitEmpty],
  ['action', 'action', omitEmpty],
  ['related', 'related', omitEmpty],
  ['reportingComponent', 'reportingController', orEmptyString],
  ['reportingInstance', 'reportingInstance', orEmptyString],
];

/** events.k8s.io/v1 Event fields after metadata, in serialization order. */
const EVENTS_GROUP_FIELDS: EventField[] = [
  ['eventTime', 'eventTime', orNull],
  ['series', 'series', omitEmpty],
  ['reportingController', 'reportingController', omitEmpty],
  ['reportingInstance', 'reportingInstance', omitEmpty],
  ['action', 'action', omitEmpty],
  ['reason', 'reason', omitEmpty],
  ['regarding', 'involvedObject', orEmptyObject],
  ['related', 'related', omitEmpty],
  ['note', 'message', omitEmpty],
  ['type', 'type', omitEmpty],
  ['deprecatedSource', 'source', orEmptyObject],
  ['deprecatedFirstTimestamp', 'firstTimestamp', orNull],
  ['deprecatedLastTimestamp', 'lastTimestamp', orNull],
  ['deprecatedCount', 'count', omitEmpty],
];

function toInternal(ev: Obj, fields: EventField[]): InternalEvent {
  const e = { metadata: ev.metadata } as InternalEvent;
  for (const [name, internal] of fields) e[internal] = ev[name];
  return e;
}

function fromInternal(e: InternalEvent, apiVersion: string, fields: EventField[]): KubeObject {
  const out: Obj = { kind: 'Event', apiVersion, metadata: e.metadata };
  for (const [name, internal, write] of fields) {
    const v = write(e[internal]);
    if (v !== undefined) out[name] = v;
  }
  return out as KubeObject;
}

/** An Event of either API as `apiVersion` ("v1" or "events.k8s.io/v1") serves it; a new object. */
export function convertEvent(obj: KubeObject, apiVersion: string): KubeObject {
  const copy = cloneJson(obj) as Obj;
  const internal = toInternal(copy, isEventsGroupVersion(obj.apiVersion) ? EVENTS_GROUP_FIELDS : CORE_FIELDS);
  if (!internal.metadata || typeof internal.metadata !== 'object') internal.metadata = {};
  return isEventsGroupVersion(apiVersion) ? fromInternal(internal, apiVersion, EVENTS_GROUP_FIELDS) : fromInternal(internal, CORE_EVENT_VERSION, CORE_FIELDS);
}

/**
 * kube's events.k8s.io/v1 field label conversion: the field selectors of the new API name their core
 * counterparts (regarding.* -> involvedObject.*, reportingController -> reportingComponent, ...).
 */
export const EVENTS_GROUP_FIELD_LABELS: Readonly<Record<string, string>> = {
  'regarding.kind': 'involvedObject.kind',
  'regarding.namespace': 'involvedObject.namespace',
  'regarding.name': 'involvedObject.name',
  'regarding.uid': 'involvedObject.uid',
  'regarding.apiVersion': 'involvedObject.apiVersion',
  'regarding.resourceVersion': 'involvedObject.resourceVersion',
  'regarding.fieldPath': 'involvedObject.fieldPath',
  reason: 'reason',
  reportingController: 'reportingComponent',
  type: 'type',
};
