// RoleBindings and ClusterRoleBindings (pkg/apis/rbac/validation, and kube's printers): a roleRef of the RBAC group naming a Role or
// ClusterRole (ClusterRole only for cluster bindings), subjects of a known kind, and a roleRef that never changes.

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goText } from '../../../apis/go-bad-values.ts';
import { isDNS1123Subdomain, isValidPathSegment } from '../../validation/names.ts';
import type { KubeObject, PrinterColumn } from '../../types.ts';
import type { TypeFacts } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { isObj, objsAt, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';
import type { TypeRules } from '../type-rules.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function validateSubject(s: Record<string, unknown>, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = typeof s.name === 'string' ? s.name : '';
  const kind = typeof s.kind === 'string' ? s.kind : '';
  const apiGroup = typeof s.apiGroup === 'string' ? s.apiGroup : '';
  if (name === '') errs.push(fieldErrors.required(`${path}.name`));
  switch (kind) {
    case 'ServiceAccount':
      if (name !== '') for (const m of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid(`${path}.name`, name, m));
      if (apiGroup !== '') errs.push(fieldErrors.notSupported(`${path}.apiGroup`, apiGroup, ['']));
      if (!namespaced && (typeof s.namespace !== 'string' || s.namespace === '')) errs.push(fieldErrors.required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported(`${path}.apiGroup`, apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(fieldErrors.notSupported(`${path}.kind`, kind, ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function validateBinding(obj: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const apiGroup = strAt(obj, 'roleRef', 'apiGroup');
  const kind = strAt(obj, 'roleRef', 'kind');
  const name = strAt(obj, 'roleRef', 'name');
  if (apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(kind)) errs.push(fieldErrors.notSupported('roleRef.kind', kind, kinds));
  if (name === '') errs.push(fieldErrors.required('roleRef.name'));
  else for (const m of isValidPathSegment(name, false)) errs.push(fieldErrors.invalid('roleRef.name', name, m));
  objsAt(obj, 'subjects').forEach((s, i) => errs.push(...validateSubject(s, namespaced, `subjects[${i}]`)));
  return errs;
}

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

/** Go's %#v of the internal rbac.RoleRef, as the "cannot change roleRef" error shows it. */
function roleRefGoString(obj: KubeObject): string {
  const ref = isObj(obj.roleRef) ? obj.roleRef : {};
  return `rbac.RoleRef{APIGroup:${goText(ref.apiGroup)}, Kind:${goText(ref.kind)}, Name:${goText(ref.name)}}`;
}

function bindingFacts(namespaced: boolean) {
  return (rules: TypeRules): TypeFacts => ({
    strategy: buildStrategy(rules, {
      validate: (obj) => validateBinding(obj, namespaced),
      validateUpdate: (obj, old, _ctx, validateNew) => {
        const errs = validateNew();
        if (roleRefGoString(obj) !== roleRefGoString(old)) errs.push(fieldErrors.invalid('roleRef', renderedBadValue(roleRefGoString(obj)), 'cannot change roleRef'));
        return errs;
      },
    }),
    printerColumns: bindingColumns(),
    selectableFields: {},
  });
}

export const roleBindingFacts = bindingFacts(true);
export const clusterRoleBindingFacts = bindingFacts(false);
