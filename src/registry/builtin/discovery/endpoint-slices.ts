// EndpointSlices: kube's printer.

import type { KubeObject } from '../../types.ts';
import { printedFacts } from '../facts.ts';
import { arrAt, objsAt, strAt } from '../object.ts';
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

export const endpointSliceFacts = printedFacts(() => [
  column('AddressType', 'string', 'The type of addresses.', (o) => strAt(o, 'addressType')),
  column('Ports', 'string', 'Ports of the endpoints.', discoveryPorts),
  column('Endpoints', 'string', 'Addresses of the endpoints.', discoveryEndpoints),
  ageColumn,
]);
