// Ingresses (pkg/apis/networking/validation ValidateIngressCreate/Update/StatusUpdate: rules, paths and their
// pathType rules, backends, TLS hosts, the class annotation; printIngress).

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { regexError } from '../../../apis/labels.ts';
import type { KubeObject } from '../../types.ts';
import { validateObjectMeta } from '../../validation/meta.ts';
import { isDNS1035Label, isDNS1123Subdomain, isValidPathSegment, isValidPortName, isValidPortNum } from '../../validation/names.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { ipFamily, validIPErrors } from '../ip-validation.ts';
import { arrAt, getPath, objAt, objsAt, strAt, type Obj } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

function loadBalancerIngress(status: unknown): string {
  const set = new Set<string>();
  for (const ing of objsAt(status, 'loadBalancer', 'ingress')) {
    if (strAt(ing, 'ip') !== '') set.add(strAt(ing, 'ip'));
    else if (strAt(ing, 'hostname') !== '') set.add(strAt(ing, 'hostname'));
  }
  return [...set].sort().join(',');
}

function ingressHosts(obj: KubeObject): string {
  const rules = objsAt(obj, 'spec', 'rules');
  const list: string[] = [];
  const max = 3;
  let more = false;
  for (const r of rules) {
    if (list.length === max) more = true;
    if (!more && strAt(r, 'host') !== '') list.push(strAt(r, 'host'));
  }
  if (list.length === 0) return '*';
  const s = list.join(',');
  return more ? `${s} + ${rules.length - max} more...` : s;
}

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];
const CLASS_ANNOTATION = 'kubernetes.io/ingress.class';
const WILDCARD_FMT = '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const WILDCARD_MSG =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";

/** validation.IsWildcardDNS1123Subdomain. */
function wildcardSubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!new RegExp(`^${WILDCARD_FMT}$`).test(value)) errs.push(regexError(WILDCARD_MSG, WILDCARD_FMT, '*.example.com'));
  return errs;
}

function hostErrors(host: string, path: string): FieldError[] {
  const msgs = host.includes('*') ? wildcardSubdomainErrors(host) : isDNS1123Subdomain(host);
  return msgs.map((m) => fieldErrors.invalid(path, host, m));
}

/** validateIngressTypedLocalObjectReference (also IngressClass parameters). */
export function typedLocalReferenceErrors(ref: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof ref.apiGroup === 'string') for (const m of isDNS1123Subdomain(ref.apiGroup)) errs.push(fieldErrors.invalid(`${path}.apiGroup`, ref.apiGroup, m));
  for (const key of ['kind', 'name']) {
    const v = strAt(ref, key);
    if (v === '') errs.push(fieldErrors.required(`${path}.${key}`, `${key} is required`));
    else for (const m of isValidPathSegment(v, false)) errs.push(fieldErrors.invalid(`${path}.${key}`, v, m));
  }
  return errs;
}

function backendErrors(backend: Obj, path: string): FieldError[] {
  const resource = objAt(backend, 'resource');
  const service = objAt(backend, 'service');
  if (resource && service) return [fieldErrors.invalid(path, '', 'cannot set both resource and service backends')];
  if (resource) return typedLocalReferenceErrors(resource, `${path}.resource`);
  if (!service) return [fieldErrors.invalid(path, '', 'resource or service backend is required')];
  const errs: FieldError[] = [];
  const name = strAt(service, 'name');
  if (name === '') errs.push(fieldErrors.required(`${path}.service.name`));
  else for (const m of isDNS1035Label(name)) errs.push(fieldErrors.invalid(`${path}.service.name`, name, m));
  const portName = strAt(service, 'port', 'name');
  const portNumber = getPath(service, 'port', 'number');
  const hasNumber = typeof portNumber === 'number' && portNumber !== 0;
  if (portName !== '' && hasNumber) errs.push(fieldErrors.invalid(path, '', 'cannot set both port name & port number'));
  else if (portName !== '') for (const m of isValidPortName(portName)) errs.push(fieldErrors.invalid(`${path}.service.port.name`, portName, m));
  else if (hasNumber) for (const m of isValidPortNum(portNumber)) errs.push(fieldErrors.invalid(`${path}.service.port.number`, portNumber, m));
  else errs.push(fieldErrors.required(path, 'port name or number is required'));
  return errs;
}

