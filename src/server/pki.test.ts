import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { ensurePki, ensureProxyClientPair, servingNamesFor, splitPemCertificates } from './pki.ts';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'capstan-pki-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const keyUsageOf = (pem: string) => new x509.X509Certificate(pem).getExtension(x509.KeyUsagesExtension)?.usages;

test('first start generates a CA, a serving certificate and the admin client certificate', () =>
  withDir(async (dir) => {
    const now = Date.now();
    const { pki, generated } = await ensurePki({ dataDir: dir, bindAddress: '127.0.0.1', now });
    assert.deepEqual(generated, ['ca', 'serving certificate', 'admin client certificate']);
    const ca = new X509Certificate(pki.ca.certPem);
    const serving = new X509Certificate(pki.serving.certPem);
    const admin = new X509Certificate(pki.admin.certPem);
    assert.equal(ca.ca, true);
    assert.equal(serving.ca, false);
    assert.equal(admin.ca, false);
    assert.equal(ca.subject, `CN=capstan-ca@${Math.floor(now / 1000)}`);
    assert.ok(ca.verify(ca.publicKey));
    assert.ok(serving.checkIssued(ca) && serving.verify(ca.publicKey));
    assert.ok(admin.checkIssued(ca) && admin.verify(ca.publicKey));
    assert.equal(serving.subject, 'CN=capstan-apiserver');
    assert.equal(serving.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    assert.equal(serving.checkHost('localhost'), 'localhost');
    assert.equal(serving.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(serving.checkIP('::1'), '::1');
    assert.equal(admin.subject, 'O=system:masters\nCN=capstan-admin');
    assert.equal(admin.subjectAltName, undefined);
    assert.deepEqual(serving.keyUsage, ['1.3.6.1.5.5.7.3.1']);
    assert.deepEqual(admin.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    assert.equal(ca.keyUsage, undefined);
    const { digitalSignature, keyCertSign, cRLSign } = x509.KeyUsageFlags;
    assert.equal(keyUsageOf(pki.ca.certPem), digitalSignature | keyCertSign | cRLSign);
    assert.equal(keyUsageOf(pki.serving.certPem), digitalSignature);
    assert.equal(keyUsageOf(pki.admin.certPem), digitalSignature);
    const day = 24 * 3600 * 1000;
    assert.equal(ca.validFromDate.getTime(), Math.floor((now - 5 * 60 * 1000) / 1000) * 1000);
    assert.equal(ca.validToDate.getTime(), Math.floor((now + 3650 * day) / 1000) * 1000);
    assert.equal(admin.validToDate.getTime(), Math.floor((now + 365 * day) / 1000) * 1000);
    for (const [cert, pair] of [[ca, pki.ca], [serving, pki.serving], [admin, pki.admin]] as const) {
      assert.match(pair.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
      assert.ok(cert.checkPrivateKey(createPrivateKey(pair.keyPem)));
      assert.equal(cert.publicKey.asymmetricKeyType, 'ec');
      assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    }
    for (const f of ['ca.key', 'apiserver.key', 'admin.key']) assert.equal((await stat(join(dir, 'pki', f))).mode & 0o777, 0o600, f);
    for (const f of ['ca.crt', 'apiserver.crt', 'admin.crt']) assert.equal((await stat(join(dir, 'pki', f))).mode & 0o777, 0o644, f);
    assert.equal((await stat(join(dir, 'pki'))).mode & 0o777, 0o700);
    assert.equal(await readFile(join(dir, 'pki', 'apiserver.crt'), 'utf8'), pki.serving.certPem);
    assert.equal(await readFile(join(dir, 'pki', 'apiserver.key'), 'utf8'), pki.serving.keyPem);
  }));

test('a restart reuses everything; a new bind address renews only the serving certificate', () =>
  withDir(async (dir) => {
    const first = await ensurePki({ dataDir: dir, bindAddress: '127.0.0.1' });
    const again = await ensurePki({ dataDir: dir, bindAddress: '127.0.0.1' });
    assert.deepEqual(again.generated, []);
    assert.deepEqual(again.pki, first.pki);
    const moved = await ensurePki({ dataDir: dir, bindAddress: '127.0.0.9' });
    assert.deepEqual(moved.generated, ['serving certificate']);
    assert.equal(moved.pki.ca.certPem, first.pki.ca.certPem);
    assert.equal(moved.pki.admin.certPem, first.pki.admin.certPem);
    assert.match(new X509Certificate(moved.pki.serving.certPem).subjectAltName ?? '', /IP Address:127\.0\.0\.9/);
  }));

test('a certificate near expiry, or a broken CA, is replaced (and a new CA re-issues the leaves)', () =>
  withDir(async (dir) => {
    const first = await ensurePki({ dataDir: dir, bindAddress: '127.0.0.1' });
    const later = await ensurePki({ dataDir: dir, bindAddress: '127.0.0.1', now: Date.now() + 360 * 24 * 3600 * 1000 });
    assert.deepEqual(later.generated, ['serving certificate', 'admin client certificate']);
    await writeFile(join(dir, 'pki', 'ca.key'), 'garbage');
    const fresh = await ensurePki({ dataDir: dir, bindAddress: '127.0.0.1' });
    assert.deepEqual(fresh.generated, ['ca', 'serving certificate', 'admin client certificate']);
    assert.notEqual(fresh.pki.ca.certPem, first.pki.ca.certPem);
    assert.equal(await readFile(join(dir, 'pki', 'admin.crt'), 'utf8'), fresh.pki.admin.certPem);
  }));

test('skipServing leaves the serving certificate alone', () =>
  withDir(async (dir) => {
    const r = await ensurePki({ dataDir: dir, bindAddress: '127.0.0.1', skipServing: true });
    assert.deepEqual(r.generated, ['ca', 'admin client certificate']);
  }));

test('a CA whose key is not ECDSA P-256 is replaced', () =>
  withDir(async (dir) => {
    await ensurePki({ dataDir: dir, bindAddress: '127.0.0.1' });
    const alg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]) };
    const keys = await crypto.subtle.generateKey(alg, true, ['sign', 'verify']);
    const rsaCa = await x509.X509CertificateGenerator.createSelfSigned({
      name: 'CN=rsa-ca',
      keys,
      signingAlgorithm: alg,
      extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
    });
    const pkcs8 = Buffer.from(await crypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
    await writeFile(join(dir, 'pki', 'ca.crt'), rsaCa.toString('pem'));
    await writeFile(join(dir, 'pki', 'ca.key'), `-----BEGIN PRIVATE KEY-----\n${pkcs8}\n-----END PRIVATE KEY-----\n`);
    assert.equal(new X509Certificate(await readFile(join(dir, 'pki', 'ca.crt'))).ca, true);
    const r = await ensurePki({ dataDir: dir, bindAddress: '127.0.0.1' });
    assert.deepEqual(r.generated, ['ca', 'serving certificate', 'admin client certificate']);
    assert.equal(new X509Certificate(r.pki.ca.certPem).publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  }));

test('a restart issues no certificate; a new bind address issues only the serving one', () =>
  withDir(async (dir) => {
    await ensurePki({ dataDir: dir, bindAddress: '127.0.0.1' });
    assert.deepEqual((await ensurePki({ dataDir: dir, bindAddress: '127.0.0.1' })).generated, []);
    assert.deepEqual((await ensurePki({ dataDir: dir, bindAddress: '127.0.0.7' })).generated, ['serving certificate']);
  }));

test('the aggregator client certificate is made on first use, kept, and re-issued for a new CA', () =>
  withDir(async (dir) => {
    const { pki } = await ensurePki({ dataDir: dir, bindAddress: '127.0.0.1' });
    const pair = await ensureProxyClientPair(dir, pki.ca);
    const cert = new X509Certificate(pair.certPem);
    assert.equal(cert.subject, 'CN=front-proxy-client');
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    assert.ok(cert.checkIssued(new X509Certificate(pki.ca.certPem)));
    assert.ok(cert.checkPrivateKey(createPrivateKey(pair.keyPem)));
    assert.equal((await stat(join(dir, 'pki', 'front-proxy-client.key'))).mode & 0o777, 0o600);
    assert.deepEqual(await ensureProxyClientPair(dir, pki.ca), pair);
    // Another CA (its files replaced): the old leaf is not signed by it, so a new one is issued.
    const other = await mkdtemp(join(tmpdir(), 'capstan-pki-other-'));
    try {
      const { pki: otherPki } = await ensurePki({ dataDir: other, bindAddress: '127.0.0.1' });
      const reissued = await ensureProxyClientPair(dir, otherPki.ca);
      assert.notEqual(reissued.certPem, pair.certPem);
      assert.ok(new X509Certificate(reissued.certPem).checkIssued(new X509Certificate(otherPki.ca.certPem)));
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  }));

test('serving names: loopback set plus a specific bind address', () => {
  assert.deepEqual(servingNamesFor('127.0.0.1'), ['localhost', '127.0.0.1', '::1']);
  assert.deepEqual(servingNamesFor('0.0.0.0'), ['localhost', '127.0.0.1', '::1']);
  assert.deepEqual(servingNamesFor('::'), ['localhost', '127.0.0.1', '::1']);
  assert.deepEqual(servingNamesFor('0:0:0:0:0:0:0:1'), ['localhost', '127.0.0.1', '::1']);
  assert.deepEqual(servingNamesFor('10.1.2.3'), ['localhost', '127.0.0.1', '::1', '10.1.2.3']);
});

test('splitPemCertificates finds each certificate of a bundle', () => {
  const one = '-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----';
  assert.deepEqual(splitPemCertificates(`junk\n${one}\n${one}\n`), [one + '\n', one + '\n']);
  assert.deepEqual(splitPemCertificates('nothing'), []);
});
