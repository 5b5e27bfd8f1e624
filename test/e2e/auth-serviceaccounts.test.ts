// End to end: service accounts as a real cluster has them: the default ServiceAccount and kube-root-ca.crt in every
// namespace, `kubectl create token` (TokenRequest) tokens used by kubectl and client-node, audiences, bound objects,
// the issuer discovery documents, and bad tokens refused without the token in any log line.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { SignJWT, decodeJwt, importPKCS8 } from 'jose';
import { createLogger } from '../../src/server/log.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer, until } from './helpers.ts';

/** Polls `check` until it holds (informers and the 10 s token success cache make some changes count a moment later). */

const RBAC = 'rbac.authorization.k8s.io';
const ISSUER = 'https://kubernetes.default.svc.cluster.local';

describe('service accounts (Node,RBAC, a signing key of the test\'s)', () => {
  let server: TestServer;
  let dir: string;
  let signingPem: string;
  const logLines: string[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-sa-'));
    signingPem = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    await writeFile(join(dir, 'sa.pem'), signingPem);
    server = await startTestServer({
      authorizationMode: ['Node', 'RBAC'],
      namespaceDefaults: true,
      serviceAccountSigningKeyFile: join(dir, 'sa.pem'),
      logger: createLogger({ verbosity: 10, write: (line) => void logLines.push(line) }),
    });
    await server.kubectlOk(['create', 'namespace', 'apps']);
  });
  after(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const createToken = async (args: string[]) => (await server.kubectlOk(['create', 'token', ...args])).trim();

  test('every namespace gets the default ServiceAccount and kube-root-ca.crt (the server\'s CA), made again when deleted', async () => {
    await until('defaults in apps', async () => (await server.kubectl(['get', 'serviceaccount/default', 'configmap/kube-root-ca.crt', '-n', 'apps'])).code === 0);
    const cm = JSON.parse(await server.kubectlOk(['get', 'configmap', 'kube-root-ca.crt', '-n', 'apps', '-o', 'json'])) as { data: Record<string, string> };
    assert.deepEqual(cm.data, { 'ca.crt': server.caCert });
    await server.kubectlOk(['delete', 'serviceaccount', 'default', '-n', 'apps']);
    await server.kubectlOk(['delete', 'configmap', 'kube-root-ca.crt', '-n', 'apps']);
    await until('defaults back in apps', async () => (await server.kubectl(['get', 'serviceaccount/default', 'configmap/kube-root-ca.crt', '-n', 'apps'])).code === 0);
    await server.kubectlOk(['patch', 'configmap', 'kube-root-ca.crt', '-n', 'apps', '--type=merge', '-p', '{"data":{"ca.crt":"tampered"}}']);
    await until('kube-root-ca.crt restored', async () => JSON.parse(await server.kubectlOk(['get', 'configmap', 'kube-root-ca.crt', '-n', 'apps', '-o', 'json'])).data['ca.crt'] === server.caCert);
  });

  test('kubectl create token: a token kubectl uses, with the claims kube puts in it; RBAC applies to it', async () => {
    await server.kubectlOk(['create', 'serviceaccount', 'builder', '-n', 'apps']);
    const token = await createToken(['builder', '-n', 'apps']);
    const claims = decodeJwt(token) as Record<string, unknown>;
    const sa = JSON.parse(await server.kubectlOk(['get', 'serviceaccount', 'builder', '-n', 'apps', '-o', 'json'])) as { metadata: { uid: string } };
    assert.equal(claims.iss, ISSUER);
    assert.deepEqual(claims.aud, [ISSUER]);
    assert.equal(claims.sub, 'system:serviceaccount:apps:builder');
    assert.equal((claims.exp as number) - (claims.iat as number), 3600);
    assert.deepEqual(claims['kubernetes.io'], { namespace: 'apps', serviceaccount: { name: 'builder', uid: sa.metadata.uid } });
    const kc = await server.writeKubeconfig('builder', { token });
    const who = JSON.parse(await server.kubectlOk(['auth', 'whoami', '-o', 'json'], { kubeconfig: kc })) as { status: { userInfo: { username: string; groups: string[]; uid: string } } };
    assert.equal(who.status.userInfo.username, 'system:serviceaccount:apps:builder');
    assert.equal(who.status.userInfo.uid, sa.metadata.uid);
    assert.deepEqual(who.status.userInfo.groups, ['system:serviceaccounts', 'system:serviceaccounts:apps', 'system:authenticated']);
    const denied = await server.kubectl(['get', 'configmaps', '-n', 'apps'], { kubeconfig: kc });
    assert.equal(denied.stderr.trim(), 'Error from server (Forbidden): configmaps is forbidden: User "system:serviceaccount:apps:builder" cannot list resource "configmaps" in API group "" in the namespace "apps"');
    await server.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'builder-edit', namespace: 'apps' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'edit' }, subjects: [{ kind: 'ServiceAccount', name: 'builder' }] }),
    });
    await until('builder may list configmaps', async () => (await server.kubectl(['get', 'configmaps', '-n', 'apps'], { kubeconfig: kc })).code === 0);
    assert.equal((await server.kubectl(['auth', 'can-i', 'create', 'deployments', '-n', 'apps'], { kubeconfig: kc })).stdout.trim(), 'yes');
    assert.equal((await server.kubectl(['auth', 'can-i', 'create', 'deployments', '-n', 'default'], { kubeconfig: kc })).stdout.trim(), 'no');
    // Deleting the service account revokes its tokens.
    await server.kubectlOk(['delete', 'serviceaccount', 'builder', '-n', 'apps']);
    await until('token refused', async () => (await server.request('/api/v1/namespaces/apps/configmaps', { token })).status === 401, { timeoutMs: 20_000 });
  });

  test('audiences and lifetime: a token for another audience is refused here but passes a TokenReview for it; too short a lifetime is invalid', async () => {
    const token = await createToken(['default', '-n', 'apps', '--audience=https://vault.example', '--duration=20m']);
    assert.deepEqual(decodeJwt(token).aud, ['https://vault.example']);
    assert.equal((await server.request('/api/v1/namespaces/apps/configmaps', { token })).status, 401);
    const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, audiences: ['https://vault.example'] } };
    const out = JSON.parse(await server.kubectlOk(['create', '-f', '-', '-o', 'json'], { input: JSON.stringify(review) })) as { status: { authenticated?: boolean; user?: { username: string } } };
    assert.equal(out.status.authenticated, true);
    assert.equal(out.status.user?.username, 'system:serviceaccount:apps:default');
    const short = await server.adminRequest('/api/v1/namespaces/apps/serviceaccounts/default/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 300 } }),
    });
    assert.equal(short.status, 422);
    assert.equal(JSON.parse(short.body).message, 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes');
    const missing = await server.kubectl(['create', 'token', 'nobody', '-n', 'apps']);
    assert.match(missing.stderr, /serviceaccounts "nobody" not found/);
  });

  test('a token bound to a pod names it, and dies with it', async () => {
    await server.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'worker', namespace: 'apps' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }) });
    const token = await createToken(['default', '-n', 'apps', '--bound-object-kind=Pod', '--bound-object-name=worker']);
    const pod = JSON.parse(await server.kubectlOk(['get', 'pod', 'worker', '-n', 'apps', '-o', 'json'])) as { metadata: { uid: string } };
    assert.deepEqual((decodeJwt(token)['kubernetes.io'] as { pod: unknown }).pod, { name: 'worker', uid: pod.metadata.uid });
    const kc = await server.writeKubeconfig('pod-bound', { token });
    const who = JSON.parse(await server.kubectlOk(['auth', 'whoami', '-o', 'json'], { kubeconfig: kc })) as { status: { userInfo: { extra: Record<string, string[]> } } };
    assert.deepEqual(who.status.userInfo.extra['authentication.kubernetes.io/pod-name'], ['worker']);
    assert.deepEqual(who.status.userInfo.extra['authentication.kubernetes.io/pod-uid'], [pod.metadata.uid]);
    await server.kubectlOk(['delete', 'pod', 'worker', '-n', 'apps', '--grace-period=0', '--force']);
    // Up to kube's 10 s token success cache later.
    await until('pod-bound token refused', async () => (await server.request('/version', { token })).status === 401, { timeoutMs: 20_000 });
    const wrongKind = await server.kubectl(['create', 'token', 'default', '-n', 'apps', '--bound-object-kind=Secret', '--bound-object-name=nope']);
    assert.match(wrongKind.stderr, /secrets "nope" not found/);
  });

  test('ServiceAccount admission: default service account, the kube-api-access volume in every container, pull secrets, and pods of a missing one refused', async () => {
    await server.kubectlOk(['create', 'namespace', 'sa-admission']);
    await until('default service account in sa-admission', async () => (await server.kubectl(['get', 'serviceaccount/default', '-n', 'sa-admission'])).code === 0);
    const podJson = (name: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'sa-admission' }, spec });
    await server.kubectlOk(['create', '-f', '-'], {
      input: podJson('mounted', { initContainers: [{ name: 'init', image: 'busybox' }], containers: [{ name: 'c', image: 'busybox' }, { name: 'own', image: 'busybox', volumeMounts: [{ name: 'x', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] }], volumes: [{ name: 'x', emptyDir: {} }] }),
    });
    const pod = JSON.parse(await server.kubectlOk(['get', 'pod', 'mounted', '-n', 'sa-admission', '-o', 'json'])) as { spec: Record<string, any> };
    assert.equal(pod.spec.serviceAccountName, 'default');
    const volume = pod.spec.volumes.find((v: { name: string }) => v.name.startsWith('kube-api-access-'));
    assert.match(volume.name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(volume.projected, {
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: 420,
    });
    const mount = { name: volume.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
    assert.deepEqual(pod.spec.initContainers[0].volumeMounts, [mount]);
    assert.deepEqual(pod.spec.containers[0].volumeMounts, [mount]);
    // A container with its own mount at the path keeps it.
    assert.deepEqual(pod.spec.containers[1].volumeMounts, [{ name: 'x', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
    // Opting out (the pod, or its service account) mounts nothing; the service account's pull secrets are the pod's.
    await server.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'quiet', namespace: 'sa-admission' }, automountServiceAccountToken: false, imagePullSecrets: [{ name: 'registry' }] }) });
    await server.kubectlOk(['create', '-f', '-'], { input: podJson('quiet', { serviceAccountName: 'quiet', containers: [{ name: 'c', image: 'busybox' }] }) });
    const quiet = JSON.parse(await server.kubectlOk(['get', 'pod', 'quiet', '-n', 'sa-admission', '-o', 'json'])) as { spec: Record<string, any> };
    assert.equal(quiet.spec.volumes, undefined);
    assert.equal(quiet.spec.containers[0].volumeMounts, undefined);
    assert.deepEqual(quiet.spec.imagePullSecrets, [{ name: 'registry' }]);
    // kubernetes.io/enforce-mountable-secrets: only the secrets the service account lists.
    await server.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'strict', namespace: 'sa-admission', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } }, secrets: [{ name: 'allowed' }] }) });
    await server.kubectlOk(['create', '-f', '-'], { input: podJson('strict-ok', { serviceAccountName: 'strict', containers: [{ name: 'c', image: 'busybox', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'allowed', key: 'k' } } }] }] }) });
    const strict = await server.kubectl(['create', '-f', '-'], { input: podJson('strict-no', { serviceAccountName: 'strict', containers: [{ name: 'c', image: 'busybox', envFrom: [{ secretRef: { name: 'other' } }] }] }) });
    assert.equal(strict.stderr.trim(), 'Error from server (Forbidden): error when creating "STDIN": pods "strict-no" is forbidden: container c with envFrom referencing secret.secretName="other" is not allowed because service account strict does not reference that secret');
    const pull = await server.kubectl(['create', '-f', '-'], { input: podJson('strict-pull', { serviceAccountName: 'strict', imagePullSecrets: [{ name: 'registry' }], containers: [{ name: 'c', image: 'busybox' }] }) });
    assert.equal(pull.stderr.trim(), 'Error from server (Forbidden): error when creating "STDIN": pods "strict-pull" is forbidden: imagePullSecrets[0].name="registry" is not allowed because service account strict does not reference that imagePullSecret');
    const missing = await server.kubectl(['create', '-f', '-'], { input: podJson('orphan', { serviceAccountName: 'nobody', containers: [{ name: 'c', image: 'busybox' }] }) });
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr.trim(), 'Error from server (Forbidden): error when creating "STDIN": pods "orphan" is forbidden: error looking up service account sa-admission/nobody: serviceaccount "nobody" not found');
  });

  test('bad tokens are 401 and never logged: malformed, wrong signature, expired, wrong issuer, wrong audience', async () => {
    const sa = JSON.parse(await server.kubectlOk(['get', 'serviceaccount', 'default', '-n', 'apps', '-o', 'json'])) as { metadata: { uid: string } };
    const claim = { 'kubernetes.io': { namespace: 'apps', serviceaccount: { name: 'default', uid: sa.metadata.uid } } };
    const sign = async (pem: string, edit: (j: SignJWT) => SignJWT) => edit(new SignJWT(claim).setProtectedHeader({ alg: 'ES256' }).setSubject('system:serviceaccount:apps:default')).sign(await importPKCS8(pem, 'ES256'));
    const now = Math.floor(Date.now() / 1000);
    const otherPem = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const good = await sign(signingPem, (j) => j.setIssuer(ISSUER).setAudience(ISSUER).setIssuedAt(now).setExpirationTime(now + 600));
    assert.equal((await server.request('/api', { token: good })).status, 200, 'a token signed by the signing key passes');
    const bad = {
      malformed: 'eyJhbGciOiJFUzI1NiJ9.bm90LWpzb24.c2ln',
      truncated: good.slice(0, -10),
      wrongSignature: await sign(otherPem, (j) => j.setIssuer(ISSUER).setAudience(ISSUER).setIssuedAt(now).setExpirationTime(now + 600)),
      expired: await sign(signingPem, (j) => j.setIssuer(ISSUER).setAudience(ISSUER).setIssuedAt(now - 7200).setExpirationTime(now - 3600)),
      wrongAudience: await sign(signingPem, (j) => j.setIssuer(ISSUER).setAudience('https://elsewhere').setIssuedAt(now).setExpirationTime(now + 600)),
      noneAlg: `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ ...claim, iss: ISSUER, aud: ISSUER, exp: now + 600 })).toString('base64url')}.`,
    };
    for (const [what, token] of Object.entries(bad)) {
      const r = await server.request('/api', { token });
      assert.equal(r.status, 401, what);
      assert.deepEqual(JSON.parse(r.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }, what);
    }
    // A JWT of an issuer that is not ours is left to the other authenticators (none here): 401 as well.
    const foreign = await sign(otherPem, (j) => j.setIssuer('https://issuer.example').setAudience(ISSUER).setExpirationTime(now + 600));
    assert.equal((await server.request('/api', { token: foreign })).status, 401);
    const all = logLines.join('');
    for (const token of [good, ...Object.values(bad), foreign]) assert.ok(!all.includes(token.split('.').pop()!.slice(0, 20) || token), 'no token in the log');
  });

  test('legacy tokens: a kubernetes.io/service-account-token Secret gets a token, ca.crt and namespace; the token works while the Secret holds it', async () => {
    await server.kubectlOk(['create', 'serviceaccount', 'legacy', '-n', 'apps']);
    await server.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'legacy-token', namespace: 'apps', annotations: { 'kubernetes.io/service-account.name': 'legacy' } }, type: 'kubernetes.io/service-account-token' }),
    });
    let secret: { metadata: { annotations: Record<string, string> }; data?: Record<string, string> } | undefined;
    await until('token populated', async () => {
      secret = JSON.parse(await server.kubectlOk(['get', 'secret', 'legacy-token', '-n', 'apps', '-o', 'json']));
      return !!secret?.data?.token;
    });
    const sa = JSON.parse(await server.kubectlOk(['get', 'serviceaccount', 'legacy', '-n', 'apps', '-o', 'json'])) as { metadata: { uid: string } };
    assert.equal(secret!.metadata.annotations['kubernetes.io/service-account.uid'], sa.metadata.uid);
    assert.equal(Buffer.from(secret!.data!['ca.crt'], 'base64').toString(), server.caCert);
    assert.equal(Buffer.from(secret!.data!.namespace, 'base64').toString(), 'apps');
    const token = Buffer.from(secret!.data!.token, 'base64').toString();
    const claims = decodeJwt(token);
    assert.equal(claims.iss, 'kubernetes/serviceaccount');
    assert.equal(claims['kubernetes.io/serviceaccount/secret.name'], 'legacy-token');
    assert.equal(claims.exp, undefined);
    const kc = await server.writeKubeconfig('legacy', { token });
    assert.match(await server.kubectlOk(['auth', 'whoami'], { kubeconfig: kc }), /system:serviceaccount:apps:legacy/);
    // kube's legacy token tracking: the use is recorded on the Secret, by day; the day tracking began is in kube-system.
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(await server.kubectlOk(['get', 'secret', 'legacy-token', '-n', 'apps', '-o', 'jsonpath={.metadata.labels.kubernetes\\.io/legacy-token-last-used}']), today);
    assert.equal(await server.kubectlOk(['get', 'configmap', 'kube-apiserver-legacy-service-account-token-tracking', '-n', 'kube-system', '-o', 'jsonpath={.data.since}']), today);
    // A token its Secret marks invalid (kube's cleaner does, a year unused) is refused until the label goes.
    await server.kubectlOk(['label', 'secret', 'legacy-token', '-n', 'apps', `kubernetes.io/legacy-token-invalid-since=${today}`]);
    await until('the invalidated token refused', async () => (await server.request('/version', { token })).status === 401, { timeoutMs: 20_000 });
    await server.kubectlOk(['label', 'secret', 'legacy-token', '-n', 'apps', 'kubernetes.io/legacy-token-invalid-since-']);
    await until('the token accepted again', async () => (await server.request('/version', { token })).status === 200, { timeoutMs: 20_000 });
    await server.kubectlOk(['delete', 'secret', 'legacy-token', '-n', 'apps']);
    await until('legacy token refused once its Secret is gone', async () => (await server.request('/version', { token })).status === 401, { timeoutMs: 20_000 });
  });

  test('issuer discovery: service accounts read the OpenID configuration and the keys, with or without a trailing slash; anonymous may not', async () => {
    const token = await createToken(['default', '-n', 'apps']);
    const conf = await server.request('/.well-known/openid-configuration', { token });
    assert.equal(conf.status, 200);
    assert.equal(conf.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(conf.body), {
      issuer: ISSUER,
      jwks_uri: `${server.url}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
    });
    const jwks = await server.request('/openid/v1/jwks', { token });
    assert.equal(jwks.headers['content-type'], 'application/jwk-set+json');
    const keys = (JSON.parse(jwks.body) as { keys: { kid: string; alg: string; use: string; kty: string }[] }).keys;
    assert.equal(keys.length, 1);
    assert.deepEqual([keys[0].alg, keys[0].use, keys[0].kty], ['ES256', 'sig', 'EC']);
    // The paths with a trailing slash (as the OpenAPI document names them) serve the same documents, which the role
    // (kube 1.28+) lets service accounts read too.
    const confSlash = await server.request('/.well-known/openid-configuration/', { token });
    assert.deepEqual([confSlash.status, confSlash.headers['content-type'], confSlash.body], [200, 'application/json', conf.body]);
    const jwksSlash = await server.request('/openid/v1/jwks/', { token });
    assert.deepEqual([jwksSlash.status, jwksSlash.headers['content-type'], jwksSlash.body], [200, 'application/jwk-set+json', jwks.body]);
    const anon = await server.request('/openid/v1/jwks');
    assert.equal(anon.status, 403);
    assert.equal(JSON.parse(anon.body).message, 'forbidden: User "system:anonymous" cannot get path "/openid/v1/jwks"');
  });

  test('an informer under a namespace-scoped service account (RoleBinding to view) sees its namespace\'s changes', async () => {
    await server.kubectlOk(['create', 'serviceaccount', 'watcher', '-n', 'apps']);
    await server.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'watcher-view', namespace: 'apps' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'ServiceAccount', name: 'watcher', namespace: 'apps' }] }),
    });
    const token = await createToken(['watcher', '-n', 'apps']);
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: server.url, caData: Buffer.from(server.caCert).toString('base64') }],
      users: [{ name: 'u', token }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await until('watcher may list configmaps in apps', async () => {
      try {
        await core.listNamespacedConfigMap({ namespace: 'apps' });
        return true;
      } catch {
        return false;
      }
    });
    const forbidden = await core.listNamespacedConfigMap({ namespace: 'default' }).then(() => 0, (e: { code?: number }) => e.code);
    assert.equal(forbidden, 403);
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/apps/configmaps', () => core.listNamespacedConfigMap({ namespace: 'apps' }));
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add ${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata?.name}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
    await informer.start();
    try {
      await server.kubectlOk(['create', 'configmap', 'watched', '-n', 'apps', '--from-literal=a=1']);
      await server.kubectlOk(['patch', 'configmap', 'watched', '-n', 'apps', '--type=merge', '-p', '{"data":{"a":"2"}}']);
      await server.kubectlOk(['delete', 'configmap', 'watched', '-n', 'apps']);
      await until('informer saw add, update, delete', async () => seen.includes('delete watched'));
      assert.deepEqual(seen.filter((s) => s.endsWith(' watched')), ['add watched', 'update watched', 'delete watched']);
      assert.ok(seen.includes('add kube-root-ca.crt'));
    } finally {
      await informer.stop();
    }
  });
});
