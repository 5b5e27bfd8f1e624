// CertificateSigningRequests: kube's printer and the spec.signerName field selector.

import type { KubeObject } from '../../types.ts';
import { printedFacts } from '../facts.ts';
import { humanDuration } from '../duration.ts';
import { getPath, objsAt, strAt } from '../object.ts';
import { ageColumn, column, orNone } from '../printing.ts';

function csrCondition(obj: KubeObject): string {
  let approved = false;
  let denied = false;
  let failed = false;
  for (const c of objsAt(obj, 'status', 'conditions')) {
    if (c.type === 'Approved') approved = true;
    if (c.type === 'Denied') denied = true;
    if (c.type === 'Failed') failed = true;
  }
  let s = denied ? 'Denied' : approved ? 'Approved' : 'Pending';
  if (failed) s += ',Failed';
  if (strAt(obj, 'status', 'certificate') !== '') s += ',Issued';
  return s;
}

export const certificateSigningRequestFacts = printedFacts(() => [
  ageColumn,
  column('SignerName', 'string', 'The signer asked to sign.', (o) => orNone(strAt(o, 'spec', 'signerName'))),
  column('Requestor', 'string', 'Who asked.', (o) => strAt(o, 'spec', 'username')),
  column('RequestedDuration', 'string', 'The requested validity.', (o) => {
    const s = getPath(o, 'spec', 'expirationSeconds');
    return typeof s === 'number' ? humanDuration(s * 1e9) : '<none>';
  }),
  column('Condition', 'string', 'Approval state of the request.', csrCondition),
], {
  'spec.signerName': (o) => strAt(o, 'spec', 'signerName'),
});
