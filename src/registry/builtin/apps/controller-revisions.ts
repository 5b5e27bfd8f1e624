// ControllerRevisions (pkg/apis/apps/validation ValidateControllerRevision/Update: data required and fixed,
// revision not negative; printControllerRevision).

import type { KubeObject } from '../../types.ts';
import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { FIELD_IMMUTABLE, validateNonnegative } from '../../validation/meta.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { isObj, semanticEqual } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

function controllerRevisionColumns() {
  return [
    column('Controller', 'string', 'The object that owns the revision.', (o: KubeObject) => {
      const refs = Array.isArray(o.metadata?.ownerReferences) ? o.metadata.ownerReferences : [];
      const ref = refs.find((r) => isObj(r) && r.controller === true);
      if (!ref) return '<none>';
      const apiVersion = String(ref.apiVersion ?? '');
      const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
      return `${String(ref.kind ?? '').toLowerCase()}${group ? `.${group}` : ''}/${String(ref.name ?? '')}`;
    }),
    column('Revision', 'string', 'The revision number.', (o: KubeObject) => (typeof o.revision === 'number' ? o.revision : 0)),
    ageColumn,
  ];
}


function validateControllerRevision(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (obj.data === undefined || obj.data === null) errs.push(fieldErrors.required('data', 'data is mandatory'));
  if (typeof obj.revision === 'number') errs.push(...validateNonnegative(obj.revision, 'revision'));
  return errs;
}

export const controllerRevisionFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    validate: validateControllerRevision,
    validateUpdate: (obj, old, _ctx, validateNew) => [
      ...validateNew(),
      // kube prints the RawExtension struct; the JSON of data stands in for it.
      ...(semanticEqual(obj.data, old.data) ? [] : [fieldErrors.invalid('data', obj.data ?? null, FIELD_IMMUTABLE)]),
    ],
  }),
  printerColumns: controllerRevisionColumns(),
  selectableFields: {},
});
