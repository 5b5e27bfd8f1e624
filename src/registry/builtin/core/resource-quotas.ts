// ResourceQuotas (printResourceQuota).

import type { KubeObject } from '../../types.ts';
import { buildStrategy } from '../generic.ts';
import { objAt } from '../object.ts';
import { ageColumn, column, quantityCell } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';

function quotaCells(obj: KubeObject): { request: string; limit: string } {
  const hard = objAt(objAt(obj, 'status'), 'hard') ?? {};
  const used = objAt(objAt(obj, 'status'), 'used') ?? {};
  const request: string[] = [];
  const limit: string[] = [];
  for (const name of Object.keys(hard).sort()) {
    const text = `${name}: ${quantityCell(used[name] ?? '0')}/${quantityCell(hard[name])}`;
    (name.split('.').length > 1 && name.split('.')[0] === 'limits' ? limit : request).push(text);
  }
  return { request: request.join(', '), limit: limit.join(', ') };
}

export function resourceQuotaFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules),
    printerColumns: [
      column('Request', 'string', 'Used and hard request quotas.', (o) => quotaCells(o).request),
      column('Limit', 'string', 'Used and hard limit quotas.', (o) => quotaCells(o).limit),
      ageColumn,
    ],
    selectableFields: {},
  };
}
