// End to end: the real server (HTTPS, PKI, authentication, authorization, health, /version) checked with kubectl
// and raw HTTPS requests. The server layer is tested with an echo API; the last suites use the real API when it loads.

import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { connect as http2Connect } from 'node:http2';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { namedCheck } from '../../src/server/health.ts';
import { ensurePki } from '../../src/server/pki.ts';
import type { ApiServer } from '../../src/server/types.ts';
import type { TestServer, TestServerOptions } from './helpers.ts';
import { echoApi, rawRequest, runCommand, runKubectl, startCliProcess, startTestServer } from './helpers.ts';
import { connect } from 'node:net';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = process.execPath;

/** The real server (memory storage unless asked otherwise). */
async function start(options: TestServerOptions = {}): Promise<TestServer> {
  return startTestServer(options);
}

/**
 * A server whose API misbehaves on purpose (throws, hangs, fails a ready check): faults the real API cannot be made
 * to produce on demand, to test what the server layer does with them.
 */
async function startWithFaultyApi(api: Partial<ApiServer>): Promise<TestServer> {
  return startTestServer({ createApi: () => ({ ...echoApi(), ...api }) });
}

/** The user the server authenticated, as `kubectl auth whoami` asks for it (a SelfSubjectReview). */
async function whoami(server: TestServer, kubeconfig?: string): Promise<unknown> {
  const out = await server.kubectlOk(['auth', 'whoami', '-o', 'json'], { kubeconfig });
  return (JSON.parse(out) as { status: { userInfo: unknown } }).status.userInfo;
}

// kube-apiserver 1.31's checks and post-start hooks, in its order.
const HOOKS = [
  'start-apiserver-admission-initializer', 'generic-apiserver-start-informers', 'priority-and-fairness-config-consumer', 'priority-and-fairness-filter',
  'storage-object-count-tracker-hook', 'start-apiextensions-informers', 'start-apiextensions-controllers', 'crd-informer-synced',
  'start-system-namespaces-controller', 'start-cluster-authentication-info-controller', 'start-kube-apiserver-identity-lease-controller',
  'start-kube-apiserver-identity-lease-garbage-collector', 'start-legacy-token-tracking-controller', 'start-service-ip-repair-controllers',
  'rbac/bootstrap-roles', 'scheduling/bootstrap-system-priority-classes', 'priority-and-fairness-config-producer', 'bootstrap-controller',
  'aggregator-reload-proxy-client-cert', 'start-kube-aggregator-informers', 'apiservice-registration-controller', 'apiservice-status-available-controller',
  'kube-apiserver-autoregistration',
].map((h) => `poststarthook/${h}`).concat(['autoregister-completion', ...['apiservice-openapi-controller', 'apiservice-openapiv3-controller', 'apiservice-discovery-controller'].map((h) => `poststarthook/${h}`)]);
const lines = (checks: string[]) => checks.map((c) => `[+]${c} ok\n`).join('');

