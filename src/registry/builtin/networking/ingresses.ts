// Ingresses and IngressClasses: kube's printers.

import type { KubeObject } from '../../types.ts';
import { printedFacts } from '../facts.ts';
import { arrAt, getPath, objAt, objsAt, strAt } from '../object.ts';
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

export const ingressFacts = printedFacts(() => [
  column('Class', 'string', 'The ingress class.', (o) => (typeof getPath(o, 'spec', 'ingressClassName') === 'string' ? strAt(o, 'spec', 'ingressClassName') : '<none>')),
  column('Hosts', 'string', 'Hosts the rules match.', ingressHosts),
  column('Address', 'string', 'Load-balancer addresses.', (o) => loadBalancerIngress(o.status)),
  column('Ports', 'string', 'Ports the ingress opens.', (o) => (arrAt(o, 'spec', 'tls').length > 0 ? '80, 443' : '80')),
  ageColumn,
]);

export const ingressClassFacts = printedFacts(() => [
  column('Controller', 'string', 'The controller handling the class.', (o) => strAt(o, 'spec', 'controller')),
  column('Parameters', 'string', 'The parameters resource of the class.', (o) => {
    const p = objAt(objAt(o, 'spec'), 'parameters');
    if (!p) return '<none>';
    const group = typeof p.apiGroup === 'string' ? `.${p.apiGroup}` : '';
    return `${strAt(p, 'kind')}${group}/${strAt(p, 'name')}`;
  }),
  ageColumn,
]);
