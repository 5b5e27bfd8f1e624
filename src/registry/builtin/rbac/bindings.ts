// RoleBindings and ClusterRoleBindings: kube's printers.

import type { KubeObject, PrinterColumn } from '../../types.ts';
import { printedFacts } from '../facts.ts';
import { objsAt, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

function subjects(obj: KubeObject, kind: string): string {
  return objsAt(obj, 'subjects')
    .filter((s) => strAt(s, 'kind') === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${strAt(s, 'namespace')}/${strAt(s, 'name')}` : strAt(s, 'name')))
    .join(', ');
}

function bindingColumns(): PrinterColumn[] {
  return [
    column('Role', 'string', 'The role the binding grants.', (o) => `${strAt(o, 'roleRef', 'kind')}/${strAt(o, 'roleRef', 'name')}`),
    ageColumn,
    column('Users', 'string', 'Users in the binding.', (o) => subjects(o, 'User'), 1),
    column('Groups', 'string', 'Groups in the binding.', (o) => subjects(o, 'Group'), 1),
    column('ServiceAccounts', 'string', 'Service accounts in the binding.', (o) => subjects(o, 'ServiceAccount'), 1),
  ];
}

export const roleBindingFacts = printedFacts(bindingColumns);

export const clusterRoleBindingFacts = printedFacts(bindingColumns);
