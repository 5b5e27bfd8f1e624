// `capstan --envtest` run the way controller-runtime's envtest runs kube-apiserver: its exact flags (etcd ones and
// the others without a counterpart ignored), its certificates in --cert-dir (serving pair, client CA, a CA
// certificate as the service-account verification key), then reached with a client certificate of that CA.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ensurePki } from '../../src/server/pki.ts';
import { kubeconfigYaml, rawRequest, runKubectl } from './helpers.ts';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

test('envtest flags start a server that serves with cert-dir certificates, trusts the client CA and has the test controls', async () => {
  const certDir = await mkdtemp(join(tmpdir(), 'capstan-envtest-'));
  // Certificates as envtest makes them: its own CA signs the serving pair and the admin user's client certificate.
  const { pki } = await ensurePki({ dataDir: join(certDir, 'tinyca'), bindAddress: '127.0.0.1' });
  await writeFile(join(certDir, 'apiserver.crt'), pki.serving.certPem);
  await writeFile(join(certDir, 'apiserver.key'), pki.serving.keyPem);
  await writeFile(join(certDir, 'client-cert-auth-ca.crt'), pki.ca.certPem);
  await writeFile(join(certDir, 'sa-signer.crt'), pki.ca.certPem);
  await writeFile(join(certDir, 'sa-signer.key'), pki.ca.keyPem);
  const port = await freePort();
  // controller-runtime's APIServer.defaultArgs, the cert authenticator's --client-ca-file, and --insecure-port=0
  // (envtest passes it when `--help` mentions the flag).
  const args = [
    '--envtest',
    '--advertise-address=127.0.0.1',
    '--allow-privileged=true',
    '--authorization-mode=RBAC',
    '--bind-address=127.0.0.1',
    `--cert-dir=${certDir}`,
    `--client-ca-file=${join(certDir, 'client-cert-auth-ca.crt')}`,
    '--disable-admission-plugins=ServiceAccount',
    '--etcd-servers=http://127.0.0.1:2379',
    '--insecure-port=0',
    `--secure-port=${port}`,
    `--service-account-issuer=https://127.0.0.1:${port}/`,
    `--service-account-key-file=${join(certDir, 'sa-signer.crt')}`,
    `--service-account-signing-key-file=${join(certDir, 'sa-signer.key')}`,
    '--service-cluster-ip-range=10.0.0.0/24',
  ];
  const child = spawn(process.execPath, [join(import.meta.dirname, '../../src/cli/main.ts'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const admin = { clientCert: pki.admin.certPem, clientKey: pki.admin.keyPem };
    let health = await rawRequest(port, pki.ca.certPem, '/healthz', admin).catch(() => undefined);
    for (let i = 0; i < 200 && health?.status !== 200; i++) {
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 50));
      health = await rawRequest(port, pki.ca.certPem, '/healthz', admin).catch(() => undefined);
    }
    assert.equal(health?.status, 200, `the server did not come up: ${stderr}`);
    assert.equal(health?.body, 'ok');
    const kubeconfig = join(certDir, 'envtest.kubeconfig');
    await writeFile(kubeconfig, kubeconfigYaml(port, pki.ca.certPem, admin), { mode: 0o600 });
    const ns = await runKubectl(kubeconfig, ['get', 'ns', 'default', '-o', 'name']);
    assert.equal(ns.stdout.trim(), 'namespace/default', ns.stderr);
    const snap = await rawRequest(port, pki.ca.certPem, '/capstan/v1/snapshots', { ...admin, method: 'POST', body: '{}' });
    assert.equal(snap.status, 201);
    // The service-account verification key (a CA certificate) is published.
    const jwks = await rawRequest(port, pki.ca.certPem, '/openid/v1/jwks', admin);
    assert.equal(jwks.status, 200);
    assert.equal(JSON.parse(jwks.body).keys.length, 1);
  } finally {
    child.kill('SIGTERM');
    await exited;
    await rm(certDir, { recursive: true, force: true });
  }
});