/** validateHTTPIngressPath: a pathType is required and decides what the path may look like. */
function httpPathErrors(p: Obj, path: string): FieldError[] {
  if (typeof p.pathType !== 'string') return [fieldErrors.required(`${path}.pathType`, 'pathType must be specified')];
  const errs: FieldError[] = [];
  const value = strAt(p, 'path');
  switch (p.pathType) {
    case 'Exact':
    case 'Prefix':
      if (!value.startsWith('/')) errs.push(fieldErrors.invalid(`${path}.path`, value, 'must be an absolute path'));
      if (value !== '') {
        for (const seq of INVALID_PATH_SEQUENCES) if (value.includes(seq)) errs.push(fieldErrors.invalid(`${path}.path`, value, `must not contain '${seq}'`));
        for (const suffix of INVALID_PATH_SUFFIXES) if (value.endsWith(suffix)) errs.push(fieldErrors.invalid(`${path}.path`, value, `cannot end with '${suffix}'`));
      }
      break;
    case 'ImplementationSpecific':
      if (value !== '' && !value.startsWith('/')) errs.push(fieldErrors.invalid(`${path}.path`, value, 'must be an absolute path'));
      break;
    default:
      errs.push(fieldErrors.notSupported(`${path}.pathType`, p.pathType, PATH_TYPES));
  }
  return [...errs, ...backendErrors(objAt(p, 'backend') ?? {}, `${path}.backend`)];
}

/** IngressValidationOptions: what an update may keep because the stored Ingress already had it. */
interface IngressOptions {
  allowInvalidSecretName: boolean;
  allowInvalidWildcardHostRule: boolean;
}

const CREATE_OPTIONS: IngressOptions = { allowInvalidSecretName: false, allowInvalidWildcardHostRule: false };

const secretNameErrors = (name: string): string[] => (name === '' ? [] : isDNS1123Subdomain(name));

/** validateIngressRuleValue: the http paths of a rule. */
function ruleValueErrors(rule: Obj, path: string): FieldError[] {
  const http = objAt(rule, 'http');
  if (!http) return [];
  const paths = objsAt(http, 'paths');
  const errs = paths.length === 0 ? [fieldErrors.required(`${path}.http.paths`)] : [];
  paths.forEach((hp, j) => errs.push(...httpPathErrors(hp, `${path}.http.paths[${j}]`)));
  return errs;
}

function ruleErrors(rule: Obj, path: string, opts: IngressOptions): FieldError[] {
  const host = strAt(rule, 'host');
  const errs: FieldError[] = [];
  if (host !== '') {
    if (ipFamily(host) !== 0) errs.push(fieldErrors.invalid(`${path}.host`, host, 'must be a DNS name, not an IP address'));
    errs.push(...hostErrors(host, `${path}.host`));
  }
  const wildcard = host.includes('*');
  if (!wildcard || !opts.allowInvalidWildcardHostRule) errs.push(...ruleValueErrors(rule, path));
  return errs;
}

/** allowInvalidSecretName and allowInvalidWildcardHostRule of an update over old. */
function updateOptions(old: KubeObject): IngressOptions {
  const spec = objAt(old, 'spec');
  return {
    allowInvalidSecretName: objsAt(spec, 'tls').some((tls) => secretNameErrors(strAt(tls, 'secretName')).length > 0),
    allowInvalidWildcardHostRule: objsAt(spec, 'rules').some((rule) => strAt(rule, 'host').includes('*') && ruleValueErrors(rule, '').length > 0),
  };
}

