// kube-controller-manager's CSR signers and approver. The signers are driven as the Kubernetes docs' "normal user"
// tutorial drives them: openssl makes a key and a request, kubectl creates the CertificateSigningRequest and
// approves it, the signed certificate is read from status.certificate and used to log in. Requests a signer refuses
// get its Failed condition; denied requests and other signers' requests get nothing. The approver is driven as a
// kubeadm join's TLS bootstrap drives it: a bootstrap token user asks for a node's client certificate, then the node
// renews it with that certificate.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand, startTestServer, type TestServer } from './helpers.ts';

let s: TestServer;
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'capstan-csr-'));
  s = await startTestServer({ authorizationMode: ['Node', 'RBAC'], clusterSigningDurationMs: 2 * 3600_000, enableBootstrapTokenAuth: true });
});
after(async () => {
  await s?.close();
  await rm(dir, { recursive: true, force: true });
});

async function openssl(args: string[]): Promise<string> {
  const r = await runCommand('openssl', args, { timeoutMs: 20_000, cwd: dir, env: process.env });
  assert.equal(r.code, 0, `openssl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** A new key (RSA or EC P-256) and a PEM request for it with this subject and openssl -addext arguments. */
async function keyAndRequest(name: string, kind: 'rsa' | 'ec', subject: string, addext: string[] = []): Promise<string> {
  if (kind === 'rsa') await openssl(['genrsa', '-out', `${name}.key`, '2048']);
  else await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`]);
  await openssl(['req', '-new', '-key', `${name}.key`, '-out', `${name}.csr`, '-subj', subject, ...addext.flatMap((e) => ['-addext', e])]);
  return readFile(join(dir, `${name}.csr`), 'utf8');
}

function csrYaml(name: string, request: string, signerName: string, usages: string[], expirationSeconds?: number): string {
  return [
    'apiVersion: certificates.k8s.io/v1',
    'kind: CertificateSigningRequest',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    `  request: ${Buffer.from(request).toString('base64')}`,
    `  signerName: ${signerName}`,
    ...(expirationSeconds !== undefined ? [`  expirationSeconds: ${expirationSeconds}`] : []),
    `  usages: [${usages.join(', ')}]`,
    '',
  ].join('\n');
}

async function createAndApprove(yaml: string, name: string, verdict: 'approve' | 'deny' = 'approve'): Promise<void> {
  await s.kubectlOk(['create', '-f', '-'], { input: yaml });
  await decide(name, verdict);
}

async function decide(name: string, verdict: 'approve' | 'deny'): Promise<void> {
  assert.equal((await s.kubectlOk(['certificate', verdict, name])).trim(), `certificatesigningrequest.certificates.k8s.io/${name} ${verdict === 'approve' ? 'approved' : 'denied'}`);
}

