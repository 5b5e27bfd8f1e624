// ServiceCIDRs and IPAddresses: kube's printers.

import { printedFacts } from '../facts.ts';
import { arrAt, objAt, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

export const serviceCIDRFacts = printedFacts(() => [column('CIDRs', 'string', 'The CIDRs.', (o) => arrAt(o, 'spec', 'cidrs').map(String).join(',')), ageColumn]);

export const ipAddressFacts = printedFacts(() => [
  column('ParentRef', 'string', 'The object the address belongs to.', (o) => {
    const p = objAt(objAt(o, 'spec'), 'parentRef');
    if (!p) return '<none>';
    const gr = strAt(p, 'group') ? `${strAt(p, 'resource')}.${strAt(p, 'group')}` : strAt(p, 'resource');
    return `${gr.toLowerCase()}${strAt(p, 'namespace') ? `/${strAt(p, 'namespace')}` : ''}/${strAt(p, 'name')}`;
  }),
]);
