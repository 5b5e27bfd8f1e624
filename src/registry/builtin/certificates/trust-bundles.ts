// ClusterTrustBundles (certificates.k8s.io/v1alpha1): kube 1.31's validation (pkg/apis/certificates/validation
// ValidateClusterTrustBundle and ValidateClusterTrustBundleUpdate) and strategy (no create on update, no update
// without a resourceVersion), and kube's printer. A bundle with a signerName is named "<signerName with ':' for
// '/'>:<suffix>"; its trustBundle holds CA certificates only, as PEM CERTIFICATE blocks without headers.

import { X509Certificate } from 'node:crypto';
import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { pemBlocks } from '../../../server/pem.ts';
import type { KubeObject } from '../../types.ts';
import { validateImmutableField, validateObjectMeta, validateObjectMetaUpdate } from '../../validation/meta.ts';
import { nameIsDNSSubdomain, type NameValidator } from '../../validation/names.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { strAt } from '../object.ts';
import { column, orNone } from '../printing.ts';
import type { TypeRules } from '../type-rules.ts';
import { signerNameErrors } from './csr-validation.ts';

const MAX_TRUST_BUNDLE_BYTES = 1024 * 1024;
const OMITTED = '<value omitted>';

/** ValidateClusterTrustBundleName: the name rule that follows from the bundle's signerName. */
export function clusterTrustBundleName(signerName: string): NameValidator {
  return (name, prefix) => {
    if (signerName === '') {
      if (name.includes(':')) return ['ClusterTrustBundle without signer name must not have ":" in its name'];
      return nameIsDNSSubdomain(name, prefix);
    }
    const required = `${signerName.replaceAll('/', ':')}:`;
    if (!name.startsWith(required)) return [`ClusterTrustBundle for signerName ${signerName} must be named with prefix ${required}`];
    return nameIsDNSSubdomain(name.slice(required.length), prefix);
  };
}

/** Why one PEM block is not a trust anchor (kube's message), or undefined when it is one. */
function blockProblem(block: { type: string; headers: boolean; body: string }, i: number): string | undefined {
  if (block.type !== 'CERTIFICATE') return `entry ${i} has bad block type: ${block.type}`;
  if (block.headers) return `entry ${i} has PEM block headers`;
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(Buffer.from(block.body, 'base64'));
  } catch {
    return `entry ${i} does not parse as X.509`;
  }
  // Go sets IsCA only from a parsed basicConstraints extension, so its separate "invalid basic constraints" check
  // cannot fail after this one.
  return cert.ca ? undefined : `entry ${i} does not have the CA bit set`;
}

/** validateTrustBundle: CA certificates only, at least one, none twice (no more once a block was refused). */
export function trustBundleErrors(bundle: string, path: string): FieldError[] {
  if (Buffer.byteLength(bundle, 'utf8') > MAX_TRUST_BUNDLE_BYTES) return [fieldErrors.tooLong(path, MAX_TRUST_BUNDLE_BYTES)];
  const errs: FieldError[] = [];
  const indicesByAnchor = new Map<string, number[]>();
  pemBlocks(bundle).forEach((block, i) => {
    const problem = blockProblem(block, i);
    if (problem) errs.push(fieldErrors.invalid(path, OMITTED, problem));
    else {
      const der = Buffer.from(block.body, 'base64').toString('base64');
      indicesByAnchor.set(der, [...(indicesByAnchor.get(der) ?? []), i]);
    }
  });
  if (errs.length > 0) return errs;
  if (indicesByAnchor.size === 0) errs.push(fieldErrors.invalid(path, OMITTED, 'at least one trust anchor must be provided'));
  for (const indices of indicesByAnchor.values()) {
    if (indices.length > 1) errs.push(fieldErrors.invalid(path, OMITTED, `duplicate trust anchor (indices [${indices.join(' ')}])`));
  }
  return errs;
}

/** ValidateClusterTrustBundle: ObjectMeta with the signer's name rule, the signerName, the bundle unless suppressed. */
function bundleErrors(bundle: KubeObject, rules: TypeRules, parseBundle: boolean): FieldError[] {
  const signerName = strAt(bundle, 'spec', 'signerName');
  const errs = validateObjectMeta(bundle.metadata, { ...rules, nameFn: clusterTrustBundleName(signerName) });
  if (signerName !== '') errs.push(...signerNameErrors(signerName, 'spec.signerName'));
  if (parseBundle) errs.push(...trustBundleErrors(strAt(bundle, 'spec', 'trustBundle'), 'spec.trustBundle'));
  return errs;
}

export const clusterTrustBundleFacts: FactsMaker = (rules) => {
  const strategy = buildStrategy(rules, {
    // ObjectMeta's name rule depends on the spec: the checks below run ValidateObjectMeta themselves.
    genericMetaOnly: true,
    validate: (bundle) => bundleErrors(bundle, rules, true),
    // An unchanged bundle is not parsed again (changes in PEM or X.509 parsing must not strand stored objects).
    validateUpdate: (bundle, old) => [
      ...bundleErrors(bundle, rules, strAt(bundle, 'spec', 'trustBundle') !== strAt(old, 'spec', 'trustBundle')),
      ...validateObjectMetaUpdate(bundle.metadata, old.metadata, 'metadata', rules.kubeFinalizers),
      ...validateImmutableField(strAt(bundle, 'spec', 'signerName'), strAt(old, 'spec', 'signerName'), 'spec.signerName'),
    ],
  });
  strategy.allowUnconditionalUpdate = false;
  return {
    strategy,
    printerColumns: [column('SignerName', 'string', 'The signer of the bundle.', (o) => orNone(strAt(o, 'spec', 'signerName')))],
    selectableFields: {},
  };
};
