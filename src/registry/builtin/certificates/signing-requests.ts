// CertificateSigningRequests (pkg/registry/certificates/certificates/strategy.go: the requester's identity
// stamped on create, spec and status fixed on main-resource writes, the status and approval subresources each
// changing only their part, condition timestamps; pkg/apis/certificates/validation; printCertificateSigningRequest
// and the spec.signerName field selector).

import { clockDate } from '../../../apis/clock.ts';
import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject, RequestContext, SubresourceStrategy } from '../../types.ts';
import { validateObjectMetaUpdate } from '../../validation/meta.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../../validation/names.ts';
import { humanDuration } from '../duration.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy, carrySystemMeta } from '../generic.ts';
import { arrAt, clone, getPath, isObj, objAt, objsAt, semanticEqual, strAt, type Obj } from '../object.ts';
import { ageColumn, column, orNone } from '../printing.ts';
import { pemBlocks } from '../../../server/pem.ts';

const USAGES = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only', 'digital signature',
  'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement', 'key encipherment', 'microsoft sgc',
  'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];
const CONDITION_STATUSES = ['True', 'False', 'Unknown'];
const LEGACY_SIGNER = 'kubernetes.io/legacy-unknown';
const MIN_EXPIRATION_SECONDS = 600;

const bytesOf = (b64: unknown) => (typeof b64 === 'string' ? Buffer.from(b64, 'base64') : Buffer.alloc(0));
const goBytes = (b: Buffer) => renderedBadValue(`[]byte{${[...b].map((x) => `0x${x.toString(16)}`).join(', ')}}`);

/** certificates.ParseCSR's complaint about the PEM wrapping (the DER content and signature are not checked here). */
function requestError(request: Buffer): string | undefined {
  const block = pemBlocks(request.toString('latin1'))[0];
  return !block || block.type !== 'CERTIFICATE REQUEST' ? 'PEM block type must be CERTIFICATE REQUEST' : undefined;
}

