import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, RequestContext } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, statusUpdateErrors, testContext, updateErrors } from '../test-context.ts';

const csrs = builtinTypeFacts('certificates.k8s.io', 'certificatesigningrequests');
const pem = (type: string, body = 'MIIBAA==') => Buffer.from(`-----BEGIN ${type}-----\n${body}\n-----END ${type}-----\n`).toString('base64');
const csr = (spec: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: 'alice' },
  spec: { request: pem('CERTIFICATE REQUEST'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], ...spec },
});
const alice: RequestContext = { ...testContext, user: { name: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } } };

// Sources: pkg/registry/certificates/certificates/strategy.go; pkg/apis/certificates/validation/validation.go.
test('CSR create: the requester is stamped from the request, status starts empty', () => {
  const obj = csr({ username: 'mallory', groups: ['system:masters'] });
  obj.status = { conditions: [{ type: 'Approved', status: 'True' }] };
  assert.deepEqual(createErrors(csrs, obj, alice), []);
  assert.deepEqual(obj.spec, { request: pem('CERTIFICATE REQUEST'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], username: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } });
  assert.deepEqual(obj.status, {});
});

const cases: [string, Record<string, unknown>, string[]][] = [
  ['not a CSR PEM block', { request: pem('CERTIFICATE') }, []],
  ['no usages', { usages: [] }, ['spec.usages: Required value']],
  ['unknown usage', { usages: ['flying'] }, []],
  ['legacy signer', { signerName: 'kubernetes.io/legacy-unknown' }, ['spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version']],
  ['signer without a path', { signerName: 'example.com' }, ["spec.signerName: Invalid value: \"example.com\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]],
  ['short expiration', { expirationSeconds: 60 }, ['spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)']],
];
for (const [name, spec, want] of cases) {
  test(`CSR create: ${name}`, () => {
    const errs = createErrors(csrs, csr(spec), alice);
    if (name === 'not a CSR PEM block') assert.match(errs[0], /^spec\.request: Invalid value: \[\]byte\{0x2d, .*\}: PEM block type must be CERTIFICATE REQUEST$/);
    else if (name === 'unknown usage') assert.match(errs[0], /^spec\.usages\[0\]: Unsupported value: "flying": supported values: "any", "cert sign", /);
    else assert.deepEqual(errs, want);
  });
}

test('CSR: approval only through the approval subresource, the certificate only through status, once', () => {
  const old = csr();
  createErrors(csrs, old, alice);
  old.metadata = { ...old.metadata, resourceVersion: '2' };
  // The main resource keeps the stored spec and status.
  const main = structuredClone(old);
  main.status = { conditions: [{ type: 'Approved', status: 'True' }] };
  assert.deepEqual(updateErrors(csrs, main, old), []);
  assert.deepEqual(main.status, {});
  // Status writes may not approve.
  const viaStatus = statusUpdateErrors(csrs, { ...structuredClone(old), status: { conditions: [{ type: 'Approved', status: 'True' }] } }, old);
  assert.deepEqual(viaStatus.errors, []);
  assert.deepEqual(viaStatus.merged.status, {});
  // Approval writes approve, stamping the condition times.
  const approved = statusUpdateErrors(csrs, { ...structuredClone(old), status: { conditions: [{ type: 'Approved', status: 'True', reason: 'OK' }], certificate: pem('CERTIFICATE') } }, old, testContext, 'approval');
  assert.deepEqual(approved.errors, []);
  const cond = (approved.merged.status as { conditions: Record<string, unknown>[]; certificate?: string });
  assert.equal(cond.conditions[0].type, 'Approved');
  assert.match(String(cond.conditions[0].lastUpdateTime), /Z$/);
  assert.equal(cond.certificate, undefined);
  const both = statusUpdateErrors(csrs, { ...structuredClone(old), status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }] } }, old, testContext, 'approval');
  assert.deepEqual(both.errors, ['status.conditions: Invalid value: []certificates.CertificateSigningRequestCondition{...}: Approved and Denied conditions are mutually exclusive']);
  // The signer issues through status; a second certificate is refused.
  const issuedOld = structuredClone(approved.merged);
  const issued = statusUpdateErrors(csrs, { ...structuredClone(issuedOld), status: { ...(issuedOld.status as object), certificate: pem('CERTIFICATE') } }, issuedOld);
  assert.deepEqual(issued.errors, []);
  const again = statusUpdateErrors(csrs, { ...structuredClone(issued.merged), status: { ...(issued.merged.status as object), certificate: pem('CERTIFICATE', 'MIICAA==') } }, issued.merged);
  assert.ok(again.errors.includes('status.certificate: Forbidden: updates may not modify existing certificate content'));
  const bad = statusUpdateErrors(csrs, { ...structuredClone(issuedOld), status: { ...(issuedOld.status as object), certificate: pem('PRIVATE KEY') } }, issuedOld);
  assert.deepEqual(bad.errors, ['status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"']);
});
