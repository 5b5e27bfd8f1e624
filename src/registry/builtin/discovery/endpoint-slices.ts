// EndpointSlices (pkg/apis/discovery/validation ValidateEndpointSlice/Update, discovery/v1 SetDefaults_EndpointPort,
// printEndpointSlice; generation tracked by the strategy).

import type { KubeObject } from '../../types.ts';
import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { FIELD_IMMUTABLE, validateDNS1123Label, validateLabels, validateQualifiedName } from '../../validation/meta.ts';
import { isDNS1123Label, isDNS1123Subdomain, isValidLabelValue } from '../../validation/names.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy, specChanged } from '../generic.ts';
import { ipBytes, ipFamily, nonSpecialIPErrors } from '../ip-validation.ts';
import { arrAt, isObj, objsAt, semanticEqual, setDefault, strAt } from '../object.ts';
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

/** Go's family of a parsed IP: an IPv4-mapped IPv6 address (::ffff:a.b.c.d) counts as IPv4 (To4 is not nil). */
function goIPFamily(address: string): 0 | 4 | 6 {
  const family = ipFamily(address);
  if (family !== 6) return family;
  const b = ipBytes(address);
  return b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff ? 4 : 6;
}

function addressErrors(address: string, addressType: string, path: string): FieldError[] {
  switch (addressType) {
    case 'IPv4':
      return goIPFamily(address) === 4 ? nonSpecialIPErrors(address, path) : [fieldErrors.invalid(path, address, 'must be a valid IPv4 address')];
    case 'IPv6':
      return goIPFamily(address) === 6 ? nonSpecialIPErrors(address, path) : [fieldErrors.invalid(path, address, 'must be a valid IPv6 address')];
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

const HOSTNAME_LABEL = 'kubernetes.io/hostname';

const topologyNodeNames = (obj: KubeObject | undefined): Set<unknown> =>
  new Set(objsAt(obj, 'endpoints').map((ep) => (isObj(ep.deprecatedTopology) ? ep.deprecatedTopology[HOSTNAME_LABEL] : undefined)).filter((n) => typeof n === 'string'));

/**
 * dropTopologyOnV1: a discovery/v1 write may not set deprecatedTopology (unless it leaves the endpoints as stored);
 * a node name it held for the stored slice moves to nodeName.
 */
function dropTopology(obj: KubeObject, old: KubeObject | undefined): void {
  if (old && semanticEqual(obj.endpoints, old.endpoints)) return;
  const previous = topologyNodeNames(old);
  for (const ep of objsAt(obj, 'endpoints')) {
    const node = isObj(ep.deprecatedTopology) ? ep.deprecatedTopology[HOSTNAME_LABEL] : undefined;
    if (ep.nodeName === undefined && typeof node === 'string' && previous.has(node) && isDNS1123Subdomain(node).length === 0) ep.nodeName = node;
    delete ep.deprecatedTopology;
  }
}

/** dropDisabledFieldsOnCreate/OnUpdate: hints go when TopologyAwareHints is off, unless the stored slice has some. */
function dropHints(obj: KubeObject, old: KubeObject | undefined, gates: Readonly<Record<string, boolean>>): void {
  if (gates.TopologyAwareHints !== false || objsAt(old, 'endpoints').some((ep) => ep.hints !== undefined)) return;
  for (const ep of objsAt(obj, 'endpoints')) delete ep.hints;
}

export const endpointSliceFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    defaults(obj) {
      for (const port of objsAt(obj, 'ports')) {
        setDefault(port, 'name', '');
        setDefault(port, 'protocol', 'TCP');
      }
    },
    prepareForCreate(obj) {
      dropHints(obj, undefined, rules.featureGates);
      dropTopology(obj, undefined);
    },
    // kube's strategy counts a change of labels as one generation tracks.
    generationChanged: (obj, old) => specChanged(obj, old) || !semanticEqual(obj.metadata?.labels, old.metadata?.labels),
    prepareForUpdate(obj, old) {
      dropHints(obj, old, rules.featureGates);
      dropTopology(obj, old);
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
