// Endpoints (core validation ValidateEndpoints: validateEndpointSubsets, validateEndpointAddress and
// validateEndpointPort; SetDefaults_EndpointPort; printEndpoints).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { validateDNS1123Label, validateQualifiedName } from '../../validation/meta.ts';
import { nonSpecialIPErrors, validIPErrors } from '../ip-validation.ts';
import { isDNS1123Subdomain, isValidPortNum } from '../../validation/names.ts';
import { buildStrategy } from '../generic.ts';
import { arrAt, objsAt, setDefaultString, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { protocolErrors } from './pod-validation.ts';

function endpointsCell(obj: KubeObject): string {
  const subsets = objsAt(obj, 'subsets');
  if (subsets.length === 0) return '<none>';
  const list: string[] = [];
  const max = 3;
  let more = false;
  let count = 0;
  for (const ss of subsets) {
    const addresses = objsAt(ss, 'addresses');
    const ports = objsAt(ss, 'ports');
    if (ports.length === 0) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(strAt(a, 'ip'));
      }
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        const ip = strAt(a, 'ip');
        list.push(`${ip.includes(':') ? `[${ip}]` : ip}:${String(port.port ?? 0)}`);
      }
    }
  }
  const s = list.join(',');
  return more ? `${s} + ${count - max} more...` : s;
}

function validateEndpointSubsets(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  objsAt(obj, 'subsets').forEach((ss, i) => {
    const p = `subsets[${i}]`;
    if (arrAt(ss, 'addresses').length === 0 && arrAt(ss, 'notReadyAddresses').length === 0) {
      errs.push(fieldErrors.required(p, 'must specify `addresses` or `notReadyAddresses`'));
    }
    for (const key of ['addresses', 'notReadyAddresses']) {
      objsAt(ss, key).forEach((a, j) => {
        const ap = `${p}.${key}[${j}]`;
        const ip = strAt(a, 'ip');
        errs.push(...validIPErrors(ip, `${ap}.ip`));
        if (strAt(a, 'hostname') !== '') errs.push(...validateDNS1123Label(strAt(a, 'hostname'), `${ap}.hostname`));
        if (typeof a.nodeName === 'string') for (const m of isDNS1123Subdomain(a.nodeName)) errs.push(fieldErrors.invalid(`${ap}.nodeName`, a.nodeName, m));
        errs.push(...nonSpecialIPErrors(ip, `${ap}.ip`));
      });
    }
    const ports = objsAt(ss, 'ports');
    ports.forEach((port, j) => {
      const pp = `${p}.ports[${j}]`;
      const name = strAt(port, 'name');
      if (ports.length > 1 && name === '') errs.push(fieldErrors.required(`${pp}.name`));
      else if (name !== '') errs.push(...validateDNS1123Label(name, `${pp}.name`));
      const n = typeof port.port === 'number' ? port.port : 0;
      for (const m of isValidPortNum(n)) errs.push(fieldErrors.invalid(`${pp}.port`, n, m));
      errs.push(...protocolErrors(port.protocol, `${pp}.protocol`));
      if (typeof port.appProtocol === 'string') errs.push(...validateQualifiedName(port.appProtocol, `${pp}.appProtocol`));
    });
  });
  return errs;
}

export function endpointsFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      defaults(obj) {
        for (const ss of objsAt(obj, 'subsets')) for (const port of objsAt(ss, 'ports')) setDefaultString(port, 'protocol', 'TCP');
      },
      validate: validateEndpointSubsets,
    }),
    printerColumns: [column('Endpoints', 'string', 'Addresses of the endpoints.', endpointsCell), ageColumn],
    selectableFields: {},
  };
}
