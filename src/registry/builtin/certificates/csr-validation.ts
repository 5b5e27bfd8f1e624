// CertificateSigningRequest validation (pkg/apis/certificates/validation of kube 1.31): the request parsed and its
// signature checked, usages, signerName, expirationSeconds, conditions and status.certificate, with the tolerances
// an update gets for problems the stored object already had, and the rules of each write path (main resource,
// status, approval).

import { createPublicKey } from 'node:crypto';
import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../../validation/names.ts';
import { checkRequestSignature, parseCertificateRequest } from '../../../server/certificate-request.ts';
import { children, element } from '../../../server/der.ts';
import { pemBlocks } from '../../../server/pem.ts';
import { goBytes } from '../../../webhook/ca-bundle.ts';
import { arrAt, getPath, objAt, objsAt, semanticEqual, strAt } from '../object.ts';

const USAGES = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only', 'digital signature',
  'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement', 'key encipherment', 'microsoft sgc',
  'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];
const ALL_STATUSES = ['False', 'True', 'Unknown'];
/** Condition types that may only be True. */
const TRUE_ONLY_TYPES = ['Approved', 'Denied', 'Failed'];
const LEGACY_SIGNER = 'kubernetes.io/legacy-unknown';
const MIN_EXPIRATION_SECONDS = 600;

