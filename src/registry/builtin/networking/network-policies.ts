// NetworkPolicies (networking/v1 SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort; pkg/apis/networking/
// validation ValidateNetworkPolicySpec and ValidationOptionsForNetworking: ports, peers, ipBlocks, policyTypes;
// printNetworkPolicy).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { goNamedStrings } from '../../../apis/go-bad-values.ts';
import type { KubeObject } from '../../types.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { validateObjectMeta } from '../../validation/meta.ts';
import { isValidPortName, isValidPortNum } from '../../validation/names.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { validCIDRErrors } from '../ip-validation.ts';
import { goNetContains, goParseCIDR } from './go-ip.ts';
import { arrAt, ensureObj, getPath, isObj, objAt, objsAt, setDefault, type Obj } from '../object.ts';
import { ageColumn, column, formatLabelSelector } from '../printing.ts';

const POLICY_TYPES = ['Ingress', 'Egress'];

function defaultNetworkPolicy(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  for (const [rules] of [['ingress'], ['egress']]) for (const rule of objsAt(spec, rules)) for (const port of objsAt(rule, 'ports')) setDefault(port, 'protocol', 'TCP');
  if (arrAt(spec, 'policyTypes').length === 0) spec.policyTypes = arrAt(spec, 'egress').length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
}

function portErrors(port: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const protocol = port.protocol;
  if (typeof protocol === 'string' && !['TCP', 'UDP', 'SCTP'].includes(protocol)) errs.push(fieldErrors.notSupported(`${path}.protocol`, protocol, ['TCP', 'UDP', 'SCTP']));
  const p = port.port;
  const end = port.endPort;
  const hasEnd = typeof end === 'number';
  if (typeof p === 'number') {
    for (const m of isValidPortNum(p)) errs.push(fieldErrors.invalid(`${path}.port`, p, m));
    if (hasEnd) {
      if (end < p) errs.push(fieldErrors.invalid(`${path}.endPort`, p, 'must be greater than or equal to `port`'));
      for (const m of isValidPortNum(end)) errs.push(fieldErrors.invalid(`${path}.endPort`, end, m));
    }
  } else if (typeof p === 'string') {
    if (hasEnd) errs.push(fieldErrors.invalid(`${path}.endPort`, end, 'may not be specified when `port` is non-numeric'));
    for (const m of isValidPortName(p)) errs.push(fieldErrors.invalid(`${path}.port`, p, m));
  } else if (hasEnd) {
    errs.push(fieldErrors.invalid(`${path}.endPort`, end, 'may not be specified when `port` is not specified'));
  }
  return errs;
}

/** ValidateIPBlock: a valid cidr, and excepts that are valid CIDRs strictly inside it. */
function ipBlockErrors(block: Obj, path: string): FieldError[] {
  const cidr = typeof block.cidr === 'string' ? block.cidr : '';
  if (cidr === '') return [fieldErrors.required(`${path}.cidr`)];
  const cidrErrs = validCIDRErrors(cidr, `${path}.cidr`);
  if (cidrErrs.length > 0) return cidrErrs;
  const outer = goParseCIDR(cidr);
  const errs: FieldError[] = [];
  arrAt(block, 'except').forEach((raw, i) => {
    const except = typeof raw === 'string' ? raw : '';
    const p = `${path}.except[${i}]`;
    const exceptErrs = validCIDRErrors(except, p);
    errs.push(...exceptErrs);
    if (exceptErrs.length > 0) return;
    const inner = goParseCIDR(except);
    if (!goNetContains(outer, inner.ip) || outer.ones >= inner.ones) errs.push(fieldErrors.invalid(p, except, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

function peerErrors(peer: Obj, path: string, allowInvalidLabelValue: boolean): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const key of ['podSelector', 'namespaceSelector']) {
    if (isObj(peer[key])) {
      count++;
      errs.push(...validateLabelSelector(peer[key], `${path}.${key}`, allowInvalidLabelValue));
    }
  }
  const ipBlock = objAt(peer, 'ipBlock');
  if (ipBlock) {
    count++;
    errs.push(...ipBlockErrors(ipBlock, `${path}.ipBlock`));
  }
  if (count === 0) errs.push(fieldErrors.required(path, 'must specify a peer'));
  else if (count > 1 && ipBlock) errs.push(fieldErrors.forbidden(path, 'may not specify both ipBlock and another peer'));
  return errs;
}

/**
 * ValidateNetworkPolicySpec. allowInvalidLabelValue is ValidationOptionsForNetworking's: an update may keep
 * selector values that are not label values when the stored podSelector does not validate either.
 */
export function validateNetworkPolicySpec(obj: KubeObject, allowInvalidLabelValue = false): FieldError[] {
  const spec = objAt(obj, 'spec') ?? {};
  const errs = validateLabelSelector(spec.podSelector, 'spec.podSelector', allowInvalidLabelValue);
  for (const [key, peersKey] of [['ingress', 'from'], ['egress', 'to']]) {
    objsAt(spec, key).forEach((rule, i) => {
      const p = `spec.${key}[${i}]`;
      objsAt(rule, 'ports').forEach((port, j) => errs.push(...portErrors(port, `${p}.ports[${j}]`)));
      objsAt(rule, peersKey).forEach((peer, j) => errs.push(...peerErrors(peer, `${p}.${peersKey}[${j}]`, allowInvalidLabelValue)));
    });
  }
  const types = arrAt(spec, 'policyTypes');
  if (types.length > POLICY_TYPES.length) {
    errs.push(fieldErrors.invalid('spec.policyTypes', goNamedStrings('networking.PolicyType', types), 'may not specify more than two policyTypes'));
    return errs;
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(String(t))) errs.push(fieldErrors.notSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES));
  });
  return errs;
}

/** ValidationOptionsForNetworking: the stored podSelector fails validation. */
const storedSelectorInvalid = (old: KubeObject): boolean => validateLabelSelector(getPath(old, 'spec', 'podSelector'), 'spec.podSelector').length > 0;

export const networkPolicyFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    defaults: defaultNetworkPolicy,
    validate: (obj) => validateNetworkPolicySpec(obj),
    validateUpdate: (obj, old) => [...validateObjectMeta(obj.metadata, rules), ...validateNetworkPolicySpec(obj, storedSelectorInvalid(old))],
  }),
  printerColumns: [column('Pod-Selector', 'string', 'Pods the policy applies to.', (o) => formatLabelSelector(getPath(o, 'spec', 'podSelector'))), ageColumn],
  selectableFields: {},
});
