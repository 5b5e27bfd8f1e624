// CertificateSigningRequests (pkg/registry/certificates/certificates/strategy.go: the requester's identity
// stamped on create, spec and status fixed on main-resource writes, the status and approval subresources each
// changing only their part, condition timestamps; pkg/apis/certificates/validation; printCertificateSigningRequest
// and the spec.signerName field selector).

import { clockDate } from '../../../apis/clock.ts';
import type { FieldError } from '../../../apis/errors.ts';
import type { KubeObject, RequestContext, SubresourceStrategy } from '../../types.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../validation/meta.ts';
import { humanDuration } from '../duration.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy, carrySystemMeta } from '../generic.ts';
import { clone, getPath, isObj, objsAt, strAt, type Obj } from '../object.ts';
import { ageColumn, column, orNone } from '../printing.ts';
import type { TypeRules } from '../type-rules.ts';
import { conditionsOf, csrErrors, csrUpdateErrors, csrValidationOptions, type CSRValidationOptions } from './csr-validation.ts';

export { signerNameErrors } from './csr-validation.ts';

type WritePath = Pick<CSRValidationOptions, 'allowSettingApprovalConditions' | 'allowSettingCertificate'>;

/** ValidateCertificateSigningRequestCreate: ObjectMeta, then the request's own checks. */
function validateCreate(csr: KubeObject, rules: TypeRules): FieldError[] {
  return [...validateObjectMeta(csr.metadata, rules), ...csrErrors(csr, csrValidationOptions(csr, undefined))];
}

/** validateCertificateSigningRequestUpdate: the object's checks, the update rules, ObjectMeta's update rules last. */
function validateUpdate(csr: KubeObject, old: KubeObject, rules: TypeRules, path: WritePath): FieldError[] {
  const opts = { ...csrValidationOptions(csr, old), ...path };
  return [
    ...validateObjectMeta(csr.metadata, rules),
    ...csrErrors(csr, opts),
    ...csrUpdateErrors(csr, old, opts),
    ...validateObjectMetaUpdate(csr.metadata, old.metadata, 'metadata', rules.kubeFinalizers),
  ];
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
function subresourceWrite(rules: TypeRules, prepare: (next: KubeObject, old: KubeObject) => void, path: WritePath): SubresourceStrategy {
  return {
    prepareForUpdate(obj, old) {
      const next = clone(obj);
      next.spec = clone(old.spec);
      carrySystemMeta(next, old);
      prepare(next, old);
      stampConditions(next, old);
      return next;
    },
    validateUpdate: (obj, old) => validateUpdate(obj, old, rules, path),
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
    // kube checks ObjectMeta first on create but its update rules last (validateCreate and validateUpdate do both).
    genericMetaOnly: true,
    initialStatus: () => 'keep',
    prepareForCreate: stampRequester,
    prepareForUpdate(csr, old) {
      csr.spec = clone(old.spec);
      if (old.status === undefined) delete csr.status;
      else csr.status = clone(old.status);
    },
    validate: (csr) => validateCreate(csr, rules),
    validateUpdate: (csr, old) => validateUpdate(csr, old, rules, { allowSettingApprovalConditions: false, allowSettingCertificate: false }),
    subresources: {
      approval: subresourceWrite(
        rules,
        (next, old) => {
          const status: Obj = isObj(next.status) ? next.status : (next.status = {});
          const oldCert = getPath(old, 'status', 'certificate');
          if (oldCert === undefined) delete status.certificate;
          else status.certificate = oldCert;
          preserveConditions(next, old, 'Failed');
        },
        { allowSettingApprovalConditions: true, allowSettingCertificate: false },
      ),
    },
  });
  strategy.subresources = {
    ...strategy.subresources,
    status: subresourceWrite(
      rules,
      (next, old) => {
        preserveConditions(next, old, 'Approved');
        preserveConditions(next, old, 'Denied');
      },
      { allowSettingApprovalConditions: false, allowSettingCertificate: true },
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
