// Events of both groups (core validation legacyValidateEvent, printEvent, the field label conversions).

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goText } from '../../../apis/go-bad-values.ts';
import { goTimeString } from '../../../encoding/go-format.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE, validateObjectMeta, validateObjectMetaUpdate, validateQualifiedName } from '../../validation/meta.ts';
import { isDNS1123Subdomain } from '../../validation/names.ts';
import { buildStrategy } from '../generic.ts';
import { getPath, isObj, numAt, objAt, semanticEqual, setDefault, strAt, type Obj } from '../object.ts';
import { column, NAME_COLUMN_DESCRIPTION, translateTimestampSince } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { EVENTS_GROUP_FIELD_LABELS } from '../conversion/events.ts';

const EVENT_LIMIT = 128;
const NOTE_LIMIT = 1024;

/** The fields Go always writes for a core/v1 Event (timestamps as null, reporting fields as ""). */
export function defaultCoreEvent(ev: KubeObject): void {
  setDefault(ev, 'involvedObject', {});
  setDefault(ev, 'source', {});
  for (const f of ['firstTimestamp', 'lastTimestamp', 'eventTime']) if (!(f in ev)) ev[f] = null;
  for (const f of ['reportingComponent', 'reportingInstance']) setDefault(ev, f, '');
}

/** A core/v1-shaped view of either Event flavor (events.k8s.io/v1 renames most fields). */
export interface EventView {
  namespace: string;
  involvedObject: Obj;
  reason: string;
  message: string;
  type: string;
  eventTime: string;
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  series?: Obj;
  reportingController: string;
  reportingInstance: string;
  action: string;
  source: Obj;
}

export function eventView(ev: KubeObject): EventView {
  const isCore = !('regarding' in ev) && !('note' in ev) && !('reportingController' in ev) && !String(ev.apiVersion ?? '').startsWith('events.k8s.io');
  const s = (k: string) => strAt(ev, k);
  return isCore
    ? {
        namespace: ev.metadata?.namespace ?? '',
        involvedObject: objAt(ev, 'involvedObject') ?? {},
        reason: s('reason'),
        message: s('message'),
        type: s('type'),
        eventTime: s('eventTime'),
        firstTimestamp: s('firstTimestamp'),
        lastTimestamp: s('lastTimestamp'),
        count: numAt(ev, 'count'),
        series: objAt(ev, 'series'),
        reportingController: s('reportingComponent'),
        reportingInstance: s('reportingInstance'),
        action: s('action'),
        source: objAt(ev, 'source') ?? {},
      }
    : {
        namespace: ev.metadata?.namespace ?? '',
        involvedObject: objAt(ev, 'regarding') ?? {},
        reason: s('reason'),
        message: s('note'),
        type: s('type'),
        eventTime: s('eventTime'),
        firstTimestamp: s('deprecatedFirstTimestamp'),
        lastTimestamp: s('deprecatedLastTimestamp'),
        count: numAt(ev, 'deprecatedCount'),
        series: objAt(ev, 'series'),
        reportingController: s('reportingController'),
        reportingInstance: s('reportingInstance'),
        action: s('action'),
        source: objAt(ev, 'deprecatedSource') ?? {},
      };
}

