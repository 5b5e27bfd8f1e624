// EndpointSlices (pkg/apis/discovery/validation ValidateEndpointSlice/Update, discovery/v1 SetDefaults_EndpointPort,
// printEndpointSlice; generation tracked by the strategy).

import type { KubeObject } from '../../types.ts';
import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { FIELD_IMMUTABLE, validateDNS1123Label, validateLabels, validateQualifiedName } from '../../validation/meta.ts';
import { isDNS1123Label, isDNS1123Subdomain, isValidLabelValue } from '../../validation/names.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { ipFamily, nonSpecialIPErrors } from '../ip-validation.ts';
import { arrAt, isObj, objsAt, setDefault, strAt } from '../object.ts';
import { ageColumn, column, listWithMore } from '../printing.ts';

function discoveryEndpoints(obj: KubeObject): string {
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const e of objsAt(obj, 'endpoints')) {
    for (const a of arrAt(e, 'addresses')) {
      if (list.length < 3) list.push(String(a));
      else more = true;
      count++;
    }
  }
  return listWithMore(list, more, count, 3);
}

function discoveryPorts(obj: KubeObject): string {
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const p of objsAt(obj, 'ports')) {
    if (list.length < 3) list.push(typeof p.port === 'number' ? String(p.port) : typeof p.name === 'string' ? p.name : '*');
    else more = true;
    count++;
  }
  return listWithMore(list, more, count, 3);
}

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ZONE_HINTS = 8;

/** validation.IsFullyQualifiedDomainName. */
function fqdnErrors(value: string, path: string): FieldError[] {
  if (value === '') return [fieldErrors.required(path)];
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const sub = isDNS1123Subdomain(name);
  if (sub.length) return [fieldErrors.invalid(path, name, sub.join(','))];
  const labels = name.split('.');
  if (labels.length < 2) return [fieldErrors.invalid(path, name, 'should be a domain with at least two segments separated by dots')];
  for (const label of labels) {
    const msgs = isDNS1123Label(label);
    if (msgs.length) return [fieldErrors.invalid(path, label, msgs.join(','))];
  }
  return [];
}

function addressErrors(address: string, addressType: string, path: string): FieldError[] {
  switch (addressType) {
    case 'IPv4':
      return ipFamily(address) === 4 ? nonSpecialIPErrors(address, path) : [fieldErrors.invalid(path, address, 'must be a valid IPv4 address')];
    case 'IPv6':
      return ipFamily(address) === 6 ? nonSpecialIPErrors(address, path) : [fieldErrors.invalid(path, address, 'must be a valid IPv6 address')];
    case 'FQDN':
      return fqdnErrors(address, path);
    default:
      return [];
  }
}

function endpointErrors(obj: KubeObject, addressType: string): FieldError[] {
  const endpoints = objsAt(obj, 'endpoints');
  if (endpoints.length > MAX_ENDPOINTS) return [fieldErrors.tooMany('endpoints', endpoints.length, MAX_ENDPOINTS)];
  const errs: FieldError[] = [];
  endpoints.forEach((ep, i) => {
    const p = `endpoints[${i}]`;
    const addresses = arrAt(ep, 'addresses');
    if (addresses.length === 0) errs.push(fieldErrors.required(`${p}.addresses`, 'must contain at least 1 address'));
    else if (addresses.length > MAX_ADDRESSES) errs.push(fieldErrors.tooMany(`${p}.addresses`, addresses.length, MAX_ADDRESSES));
    addresses.forEach((a, j) => errs.push(...addressErrors(String(a), addressType, `${p}.addresses[${j}]`)));
    if (typeof ep.nodeName === 'string') for (const m of isDNS1123Subdomain(ep.nodeName)) errs.push(fieldErrors.invalid(`${p}.nodeName`, ep.nodeName, m));
    const topology = isObj(ep.deprecatedTopology) ? ep.deprecatedTopology : {};
    if (Object.keys(topology).length > MAX_TOPOLOGY_LABELS) errs.push(fieldErrors.tooMany(`${p}.deprecatedTopology`, Object.keys(topology).length, MAX_TOPOLOGY_LABELS));
    errs.push(...validateLabels(topology, `${p}.deprecatedTopology`));
    if (typeof ep.hostname === 'string') errs.push(...validateDNS1123Label(ep.hostname, `${p}.hostname`));
    const zones = objsAt(ep, 'hints', 'forZones');
    if (zones.length > MAX_ZONE_HINTS) errs.push(fieldErrors.tooMany(`${p}.hints.forZones`, zones.length, MAX_ZONE_HINTS));
    else {
      const seen = new Set<string>();
      zones.forEach((z, k) => {
        const zp = `${p}.hints.forZones[${k}].name`;
        const name = strAt(z, 'name');
        if (seen.has(name)) errs.push(fieldErrors.duplicate(zp, name));
        else seen.add(name);
        for (const m of isValidLabelValue(name)) errs.push(fieldErrors.invalid(zp, name, m));
      });
    }
  });
  return errs;
}

function portErrors(obj: KubeObject): FieldError[] {
  const ports = objsAt(obj, 'ports');
  if (ports.length > MAX_PORTS) return [fieldErrors.tooMany('ports', ports.length, MAX_PORTS)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const p = `ports[${i}]`;
    const name = strAt(port, 'name');
    if (name !== '') errs.push(...validateDNS1123Label(name, `${p}.name`));
    if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
    else names.add(name);
    const protocol = port.protocol;
    if (typeof protocol !== 'string') errs.push(fieldErrors.required(`${p}.protocol`));
    else if (!PROTOCOLS.includes(protocol)) errs.push(fieldErrors.notSupported(`${p}.protocol`, protocol, PROTOCOLS));
    if (typeof port.appProtocol === 'string') errs.push(...validateQualifiedName(port.appProtocol, `${p}.appProtocol`));
  });
  return errs;
}

/** ValidateEndpointSlice (beyond ObjectMeta): addressType, endpoints, ports. */
export function validateEndpointSlice(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const addressType = strAt(obj, 'addressType');
  if (addressType === '') errs.push(fieldErrors.required('addressType'));
  else if (!ADDRESS_TYPES.includes(addressType)) errs.push(fieldErrors.notSupported('addressType', addressType, ADDRESS_TYPES));
  return [...errs, ...endpointErrors(obj, addressType), ...portErrors(obj)];
}

export const endpointSliceFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    defaults(obj) {
      for (const port of objsAt(obj, 'ports')) {
        setDefault(port, 'name', '');
        setDefault(port, 'protocol', 'TCP');
      }
    },
    validate: validateEndpointSlice,
    validateUpdate(obj, old, _ctx, validateNew) {
      const errs = validateNew();
      if (strAt(obj, 'addressType') !== strAt(old, 'addressType')) errs.push(fieldErrors.invalid('addressType', strAt(obj, 'addressType'), FIELD_IMMUTABLE));
      return errs;
    },
  }),
  printerColumns: [
    column('AddressType', 'string', 'The type of addresses.', (o) => strAt(o, 'addressType')),
    column('Ports', 'string', 'Ports of the endpoints.', discoveryPorts),
    column('Endpoints', 'string', 'Addresses of the endpoints.', discoveryEndpoints),
    ageColumn,
  ],
  selectableFields: {},
});