interface Csr {
  spec?: { username?: string; groups?: string[] };
  status?: { certificate?: string; conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

async function getCsr(name: string): Promise<Csr> {
  return JSON.parse(await s.kubectlOk(['get', 'csr', name, '-o', 'json'])) as Csr;
}

/** The request once the signer has answered it: a certificate or a Failed condition. */
async function answered(name: string): Promise<Csr> {
  for (let i = 0; i < 100; i++) {
    const csr = await getCsr(name);
    if (csr.status?.certificate || csr.status?.conditions?.some((c) => c.type === 'Failed')) return csr;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`${name} was not answered`);
}

/** The issued certificate's subject, validity in minutes and extensions, as openssl prints them. */
async function describe(name: string, csr: Csr): Promise<{ subject: string; minutes: number; text: string }> {
  await writeFile(join(dir, `${name}.crt`), Buffer.from(csr.status!.certificate!, 'base64'));
  await writeFile(join(dir, 'ca.crt'), s.caCert);
  assert.equal((await openssl(['verify', '-CAfile', 'ca.crt', `${name}.crt`])).trim(), `${name}.crt: OK`);
  const subject = (await openssl(['x509', '-in', `${name}.crt`, '-noout', '-subject'])).trim();
  const dates = await openssl(['x509', '-in', `${name}.crt`, '-noout', '-startdate', '-enddate']);
  const [start, end] = [/notBefore=(.*)/, /notAfter=(.*)/].map((re) => Date.parse(re.exec(dates)![1]!));
  const text = await openssl(['x509', '-in', `${name}.crt`, '-noout', '-ext', 'keyUsage,extendedKeyUsage,basicConstraints,subjectAltName']);
  return { subject, minutes: (end! - start!) / 60_000, text };
}

test('an approved kube-apiserver-client request is signed by the cluster CA and its certificate logs in', async () => {
  const request = await keyAndRequest('jane', 'rsa', '/CN=jane/O=dev/O=app');
  await createAndApprove(csrYaml('jane', request, 'kubernetes.io/kube-apiserver-client', ['client auth'], 3600), 'jane');
  const csr = await answered('jane');
  assert.deepEqual(csr.status?.conditions?.map((c) => [c.type, c.status, c.reason]), [['Approved', 'True', 'KubectlApprove']]);
  const cert = await describe('jane', csr);
  // Go's pkix.Name puts the organizations in one multi-valued RDN before the common name.
  assert.equal(cert.subject, 'subject=O = app + O = dev, CN = jane');
  // An hour asked for (under 8 h: not shortened), backdated 5 minutes.
  assert.equal(cert.minutes, 65);
  assert.match(cert.text, /X509v3 Extended Key Usage: \n\s*TLS Web Client Authentication\n/);
  assert.match(cert.text, /X509v3 Basic Constraints: critical\n\s*CA:FALSE/);
  assert.doesNotMatch(cert.text, /X509v3 Key Usage/, 'no key usage was asked for');

  const table = await s.kubectlOk(['get', 'csr', 'jane']);
  assert.match(table, /jane\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+capstan-admin\s+60m\s+Approved,Issued/);

  const kubeconfig = await s.writeKubeconfig('jane', { clientCert: Buffer.from(csr.status!.certificate!, 'base64').toString(), clientKey: await readFile(join(dir, 'jane.key'), 'utf8') });
  const whoami = JSON.parse(await s.kubectlOk(['auth', 'whoami', '-o', 'json'], { kubeconfig })) as { status: { userInfo: { username: string; groups: string[] } } };
  assert.deepEqual(whoami.status.userInfo, { username: 'jane', groups: ['app', 'dev', 'system:authenticated'] });
  const forbidden = await s.kubectl(['get', 'pods'], { kubeconfig });
  assert.match(forbidden.stderr, /pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"/);
});

test('validity is --cluster-signing-duration unless the request asks for less, and never under 10 minutes', async () => {
  const request = await keyAndRequest('ttl', 'ec', '/CN=ttl');
  const cases: [string, number | undefined, number][] = [
    // 2 h (short: not shortened by the backdating).
    ['ttl-default', undefined, 125],
    ['ttl-capped', 86_400, 125],
    ['ttl-floor', 600, 15],
  ];
  for (const [name, seconds] of cases) await createAndApprove(csrYaml(name, request, 'kubernetes.io/kube-apiserver-client', ['digital signature', 'client auth'], seconds), name);
  for (const [name, , minutes] of cases) {
    const cert = await describe(name, await answered(name));
    assert.equal(cert.minutes, minutes, name);
    assert.match(cert.text, /X509v3 Key Usage: critical\n\s*Digital Signature\n/, name);
  }
});

test('kubelet requests are checked against the kubelet signers rules', async () => {
  const serving = await keyAndRequest('node-serving', 'ec', '/CN=system:node:n1/O=system:nodes', ['subjectAltName=DNS:n1.example,IP:10.0.0.7']);
  await createAndApprove(csrYaml('node-serving', serving, 'kubernetes.io/kubelet-serving', ['digital signature', 'server auth']), 'node-serving');
  const cert = await describe('node-serving', await answered('node-serving'));
  assert.equal(cert.subject, 'subject=O = system:nodes, CN = system:node:n1');
  assert.match(cert.text, /X509v3 Subject Alternative Name: \n\s*DNS:n1\.example, IP Address:10\.0\.0\.7/);
  assert.match(cert.text, /TLS Web Server Authentication/);

  const refused: [string, string, string, string[], string][] = [
    ['no-san', '/CN=system:node:n1/O=system:nodes', 'kubernetes.io/kubelet-serving', ['digital signature', 'server auth'], 'DNS or IP subjectAltName is required'],
    ['wrong-org', '/CN=system:node:n1/O=nodes', 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth'], 'subject organization is not system:nodes'],
    ['wrong-usages', '/CN=system:node:n1/O=system:nodes', 'kubernetes.io/kube-apiserver-client-kubelet', ['client auth'], 'usages did not match [client auth digital signature key encipherment]'],
    ['wrong-cn', '/CN=n1/O=system:nodes', 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth'], 'subject common name does not begin with system:node:'],
    ['server-usage', '/CN=jane', 'kubernetes.io/kube-apiserver-client', ['client auth', 'server auth'], 'invalid usage for client certificate: server auth'],
    ['no-client-auth', '/CN=jane', 'kubernetes.io/kube-apiserver-client', ['digital signature'], 'missing required usage for client certificate: client auth'],
  ];
  for (const [name, subject, signer, usages] of refused) {
    await createAndApprove(csrYaml(name, await keyAndRequest(name, 'ec', subject), signer, usages), name);
  }
  for (const [name, , , , message] of refused) {
    const csr = await answered(name);
    assert.equal(csr.status?.certificate, undefined, name);
    const failed = csr.status?.conditions?.find((c) => c.type === 'Failed');
    assert.deepEqual([failed?.status, failed?.reason, failed?.message], ['True', 'SignerValidationFailure', message], name);
  }
  assert.match(await s.kubectlOk(['get', 'csr', 'no-san']), /Approved,Failed/);
});

test('denied requests, pending ones and other signers are left alone', async () => {
  const request = await keyAndRequest('left', 'ec', '/CN=left');
  await createAndApprove(csrYaml('denied', request, 'kubernetes.io/kube-apiserver-client', ['client auth']), 'denied', 'deny');
  await createAndApprove(csrYaml('other-signer', request, 'example.com/issuer', ['client auth']), 'other-signer');
  await s.kubectlOk(['create', '-f', '-'], { input: csrYaml('pending', request, 'kubernetes.io/kube-apiserver-client', ['client auth']) });
  // The signer works through requests in order: once one approved after these is issued, these were seen.
  await createAndApprove(csrYaml('after', request, 'kubernetes.io/kube-apiserver-client', ['client auth']), 'after');
  assert.ok((await answered('after')).status?.certificate);
  for (const name of ['denied', 'other-signer', 'pending']) {
    const csr = await getCsr(name);
    assert.equal(csr.status?.certificate, undefined, name);
    assert.equal(csr.status?.conditions?.some((c) => c.type === 'Failed') ?? false, false, name);
  }
});

test('a bootstrapping node is approved as kubeadm binds it, and so is its renewal; others wait', async () => {
  const apply = (obj: unknown) => s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(obj) });
  const group = 'system:bootstrappers:kubeadm:default-node-token';
  await apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    stringData: { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true', 'auth-extra-groups': group },
  });
  const binding = (name: string, role: string, subject: { kind: string; name: string }) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', ...subject }],
  });
  // kubeadm's bindings for joining nodes, and one that lets eve ask for certificates but nothing more.
  await apply(binding('kubeadm:kubelet-bootstrap', 'system:node-bootstrapper', { kind: 'Group', name: group }));
  await apply(binding('kubeadm:node-autoapprove-bootstrap', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', { kind: 'Group', name: group }));
  await apply(binding('kubeadm:node-autoapprove-certificate-rotation', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', { kind: 'Group', name: 'system:nodes' }));
  await apply(binding('eve-csr', 'system:node-bootstrapper', { kind: 'User', name: 'system:bootstrap:eveeve' }));
  await apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'bootstrap-token-eveeve', namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    stringData: { 'token-id': 'eveeve', 'token-secret': 'eeeeeeeeeeeeeeee', 'usage-bootstrap-authentication': 'true' },
  });
  const bootstrapper = await s.writeKubeconfig('bootstrapper', { token: 'abcdef.0123456789abcdef' });
  const eve = await s.writeKubeconfig('eve', { token: 'eveeve.eeeeeeeeeeeeeeee' });
  const nodeUsages = ['digital signature', 'key encipherment', 'client auth'];

  const first = await keyAndRequest('node-n2', 'rsa', '/O=system:nodes/CN=system:node:n2');
  await s.kubectlOk(['create', '-f', '-'], { input: csrYaml('node-csr-n2', first, 'kubernetes.io/kube-apiserver-client-kubelet', nodeUsages), kubeconfig: bootstrapper });
  const joined = await answered('node-csr-n2');
  assert.deepEqual([joined.spec?.username, joined.spec?.groups], ['system:bootstrap:abcdef', ['system:bootstrappers', group, 'system:authenticated']]);
  assert.deepEqual(joined.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]), [['Approved', 'True', 'AutoApproved', 'Auto approving kubelet client certificate after SubjectAccessReview.']]);

  // The node, logged in with what it got, renews its certificate.
  const node = await s.writeKubeconfig('node-n2', { clientCert: Buffer.from(joined.status!.certificate!, 'base64').toString(), clientKey: await readFile(join(dir, 'node-n2.key'), 'utf8') });
  const whoami = JSON.parse(await s.kubectlOk(['auth', 'whoami', '-o', 'json'], { kubeconfig: node })) as { status: { userInfo: { username: string; groups: string[] } } };
  assert.deepEqual(whoami.status.userInfo, { username: 'system:node:n2', groups: ['system:nodes', 'system:authenticated'] });
  const renewal = await keyAndRequest('node-n2-renewal', 'ec', '/O=system:nodes/CN=system:node:n2');
  await s.kubectlOk(['create', '-f', '-'], { input: csrYaml('node-csr-n2-renewal', renewal, 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth']), kubeconfig: node });
  const renewed = await answered('node-csr-n2-renewal');
  assert.deepEqual(renewed.status?.conditions?.map((c) => [c.type, c.reason, c.message]), [['Approved', 'AutoApproved', 'Auto approving self kubelet client certificate after SubjectAccessReview.']]);

  // Without the nodeclient permission, or for a certificate that is not a node's client certificate: pending.
  await s.kubectlOk(['create', '-f', '-'], { input: csrYaml('eve-node', await keyAndRequest('eve-node', 'rsa', '/O=system:nodes/CN=system:node:n3'), 'kubernetes.io/kube-apiserver-client-kubelet', nodeUsages), kubeconfig: eve });
  await s.kubectlOk(['create', '-f', '-'], { input: csrYaml('not-a-node', await keyAndRequest('not-a-node', 'ec', '/CN=mallory'), 'kubernetes.io/kube-apiserver-client', ['client auth']), kubeconfig: bootstrapper });
  // The approver takes requests in order: once a later one is approved, these were looked at.
  await s.kubectlOk(['create', '-f', '-'], { input: csrYaml('node-csr-n4', await keyAndRequest('node-n4', 'ec', '/O=system:nodes/CN=system:node:n4'), 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth']), kubeconfig: bootstrapper });
  assert.ok((await answered('node-csr-n4')).status?.certificate);
  for (const name of ['eve-node', 'not-a-node']) assert.deepEqual((await getCsr(name)).status, {}, name);
  assert.match(await s.kubectlOk(['get', 'csr', 'eve-node']), /system:bootstrap:eveeve\s+<none>\s+Pending/);
});

test('the cleaner deletes requests past their time when the clock moves on', async () => {
  const names = async () => (await s.kubectlOk(['get', 'csr', '-o', 'name'])).split('\n').filter(Boolean).map((n) => n.replace('certificatesigningrequest.certificates.k8s.io/', '')).sort();
  const pending = ['eve-node', 'not-a-node', 'pending'];
  // Approved for another signer, never issued: no deadline applies.
  const kept = ['other-signer'];
  try {
    assert.ok((await names()).length > pending.length + kept.length);
    s.clock.advance('61m');
    // Issued, denied and failed requests are an hour past their condition: gone.
    await waitFor(async () => JSON.stringify(await names()) === JSON.stringify([...kept, ...pending].sort()), 'issued, denied and failed requests cleaned');
    s.clock.advance('24h');
    await waitFor(async () => JSON.stringify(await names()) === JSON.stringify(kept), 'pending requests cleaned');
  } finally {
    s.clock.reset();
  }
});

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`never happened: ${what}`);
}

/** Runs the helpers above against another server. */
async function withServer(other: TestServer, fn: () => Promise<void>): Promise<void> {
  const main = s;
  s = other;
  try {
    await fn();
  } finally {
    s = main;
  }
}

/** A CA of this name made with openssl: its certificate and key files in `dir`. */
async function makeCa(name: string): Promise<{ certFile: string; keyFile: string }> {
  await openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.crt`, '-subj', `/CN=${name}`, '-days', '2', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign']);
  return { certFile: join(dir, `${name}.crt`), keyFile: join(dir, `${name}.key`) };
}

async function issuerOf(name: string, csr: Csr): Promise<string> {
  await writeFile(join(dir, `${name}.crt`), Buffer.from(csr.status!.certificate!, 'base64'));
  return (await openssl(['x509', '-in', `${name}.crt`, '-noout', '-issuer'])).trim();
}

test("kube-controller-manager's --cluster-signing-* files: one CA for every signer, or one per signer (the others then sign nothing)", async () => {
  const general = await makeCa('general-signer');
  const serving = await makeCa('serving-signer');
  const one = await startTestServer({ authorizationMode: ['Node', 'RBAC'], clusterSigningCertFile: general.certFile, clusterSigningKeyFile: general.keyFile });
  try {
    await withServer(one, async () => {
      await createAndApprove(csrYaml('g-client', await keyAndRequest('g-client', 'ec', '/CN=g'), 'kubernetes.io/kube-apiserver-client', ['client auth']), 'g-client');
      assert.equal(await issuerOf('g-client', await answered('g-client')), 'issuer=CN = general-signer');
    });
  } finally {
    await one.close();
  }
  const perSigner = await startTestServer({ authorizationMode: ['Node', 'RBAC'], clusterSigningSignerFiles: { 'kubelet-serving': serving } });
  try {
    await withServer(perSigner, async () => {
      await createAndApprove(csrYaml('p-client', await keyAndRequest('p-client', 'ec', '/CN=p'), 'kubernetes.io/kube-apiserver-client', ['client auth']), 'p-client');
      const servingRequest = await keyAndRequest('p-serving', 'ec', '/CN=system:node:n1/O=system:nodes', ['subjectAltName=DNS:n1']);
      await createAndApprove(csrYaml('p-serving', servingRequest, 'kubernetes.io/kubelet-serving', ['digital signature', 'server auth']), 'p-serving');
      assert.equal(await issuerOf('p-serving', await answered('p-serving')), 'issuer=CN = serving-signer');
      // Approved first, yet never signed: no CA is configured for its signer.
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await getCsr('p-client')).status?.certificate, undefined);
    });
  } finally {
    await perSigner.close();
  }
});

test('--cluster-signing-* files are read again when they change, as kube-controller-manager reloads them; a pair that no longer loads is not taken', async () => {
  const first = await makeCa('rotating-signer');
  const second = await makeCa('rotated-signer');
  // The files the server is given, whose content the test replaces.
  const certFile = join(dir, 'signing.crt');
  const keyFile = join(dir, 'signing.key');
  await copyFile(first.certFile, certFile);
  await copyFile(first.keyFile, keyFile);
  const server = await startTestServer({ authorizationMode: ['Node', 'RBAC'], clusterSigningCertFile: certFile, clusterSigningKeyFile: keyFile });
  try {
    await withServer(server, async () => {
      const sign = async (name: string) => {
        await createAndApprove(csrYaml(name, await keyAndRequest(name, 'ec', `/CN=${name}`), 'kubernetes.io/kube-apiserver-client', ['client auth']), name);
        return issuerOf(name, await answered(name));
      };
      assert.equal(await sign('before-rotation'), 'issuer=CN = rotating-signer');
      await copyFile(second.certFile, certFile);
      await copyFile(second.keyFile, keyFile);
      assert.equal(await sign('after-rotation'), 'issuer=CN = rotated-signer');
      // A certificate whose key is not beside it: the pair loaded before signs on.
      await copyFile(first.certFile, certFile);
      assert.equal(await sign('half-rotated'), 'issuer=CN = rotated-signer');
    });
  } finally {
    await server.close();
  }
});

test('--cluster-signing-* files are checked as kube-controller-manager checks them', async () => {
  const ca = await makeCa('check-signer');
  const other = await makeCa('other-signer');
  const refused = async (options: Parameters<typeof startTestServer>[0]) => {
    try {
      const started = await startTestServer(options);
      await started.close();
    } catch (e) {
      return (e as Error).message;
    }
    return assert.fail('the server started');
  };
  assert.equal(
    await refused({ clusterSigningCertFile: ca.certFile, clusterSigningKeyFile: ca.keyFile, clusterSigningSignerFiles: { 'kubelet-client': ca } }),
    'cannot specify --cluster-signing-{cert,key}-file and other --cluster-signing-*-file flags at the same time',
  );
  assert.equal(
    await refused({ clusterSigningSignerFiles: { 'kubelet-serving': { certFile: ca.certFile }, 'kube-apiserver-client': { keyFile: ca.keyFile } } }),
    '"cluster-signing-kubelet-serving": cannot specify cert without key, "cluster-signing-kube-apiserver": cannot specify key without cert',
  );
  assert.equal(
    await refused({ clusterSigningCertFile: ca.certFile, clusterSigningKeyFile: other.keyFile }),
    `unable to load --cluster-signing-cert-file ${JSON.stringify(ca.certFile)} and --cluster-signing-key-file ${JSON.stringify(other.keyFile)}: private key does not match public key`,
  );
});
