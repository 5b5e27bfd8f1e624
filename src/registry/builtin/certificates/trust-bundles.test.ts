import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { issueCertificate } from '../../../server/certificates.ts';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, updateErrors } from '../test-context.ts';

// Sources: pkg/apis/certificates/validation ValidateClusterTrustBundle/Update, pkg/apis/core/validation
// ValidateClusterTrustBundleName and ValidateSignerName, pkg/registry/certificates/clustertrustbundle/strategy.go.

const bundles = builtinTypeFacts('certificates.k8s.io', 'clustertrustbundles');
let ca = '';
let otherCa = '';
let leaf = '';

before(async () => {
  const period = { notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000) };
  const root = await issueCertificate({ subject: { commonName: 'root' }, isCa: true, ...period });
  ca = root.certPem;
  otherCa = (await issueCertificate({ subject: { commonName: 'other' }, isCa: true, ...period })).certPem;
  leaf = (await issueCertificate({ subject: { commonName: 'leaf' }, isCa: false, usage: 'client', ...period }, root)).certPem;
});

const bundle = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'certificates.k8s.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name }, spec });

test('cluster trust bundles: the name follows the signerName', () => {
  assert.deepEqual(createErrors(bundles, bundle('example.com:signer:roots', { signerName: 'example.com/signer', trustBundle: ca })), []);
  assert.deepEqual(createErrors(bundles, bundle('plain', { trustBundle: ca })), []);
  assert.deepEqual(createErrors(bundles, bundle('roots', { signerName: 'example.com/signer', trustBundle: ca })), [
    'metadata.name: Invalid value: "roots": ClusterTrustBundle for signerName example.com/signer must be named with prefix example.com:signer:',
  ]);
  assert.deepEqual(createErrors(bundles, bundle('a:b', { trustBundle: ca })), ['metadata.name: Invalid value: "a:b": ClusterTrustBundle without signer name must not have ":" in its name']);
  assert.deepEqual(createErrors(bundles, bundle('example.com:signer:Roots', { signerName: 'example.com/signer', trustBundle: ca })), [
    "metadata.name: Invalid value: \"example.com:signer:Roots\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]);
  assert.deepEqual(createErrors(bundles, bundle('signer:roots', { signerName: 'signer', trustBundle: ca })), [
    "spec.signerName: Invalid value: \"signer\": must be a fully qualified domain and path of the form 'example.com/signer-name'",
  ]);
});

test('cluster trust bundles: the bundle holds headerless CERTIFICATE blocks of CA certificates, at least one, none twice', () => {
  const errs = (trustBundle: string) => createErrors(bundles, bundle('b', { trustBundle }));
  assert.deepEqual(errs(''), ['spec.trustBundle: Invalid value: "<value omitted>": at least one trust anchor must be provided']);
  assert.deepEqual(errs(`${ca}${otherCa}${ca}`), ['spec.trustBundle: Invalid value: "<value omitted>": duplicate trust anchor (indices [0 2])']);
  const headered = ca.replace('-----\n', '-----\nProc-Type: 4,ENCRYPTED\n\n');
  assert.deepEqual(errs(`${leaf}-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n${headered}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n${ca}${ca}`), [
    'spec.trustBundle: Invalid value: "<value omitted>": entry 0 does not have the CA bit set',
    'spec.trustBundle: Invalid value: "<value omitted>": entry 1 has bad block type: PRIVATE KEY',
    'spec.trustBundle: Invalid value: "<value omitted>": entry 2 has PEM block headers',
    'spec.trustBundle: Invalid value: "<value omitted>": entry 3 does not parse as X.509',
  ]);
  assert.deepEqual(errs('x'.repeat(1024 * 1024 + 1)), ['spec.trustBundle: Too long: may not be more than 1048576 bytes']);
});

test('cluster trust bundles: signerName is immutable; an unchanged bundle is not parsed again', () => {
  const old = bundle('example.com:signer:roots', { signerName: 'example.com/signer', trustBundle: 'not parsed' });
  old.metadata.resourceVersion = '5';
  assert.deepEqual(updateErrors(bundles, bundle('example.com:signer:roots', { signerName: 'example.com/signer', trustBundle: 'not parsed' }), old), []);
  assert.deepEqual(updateErrors(bundles, bundle('example.com:signer:roots', { signerName: 'example.com/other', trustBundle: 'not parsed' }), old), [
    'metadata.name: Invalid value: "example.com:signer:roots": ClusterTrustBundle for signerName example.com/other must be named with prefix example.com:other:',
    'spec.signerName: Invalid value: "example.com/other": field is immutable',
  ]);
  assert.equal(bundles.strategy.allowUnconditionalUpdate, false);
});
