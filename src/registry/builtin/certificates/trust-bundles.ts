// ClusterTrustBundles: kube's printer.

import { printedFacts } from '../facts.ts';
import { strAt } from '../object.ts';
import { column, orNone } from '../printing.ts';

export const clusterTrustBundleFacts = printedFacts(() => [column('SignerName', 'string', 'The signer of the bundle.', (o) => orNone(strAt(o, 'spec', 'signerName')))]);