/** validateCertificate for status.certificate. */
function certificateError(cert: Buffer): string | undefined {
  if (cert.length === 0) return undefined;
  const blocks = pemBlocks(cert.toString('latin1'));
  for (const b of blocks) {
    if (b.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${b.type}"`;
    if (b.headers) return 'no PEM block headers are permitted';
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

function conditionErrors(csr: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  objsAt(csr, 'status', 'conditions').forEach((c, i) => {
    const p = `status.conditions[${i}]`;
    const type = strAt(c, 'type');
    const status = strAt(c, 'status');
    if (type === '') errs.push(fieldErrors.required(`${p}.type`));
    if (!CONDITION_STATUSES.includes(status)) errs.push(fieldErrors.notSupported(`${p}.status`, status, CONDITION_STATUSES));
    if (type === 'Approved' || type === 'Denied') {
      if (type === 'Approved') approved = true;
      else denied = true;
      if (status !== 'True') errs.push(fieldErrors.invalid(`${p}.status`, status, `${type} condition may only have status=True`));
    }
    if (seen.has(type)) errs.push(fieldErrors.duplicate(`${p}.type`, type));
    seen.add(type);
  });
  if (approved && denied) errs.push(fieldErrors.invalid('status.conditions', renderedBadValue('[]certificates.CertificateSigningRequestCondition{...}'), 'Approved and Denied conditions are mutually exclusive'));
  return errs;
}

/** validateCertificateSigningRequest (after ObjectMeta). */
function validateCSR(csr: KubeObject): FieldError[] {
  const spec = objAt(csr, 'spec') ?? {};
  const errs: FieldError[] = [];
  const request = bytesOf(spec.request);
  const err = requestError(request);
  if (err) errs.push(fieldErrors.invalid('spec.request', goBytes(request), err));
  const usages = arrAt(spec, 'usages').map(String);
  if (usages.length === 0) errs.push(fieldErrors.required('spec.usages'));
  usages.forEach((u, i) => {
    if (!USAGES.includes(u)) errs.push(fieldErrors.notSupported(`spec.usages[${i}]`, u, USAGES));
  });
  const seen = new Set<string>();
  usages.forEach((u, i) => {
    if (seen.has(u)) errs.push(fieldErrors.duplicate(`spec.usages[${i}]`, u));
    seen.add(u);
  });
  const signer = strAt(spec, 'signerName');
  if (signer === LEGACY_SIGNER) errs.push(fieldErrors.invalid('spec.signerName', signer, 'the legacy signerName is not allowed via this API version'));
  else errs.push(...signerNameErrors(signer, 'spec.signerName'));
  const seconds = spec.expirationSeconds;
  if (typeof seconds === 'number' && seconds < MIN_EXPIRATION_SECONDS) errs.push(fieldErrors.invalid('spec.expirationSeconds', seconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  errs.push(...conditionErrors(csr));
  const certErr = certificateError(bytesOf(getPath(csr, 'status', 'certificate')));
  if (certErr) errs.push(fieldErrors.invalid('status.certificate', '<certificate data>', certErr));
  return errs;
}

const conditionsOf = (csr: KubeObject, type: string) => objsAt(csr, 'status', 'conditions').filter((c) => c.type === type);

/** validateCertificateSigningRequestUpdate's rules on conditions and the certificate. */
function updateErrors(csr: KubeObject, old: KubeObject, allow: { approval: boolean; certificate: boolean }): FieldError[] {
  const errs = validateCSR(csr);
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (conditionsOf(csr, t).length < conditionsOf(old, t).length) errs.push(fieldErrors.forbidden('status.conditions', `updates may not remove a condition of type "${t}"`));
  }
  if (!allow.approval) {
    for (const t of ['Approved', 'Denied']) {
      const before = conditionsOf(old, t);
      const after = conditionsOf(csr, t);
      if (after.length > before.length) errs.push(fieldErrors.forbidden('status.conditions', `updates may not add a condition of type "${t}"`));
      else if (after.length === before.length && !semanticEqual(before, after)) errs.push(fieldErrors.forbidden('status.conditions', `updates may not modify a condition of type "${t}"`));
    }
  }
  const cert = bytesOf(getPath(csr, 'status', 'certificate'));
  const oldCert = bytesOf(getPath(old, 'status', 'certificate'));
  if (!cert.equals(oldCert)) {
    if (!allow.certificate) errs.push(fieldErrors.forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCert.length > 0) errs.push(fieldErrors.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}

function nowSeconds(): string {
  return clockDate().toISOString().replace(/\.\d+Z$/, 'Z');
}

/** populateConditionTimestamps. */
function stampConditions(csr: KubeObject, old: KubeObject): void {
  const now = nowSeconds();
  for (const c of objsAt(csr, 'status', 'conditions')) {
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (!c.lastTransitionTime) {
      const prior = objsAt(old, 'status', 'conditions').find((o) => o.type === c.type && o.status === c.status && o.lastTransitionTime);
      c.lastTransitionTime = prior ? prior.lastTransitionTime : now;
    }
  }
}

/** preserveConditionInstances: the stored conditions of a type replace the written ones. */
function preserveConditions(csr: KubeObject, old: KubeObject, type: string): void {
  const status = isObj(csr.status) ? csr.status : (csr.status = {});
  const kept = objsAt(status, 'conditions').filter((c) => c.type !== type);
  const conditions = [...kept, ...clone(conditionsOf(old, type))];
  // An empty list is not written (omitempty), as kube's responses do not show one.
  if (conditions.length > 0) status.conditions = conditions;
  else delete status.conditions;
}

/** A subresource write: the stored object with this write's status (what the subresource may change of it). */
function subresourceWrite(prepare: (next: KubeObject, old: KubeObject) => void, allow: { approval: boolean; certificate: boolean }): SubresourceStrategy {
  return {
    prepareForUpdate(obj, old) {
      const next = clone(obj);
      next.spec = clone(old.spec);
      carrySystemMeta(next, old);
      prepare(next, old);
      stampConditions(next, old);
      return next;
    },
    validateUpdate: (obj, old) => [...updateErrors(obj, old, allow), ...validateObjectMetaUpdate(obj.metadata, old.metadata, 'metadata', true)],
  };
}

function stampRequester(csr: KubeObject, ctx: RequestContext): void {
  const spec: Obj = isObj(csr.spec) ? csr.spec : (csr.spec = {});
  for (const key of ['username', 'uid', 'groups', 'extra']) delete spec[key];
  spec.username = ctx.user.name;
  if (ctx.user.uid) spec.uid = ctx.user.uid;
  if (ctx.user.groups.length > 0) spec.groups = [...ctx.user.groups];
  const extra = ctx.user.extra;
  if (extra && Object.keys(extra).length > 0) spec.extra = clone(extra);
  // kube sets an empty list of conditions, which its responses omit.
  csr.status = {};
}

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

export const certificateSigningRequestFacts: FactsMaker = (rules) => {
  const strategy = buildStrategy(rules, {
    initialStatus: () => 'keep',
    prepareForCreate: stampRequester,
    prepareForUpdate(csr, old) {
      csr.spec = clone(old.spec);
      if (old.status === undefined) delete csr.status;
      else csr.status = clone(old.status);
    },
    validate: validateCSR,
    validateUpdate: (csr, old) => updateErrors(csr, old, { approval: false, certificate: false }),
    subresources: {
      approval: subresourceWrite(
        (next, old) => {
          const status: Obj = isObj(next.status) ? next.status : (next.status = {});
          const oldCert = getPath(old, 'status', 'certificate');
          if (oldCert === undefined) delete status.certificate;
          else status.certificate = oldCert;
          preserveConditions(next, old, 'Failed');
        },
        { approval: true, certificate: false },
      ),
    },
  });
  strategy.subresources = {
    ...strategy.subresources,
    status: subresourceWrite(
      (next, old) => {
        preserveConditions(next, old, 'Approved');
        preserveConditions(next, old, 'Denied');
      },
      { approval: false, certificate: true },
    ),
  };
  return {
    strategy,
    printerColumns: [
      ageColumn,
      column('SignerName', 'string', 'The signer asked to sign.', (o) => orNone(strAt(o, 'spec', 'signerName'))),
      column('Requestor', 'string', 'Who asked.', (o) => strAt(o, 'spec', 'username')),
      column('RequestedDuration', 'string', 'The requested validity.', (o) => {
        const s = getPath(o, 'spec', 'expirationSeconds');
        return typeof s === 'number' ? humanDuration(s * 1e9) : '<none>';
      }),
      column('Condition', 'string', 'Approval state of the request.', csrCondition),
    ],
    selectableFields: { 'spec.signerName': (o) => strAt(o, 'spec', 'signerName') },
  };
};
