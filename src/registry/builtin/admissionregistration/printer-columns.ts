// Webhook configurations and ValidatingAdmissionPolicies (and their bindings): kube's printers.

import { printedFacts } from '../facts.ts';
import { arrAt, isObj, objAt, strAt } from '../object.ts';
import { ageColumn, column, formatLabelSelector } from '../printing.ts';

export const mutatingWebhookConfigurationFacts = printedFacts(() => [column('Webhooks', 'integer', 'Webhooks in the configuration.', (o) => arrAt(o, 'webhooks').length), ageColumn]);

export const validatingWebhookConfigurationFacts = printedFacts(() => [column('Webhooks', 'integer', 'Webhooks in the configuration.', (o) => arrAt(o, 'webhooks').length), ageColumn]);

export const validatingAdmissionPolicyFacts = printedFacts(() => [
  column('Validations', 'integer', 'Validation rules of the policy.', (o) => arrAt(o, 'spec', 'validations').length),
  column('ParamKind', 'string', 'The kind of the policy parameters.', (o) => {
    const p = objAt(objAt(o, 'spec'), 'paramKind');
    return p ? `${strAt(p, 'apiVersion')}/${strAt(p, 'kind')}` : '<unset>';
  }),
  ageColumn,
]);

export const validatingAdmissionPolicyBindingFacts = printedFacts(() => [
  column('PolicyName', 'string', 'The bound policy.', (o) => strAt(o, 'spec', 'policyName')),
  column('ParamRef', 'string', 'The parameter resource.', (o) => {
    const p = objAt(objAt(o, 'spec'), 'paramRef');
    if (!p) return '<unset>';
    if (strAt(p, 'name') !== '') return strAt(p, 'namespace') !== '' ? `${strAt(p, 'namespace')}/${strAt(p, 'name')}` : `*/${strAt(p, 'name')}`;
    return isObj(p.selector) ? formatLabelSelector(p.selector) : '<unset>';
  }),
  ageColumn,
]);