/** What a write may do beyond a create, and what it tolerates because the stored object already had it. */
export interface CSRValidationOptions {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

/** The bytes of a []byte field (base64 in JSON); undefined when absent (a nil slice). */
const bytesOf = (b64: unknown): Buffer | undefined => (typeof b64 === 'string' ? Buffer.from(b64, 'base64') : undefined);


/** Go's encoding/asn1 wording for the DER the request's parser could not walk. */
const ASN1_ERRORS: Record<string, string> = { 'truncated DER': 'asn1: syntax error: data truncated', 'empty DER': 'asn1: syntax error: sequence truncated' };

/** What x509's CheckSignature says of a signature that does not verify, by the kind of key. */
const VERIFICATION_FAILURES: Record<string, string> = {
  rsa: 'crypto/rsa: verification error',
  'rsa-pss': 'crypto/rsa: verification error',
  ec: 'x509: ECDSA verification failure',
  ed25519: 'x509: Ed25519 verification failure',
};

function verificationFailure(publicKeyInfo: Buffer): string {
  try {
    return VERIFICATION_FAILURES[createPublicKey({ key: publicKeyInfo, format: 'der', type: 'spki' }).asymmetricKeyType ?? ''] ?? 'x509: invalid signature';
  } catch {
    return 'x509: invalid signature';
  }
}

/** certificates.ParseCSR then CheckSignature: the error kube reports for spec.request, if any. */
function requestError(request: Buffer | undefined): string | undefined {
  let parsed;
  try {
    parsed = parseCertificateRequest((request ?? Buffer.alloc(0)).toString('latin1'));
  } catch (e) {
    const message = (e as Error).message;
    return ASN1_ERRORS[message] ?? message;
  }
  try {
    checkRequestSignature(parsed);
  } catch (e) {
    const message = (e as Error).message;
    return message === 'x509: invalid signature' ? verificationFailure(parsed.publicKeyInfo) : message;
  }
  return undefined;
}

/** x509.ParseCertificates' first complaint about one block's DER (the outer structure only). */
function certificateDERError(der: Buffer): string | undefined {
  if (der.length === 0) return 'found CERTIFICATE PEM block containing 0 certificates';
  try {
    for (let rest = der; rest.length > 0; ) {
      const cert = element(rest);
      if (cert.tag !== 0x30) return 'x509: malformed certificate';
      const tbs = children(cert.contents)[0];
      if (!tbs || tbs.tag !== 0x30) return 'x509: malformed tbs certificate';
      rest = rest.subarray(cert.raw.length);
    }
  } catch {
    return 'x509: malformed certificate';
  }
  return undefined;
}

/** validateCertificate for status.certificate. */
export function certificateError(cert: Buffer | undefined): string | undefined {
  if (!cert || cert.length === 0) return undefined;
  const blocks = pemBlocks(cert.toString('latin1'));
  for (const b of blocks) {
    if (b.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${b.type}"`;
    if (b.headers) return 'no PEM block headers are permitted';
    const err = certificateDERError(Buffer.from(b.body, 'base64'));
    if (err) return err;
  }
  return blocks.length === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}

/** ValidateSignerName. */
export function signerNameErrors(name: string, path: string): FieldError[] {
  if (name === '') return [fieldErrors.required(path)];
  const segments = name.split('/');
  if (segments.length !== 2) return [fieldErrors.invalid(path, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const errs: FieldError[] = [];
  const [domain, rest] = segments;
  if (domain.length > 253) errs.push(fieldErrors.tooLong(path, 253));
  const labels = domain.split('.');
  for (const lbl of labels) {
    const msgs = isDNS1123Label(lbl);
    if (msgs.length) {
      for (const m of msgs) errs.push(fieldErrors.invalid(path, domain, `validating label ${JSON.stringify(lbl)}: ${m}`));
      break;
    }
  }
  if (labels.length < 2) errs.push(fieldErrors.invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const lbl of rest.split('.')) {
    const msgs = isDNS1123Subdomain(lbl);
    if (msgs.length) {
      for (const m of msgs) errs.push(fieldErrors.invalid(path, rest, `validating label ${JSON.stringify(lbl)}: ${m}`));
      break;
    }
  }
  const max = 253 + 253 + 63 + 1 + 1;
  if (name.length > max) errs.push(fieldErrors.tooLong(path, max));
  return errs;
}

/** validateConditions. */
function conditionErrors(csr: KubeObject, opts: CSRValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  objsAt(csr, 'status', 'conditions').forEach((c, i) => {
    const p = `status.conditions[${i}]`;
    const type = strAt(c, 'type');
    const status = strAt(c, 'status');
    if (!opts.allowEmptyConditionType && type === '') errs.push(fieldErrors.required(`${p}.type`));
    const allowed = TRUE_ONLY_TYPES.includes(type) ? ['True'] : ALL_STATUSES;
    if (status === '') errs.push(fieldErrors.required(`${p}.status`));
    else if (!allowed.includes(status)) errs.push(fieldErrors.notSupported(`${p}.status`, status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (type === 'Approved') approved = true;
      if (type === 'Denied') denied = true;
      if ((type === 'Approved' && denied) || (type === 'Denied' && approved)) errs.push(fieldErrors.invalid(`${p}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) errs.push(fieldErrors.duplicate(`${p}.type`, type));
      seen.add(type);
    }
  });
  return errs;
}

/** validateCertificateSigningRequest after ObjectMeta. */
export function csrErrors(csr: KubeObject, opts: CSRValidationOptions): FieldError[] {
  const spec = objAt(csr, 'spec') ?? {};
  const errs: FieldError[] = [];
  const request = bytesOf(spec.request);
  const err = requestError(request);
  if (err) errs.push(fieldErrors.invalid('spec.request', goBytes(request), err));
  const usages = arrAt(spec, 'usages').map(String);
  if (usages.length === 0) errs.push(fieldErrors.required('spec.usages'));
  if (!opts.allowUnknownUsages) {
    usages.forEach((u, i) => {
      if (!USAGES.includes(u)) errs.push(fieldErrors.notSupported(`spec.usages[${i}]`, u, USAGES));
    });
  }
  if (!opts.allowDuplicateUsages) {
    usages.forEach((u, i) => {
      if (usages.indexOf(u) < i) errs.push(fieldErrors.duplicate(`spec.usages[${i}]`, u));
    });
  }
  const signer = strAt(spec, 'signerName');
  if (!opts.allowLegacySignerName && signer === LEGACY_SIGNER) errs.push(fieldErrors.invalid('spec.signerName', signer, 'the legacy signerName is not allowed via this API version'));
  else errs.push(...signerNameErrors(signer, 'spec.signerName'));
  const seconds = spec.expirationSeconds;
  if (typeof seconds === 'number' && seconds < MIN_EXPIRATION_SECONDS) errs.push(fieldErrors.invalid('spec.expirationSeconds', seconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  errs.push(...conditionErrors(csr, opts));
  if (!opts.allowArbitraryCertificate) {
    const certErr = certificateError(bytesOf(getPath(csr, 'status', 'certificate')));
    if (certErr) errs.push(fieldErrors.invalid('status.certificate', '<certificate data>', certErr));
  }
  return errs;
}

const conditionTypes = (csr: KubeObject) => objsAt(csr, 'status', 'conditions').map((c) => strAt(c, 'type'));
const certificateOf = (csr: KubeObject) => bytesOf(getPath(csr, 'status', 'certificate')) ?? Buffer.alloc(0);
const hasDuplicates = (list: readonly string[]) => new Set(list).size !== list.length;

/** getValidationOptions: what the stored object (undefined on create) lets the write keep. */
export function csrValidationOptions(csr: KubeObject, old: KubeObject | undefined): CSRValidationOptions {
  const oldTypes = old ? conditionTypes(old) : [];
  const oldUsages = old ? arrAt(old, 'spec', 'usages').map(String) : [];
  const sameCertificate = old !== undefined && certificateOf(csr).equals(certificateOf(old));
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowBothApprovedAndDenied: oldTypes.includes('Approved') && oldTypes.includes('Denied'),
    allowLegacySignerName: old !== undefined && strAt(old, 'spec', 'signerName') === LEGACY_SIGNER,
    allowDuplicateConditionTypes: hasDuplicates(oldTypes),
    allowEmptyConditionType: oldTypes.includes(''),
    allowArbitraryCertificate: sameCertificate || (old !== undefined && certificateError(certificateOf(old)) !== undefined),
    allowUnknownUsages: oldUsages.some((u) => !USAGES.includes(u)),
    allowDuplicateUsages: hasDuplicates(oldUsages),
  };
}

export const conditionsOf = (csr: KubeObject, type: string) => objsAt(csr, 'status', 'conditions').filter((c) => c.type === type);

/**
 * validateCertificateSigningRequestUpdate's own rules (after the object's checks): conditions that may not go, the
 * approval conditions only the approval subresource sets, the certificate only status sets, once.
 */
export function csrUpdateErrors(csr: KubeObject, old: KubeObject, opts: CSRValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (conditionsOf(csr, t).length < conditionsOf(old, t).length) errs.push(fieldErrors.forbidden('status.conditions', `updates may not remove a condition of type "${t}"`));
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const t of ['Approved', 'Denied']) {
      const before = conditionsOf(old, t);
      const after = conditionsOf(csr, t);
      if (after.length > before.length) errs.push(fieldErrors.forbidden('status.conditions', `updates may not add a condition of type "${t}"`));
      // kube appends a go-cmp diff of the conditions after a newline; its layout is deliberately unstable, so none is given.
      else if (after.length === before.length && !semanticEqual(before, after)) errs.push(fieldErrors.forbidden('status.conditions', `updates may not modify a condition of type "${t}"`));
    }
  }
  const cert = certificateOf(csr);
  const oldCert = certificateOf(old);
  if (!cert.equals(oldCert)) {
    if (!opts.allowSettingCertificate) errs.push(fieldErrors.forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCert.length > 0) errs.push(fieldErrors.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}
