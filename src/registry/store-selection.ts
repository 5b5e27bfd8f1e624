// What a list or watch selects: ListOptions checked as kube-apiserver checks them, label and field selectors
// parsed (400 with kube's messages), and one predicate that answers "does this object match".

import { badRequest, fieldErrors, invalid, type FieldError } from '../apis/errors.ts';
import { checkSupportedFields, FieldSelectorError, fieldsMatch, parseFieldSelector, type FieldSelector } from '../apis/fields.ts';
import { LabelSelectorError, labelsMatch, parseLabelSelector, type LabelSelector } from '../apis/labels.ts';
import type { KubeObject, ListOptions, ResourceDefinition } from './types.ts';

export interface Predicate {
  readonly label: LabelSelector;
  readonly field: FieldSelector;
  /** True when nothing is filtered out. */
  readonly empty: boolean;
  matches(obj: KubeObject): boolean;
}

export function objectFieldGetter(def: Pick<ResourceDefinition, 'selectableFields'>, obj: KubeObject): (field: string) => string | undefined {
  return (field) => {
    if (field === 'metadata.name') return obj.metadata?.name ?? '';
    if (field === 'metadata.namespace') return obj.metadata?.namespace ?? '';
    const extract = Object.hasOwn(def.selectableFields, field) ? def.selectableFields[field] : undefined;
    return extract ? extract(obj) : undefined;
  };
}

export function buildPredicate(def: Pick<ResourceDefinition, 'selectableFields'>, options: ListOptions): Predicate {
  let label: LabelSelector;
  let field: FieldSelector;
  try {
    label = parseLabelSelector(options.labelSelector ?? '');
    field = parseFieldSelector(options.fieldSelector ?? '');
    checkSupportedFields(field, (f) => f === 'metadata.name' || f === 'metadata.namespace' || Object.hasOwn(def.selectableFields, f));
  } catch (e) {
    if (e instanceof LabelSelectorError || e instanceof FieldSelectorError) throw badRequest(e.message);
    throw e;
  }
  const empty = label.empty && field.empty;
  return {
    label,
    field,
    empty,
    matches: empty ? () => true : (obj) => labelsMatch(label, obj.metadata?.labels) && fieldsMatch(field, objectFieldGetter(def, obj)),
  };
}

const listOptionsKind = { group: 'meta.k8s.io', kind: 'ListOptions' };

/** metainternalversion validation.ValidateListOptions for a list request. */
export function validateListOptions(options: ListOptions): void {
  const errs: FieldError[] = [];
  const match = options.resourceVersionMatch ?? '';
  if (match) {
    if (!options.resourceVersion) errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (options.continue) errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match === 'Exact') {
      if (options.resourceVersion === '0') errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    } else if (match !== 'NotOlderThan') {
      errs.push(fieldErrors.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    }
  }
  if (options.sendInitialEvents !== undefined) errs.push(fieldErrors.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  if (errs.length) throw invalid(listOptionsKind, '', errs);
}

/** The same for a watch request (WatchList decides whether sendInitialEvents is allowed). */
export function validateWatchOptions(options: ListOptions, watchListEnabled: boolean): void {
  const errs: FieldError[] = [];
  const match = options.resourceVersionMatch ?? '';
  if (options.sendInitialEvents !== undefined) {
    if (match !== 'NotOlderThan') errs.push(fieldErrors.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    if (!watchListEnabled) errs.push(fieldErrors.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
  }
  if (match) {
    if (options.sendInitialEvents === undefined) errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    if (match !== 'NotOlderThan') errs.push(fieldErrors.notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (options.continue) errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  if (errs.length) throw invalid(listOptionsKind, '', errs);
}
