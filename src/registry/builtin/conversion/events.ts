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

function fromCore(ev: Obj): InternalEvent {
  return {
    metadata: ev.metadata as KubeObject['metadata'],
    involvedObject: ev.involvedObject,
    reason: ev.reason,
    message: ev.message,
    source: ev.source,
    firstTimestamp: ev.firstTimestamp,
    lastTimestamp: ev.lastTimestamp,
    count: ev.count,
    type: ev.type,
    eventTime: ev.eventTime,
    series: ev.series,
    action: ev.action,
    related: ev.related,
    reportingController: ev.reportingComponent,
    reportingInstance: ev.reportingInstance,
  };
}

function fromEventsGroup(ev: Obj): InternalEvent {
  return {
    metadata: ev.metadata as KubeObject['metadata'],
    involvedObject: ev.regarding,
    reason: ev.reason,
    message: ev.note,
    source: ev.deprecatedSource,
    firstTimestamp: ev.deprecatedFirstTimestamp,
    lastTimestamp: ev.deprecatedLastTimestamp,
    count: ev.deprecatedCount,
    type: ev.type,
    eventTime: ev.eventTime,
    series: ev.series,
    action: ev.action,
    related: ev.related,
    reportingController: ev.reportingController,
    reportingInstance: ev.reportingInstance,
  };
}

/** Go's omitempty: drop "", 0, null and undefined; keep anything else. */
function setOmitEmpty(out: Obj, key: string, v: unknown): void {
  if (v === undefined || v === null || v === '' || v === 0) return;
  out[key] = v;
}

const orEmptyObject = (v: unknown): unknown => (v && typeof v === 'object' ? v : {});
const orNull = (v: unknown): unknown => (v === undefined || v === '' ? null : v);
const orEmptyString = (v: unknown): unknown => (v === undefined || v === null ? '' : v);

function toCore(e: InternalEvent): KubeObject {
  const out: Obj = { kind: 'Event', apiVersion: CORE_EVENT_VERSION, metadata: e.metadata };
  out.involvedObject = orEmptyObject(e.involvedObject);
  setOmitEmpty(out, 'reason', e.reason);
  setOmitEmpty(out, 'message', e.message);
  out.source = orEmptyObject(e.source);
  out.firstTimestamp = orNull(e.firstTimestamp);
  out.lastTimestamp = orNull(e.lastTimestamp);
  setOmitEmpty(out, 'count', e.count);
  setOmitEmpty(out, 'type', e.type);
  out.eventTime = orNull(e.eventTime);
  setOmitEmpty(out, 'series', e.series);
  setOmitEmpty(out, 'action', e.action);
  setOmitEmpty(out, 'related', e.related);
  out.reportingComponent = orEmptyString(e.reportingController);
  out.reportingInstance = orEmptyString(e.reportingInstance);
  return out as KubeObject;
}

function toEventsGroup(e: InternalEvent, apiVersion: string): KubeObject {
  const out: Obj = { kind: 'Event', apiVersion, metadata: e.metadata };
  out.eventTime = orNull(e.eventTime);
  setOmitEmpty(out, 'series', e.series);
  setOmitEmpty(out, 'reportingController', e.reportingController);
  setOmitEmpty(out, 'reportingInstance', e.reportingInstance);
  setOmitEmpty(out, 'action', e.action);
  setOmitEmpty(out, 'reason', e.reason);
  out.regarding = orEmptyObject(e.involvedObject);
  setOmitEmpty(out, 'related', e.related);
  setOmitEmpty(out, 'note', e.message);
  setOmitEmpty(out, 'type', e.type);
  out.deprecatedSource = orEmptyObject(e.source);
  out.deprecatedFirstTimestamp = orNull(e.firstTimestamp);
  out.deprecatedLastTimestamp = orNull(e.lastTimestamp);
  setOmitEmpty(out, 'deprecatedCount', e.count);
  return out as KubeObject;
}

/** An Event of either API as `apiVersion` ("v1" or "events.k8s.io/v1") serves it; a new object. */
export function convertEvent(obj: KubeObject, apiVersion: string): KubeObject {
  const copy = cloneJson(obj) as Obj;
  const internal = isEventsGroupVersion(obj.apiVersion) ? fromEventsGroup(copy) : fromCore(copy);
  if (!internal.metadata || typeof internal.metadata !== 'object') internal.metadata = {};
  return isEventsGroupVersion(apiVersion) ? toEventsGroup(internal, apiVersion) : toCore(internal);
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
