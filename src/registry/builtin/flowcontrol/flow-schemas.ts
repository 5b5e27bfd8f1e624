// FlowSchemas (flowcontrol v1/v1beta3 SetDefaults_FlowSchemaSpec; pkg/apis/flowcontrol/validation
// ValidateFlowSchema: precedence, distinguisher, priority level reference, rules and subjects; printFlowSchema).

import { fieldErrors, goStringsValue, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goText } from '../../../apis/go-bad-values.ts';
import { mandatoryFlowSchemaErrors } from './mandatory.ts';
import { flowcontrolStatusErrors } from './status.ts';
import type { KubeObject } from '../../types.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../../validation/names.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { arrAt, ensureObj, objAt, objsAt, strAt, type Obj } from '../object.ts';
import { ageColumn, column, orNone } from '../printing.ts';

const MAX_PRECEDENCE = 10000;
const DEFAULT_PRECEDENCE = 1000;
const DISTINGUISHERS = ['ByNamespace', 'ByUser'];
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const NS_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";


/** A list that must be non-empty and, holding '*', nothing else. */
function wildcardListErrors(list: string[], path: string, required: string, what: string): FieldError[] {
  if (list.length === 0) return [fieldErrors.required(path, required)];
  if (list.includes('*') && list.length > 1) return [fieldErrors.invalid(path, goStringsValue(list), `if '*' is present, must not specify other ${what}`)];
  return [];
}

function verbErrors(verbs: string[], path: string): FieldError[] {
  const errs = wildcardListErrors(verbs, path, 'verbs must contain at least one value', 'verbs');
  if (errs.length === 0 && !verbs.includes('*') && !verbs.every((v) => VERBS.includes(v))) errs.push(fieldErrors.notSupported(path, goStringsValue(verbs), VERBS));
  return errs;
}

function subjectErrors(s: Obj, path: string): FieldError[] {
  const kind = strAt(s, 'kind');
  const errs: FieldError[] = [];
  const forbidOthers = (keep: string) => {
    const labels: Record<string, string> = { user: 'User', group: 'Group', serviceAccount: 'ServiceAccount' };
    for (const key of ['serviceAccount', 'user', 'group']) {
      if (key !== keep && s[key] !== undefined && s[key] !== null) errs.push(fieldErrors.forbidden(`${path}.${key}`, `${key} is forbidden when subject kind is not '${labels[key]}'`));
    }
  };
  switch (kind) {
    case 'ServiceAccount': {
      const sa = objAt(s, 'serviceAccount');
      if (!sa) errs.push(fieldErrors.required(`${path}.serviceAccount`, "serviceAccount is required when subject kind is 'ServiceAccount'"));
      else {
        const name = strAt(sa, 'name');
        if (name === '') errs.push(fieldErrors.required(`${path}.serviceAccount.name`));
        else if (name !== '*') for (const m of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid(`${path}.serviceAccount.name`, name, m));
        const ns = strAt(sa, 'namespace');
        if (ns === '') errs.push(fieldErrors.required(`${path}.serviceAccount.namespace`, 'must specify namespace for service account'));
        else for (const m of isDNS1123Label(ns)) errs.push(fieldErrors.invalid(`${path}.serviceAccount.namespace`, ns, m));
      }
      forbidOthers('serviceAccount');
      break;
    }
    case 'User':
    case 'Group': {
      const key = kind === 'User' ? 'user' : 'group';
      const v = objAt(s, key);
      if (!v) errs.push(fieldErrors.required(`${path}.${key}`, `${key} is required when subject kind is '${kind}'`));
      else if (strAt(v, 'name') === '') errs.push(fieldErrors.required(`${path}.${key}.name`));
      forbidOthers(key);
      break;
    }
    default:
      errs.push(fieldErrors.notSupported(`${path}.kind`, kind, SUBJECT_KINDS));
  }
  return errs;
}

/** ValidateNonResourceURLPath: absolute, no spaces or double slashes, a wildcard only as a last '/*'. */
function nonResourceURLErrors(url: string, path: string): FieldError[] {
  const bad = (detail: string) => [fieldErrors.invalid(path, url, detail)];
  if (url === '') return bad('must not be empty');
  if (url === '/') return [];
  if (!url.startsWith('/')) return bad('must start with slash');
  if (url.includes(' ')) return bad('must not contain white-space');
  if (url.includes('//')) return bad('must not contain double slash');
  const wildcards = url.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && !url.endsWith('/*'))) return bad('wildcard can only do suffix matching');
  return [];
}

