// ServiceCIDRs and IPAddresses (networking/v1beta1; pkg/apis/networking/validation ValidateServiceCIDR, its update,
// ValidateIPAddress with its IP-address names, and its update; kube's printers).

import { fieldErrors, goStringsText, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goText } from '../../../apis/go-bad-values.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE } from '../../validation/meta.ts';
import { isDNS1123Subdomain, isValidPathSegment, type NameValidator } from '../../validation/names.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { validCIDRErrors } from '../ip-validation.ts';
import { arrAt, getPath, isObj, objAt, semanticEqual, strAt, type Obj } from '../object.ts';
import { ageColumn, column } from '../printing.ts';
import { goParseCIDR, goTo4, netipAddrString, netipMaskedAddr, netipParseAddr, netipParsePrefix } from './go-ip.ts';

const MAX_CIDRS = 2;

/** The spec as field.Error prints a networking.ServiceCIDRSpec. */
const goServiceCIDRSpec = (cidrs: unknown[] | undefined): unknown => renderedBadValue(`networking.ServiceCIDRSpec{CIDRs:${goStringsText(cidrs)}}`);

/** netutils.IsDualStackCIDRStrings: every CIDR parses, and both families are there. */
function isDualStack(cidrs: unknown[]): boolean {
  if (cidrs.some((c) => typeof c !== 'string' || validCIDRErrors(c, '').length > 0)) return false;
  const families = new Set(cidrs.map((c) => (goTo4(goParseCIDR(c as string).ip) ? 4 : 6)));
  return families.size === 2;
}

/** validateCIDR: netip's parse, the network address itself, in canonical form. */
function serviceCIDRErrors(cidr: string, path: string): FieldError[] {
  const prefix = netipParsePrefix(cidr);
  if ('error' in prefix) return [fieldErrors.invalid(path, cidr, prefix.error)];
  const errs: FieldError[] = [];
  const masked = netipMaskedAddr(prefix.ok);
  if (!semanticEqual(masked.bytes, prefix.ok.addr.bytes)) errs.push(fieldErrors.invalid(path, cidr, "wrong CIDR format, IP doesn't match network IP address"));
  if (`${netipAddrString(prefix.ok.addr)}/${prefix.ok.bits}` !== cidr) errs.push(fieldErrors.invalid(path, cidr, 'CIDR not in RFC 5952 canonical format'));
  return errs;
}

/** ValidateServiceCIDR beyond ObjectMeta. */
export function validateServiceCIDRSpec(obj: KubeObject): FieldError[] {
  const raw = getPath(obj, 'spec', 'cidrs');
  const cidrs = Array.isArray(raw) ? raw : undefined;
  const path = 'spec.cidrs';
  if (!cidrs || cidrs.length === 0) return [fieldErrors.required(path, 'at least one CIDR required')];
  if (cidrs.length > MAX_CIDRS) return [fieldErrors.invalid(path, goServiceCIDRSpec(cidrs), 'may only hold up to 2 values')];
  if (cidrs.length === MAX_CIDRS && !isDualStack(cidrs)) {
    return [fieldErrors.invalid(path, goServiceCIDRSpec(cidrs), 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64')];
  }
  return cidrs.flatMap((c, i) => serviceCIDRErrors(typeof c === 'string' ? c : '', `${path}[${i}]`));
}

function immutableCIDRErrors(obj: KubeObject, old: KubeObject): FieldError[] {
  const cidrs = getPath(obj, 'spec', 'cidrs');
  if (semanticEqual(arrAt(obj, 'spec', 'cidrs'), arrAt(old, 'spec', 'cidrs'))) return [];
  return [fieldErrors.invalid('spec.cidrs', renderedBadValue(goStringsText(Array.isArray(cidrs) ? cidrs : undefined)), FIELD_IMMUTABLE)];
}

export const serviceCIDRFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    validate: validateServiceCIDRSpec,
    validateUpdate: (obj, old, _ctx, validateNew) => [...validateNew(), ...immutableCIDRErrors(obj, old)],
  }),
  printerColumns: [column('CIDRs', 'string', 'The CIDRs.', (o) => arrAt(o, 'spec', 'cidrs').map(String).join(',')), ageColumn],
  selectableFields: {},
});

/** ValidateIPAddressName: the name is an IP address as netip writes it (generated names are not supported). */
export const ipAddressName: NameValidator = (name) => {
  const addr = netipParseAddr(name);
  if ('error' in addr) return [addr.error];
  return netipAddrString(addr.ok) === name ? [] : ['must be a canonical format IP address'];
};

/** validateIPAddressParentReference: group (may be empty for the core group), resource and name required. */
function parentRefErrors(obj: KubeObject): FieldError[] {
  const ref = objAt(objAt(obj, 'spec'), 'parentRef');
  if (!ref) return [fieldErrors.required('spec.parentRef')];
  const path = 'spec.parentRef';
  const errs: FieldError[] = [];
  const group = strAt(ref, 'group');
  if (group !== '') for (const m of isDNS1123Subdomain(group)) errs.push(fieldErrors.invalid(`${path}.group`, group, m));
  for (const key of ['resource', 'name']) {
    const value = strAt(ref, key);
    if (value === '') errs.push(fieldErrors.required(`${path}.${key}`));
    else for (const m of isValidPathSegment(value, false)) errs.push(fieldErrors.invalid(`${path}.${key}`, value, m));
  }
  const namespace = strAt(ref, 'namespace');
  if (namespace !== '') for (const m of isValidPathSegment(namespace, false)) errs.push(fieldErrors.invalid(`${path}.namespace`, namespace, m));
  return errs;
}

/** A *networking.ParentReference as field.Error prints it (dereferenced). */
function goParentReference(ref: Obj | undefined): unknown {
  if (!ref) return null;
  return renderedBadValue(`networking.ParentReference{Group:${goText(ref.group)}, Resource:${goText(ref.resource)}, Namespace:${goText(ref.namespace)}, Name:${goText(ref.name)}}`);
}

function immutableParentRefErrors(obj: KubeObject, old: KubeObject): FieldError[] {
  const ref = getPath(obj, 'spec', 'parentRef');
  const oldRef = getPath(old, 'spec', 'parentRef');
  // A pointer: nil and a set but empty reference differ.
  if (isObj(ref) === isObj(oldRef) && semanticEqual(ref, oldRef)) return [];
  return [fieldErrors.invalid('spec.parentRef', goParentReference(isObj(ref) ? ref : undefined), FIELD_IMMUTABLE)];
}

export const ipAddressFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(
    { ...rules, nameFn: ipAddressName },
    {
      validate: parentRefErrors,
      validateUpdate: (obj, old, _ctx, validateNew) => [...validateNew(), ...immutableParentRefErrors(obj, old)],
    },
  ),
  printerColumns: [
    column('ParentRef', 'string', 'The object the address belongs to.', (o) => {
      const p = objAt(objAt(o, 'spec'), 'parentRef');
      if (!p) return '<none>';
      const gr = strAt(p, 'group') ? `${strAt(p, 'resource')}.${strAt(p, 'group')}` : strAt(p, 'resource');
      return `${gr.toLowerCase()}${strAt(p, 'namespace') ? `/${strAt(p, 'namespace')}` : ''}/${strAt(p, 'name')}`;
    }),
  ],
  selectableFields: {},
});
