// Endpoints (core validation ValidateEndpoints, SetDefaults_EndpointPort, printEndpoints).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { validateDNS1123Label } from '../../validation/meta.ts';
import { isValidPortNum } from '../../validation/names.ts';
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
        const ip = strAt(a, 'ip');
        if (!/^(\d{1,3}\.){3}\d{1,3}$/.test(ip) && !(ip.includes(':') && /^[0-9a-fA-F:.]+$/.test(ip))) {
          errs.push(fieldErrors.invalid(`${p}.${key}[${j}].ip`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
        }
        if (strAt(a, 'hostname') !== '') errs.push(...validateDNS1123Label(strAt(a, 'hostname'), `${p}.${key}[${j}].hostname`));
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