/** legacyValidateEvent (both API groups go through it). */
export function validateEventContent(ev: KubeObject, reportingField: 'reportingComponent' | 'reportingController'): FieldError[] {
  const v = eventView(ev);
  const errs: FieldError[] = [];
  const involvedNs = strAt(v.involvedObject, 'namespace');
  if (v.eventTime === '') {
    if (involvedNs === '') {
      if (v.namespace !== '' && v.namespace !== 'default') errs.push(fieldErrors.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    } else if (v.namespace !== involvedNs) {
      errs.push(fieldErrors.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    }
  } else {
    if (involvedNs === '' && v.namespace !== 'default' && v.namespace !== 'kube-system') {
      errs.push(fieldErrors.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    }
    if (v.reportingController === '') errs.push(fieldErrors.required(reportingField));
    errs.push(...validateQualifiedName(v.reportingController, reportingField));
    if (v.reportingInstance === '') errs.push(fieldErrors.required('reportingInstance'));
    if (v.reportingInstance.length > EVENT_LIMIT) errs.push(fieldErrors.invalid('reportingInstance', '', `can have at most ${EVENT_LIMIT} characters`));
    if (v.action === '') errs.push(fieldErrors.required('action'));
    if (v.action.length > EVENT_LIMIT) errs.push(fieldErrors.invalid('action', '', `can have at most ${EVENT_LIMIT} characters`));
    if (v.reason === '') errs.push(fieldErrors.required('reason'));
    if (v.reason.length > EVENT_LIMIT) errs.push(fieldErrors.invalid('reason', '', `can have at most ${EVENT_LIMIT} characters`));
    if (v.message.length > NOTE_LIMIT) errs.push(fieldErrors.invalid('message', '', `can have at most ${NOTE_LIMIT} characters`));
  }
  for (const m of isDNS1123Subdomain(v.namespace)) errs.push(fieldErrors.invalid('namespace', v.namespace, m));
  return errs;
}

function eventSource(v: EventView): string {
  const component = strAt(v.source, 'component') || v.reportingController;
  const host = strAt(v.source, 'host') || v.reportingInstance;
  return host === '' ? component : `${component}, ${host}`;
}

function timeCell(t: string): string {
  return translateTimestampSince(t === '' ? undefined : t);
}

function eventTimes(ev: KubeObject): { first: string; last: string; count: number } {
  const v = eventView(ev);
  const first = v.firstTimestamp !== '' ? timeCell(v.firstTimestamp) : timeCell(v.eventTime);
  let last = v.lastTimestamp !== '' ? timeCell(v.lastTimestamp) : first;
  let count = v.count;
  if (v.series) {
    last = timeCell(strAt(v.series, 'lastObservedTime'));
    count = numAt(v.series, 'count');
  } else if (count === 0) count = 1;
  return { first, last, count };
}

function eventObject(ev: KubeObject): string {
  const o = eventView(ev).involvedObject;
  const kind = strAt(o, 'kind').toLowerCase();
  const name = strAt(o, 'name');
  return name !== '' ? `${kind}/${name}` : kind;
}

export function eventPrinterColumns() {
  return [
    column('Last Seen', 'string', 'When the event was last observed.', (o) => eventTimes(o).last),
    column('Type', 'string', 'Normal or Warning.', (o) => eventView(o).type),
    column('Reason', 'string', 'Why the event happened, in one word.', (o) => eventView(o).reason),
    column('Object', 'string', 'The object the event is about.', eventObject),
    column('Subobject', 'string', 'The part of the object the event is about.', (o) => strAt(eventView(o).involvedObject, 'fieldPath'), 1),
    column('Source', 'string', 'The component that reported the event.', (o) => eventSource(eventView(o)), 1),
    column('Message', 'string', 'What happened.', (o) => eventView(o).message.trim()),
    column('First Seen', 'string', 'When the event was first observed.', (o) => eventTimes(o).first, 1),
    column('Count', 'string', 'How often the event was observed.', (o) => eventTimes(o).count, 1),
    // Events place Name last (kube's printer): the table must not add another Name column in front.
    column('Name', 'string', NAME_COLUMN_DESCRIPTION, (o) => o.metadata?.name ?? '', 1, 'name'),
  ];
}

function involved(ev: KubeObject, key: string): string {
  return strAt(eventView(ev).involvedObject, key);
}

const coreEventFields: Record<string, (obj: KubeObject) => string | undefined> = {
  'involvedObject.kind': (o) => involved(o, 'kind'),
  'involvedObject.namespace': (o) => involved(o, 'namespace'),
  'involvedObject.name': (o) => involved(o, 'name'),
  'involvedObject.uid': (o) => involved(o, 'uid'),
  'involvedObject.apiVersion': (o) => involved(o, 'apiVersion'),
  'involvedObject.resourceVersion': (o) => involved(o, 'resourceVersion'),
  'involvedObject.fieldPath': (o) => involved(o, 'fieldPath'),
  reason: (o) => eventView(o).reason,
  reportingComponent: (o) => eventView(o).reportingController,
  source: (o) => strAt(eventView(o).source, 'component') || eventView(o).reportingController,
  type: (o) => eventView(o).type,
};

/** events.k8s.io/v1's field selectors: kube's field label conversion maps each onto a core one. */
const eventsGroupFields = Object.fromEntries(Object.entries(EVENTS_GROUP_FIELD_LABELS).map(([label, core]) => [label, coreEventFields[core]]));

export function coreEventFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      // For compatibility core/v1 keeps the legacy rules only: no ObjectMeta checks beyond the generic ones.
      genericMetaOnly: true,
      defaults: defaultCoreEvent,
      validate: (obj) => validateEventContent(obj, 'reportingComponent'),
    }),
    printerColumns: eventPrinterColumns(),
    selectableFields: coreEventFields,
  };
}

