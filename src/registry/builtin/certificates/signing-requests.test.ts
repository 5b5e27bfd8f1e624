import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, RequestContext } from '../../types.ts';
import { sequence, tlv } from '../../../server/der.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, statusUpdateErrors, testContext, updateErrors } from '../test-context.ts';
import { pemText, signedRequestPem } from './test-requests.ts';

const csrs = builtinTypeFacts('certificates.k8s.io', 'certificatesigningrequests');
const pem = (type: string, body = 'MIIBAA==') => Buffer.from(pemText(type, body)).toString('base64');
const signedRequest = (tamper = false) => Buffer.from(signedRequestPem(tamper)).toString('base64');
const request = signedRequest();
/** The outer structure x509.ParseCertificates first reads: a SEQUENCE holding the tbsCertificate SEQUENCE. */
const certificate = (serial = 1) => pem('CERTIFICATE', sequence(sequence(tlv(0x02, Buffer.from([serial])))).toString('base64'));
const csr = (spec: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: 'alice' },
  spec: { request, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], ...spec },
});
const alice: RequestContext = { ...testContext, user: { name: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } } };

// Sources: pkg/registry/certificates/certificates/strategy.go; pkg/apis/certificates/validation/validation.go.
test('CSR create: the requester is stamped from the request, status starts empty', () => {
  const obj = csr({ username: 'mallory', groups: ['system:masters'] });
  obj.status = { conditions: [{ type: 'Approved', status: 'True' }] };
  assert.deepEqual(createErrors(csrs, obj, alice), []);
  assert.deepEqual(obj.spec, { request, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], username: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } });
  assert.deepEqual(obj.status, {});
});

const cases: [string, Record<string, unknown>, string[]][] = [
  ['not a CSR PEM block', { request: pem('CERTIFICATE') }, []],
  ['a truncated request', { request: pem('CERTIFICATE REQUEST') }, []],
  ['a request signed by another key', { request: signedRequest(true) }, []],
  ['no request', { request: undefined }, ['spec.request: Invalid value: []byte(nil): PEM block type must be CERTIFICATE REQUEST']],
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
    else if (name === 'a truncated request') assert.match(errs[0], /^spec\.request: Invalid value: \[\]byte\{0x2d, .*\}: asn1: syntax error: data truncated$/);
    else if (name === 'a request signed by another key') assert.match(errs[0], /^spec\.request: Invalid value: \[\]byte\{0x2d, .*\}: x509: Ed25519 verification failure$/);
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
  const approved = statusUpdateErrors(csrs, { ...structuredClone(old), status: { conditions: [{ type: 'Approved', status: 'True', reason: 'OK' }], certificate: certificate() } }, old, testContext, 'approval');
  assert.deepEqual(approved.errors, []);
  const cond = (approved.merged.status as { conditions: Record<string, unknown>[]; certificate?: string });
  assert.equal(cond.conditions[0].type, 'Approved');
  assert.match(String(cond.conditions[0].lastUpdateTime), /Z$/);
  assert.equal(cond.certificate, undefined);
  const both = statusUpdateErrors(csrs, { ...structuredClone(old), status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }] } }, old, testContext, 'approval');
  assert.deepEqual(both.errors, ['status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive']);
  // The signer issues through status; a second certificate is refused.
  const issuedOld = structuredClone(approved.merged);
  const issued = statusUpdateErrors(csrs, { ...structuredClone(issuedOld), status: { ...(issuedOld.status as object), certificate: certificate() } }, issuedOld);
  assert.deepEqual(issued.errors, []);
  const again = statusUpdateErrors(csrs, { ...structuredClone(issued.merged), status: { ...(issued.merged.status as object), certificate: certificate(2) } }, issued.merged);
  assert.ok(again.errors.includes('status.certificate: Forbidden: updates may not modify existing certificate content'));
  const bad = statusUpdateErrors(csrs, { ...structuredClone(issuedOld), status: { ...(issuedOld.status as object), certificate: pem('PRIVATE KEY') } }, issuedOld);
  assert.deepEqual(bad.errors, ['status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"']);
});

test('CSR conditions: Approved, Denied and Failed may only be True; a missing status is required; types do not repeat', () => {
  const old = csr();
  createErrors(csrs, old, alice);
  old.metadata = { ...old.metadata, resourceVersion: '2' };
  const conditions = [
    { type: 'Failed', status: 'False' },
    { type: 'Ready', status: '' },
    { type: 'Ready', status: 'Maybe' },
    { type: '', status: 'True' },
  ];
  assert.deepEqual(statusUpdateErrors(csrs, { ...structuredClone(old), status: { conditions } }, old).errors, [
    'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
    'status.conditions[1].status: Required value',
    'status.conditions[2].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
    'status.conditions[2].type: Duplicate value: "Ready"',
    'status.conditions[3].type: Required value',
  ]);
});

test('CSR updates tolerate what the stored object already had: the legacy signer, unknown usages, a bad certificate', () => {
  const old = csr({ signerName: 'kubernetes.io/legacy-unknown', usages: ['flying', 'flying'] });
  old.metadata = { ...old.metadata, resourceVersion: '2', labels: {} };
  old.status = { certificate: pem('PRIVATE KEY') };
  const next = structuredClone(old);
  next.metadata = { ...next.metadata, labels: { a: 'b' } };
  assert.deepEqual(updateErrors(csrs, next, old), []);
  // A create gets none of that.
  assert.deepEqual(createErrors(csrs, csr({ signerName: 'kubernetes.io/legacy-unknown', usages: ['client auth', 'client auth'] }), alice), [
    'spec.usages[1]: Duplicate value: "client auth"',
    'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
  ]);
});

test('CSR status.certificate: each block must hold a certificate', () => {
  const old = csr();
  createErrors(csrs, old, alice);
  old.metadata = { ...old.metadata, resourceVersion: '2' };
  const write = (cert: string) => statusUpdateErrors(csrs, { ...structuredClone(old), status: { certificate: cert } }, old).errors;
  assert.deepEqual(write(pem('CERTIFICATE', '')), ['status.certificate: Invalid value: "<certificate data>": found CERTIFICATE PEM block containing 0 certificates']);
  assert.deepEqual(write(pem('CERTIFICATE', 'AgEB')), ['status.certificate: Invalid value: "<certificate data>": x509: malformed certificate']);
  assert.deepEqual(write(pem('CERTIFICATE', 'MAMCAQE=')), ['status.certificate: Invalid value: "<certificate data>": x509: malformed tbs certificate']);
});
