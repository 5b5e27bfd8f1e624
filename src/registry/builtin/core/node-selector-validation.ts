// Core NodeSelector validation (pkg/apis/core/validation ValidateNodeSelector and ValidateNodeSelectorTerm of
// kube 1.31), shared by pod node affinity and ResourceSlices, and the %#v rendering of its terms.

import { fieldErrors, goStringsText, type FieldError } from '../../../apis/errors.ts';
import { goQuote } from '../../../encoding/go-format.ts';
import { validateQualifiedName } from '../../validation/meta.ts';
import { isDNS1123Subdomain } from '../../validation/names.ts';
import { isObj, type Obj } from '../object.ts';

const NOT_AN_OPERATOR = 'not a valid selector operator';
/** The one field a matchFields requirement may name. */
const NODE_NAME_FIELD = 'metadata.name';

const objAt = (v: unknown): Obj => (isObj(v) ? v : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function requirementErrors(req: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = list(req.values);
  switch (req.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(fieldErrors.required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(fieldErrors.forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) errs.push(fieldErrors.required(`${path}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(fieldErrors.invalid(`${path}.operator`, str(req.operator), NOT_AN_OPERATOR));
  }
  errs.push(...validateQualifiedName(str(req.key), `${path}.key`));
  return errs;
}

function fieldRequirementErrors(req: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = list(req.values);
  if (req.operator === 'In' || req.operator === 'NotIn') {
    if (values.length !== 1) errs.push(fieldErrors.required(`${path}.values`, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  } else errs.push(fieldErrors.invalid(`${path}.operator`, str(req.operator), NOT_AN_OPERATOR));
  const key = str(req.key);
  if (key !== NODE_NAME_FIELD) errs.push(fieldErrors.invalid(`${path}.key`, key, 'not a valid field selector key'));
  else values.forEach((v, k) => errs.push(...isDNS1123Subdomain(str(v)).map((m) => fieldErrors.invalid(`${path}.values[${k}]`, str(v), m))));
  return errs;
}

/** ValidateNodeSelectorTerm: a required term of a selector, or a preferred term's preference. */
export function nodeSelectorTermErrors(term: unknown, path: string): FieldError[] {
  const t = objAt(term);
  return [
    ...list(t.matchExpressions).flatMap((r, j) => requirementErrors(objAt(r), `${path}.matchExpressions[${j}]`)),
    ...list(t.matchFields).flatMap((r, j) => fieldRequirementErrors(objAt(r), `${path}.matchFields[${j}]`)),
  ];
}

/** ValidateNodeSelector: at least one term, each valid. */
export function nodeSelectorErrors(selector: Obj, path: string): FieldError[] {
  const terms = list(selector.nodeSelectorTerms);
  const termsPath = `${path}.nodeSelectorTerms`;
  if (terms.length === 0) return [fieldErrors.required(termsPath, 'must have at least one node selector term')];
  return terms.flatMap((term, i) => nodeSelectorTermErrors(term, `${termsPath}[${i}]`));
}

const goRequirementList = (v: unknown): string => {
  const strings = (x: unknown): string => goStringsText(Array.isArray(x) ? x : undefined);
  // Both lists of a term hold core.NodeSelectorRequirement.
  const requirement = (r: Obj): string => `core.NodeSelectorRequirement{Key:${goQuote(String(r.key ?? ''))}, Operator:${goQuote(String(r.operator ?? ''))}, Values:${strings(r.values)}}`;
  return Array.isArray(v) ? `[]core.NodeSelectorRequirement{${v.map((x) => requirement(objAt(x))).join(', ')}}` : '[]core.NodeSelectorRequirement(nil)';
};

/** Go's %#v of a core.NodeSelectorTerm. */
export function goNodeSelectorTerm(term: unknown): string {
  const t = objAt(term);
  return `core.NodeSelectorTerm{MatchExpressions:${goRequirementList(t.matchExpressions)}, MatchFields:${goRequirementList(t.matchFields)}}`;
}

/** Go's %#v of []core.NodeSelectorTerm, as field.Invalid prints a struct value (`(nil)` when absent). */
export function goNodeSelectorTerms(terms: unknown): string {
  return Array.isArray(terms) ? `[]core.NodeSelectorTerm{${terms.map(goNodeSelectorTerm).join(', ')}}` : '[]core.NodeSelectorTerm(nil)';
}