function ruleErrors(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const subjects = objsAt(rule, 'subjects');
  if (subjects.length === 0) errs.push(fieldErrors.required(`${path}.subjects`, 'subjects must contain at least one value'));
  subjects.forEach((s, i) => errs.push(...subjectErrors(s, `${path}.subjects[${i}]`)));
  const resourceRules = objsAt(rule, 'resourceRules');
  const nonResourceRules = objsAt(rule, 'nonResourceRules');
  if (resourceRules.length === 0 && nonResourceRules.length === 0) errs.push(fieldErrors.required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  resourceRules.forEach((r, i) => {
    const p = `${path}.resourceRules[${i}]`;
    errs.push(...verbErrors(arrAt(r, 'verbs').map(String), `${p}.verbs`));
    errs.push(...wildcardListErrors(arrAt(r, 'apiGroups').map(String), `${p}.apiGroups`, 'resource rules must supply at least one api group', 'api groups'));
    errs.push(...wildcardListErrors(arrAt(r, 'resources').map(String), `${p}.resources`, 'resource rules must supply at least one resource', 'resources'));
    const namespaces = arrAt(r, 'namespaces').map(String);
    if (namespaces.length === 0 && r.clusterScope !== true) errs.push(fieldErrors.required(`${p}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'));
    else if (namespaces.includes('*')) {
      if (namespaces.length > 1) errs.push(fieldErrors.invalid(`${p}.namespaces`, goStringsValue(namespaces), "if '*' is present, must not specify other namespaces"));
    } else namespaces.forEach((ns, j) => isDNS1123Label(ns).forEach((m) => errs.push(fieldErrors.invalid(`${p}.namespaces[${j}]`, ns, NS_INTRO + m))));
  });
  nonResourceRules.forEach((r, i) => {
    const p = `${path}.nonResourceRules[${i}]`;
    errs.push(...verbErrors(arrAt(r, 'verbs').map(String), `${p}.verbs`));
    const urls = arrAt(r, 'nonResourceURLs').map(String);
    errs.push(...wildcardListErrors(urls, `${p}.nonResourceURLs`, 'nonResourceURLs must contain at least one value', 'non-resource URLs'));
    if (!urls.includes('*')) urls.forEach((url, j) => errs.push(...nonResourceURLErrors(url, `${p}.nonResourceURLs[${j}]`)));
  });
  return errs;
}

/** ValidateFlowSchema after ObjectMeta (create and update alike): the spec, then the mandatory schemas' fixed spec. */
function validateFlowSchema(fs: KubeObject): FieldError[] {
  const spec = objAt(fs, 'spec') ?? {};
  const errs: FieldError[] = [];
  const precedence = typeof spec.matchingPrecedence === 'number' ? spec.matchingPrecedence : 0;
  if (precedence <= 0) errs.push(fieldErrors.invalid('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (precedence > MAX_PRECEDENCE) errs.push(fieldErrors.invalid('spec.matchingPrecedence', precedence, `must not be greater than ${MAX_PRECEDENCE}`));
  if (precedence === 1 && fs.metadata?.name !== 'exempt') errs.push(fieldErrors.invalid('spec.matchingPrecedence', precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const distinguisher = objAt(spec, 'distinguisherMethod');
  if (distinguisher && !DISTINGUISHERS.includes(strAt(distinguisher, 'type'))) {
    errs.push(fieldErrors.notSupported('spec.distinguisherMethod.type', renderedBadValue(`flowcontrol.FlowDistinguisherMethod{Type:${goText(distinguisher.type)}}`), DISTINGUISHERS));
  }
  const level = strAt(spec, 'priorityLevelConfiguration', 'name');
  if (level === '') errs.push(fieldErrors.required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  else for (const m of isDNS1123Subdomain(level)) errs.push(fieldErrors.invalid('spec.priorityLevelConfiguration.name', level, m));
  objsAt(spec, 'rules').forEach((r, i) => errs.push(...ruleErrors(r, `spec.rules[${i}]`)));
  errs.push(...mandatoryFlowSchemaErrors(fs));
  return errs;
}

export const flowSchemaFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    defaults(fs) {
      const spec = ensureObj(fs, 'spec');
      if (!spec.matchingPrecedence) spec.matchingPrecedence = DEFAULT_PRECEDENCE;
    },
    validate: validateFlowSchema,
    validateStatusUpdate: (fs) => flowcontrolStatusErrors(fs),
  }),
  printerColumns: [
    column('PriorityLevel', 'string', 'The priority level of matching requests.', (o) => strAt(o, 'spec', 'priorityLevelConfiguration', 'name')),
    column('MatchingPrecedence', 'string', 'Lower numbers match first.', (o) => (typeof objAt(o, 'spec')?.matchingPrecedence === 'number' ? objAt(o, 'spec')?.matchingPrecedence : 0)),
    column('DistinguisherMethod', 'string', 'How flows are told apart.', (o) => orNone(strAt(o, 'spec', 'distinguisherMethod', 'type'))),
    ageColumn,
    column('MissingPL', 'string', 'Whether the priority level is missing.', (o) => {
      const c = objsAt(o, 'status', 'conditions').find((x) => x.type === 'Dangling');
      return c ? strAt(c, 'status') : '?';
    }),
  ],
  selectableFields: {},
});
