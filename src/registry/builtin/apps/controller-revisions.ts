// ControllerRevisions: kube's printer.

import type { KubeObject } from '../../types.ts';
import { printedFacts } from '../facts.ts';
import { isObj } from '../object.ts';
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


export const controllerRevisionFacts = printedFacts(controllerRevisionColumns);
