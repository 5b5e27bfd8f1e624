// ValidateFlowSchemaStatus and ValidatePriorityLevelConfigurationStatus (alike in kube 1.31): each condition type
// once, and none empty.

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { objsAt, strAt } from '../object.ts';

export function flowcontrolStatusErrors(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const types = new Set<string>();
  objsAt(obj, 'status', 'conditions').forEach((c, i) => {
    const type = strAt(c, 'type');
    if (types.has(type)) errs.push(fieldErrors.duplicate(`status.conditions[${i}].type`, type));
    types.add(type);
    if (type === '') errs.push(fieldErrors.required(`status.conditions[${i}].type`, 'must not be empty'));
  });
  return errs;
}