/** validateV1EventSeries: a series counts at least 2 and has a last observed time. */
function seriesErrors(ev: KubeObject): FieldError[] {
  const series = objAt(ev, 'series');
  if (!series) return [];
  const errs: FieldError[] = [];
  if (numAt(series, 'count') < 2) errs.push(fieldErrors.invalid('series.count', '', 'should be at least 2'));
  if (strAt(series, 'lastObservedTime') === '') errs.push(fieldErrors.required('series.lastObservedTime'));
  return errs;
}

const isSet = (v: unknown) => v !== undefined && v !== null && v !== '' && v !== 0 && !(isObj(v) && Object.keys(v).length === 0);

/**
 * ValidateEventCreate beyond the legacy rules, for requests through events.k8s.io/v1 (core/v1 keeps only the
 * legacy ones for compatibility). Paths name the internal (core) fields.
 */
function strictEventCreateErrors(ev: KubeObject): FieldError[] {
  const errs = seriesErrors(ev);
  if (!strAt(ev, 'eventTime')) errs.push(fieldErrors.required('eventTime'));
  const type = strAt(ev, 'type');
  if (type !== 'Normal' && type !== 'Warning') errs.push(fieldErrors.invalid('type', '', `has invalid value: ${type}`));
  if (isSet(ev.deprecatedFirstTimestamp)) errs.push(fieldErrors.invalid('firstTimestamp', '', 'needs to be unset'));
  if (isSet(ev.deprecatedLastTimestamp)) errs.push(fieldErrors.invalid('lastTimestamp', '', 'needs to be unset'));
  if (isSet(ev.deprecatedCount)) errs.push(fieldErrors.invalid('count', '', 'needs to be unset'));
  if (strAt(ev, 'deprecatedSource', 'component') !== '' || strAt(ev, 'deprecatedSource', 'host') !== '') errs.push(fieldErrors.invalid('source', '', 'needs to be unset'));
  return errs;
}

/** %#v of a core.ObjectReference. */
function goObjectReference(v: unknown): string {
  const r = isObj(v) ? v : {};
  const fields = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];
  const names = ['Kind', 'Namespace', 'Name', 'UID', 'APIVersion', 'ResourceVersion', 'FieldPath'];
  return `core.ObjectReference{${fields.map((f, i) => `${names[i]}:${goText(r[f])}`).join(', ')}}`;
}

const goReference = (v: unknown): unknown => renderedBadValue(goObjectReference(v));
/** A *core.ObjectReference: field.Error prints the pointee, or "null" for nil. */
const goReferencePointer = (v: unknown): unknown => (isObj(v) ? goReference(v) : null);
const goSource = (v: unknown): unknown => renderedBadValue(`core.EventSource{Component:${goText(getPath(v, 'component'))}, Host:${goText(getPath(v, 'host'))}}`);
/** metav1.Time and MicroTime print through time.Time's String(); a null one is the zero time. */
const goTime = (v: unknown): unknown => renderedBadValue(goTimeString(typeof v === 'string' ? v : null));
const asString = (v: unknown): unknown => (typeof v === 'string' ? v : '');
const asInt = (v: unknown): unknown => (typeof v === 'number' ? v : 0);

