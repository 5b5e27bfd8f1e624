// IngressClasses (networking/v1 SetDefaults_IngressClass; pkg/apis/networking/validation ValidateIngressClass and
// its update: a domain-prefixed controller fixed at creation, parameters references and their scope;
// printIngressClass).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { regexError } from '../../../apis/labels.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE } from '../../validation/meta.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../../validation/names.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { objAt, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';
import { typedLocalReferenceErrors } from './ingresses.ts';

const MAX_CONTROLLER_LENGTH = 250;
const SCOPES = ['Cluster', 'Namespace'];
const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";

/** validation.IsDomainPrefixedPath. */
export function domainPrefixedPathErrors(value: string, path: string): FieldError[] {
  if (value === '') return [fieldErrors.required(path)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host === '' || rest === '') return [fieldErrors.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((m) => fieldErrors.invalid(path, host, m));
  if (!new RegExp(`^${HTTP_PATH_FMT}$`).test(rest)) errs.push(fieldErrors.invalid(path, rest, regexError('Invalid path', HTTP_PATH_FMT)));
  return errs;
}

function validateIngressClassSpec(obj: KubeObject): FieldError[] {
  const spec = objAt(obj, 'spec') ?? {};
  const errs: FieldError[] = [];
  const controller = strAt(spec, 'controller');
  if (controller.length > MAX_CONTROLLER_LENGTH) errs.push(fieldErrors.tooLong('spec.controller', MAX_CONTROLLER_LENGTH));
  errs.push(...domainPrefixedPathErrors(controller, 'spec.controller'));
  const params = objAt(spec, 'parameters');
  if (!params) return errs;
  errs.push(...typedLocalReferenceErrors(params, 'spec.parameters'));
  const scope = params.scope;
  if (typeof scope !== 'string') {
    errs.push(fieldErrors.required('spec.parameters.scope'));
    return errs;
  }
  if (!SCOPES.includes(scope)) errs.push(fieldErrors.notSupported('spec.parameters.scope', scope, SCOPES));
  else if (scope === 'Namespace') {
    if (typeof params.namespace !== 'string') errs.push(fieldErrors.required('spec.parameters.namespace', "`parameters.scope` is set to 'Namespace'"));
    else for (const m of isDNS1123Label(params.namespace)) errs.push(fieldErrors.invalid('spec.parameters.namespace', params.namespace, m));
  } else if (params.namespace !== undefined && params.namespace !== null) {
    errs.push(fieldErrors.forbidden('spec.parameters.namespace', "`parameters.scope` is set to 'Cluster'"));
  }
  return errs;
}

export const ingressClassFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    defaults(obj) {
      const params = objAt(objAt(obj, 'spec'), 'parameters');
      if (params && (params.scope === undefined || params.scope === null)) params.scope = 'Cluster';
    },
    validate: validateIngressClassSpec,
    validateUpdate(obj, old, _ctx, validateNew) {
      const controller = strAt(obj, 'spec', 'controller');
      const errs = controller === strAt(old, 'spec', 'controller') ? [] : [fieldErrors.invalid('spec.controller', controller, FIELD_IMMUTABLE)];
      return [...errs, ...validateNew()];
    },
  }),
  printerColumns: [
    column('Controller', 'string', 'The controller handling the class.', (o) => strAt(o, 'spec', 'controller')),
    column('Parameters', 'string', 'The parameters resource of the class.', (o) => {
      const p = objAt(objAt(o, 'spec'), 'parameters');
      if (!p) return '<none>';
      const group = typeof p.apiGroup === 'string' ? `.${p.apiGroup}` : '';
      return `${strAt(p, 'kind')}${group}/${strAt(p, 'name')}`;
    }),
    ageColumn,
  ],
  selectableFields: {},
});