describe('default server (AlwaysAllow, token file)', () => {
  let server: TestServer;
  let tokenDir: string;

  before(async () => {
    tokenDir = await mkdtemp(join(tmpdir(), 'capstan-tokens-'));
    const tokenFile = join(tokenDir, 'tokens.csv');
    await writeFile(tokenFile, 'good-token,alice,uid-1,"dev,ops"\n');
    server = await start({ tokenAuthFile: tokenFile });
  });
  after(async () => {
    await server?.close();
    await rm(tokenDir, { recursive: true, force: true });
  });

  test('kubectl get --raw /readyz?verbose lists every check', async () => {
    const r = await server.kubectl(['get', '--raw', '/readyz?verbose']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${lines(['ping', 'log', 'etcd', 'etcd-readiness', 'informer-sync', ...HOOKS, 'shutdown'])}readyz check passed\n`);
    assert.equal((await server.kubectl(['get', '--raw', '/healthz?verbose'])).stdout, `${lines(['ping', 'log', 'etcd', ...HOOKS])}healthz check passed\n`);
    assert.equal((await server.kubectl(['get', '--raw', '/readyz/poststarthook/rbac/bootstrap-roles'])).stdout, 'ok');
  });

  test('/livez and /healthz answer ok; exclusions and single checks as kube', async () => {
    assert.deepEqual(await server.kubectl(['get', '--raw', '/livez']), { code: 0, stdout: 'ok', stderr: '' });
    assert.equal((await server.kubectl(['get', '--raw', '/healthz'])).stdout, 'ok');
    const excluded = await server.kubectl(['get', '--raw', '/livez?verbose&exclude=etcd&exclude=nope']);
    assert.equal(excluded.stdout, `[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\n${lines(HOOKS)}warn: some health checks cannot be excluded: no matches for "nope"\nlivez check passed\n`);
    assert.equal((await server.kubectl(['get', '--raw', '/readyz/ping'])).stdout, 'ok');
    assert.equal((await server.kubectl(['get', '--raw', '/readyz/poststarthook/generic-apiserver-start-informers'])).stdout, 'ok');
    const raw = await server.request('/readyz', { clientCert: server.clientCert, clientKey: server.clientKey });
    assert.equal(raw.status, 200);
    assert.equal(raw.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(raw.headers['x-content-type-options'], 'nosniff');
  });

  test('kubectl version reports the server as v1.31.0', async () => {
    const r = await server.kubectl(['version', '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const sv = JSON.parse(r.stdout).serverVersion;
    assert.equal(sv.major, '1');
    assert.equal(sv.minor, '31');
    assert.equal(sv.gitVersion, 'v1.31.0');
    assert.deepEqual(Object.keys(sv), ['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform']);
  });

  test('a bad bearer token is 401 with kube\'s exact Status, never anonymous', async () => {
    const kc = await server.writeKubeconfig('bad-token', { token: 'not-a-token' });
    const r = await server.kubectl(['get', '--raw', '/version'], { kubeconfig: kc });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Unauthorized/);
    assert.doesNotMatch(r.stderr + r.stdout, /not-a-token/);
    const raw = await server.request('/version', { token: 'not-a-token' });
    assert.equal(raw.status, 401);
    assert.equal(raw.headers['content-type'], 'application/json');
    assert.equal(raw.body, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}');
  });

  test('AlwaysAllow turns anonymous off, as kube-apiserver does: no credentials is 401', async () => {
    const raw = await server.request('/readyz');
    assert.equal(raw.status, 401);
  });

  test('a good token authenticates as its user, with system:authenticated added', async () => {
    const kc = await server.writeKubeconfig('alice', { token: 'good-token' });
    assert.deepEqual(await whoami(server, kc), { username: 'alice', uid: 'uid-1', groups: ['dev', 'ops', 'system:authenticated'] });
    const r = await server.kubectl(['get', 'pods', '-n', 'default'], { kubeconfig: kc });
    assert.deepEqual([r.code, r.stderr], [0, 'No resources found in default namespace.\n']);
  });

  test('the admin client certificate is capstan-admin in system:masters (HTTP/1.1)', async () => {
    const raw = await server.adminRequest('/api/v1/namespaces');
    assert.equal(raw.status, 200);
    assert.deepEqual(await whoami(server), { username: 'capstan-admin', groups: ['system:masters', 'system:authenticated'] });
  });

  test('a client certificate from another CA, or one not meant for clients, is 401', async () => {
    // Servers on temporary data dirs share one PKI per process; one with its own data dir has its own CA.
    const otherDir = await mkdtemp(join(tmpdir(), 'capstan-other-ca-'));
    const other = await start({ dataDir: otherDir });
    try {
      assert.notEqual(other.caCert, server.caCert);
      const raw = await server.request('/livez', { clientCert: other.clientCert, clientKey: other.clientKey });
      assert.equal(raw.status, 401);
    } finally {
      await other.close();
      await rm(otherDir, { recursive: true, force: true });
    }
    // The serving certificate is signed by the right CA but only for serverAuth.
    const serving = await server.request('/livez', {
      clientCert: await readFile(join(server.dataDir, 'pki', 'apiserver.crt'), 'utf8'),
      clientKey: await readFile(join(server.dataDir, 'pki', 'apiserver.key'), 'utf8'),
    });
    assert.equal(serving.status, 401);
  });

  test('HTTP/2 is served on the same port', async () => {
    const session = http2Connect(server.url, { ca: server.caCert, cert: server.clientCert, key: server.clientKey });
    try {
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const stream = session.request({ ':path': '/livez' });
        let status = 0;
        let body = '';
        stream.on('response', (h) => (status = Number(h[':status'])));
        stream.setEncoding('utf8');
        stream.on('data', (d: string) => (body += d));
        stream.on('end', () => resolve({ status, body }));
        stream.on('error', reject);
      });
      assert.equal(status, 200);
      assert.equal(body, 'ok');
    } finally {
      session.close();
    }
  });

  test('every response carries Audit-Id and Cache-Control', async () => {
    const raw = await server.request('/livez', { clientCert: server.clientCert, clientKey: server.clientKey });
    assert.match(String(raw.headers['audit-id']), /^[0-9a-f-]{36}$/);
    assert.equal(raw.headers['cache-control'], 'no-cache, private');
  });

  test('malformed input gets a Status, never a crash', async () => {
    const cert = { clientCert: server.clientCert, clientKey: server.clientKey };
    const bad = await server.request('/api/v1/namespaces/%zz', cert);
    assert.equal(bad.status, 400);
    assert.deepEqual(JSON.parse(bad.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'invalid URL escape "%zz"', reason: 'BadRequest', code: 400 });
    const mine = await server.request('/livez', { ...cert, headers: { 'audit-id': 'my-id-1' } });
    assert.equal(mine.headers['audit-id'], 'my-id-1');
    const odd = await server.request('/livez', { ...cert, headers: { 'audit-id': 'has space' } });
    assert.notEqual(odd.headers['audit-id'], 'has space');
    assert.equal(odd.body, 'ok');
  });

  test('kubeconfig and private keys are 0600, the data dir 0700, the kubeconfig names 127.0.0.1', async () => {
    const mode = async (p: string): Promise<number> => (await stat(p)).mode & 0o777;
    assert.equal(await mode(server.kubeconfigPath), 0o600);
    for (const key of ['ca.key', 'apiserver.key', 'admin.key']) assert.equal(await mode(join(server.dataDir, 'pki', key)), 0o600, key);
    assert.equal(await mode(server.dataDir), 0o700);
    const text = await readFile(server.kubeconfigPath, 'utf8');
    assert.equal(text, server.kubeconfig);
    assert.match(text, new RegExp(`server: https://127\\.0\\.0\\.1:${server.port}\\n`));
  });
});

describe('AlwaysDeny', () => {
  let server: TestServer;
  let tokenDir: string;
  before(async () => {
    tokenDir = await mkdtemp(join(tmpdir(), 'capstan-tokens-'));
    const tokenFile = join(tokenDir, 'tokens.csv');
    await writeFile(tokenFile, 'bob-token,bob,uid-2\n');
    server = await start({ authorizationMode: ['AlwaysDeny'], tokenAuthFile: tokenFile });
  });
  after(async () => {
    await server?.close();
    await rm(tokenDir, { recursive: true, force: true });
  });

  test('anonymous requests get kube\'s 403 for paths and resources', async () => {
    const health = await server.request('/healthz');
    assert.equal(health.status, 403);
    assert.equal(
      health.body,
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",' +
        '"message":"forbidden: User \\"system:anonymous\\" cannot get path \\"/healthz\\": Everything is forbidden.","reason":"Forbidden","details":{},"code":403}',
    );
    const cm = await server.request('/api/v1/namespaces/default/configmaps/x');
    assert.equal(cm.status, 403);
    assert.deepEqual(JSON.parse(cm.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "x" is forbidden: User "system:anonymous" cannot get resource "configmaps" in API group "" in the namespace "default": Everything is forbidden.',
      reason: 'Forbidden',
      details: { name: 'x', kind: 'configmaps' },
      code: 403,
    });
    const deps = await server.request('/apis/apps/v1/deployments');
    assert.equal(
      JSON.parse(deps.body).message,
      'deployments.apps is forbidden: User "system:anonymous" cannot list resource "deployments" in API group "apps" at the cluster scope: Everything is forbidden.',
    );
  });

  test('kubectl as a token user is forbidden; system:masters is still allowed', async () => {
    // (kubectl itself prompts for a password when a kubeconfig user has no credentials, so anonymous is raw HTTPS above.)
    const bob = await server.writeKubeconfig('bob', { token: 'bob-token' });
    const r = await server.kubectl(['get', '--raw', '/readyz'], { kubeconfig: bob });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Error from server \(Forbidden\): forbidden: User "bob" cannot get path "\/readyz": Everything is forbidden\./);
    const admin = await server.kubectl(['get', '--raw', '/readyz']);
    assert.deepEqual(admin, { code: 0, stdout: 'ok', stderr: '' });
  });
});

describe('lifecycle', () => {
  test('a given data dir is kept and its certificates reused on restart; a temp one is removed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'capstan-restart-'));
    try {
      const first = await start({ dataDir: join(dir, 'data') });
      const ca = first.caCert;
      const admin = first.clientCert;
      await first.close();
      assert.equal((await stat(join(dir, 'data', 'admin.kubeconfig'))).isFile(), true);
      const second = await start({ dataDir: join(dir, 'data') });
      try {
        assert.equal(second.caCert, ca);
        assert.equal(second.clientCert, admin);
        assert.deepEqual((await second.kubectl(['get', '--raw', '/livez'])).stdout, 'ok');
      } finally {
        await second.close();
      }
      const temp = await start();
      await temp.close();
      await assert.rejects(stat(temp.dataDir), { code: 'ENOENT' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a throwing API handler becomes a 500 Status and the server stays up', async () => {
    const server = await startWithFaultyApi({ handle: async () => { throw new Error('boom'); } });
    try {
      const cert = { clientCert: server.clientCert, clientKey: server.clientKey };
      const r = await server.request('/api/v1/pods', cert);
      assert.equal(r.status, 500);
      assert.deepEqual(JSON.parse(r.body), {
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
        message: 'Internal error occurred: boom', reason: 'InternalError', details: { causes: [{ message: 'boom' }] }, code: 500,
      });
      assert.equal((await server.request('/livez', cert)).body, 'ok');
    } finally {
      await server.close();
    }
  });

  test('garbage bytes, broken handshakes and streams reset mid-response do not take the server down', async () => {
    // A response long enough to be cut mid-stream.
    const server = await startWithFaultyApi({
      async handle(_req, res) {
        (res as { write(chunk: string): boolean }).write('x'.repeat(100_000));
        await new Promise((r) => setTimeout(r, 30));
        res.end('done');
      },
    });
    try {
      await new Promise<void>((done) => {
        const s = netConnect(server.port, '127.0.0.1', () => s.end('GARBAGE\r\n\r\n'));
        s.on('error', () => done());
        s.on('close', () => done());
      });
      await new Promise<void>((done) => {
        const s = tlsConnect({ port: server.port, host: '127.0.0.1', rejectUnauthorized: false }, () => {
          s.write('GET / HTTP/1.1\r\nHost: x\r\n');
          s.destroy();
        });
        s.on('error', () => done());
        s.on('close', () => done());
      });
      for (const hard of [false, true]) {
        await new Promise<void>((done) => {
          const session = http2Connect(server.url, { ca: server.caCert, cert: server.clientCert, key: server.clientKey });
          session.on('error', () => done());
          const stream = session.request({ ':path': '/api/v1/pods' });
          stream.on('error', () => {});
          stream.once('data', () => {
            if (hard) session.socket.destroy();
            else stream.close(2);
            session.destroy();
            done();
          });
        });
      }
      await new Promise((r) => setTimeout(r, 100));
      assert.equal((await server.request('/livez', { clientCert: server.clientCert, clientKey: server.clientKey })).body, 'ok');
    } finally {
      await server.close();
    }
  });

  test('bad configuration is rejected with kube\'s messages (or clear ones)', async () => {
    await assert.rejects(start({ authorizationMode: ['Bogus'] }), { message: 'authorization-mode "Bogus" is not a valid mode' });
    await assert.rejects(start({ featureGates: { NoSuchGate: true } }), { message: 'unrecognized feature gate: NoSuchGate' });
    await assert.rejects(start({ tokenAuthFile: '/nonexistent/tokens.csv' }), { name: 'ConfigError', message: "failed to read token file '/nonexistent/tokens.csv': ENOENT" });
    await assert.rejects(start({ tlsCertFile: 'a.crt' }), { message: '--tls-cert-file and --tls-private-key-file must be given together' });
  });
});

describe('health checks from the API, TLS options, shutdown', () => {
  test('a failing API ready check fails /readyz (reason withheld) but not /livez', async () => {
    const hook = 'poststarthook/crd-informer-synced';
    const server = await startWithFaultyApi({ readyChecks: [namedCheck(hook, () => { throw new Error('not yet'); }), namedCheck('capstan-check', () => {})] });
    try {
      const r = await server.kubectl(['get', '--raw', '/readyz']);
      assert.equal(r.code, 1);
      const raw = await server.request('/readyz', { clientCert: server.clientCert, clientKey: server.clientKey });
      assert.equal(raw.status, 500);
      // The API's check of a kube hook's name takes its place in kube's list; one of its own comes after them.
      const at = HOOKS.indexOf(hook);
      assert.equal(
        raw.body,
        `${lines(['ping', 'log', 'etcd', 'etcd-readiness', 'informer-sync', ...HOOKS.slice(0, at)])}[-]${hook} failed: reason withheld\n` +
          `${lines([...HOOKS.slice(at + 1), 'capstan-check', 'shutdown'])}readyz check failed\n`,
      );
      const one = await server.request(`/readyz/${hook}`, { clientCert: server.clientCert, clientKey: server.clientKey });
      assert.deepEqual([one.status, one.body], [500, 'internal server error: not yet\n']);
      assert.equal((await server.kubectl(['get', '--raw', `/readyz?exclude=${hook}`])).stdout, 'ok');
      assert.equal((await server.kubectl(['get', '--raw', '/livez'])).stdout, 'ok');
    } finally {
      await server.close();
    }
  });

  test('--tls-cert-file/--tls-private-key-file serve the given certificate; --client-ca-file adds a client CA', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'capstan-othertls-'));
    try {
      const { pki: other } = await ensurePki({ dataDir: dir, bindAddress: '127.0.0.1' });
      const server = await start({
        tlsCertFile: join(dir, 'pki', 'apiserver.crt'),
        tlsPrivateKeyFile: join(dir, 'pki', 'apiserver.key'),
        clientCaFile: join(dir, 'pki', 'ca.crt'),
      });
      try {
        // The other PKI's CA now vouches for the serving certificate and for its own admin client certificate.
        const raw = await rawRequest(server.port, other.ca.certPem, '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
          method: 'POST',
          clientCert: other.admin.certPem,
          clientKey: other.admin.keyPem,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
        });
        assert.equal(raw.status, 201, raw.body);
        assert.equal(JSON.parse(raw.body).status.userInfo.username, 'capstan-admin');
        // The admin kubeconfig trusts the served certificate too.
        assert.deepEqual(await server.kubectl(['get', '--raw', '/livez']), { code: 0, stdout: 'ok', stderr: '' });
      } finally {
        await server.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('plain HTTP only when asked, with the same authentication', async () => {
    const server = await start({ plainHttpPort: 0, authorizationMode: ['AlwaysDeny'] });
    try {
      assert.match(server.plainHttpUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${server.plainHttpUrl}/livez`);
      assert.equal(res.status, 403);
      assert.match(await res.text(), /User \\"system:anonymous\\" cannot get path \\"\/livez\\"/);
    } finally {
      await server.close();
    }
    const none = await start();
    try {
      assert.equal(none.plainHttpUrl, undefined);
    } finally {
      await none.close();
    }
  });

  test('close lets an in-flight request finish, then refuses connections', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => (entered = r));
    const server = await startWithFaultyApi({
      async handle(_req, res) {
        entered();
        await gate;
        res.end('finished');
      },
    });
    const cert = { clientCert: server.clientCert, clientKey: server.clientKey };
    const slow = server.request('/api/v1/pods', cert);
    await inHandler;
    const closing = server.close();
    setTimeout(release, 100);
    const r = await slow;
    assert.deepEqual([r.status, r.body], [200, 'finished']);
    await closing;
    await assert.rejects(server.request('/livez', cert), { code: 'ECONNREFUSED' });
  });
});

describe('sqlite across restarts', () => {
  test('objects and the database stay in the data dir across restarts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'capstan-real-'));
    try {
      const first = await startTestServer({ storageBackend: 'sqlite', dataDir: dir });
      try {
        const r = await first.kubectl(['get', 'ns', '-o', 'name']);
        assert.equal(r.code, 0, r.stderr);
        const c = await first.kubectl(['create', 'configmap', 'kept', '-n', 'default']);
        assert.equal(c.code, 0, c.stderr);
      } finally {
        await first.close();
      }
      assert.ok((await stat(join(dir, 'capstan.db'))).isFile());
      const second = await startTestServer({ storageBackend: 'sqlite', dataDir: dir });
      try {
        const r = await second.kubectl(['get', 'configmap', 'kept', '-n', 'default', '-o', 'name']);
        assert.deepEqual([r.code, r.stdout], [0, 'configmap/kept\n'], r.stderr);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('capstan command', () => {
  test('starts, prints the kubectl line (one a shell runs as printed), serves, logs JSON, and exits 0 on SIGTERM', async () => {
    // A data dir whose path a shell would split or end early: the printed line quotes it.
    const dir = await mkdtemp(join(tmpdir(), "capstan-cli-it's "));
    const cli = await startCliProcess(NODE, [join(ROOT, 'bin/capstan.js'), '--secure-port=0', '--storage-backend=memory', `--data-dir=${join(dir, 'data')}`], dir);
    const child = cli.child;
    const cacheDir = join(tmpdir(), `capstan-cli-cache-${process.pid}`);
    try {
      const kubeconfig = join(dir, 'data', 'admin.kubeconfig');
      assert.equal(cli.stdout(), `kubectl --kubeconfig '${kubeconfig.replaceAll("'", `'\\''`)}' get ns\n`, cli.stderr());
      const printed = await runCommand('bash', ['-c', cli.stdout().replace(' get ns', ` --cache-dir=${cacheDir} get ns -o name`)], { timeoutMs: 20_000 });
      assert.deepEqual(printed, { code: 0, stdout: 'namespace/default\nnamespace/kube-node-lease\nnamespace/kube-public\nnamespace/kube-system\n', stderr: '' });
      assert.deepEqual(await runKubectl(kubeconfig, ['get', '--raw', '/readyz']), { code: 0, stdout: 'ok', stderr: '' });
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      const stderr = cli.stderr();
      const lines = stderr.trim().split('\n').map((l) => JSON.parse(l) as { level: string; msg: string; port?: number });
      assert.deepEqual(lines.map((l) => [l.level, l.msg]), [['info', 'Capstan serving'], ['info', 'Capstan stopping'], ['info', 'Capstan stopped']]);
      assert.deepEqual(lines.slice(1).map((l) => (l as { signal?: string }).signal), ['SIGTERM', 'SIGTERM']);
      assert.ok(!/PRIVATE KEY|client-key-data/.test(stderr));
    } finally {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
      await rm(cacheDir, { recursive: true, force: true });
    }
  });
});

describe('npm start', () => {
  test("SIGTERM or SIGINT to npm's process stops the server: it logs why, and the port is free", async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const dir = await mkdtemp(join(tmpdir(), 'capstan-npm-'));
      const child = spawn('npm', ['start', '--', '--secure-port=0', '--storage-backend=memory', `--data-dir=${join(dir, 'data')}`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      try {
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        const deadline = Date.now() + 20_000;
        while (!stdout.includes('get ns') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        const serving = stderr.split('\n').find((l) => l.includes('Capstan serving'));
        assert.ok(serving, `${stdout}\n${stderr}`);
        const port = (JSON.parse(serving) as { port: number }).port;
        const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
        child.kill(signal);
        await exited;
        assert.match(stderr, new RegExp(`"msg":"Capstan stopped","signal":"${signal}"`));
        const refused = await new Promise<boolean>((resolve) => {
          const socket = connect(port, '127.0.0.1');
          socket.once('connect', () => (socket.destroy(), resolve(false)));
          socket.once('error', () => resolve(true));
        });
        assert.equal(refused, true, `port ${port} is still served after ${signal}`);
      } finally {
        child.kill('SIGKILL');
        await rm(dir, { recursive: true, force: true });
      }
    }
  });
});

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(NODE, [join(ROOT, 'bin/capstan.js'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

describe('command line', () => {
  test('a bad flag prints a message and exits 2', async () => {
    const r = await runCli(['--no-such-flag']);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, "Error: unknown flag: --no-such-flag\nRun 'capstan --help' for usage.\n");
    const gate = await runCli(['--feature-gates=Nope=true']);
    assert.equal(gate.code, 2);
    assert.match(gate.stderr, /^Error: invalid argument "Nope=true" for "--feature-gates" flag: unrecognized feature gate: Nope\n/);
    // A GA gate locked to its default, and a gate 1.31 no longer has (CSIMigration was removed in 1.27).
    const locked = await runCli(['--feature-gates=ServerSideApply=false']);
    assert.equal(locked.code, 2);
    assert.match(locked.stderr, /^Error: invalid argument "ServerSideApply=false" for "--feature-gates" flag: cannot set feature gate ServerSideApply to false, feature is locked to true\n/);
    const removed = await runCli(['--feature-gates=CSIMigration=true']);
    assert.equal(removed.code, 2);
    assert.match(removed.stderr, /^Error: invalid argument "CSIMigration=true" for "--feature-gates" flag: unrecognized feature gate: CSIMigration\n/);
    const mode = await runCli(['--authorization-mode=RBAC,Bogus', '--storage-backend=memory']);
    assert.equal(mode.code, 2);
    assert.match(mode.stderr, /authorization-mode "Bogus" is not a valid mode/);
  });

  test('a data dir or audit log directory that cannot be made: mkdir\'s own error, and exit 2 (under /proc Node\'s recursive mkdir never returned)', async () => {
    const dataDir = await runCli(['--storage-backend=memory', '--data-dir=/proc/capstan-no-such-dir/data']);
    assert.deepEqual([dataDir.code, dataDir.stderr], [2, "Error: --data-dir /proc/capstan-no-such-dir/data: ENOENT: no such file or directory, mkdir '/proc/capstan-no-such-dir'\nRun 'capstan --help' for usage.\n"]);
    const dir = await mkdtemp(join(tmpdir(), 'capstan-audit-dir-'));
    try {
      await writeFile(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
      const audit = await runCli(['--storage-backend=memory', `--data-dir=${join(dir, 'data')}`, '--secure-port=0', `--audit-policy-file=${join(dir, 'policy.yaml')}`, '--audit-log-path=/proc/capstan-no-such-dir/audit.log']);
      assert.equal(audit.code, 2, audit.stderr);
      assert.match(audit.stderr, /^Error: .*ENOENT: no such file or directory, mkdir '\/proc\/capstan-no-such-dir'\n/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('--help lists every flag', async () => {
    const r = await runCli(['--help']);
    assert.equal(r.code, 0);
    for (const flag of ['--secure-port', '--bind-address', '--tls-cert-file', '--tls-private-key-file', '--client-ca-file', '--token-auth-file',
      '--anonymous-auth', '--authorization-mode', '--runtime-config', '--feature-gates', '--history-window', '--min-request-timeout',
      '--storage-backend', '--data-dir', '--plain-http-port', '--v', '--help', '--audit-policy-file', '--audit-log-path', '--audit-log-maxage',
      '--audit-log-maxbackup', '--audit-log-maxsize', '--audit-webhook-config-file', '--audit-webhook-batch-max-size', '--audit-webhook-batch-max-wait']) {
      assert.match(r.stdout, new RegExp(`\\s${flag}[\\s=]`), flag);
    }
  });
});
