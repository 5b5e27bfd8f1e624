// ServiceAccounts (pkg/registry/core/serviceaccount/strategy.go: secret references keep only their name;
// ValidateServiceAccount is ObjectMeta only; printServiceAccount).

import type { KubeObject } from '../../types.ts';
import { buildStrategy } from '../generic.ts';
import { arrAt, isObj } from '../object.ts';
import { ageColumn, column } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';

/** cleanSecretReferences: each entry of secrets becomes {name}. */
function cleanSecretReferences(sa: KubeObject): void {
  if (!Array.isArray(sa.secrets)) return;
  sa.secrets = sa.secrets.map((ref) => (isObj(ref) && typeof ref.name === 'string' && ref.name !== '' ? { name: ref.name } : {}));
}

export function serviceAccountFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      prepareForCreate: cleanSecretReferences,
      prepareForUpdate: cleanSecretReferences,
    }),
    printerColumns: [column('Secrets', 'string', 'Number of secrets listed.', (o) => arrAt(o, 'secrets').length), ageColumn],
    selectableFields: {},
  };
}
