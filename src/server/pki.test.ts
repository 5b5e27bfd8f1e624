import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePki, servingNamesFor, splitPemCertificates } from './pki.ts';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'capstan-pki-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('first start generates a CA, a serving certificate and the admin client certificate', () =>
  withDir(async (dir) => {
    const { pki, generated } = await ensurePki({ dataDir: dir, bindAddress: '127.0.0.1' });
    assert.deepEqual(generated, ['ca', 'serving certificate', 'admin client certificate']);
    const ca = new X509Certificate(pki.ca.certPem);
    const serving = new X509Certificate(pki.serving.certPem);
    const admin = new X509Certificate(pki.admin.certPem);
    assert.equal(ca.ca, true);
    assert.ok(serving.checkIssued(ca) && serving.verify(ca.publicKey));
    assert.ok(admin.checkIssued(ca) && admin.verify(ca.publicKey));
    assert.equal(serving.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    assert.equal(admin.subject, 'O=system:masters\nCN=capstan-admin');
    assert.deepEqual(serving.keyUsage, ['1.3.6.1.5.5.7.3.1']);
    assert.deepEqual(admin.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    assert.equal(admin.publicKey.asymmetricKeyType, 'ec');
    assert.equal(admin.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    for (const f of ['ca.key', 'apiserver.key', 'admin.key']) assert.equal((await stat(join(dir, 'pki', f))).mode & 0o777, 0o600, f);
    assert.equal((await stat(join(dir, 'pki'))).mode & 0o777, 0o700);
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
