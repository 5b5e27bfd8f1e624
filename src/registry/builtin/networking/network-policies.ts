// NetworkPolicies (networking/v1 SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort; pkg/apis/networking/
// validation ValidateNetworkPolicySpec: ports, peers, ipBlocks, policyTypes; printNetworkPolicy).

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { isValidPortName, isValidPortNum } from '../../validation/names.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { cidrFamily } from '../ip-validation.ts';
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

/** The CIDR as a bigint network with its prefix length, for containment checks. */
function cidrRange(cidr: string): { family: number; bits: number; base: bigint } {
  const [ip, bits] = cidr.split('/');
  const family = cidrFamily(cidr);
  const width = family === 4 ? 32 : 128;
  let value = 0n;
  if (family === 4) for (const o of ip.split('.')) value = (value << 8n) | BigInt(Number(o));
  else {
    const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, ''];
    const hi = head ? head.split(':') : [];
    const lo = tail ? tail.split(':') : [];
    for (const g of [...hi, ...new Array(8 - hi.length - lo.length).fill('0'), ...lo]) value = (value << 16n) | BigInt(parseInt(g || '0', 16));
  }
  const n = Number(bits);
  const mask = ((1n << BigInt(width)) - 1n) ^ ((1n << BigInt(width - n)) - 1n);
  return { family, bits: n, base: value & mask };
}

function ipBlockErrors(block: Obj, path: string): FieldError[] {
  const cidr = typeof block.cidr === 'string' ? block.cidr : '';
  if (cidr === '') return [fieldErrors.required(`${path}.cidr`)];
  if (cidrFamily(cidr) === 0) return [fieldErrors.invalid(`${path}.cidr`, cidr, 'not a valid CIDR')];
  const outer = cidrRange(cidr);
  const errs: FieldError[] = [];
  const excepts = arrAt(block, 'except').map(String);
  for (let i = 0; i < excepts.length; i++) {
    const e = excepts[i];
    const p = `${path}.except[${i}]`;
    if (cidrFamily(e) === 0) {
      errs.push(fieldErrors.invalid(p, e, 'not a valid CIDR'));
      return errs;
    }
    const inner = cidrRange(e);
    const width = outer.family === 4 ? 32 : 128;
    const contained = inner.family === outer.family && inner.base >> BigInt(width - outer.bits) === outer.base >> BigInt(width - outer.bits);
    if (!contained || outer.bits >= inner.bits) errs.push(fieldErrors.invalid(p, e, 'must be a strict subset of `cidr`'));
  }
  return errs;
}

function peerErrors(peer: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const key of ['podSelector', 'namespaceSelector']) {
    if (isObj(peer[key])) {
      count++;
      errs.push(...validateLabelSelector(peer[key], `${path}.${key}`));
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

/** ValidateNetworkPolicySpec. */
export function validateNetworkPolicySpec(obj: KubeObject): FieldError[] {
  const spec = objAt(obj, 'spec') ?? {};
  const errs = validateLabelSelector(spec.podSelector, 'spec.podSelector');
  for (const [key, peersKey] of [['ingress', 'from'], ['egress', 'to']]) {
    objsAt(spec, key).forEach((rule, i) => {
      const p = `spec.${key}[${i}]`;
      objsAt(rule, 'ports').forEach((port, j) => errs.push(...portErrors(port, `${p}.ports[${j}]`)));
      objsAt(rule, peersKey).forEach((peer, j) => errs.push(...peerErrors(peer, `${p}.${peersKey}[${j}]`)));
    });
  }
  const types = arrAt(spec, 'policyTypes');
  if (types.length > POLICY_TYPES.length) {
    errs.push(fieldErrors.invalid('spec.policyTypes', renderedBadValue(`[]networking.PolicyType{${types.map((t) => JSON.stringify(String(t))).join(', ')}}`), 'may not specify more than two policyTypes'));
    return errs;
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(String(t))) errs.push(fieldErrors.notSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES));
  });
  return errs;
}

export const networkPolicyFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, { defaults: defaultNetworkPolicy, validate: validateNetworkPolicySpec }),
  printerColumns: [column('Pod-Selector', 'string', 'Pods the policy applies to.', (o) => formatLabelSelector(getPath(o, 'spec', 'podSelector'))), ageColumn],
  selectableFields: {},
});