/** ValidateIngressSpec. */
export function validateIngressSpec(obj: KubeObject, opts: IngressOptions = CREATE_OPTIONS): FieldError[] {
  const spec = objAt(obj, 'spec') ?? {};
  const errs: FieldError[] = [];
  const rules = objsAt(spec, 'rules');
  const defaultBackend = objAt(spec, 'defaultBackend');
  if (rules.length === 0 && !defaultBackend) {
    errs.push(fieldErrors.invalid('spec', renderedBadValue(Array.isArray(spec.rules) ? '[]networking.IngressRule{}' : '[]networking.IngressRule(nil)'), 'either `defaultBackend` or `rules` must be specified'));
  }
  if (defaultBackend) errs.push(...backendErrors(defaultBackend, 'spec.defaultBackend'));
  rules.forEach((rule, i) => errs.push(...ruleErrors(rule, `spec.rules[${i}]`, opts)));
  objsAt(spec, 'tls').forEach((tls, i) => {
    arrAt(tls, 'hosts').forEach((h, j) => errs.push(...hostErrors(String(h), `spec.tls[${i}].hosts[${j}]`)));
    const secret = strAt(tls, 'secretName');
    if (!opts.allowInvalidSecretName) for (const m of secretNameErrors(secret)) errs.push(fieldErrors.invalid(`spec.tls[${i}].secretName`, secret, m));
  });
  const className = spec.ingressClassName;
  if (typeof className === 'string') for (const m of isDNS1123Subdomain(className)) errs.push(fieldErrors.invalid('spec.ingressClassName', className, m));
  return errs;
}

function classAnnotationErrors(obj: KubeObject): FieldError[] {
  const annotation = obj.metadata?.annotations?.[CLASS_ANNOTATION];
  const className = getPath(obj, 'spec', 'ingressClassName');
  if (annotation !== undefined && typeof className === 'string' && annotation !== className) {
    return [fieldErrors.invalid(`annotations.${CLASS_ANNOTATION}`, annotation, 'must match `ingressClassName` when both are specified')];
  }
  return [];
}

/** validateIngressLoadBalancerStatus. */
function statusErrors(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  objsAt(obj, 'status', 'loadBalancer', 'ingress').forEach((ing, i) => {
    const p = `status.loadBalancer.ingress[${i}]`;
    const ip = strAt(ing, 'ip');
    if (ip !== '') errs.push(...validIPErrors(ip, `${p}.ip`));
    const hostname = strAt(ing, 'hostname');
    if (hostname !== '') {
      for (const m of isDNS1123Subdomain(hostname)) errs.push(fieldErrors.invalid(`${p}.hostname`, hostname, m));
      if (ipFamily(hostname) !== 0) errs.push(fieldErrors.invalid(`${p}.hostname`, hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

export const ingressFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    validate: (obj) => [...validateIngressSpec(obj), ...classAnnotationErrors(obj)],
    // ValidateIngressUpdate: the create checks (the class annotation rule aside) under the stored object's options.
    validateUpdate: (obj, old) => [...validateObjectMeta(obj.metadata, rules), ...validateIngressSpec(obj, updateOptions(old))],
    validateStatusUpdate: statusErrors,
    // WarningsOnCreate (kube has none on update): the class annotation alone, without spec.ingressClassName.
    warnings: (obj, old) =>
      !old && obj.metadata?.annotations?.[CLASS_ANNOTATION] !== undefined && typeof getPath(obj, 'spec', 'ingressClassName') !== 'string'
        ? [`annotation ${JSON.stringify(CLASS_ANNOTATION)} is deprecated, please use 'spec.ingressClassName' instead`]
        : [],
  }),
  printerColumns: [
  column('Class', 'string', 'The ingress class.', (o) => (typeof getPath(o, 'spec', 'ingressClassName') === 'string' ? strAt(o, 'spec', 'ingressClassName') : '<none>')),
  column('Hosts', 'string', 'Hosts the rules match.', ingressHosts),
  column('Address', 'string', 'Load-balancer addresses.', (o) => loadBalancerIngress(o.status)),
  column('Ports', 'string', 'Ports the ingress opens.', (o) => (arrAt(o, 'spec', 'tls').length > 0 ? '80, 443' : '80')),
  ageColumn,
],
  selectableFields: {},
});