// ValidateEventUpdate's immutable fields in its order (reason is checked twice): the internal path, the
// events.k8s.io/v1 field, and how field.Error prints the Go value.
const IMMUTABLE_EVENT_FIELDS: [string, string, (v: unknown) => unknown][] = [
  ['involvedObject', 'regarding', goReference],
  ['reason', 'reason', asString],
  ['message', 'note', asString],
  ['source', 'deprecatedSource', goSource],
  ['firstTimestamp', 'deprecatedFirstTimestamp', goTime],
  ['lastTimestamp', 'deprecatedLastTimestamp', goTime],
  ['count', 'deprecatedCount', asInt],
  ['reason', 'reason', asString],
  ['type', 'type', asString],
  ['eventTime', 'eventTime', goTime],
  ['action', 'action', asString],
  ['related', 'related', goReferencePointer],
  ['reportingController', 'reportingController', asString],
  ['reportingInstance', 'reportingInstance', asString],
];

/** The instant a timestamp names, in microseconds (what a MicroTime holds; a Time holds whole seconds). */
function eventMicros(v: unknown): number | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  const ms = Date.parse(v);
  const micros = Number((/:\d\d[.,]\d{3}(\d{0,3})/.exec(v)?.[1] ?? '').padEnd(3, '0'));
  return Number.isNaN(ms) ? undefined : ms * 1000 + micros;
}

const TIME_FIELDS = new Set(['deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'eventTime']);

/** A struct field compared as Go compares values: absent, null, "", 0 and {} are all the zero value. */
function withoutZeros(v: unknown): unknown {
  if (v === undefined || v === null || v === '' || v === 0) return undefined;
  if (!isObj(v)) return v;
  const kept = Object.entries(v).map(([k, x]) => [k, withoutZeros(x)] as const).filter(([, x]) => x !== undefined);
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
}

/**
 * apiequality.Semantic.DeepEqual of the typed fields: times by instant (eventTime to the microsecond, so a
 * sub-microsecond change is none), a nil *ObjectReference (related) unlike an empty one.
 */
function sameEventField(key: string, a: unknown, b: unknown): boolean {
  if (TIME_FIELDS.has(key)) return eventMicros(a) === eventMicros(b);
  if (key === 'related') return isObj(a) === isObj(b) && semanticEqual(withoutZeros(a), withoutZeros(b));
  return semanticEqual(withoutZeros(a), withoutZeros(b));
}

function strictEventUpdateErrors(ev: KubeObject, old: KubeObject): FieldError[] {
  const errs = semanticEqual(ev.series, old.series) ? [] : seriesErrors(ev);
  for (const [path, key, goValue] of IMMUTABLE_EVENT_FIELDS) {
    if (!sameEventField(key, ev[key], old[key])) errs.push(fieldErrors.invalid(path, goValue(ev[key]), FIELD_IMMUTABLE));
  }
  return errs;
}

/** events.k8s.io: its own field names, the legacy rules plus the strict ones of v1 creation and update. */
export function eventsGroupFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      // ValidateEventCreate and ValidateEventUpdate check ObjectMeta themselves, after the legacy rules.
      genericMetaOnly: true,
      defaults(ev) {
        for (const f of ['deprecatedFirstTimestamp', 'deprecatedLastTimestamp']) if (!(f in ev)) ev[f] = null;
        if (!('eventTime' in ev)) ev.eventTime = null;
      },
      validate: (obj) => [...validateEventContent(obj, 'reportingController'), ...validateObjectMeta(obj.metadata, rules), ...strictEventCreateErrors(obj)],
      validateUpdate: (obj, old) => [
        ...validateEventContent(obj, 'reportingController'),
        ...validateObjectMetaUpdate(obj.metadata, old.metadata, 'metadata', rules.kubeFinalizers),
        ...strictEventUpdateErrors(obj, old),
      ],
    }),
    printerColumns: eventPrinterColumns(),
    selectableFields: eventsGroupFields,
  };
}
