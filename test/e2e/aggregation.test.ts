// End to end: the aggregation layer. An extension API server the test runs on loopback (./extension-apiserver.ts)
// is registered with an APIService over an ExternalName Service; Capstan checks it (Available), lists its group in
// discovery (legacy and aggregated, with the resources it reports), and proxies its group-version to it after
// authentication and authorization, with the caller's identity in the front-proxy headers and its own client
// certificate, which the backend verifies against kube-system/extension-apiserver-authentication.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:http2';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import * as k8s from '@kubernetes/client-node';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import { startExtensionApiServer, type ExtensionApiServer } from './extension-apiserver.ts';

const API_SERVICE = 'v1alpha1.wardle.example.com';
const AGGREGATED_ACCEPT = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

describe('aggregated APIs', () => {
  let server: TestServer;
  let backend: ExtensionApiServer;

  const apiService = (port: number, caBundle: string) => ({
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: API_SERVICE },
    spec: { group: 'wardle.example.com', version: 'v1alpha1', service: { namespace: 'wardle', name: 'wardle-api', port }, caBundle, groupPriorityMinimum: 1000, versionPriority: 15 },
  });

  before(async () => {
    server = await startTestServer({ authorizationMode: ['RBAC'], aggregatorResyncMs: 1000, requestTimeoutSeconds: 2 });
    const info = JSON.parse(await server.kubectlOk(['get', 'configmap', '-n', 'kube-system', 'extension-apiserver-authentication', '-o', 'json'])) as { data: Record<string, string> };
    backend = await startExtensionApiServer({ caPem: info.data['requestheader-client-ca-file']!, allowedNames: JSON.parse(info.data['requestheader-allowed-names']!) as string[] }, 'wardle-api', 'wardle');
    await server.kubectlOk(['create', 'namespace', 'wardle']);
    await server.kubectlOk(['create', 'service', 'externalname', 'wardle-api', '-n', 'wardle', '--external-name', 'localhost']);
    await server.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(apiService(backend.port, backend.caBundle)) });
    await server.kubectlOk(['wait', '--for=condition=Available', `apiservice/${API_SERVICE}`, '--timeout=20s']);
  });
  after(async () => {
    await server?.close();
    await backend?.close();
  });

  test('extension-apiserver-authentication holds the client CA and the request header settings the aggregator matches', async () => {
    const info = JSON.parse(await server.kubectlOk(['get', 'configmap', '-n', 'kube-system', 'extension-apiserver-authentication', '-o', 'json'])) as { data: Record<string, string> };
    assert.deepEqual(Object.keys(info.data).sort(), [
      'client-ca-file',
      'requestheader-allowed-names',
      'requestheader-client-ca-file',
      'requestheader-extra-headers-prefix',
      'requestheader-group-headers',
      'requestheader-username-headers',
    ]);
    assert.equal(info.data['client-ca-file'], server.caCert);
    assert.equal(info.data['requestheader-client-ca-file'], server.caCert);
    assert.equal(info.data['requestheader-allowed-names'], '["front-proxy-client"]');
    assert.equal(info.data['requestheader-username-headers'], '["X-Remote-User"]');
    assert.equal(info.data['requestheader-group-headers'], '["X-Remote-Group"]');
    assert.equal(info.data['requestheader-extra-headers-prefix'], '["X-Remote-Extra-"]');
  });

  test('the APIService is Available after its discovery check, which came as system:kube-aggregator', async () => {
    const out = await server.kubectlOk(['get', 'apiservice', API_SERVICE]);
    assert.match(out, /^NAME\s+SERVICE\s+AVAILABLE\s+AGE\n/);
    assert.match(out, /\nv1alpha1\.wardle\.example\.com\s+wardle\/wardle-api\s+True\s+\S+\n$/);
    const obj = JSON.parse(await server.kubectlOk(['get', 'apiservice', API_SERVICE, '-o', 'json'])) as { status: { conditions: Record<string, string>[] } };
    const available = obj.status.conditions.find((c) => c.type === 'Available')!;
    assert.equal(available.status, 'True');
    assert.equal(available.reason, 'Passed');
    assert.equal(available.message, 'all checks passed');
    assert.match(available.lastTransitionTime!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const check = backend.seen.find((r) => r.url === '/apis/wardle.example.com/v1alpha1');
    assert.ok(check, 'the backend was asked for its resource list');
    assert.deepEqual(check.user, { name: 'system:kube-aggregator', groups: ['system:masters'], extra: {} });
  });

  test('kubectl finds the aggregated resources by name, short name and category, and they are listed in discovery', async () => {
    const resources = await server.kubectlOk(['api-resources', '--api-group=wardle.example.com', '-o', 'name']);
    assert.deepEqual(resources.trim().split('\n').sort(), ['fischers.wardle.example.com', 'flunders.wardle.example.com']);
    const groups = JSON.parse((await server.adminRequest('/apis')).body) as { groups: { name: string; preferredVersion: { groupVersion: string } }[] };
    const wardle = groups.groups.find((g) => g.name === 'wardle.example.com');
    assert.deepEqual(wardle?.preferredVersion, { groupVersion: 'wardle.example.com/v1alpha1', version: 'v1alpha1' });
    const group = await server.adminRequest('/apis/wardle.example.com');
    assert.equal(group.status, 200);
    assert.deepEqual(JSON.parse(group.body), {
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'wardle.example.com',
      versions: [{ groupVersion: 'wardle.example.com/v1alpha1', version: 'v1alpha1' }],
      preferredVersion: { groupVersion: 'wardle.example.com/v1alpha1', version: 'v1alpha1' },
    });
    const aggregated = JSON.parse((await server.adminRequest('/apis', { headers: { accept: AGGREGATED_ACCEPT } })).body) as { items: { metadata: { name: string }; versions: { version: string; freshness: string; resources: Record<string, unknown>[] }[] }[] };
    const item = aggregated.items.find((i) => i.metadata.name === 'wardle.example.com');
    assert.ok(item);
    assert.equal(item.versions.length, 1);
    assert.equal(item.versions[0]!.freshness, 'Current');
    assert.deepEqual(item.versions[0]!.resources, [
      { resource: 'fischers', responseKind: { group: '', version: '', kind: 'Fischer' }, scope: 'Cluster', singularResource: 'fischer', verbs: ['get', 'list'] },
      {
        resource: 'flunders',
        responseKind: { group: '', version: '', kind: 'Flunder' },
        scope: 'Namespaced',
        singularResource: 'flunder',
        verbs: ['create', 'delete', 'get', 'list', 'watch'],
        shortNames: ['fl'],
        categories: ['wardle'],
        subresources: [{ subresource: 'status', responseKind: { group: '', version: '', kind: 'Flunder' }, verbs: ['get', 'update'] }],
      },
    ]);
  });

  test('the backend\'s OpenAPI v3 document is served in /openapi/v3, so kubectl explain knows the aggregated kinds', async () => {
    const index = JSON.parse((await server.adminRequest('/openapi/v3')).body) as { paths: Record<string, { serverRelativeURL: string }> };
    const entry = index.paths['apis/wardle.example.com/v1alpha1'];
    assert.match(entry?.serverRelativeURL ?? '', /^\/openapi\/v3\/apis\/wardle\.example\.com\/v1alpha1\?hash=[0-9A-F]+$/);
    const doc = JSON.parse((await server.adminRequest(entry!.serverRelativeURL)).body) as { components: { schemas: Record<string, unknown> } };
    assert.deepEqual(Object.keys(doc.components.schemas), ['com.example.wardle.v1alpha1.Flunder']);
    const explained = await server.kubectlOk(['explain', 'flunders.spec']);
    assert.match(explained, /GROUP:\s+wardle\.example\.com\nKIND:\s+Flunder\nVERSION:\s+v1alpha1/);
    assert.match(explained, /reference\s+<string>\n\s+What the flunder refers to\./);
  });

  test('requests are proxied with the caller in the front-proxy headers and without its credential', async () => {
    await server.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'wardle.example.com/v1alpha1', kind: 'Flunder', metadata: { name: 'one', namespace: 'wardle' } }) });
    const created = backend.seen.findLast((r) => r.method === 'POST')!;
    assert.equal(created.user?.name, 'capstan-admin');
    assert.deepEqual(created.user?.groups, ['system:masters', 'system:authenticated']);
    assert.equal(created.headers.authorization, undefined);
    assert.equal(await server.kubectlOk(['get', 'fl', '-n', 'wardle', '-o', 'name']), 'flunder.wardle.example.com/one\n');
    const one = JSON.parse(await server.kubectlOk(['get', 'flunder', 'one', '-n', 'wardle', '-o', 'json'])) as { metadata: { annotations: Record<string, string> } };
    assert.equal(one.metadata.annotations['wardle.example.com/created-by'], 'capstan-admin');
    // The backend's own answers come back as they are, errors included.
    const missing = await server.kubectl(['get', 'flunder', 'two', '-n', 'wardle']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /flunders\.wardle\.example\.com "two" not found/);
    // The query is re-encoded with its keys sorted, as kube's proxy does. (The aggregator's availability checks of
    // the backend's discovery may reach it meanwhile.)
    const before = backend.seen.length;
    const r = await server.adminRequest('/apis/wardle.example.com/v1alpha1/namespaces/wardle/flunders?limit=5&fieldSelector=metadata.name%3Done');
    assert.equal(r.status, 200);
    assert.deepEqual(backend.seen.slice(before).map((x) => x.url).filter((url) => url.includes('/flunders')), ['/apis/wardle.example.com/v1alpha1/namespaces/wardle/flunders?fieldSelector=metadata.name%3Done&limit=5']);
  });

  test('authorization is Capstan\'s: an unauthorized user gets 403 before the backend is asked; an authorized one is passed on as itself', async () => {
    const before = backend.seen.length;
    const denied = await server.kubectl(['get', 'flunders', '-n', 'wardle', '--as=alice', '--as-group=devs']);
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /flunders\.wardle\.example\.com is forbidden: User "alice" cannot list resource "flunders" in API group "wardle\.example\.com" in the namespace "wardle"/);
    assert.equal(backend.seen.slice(before).filter((r) => r.url.includes('/flunders')).length, 0);
    await server.kubectlOk(['create', 'role', 'flunder-reader', '-n', 'wardle', '--verb=get,list', '--resource=flunders.wardle.example.com']);
    await server.kubectlOk(['create', 'rolebinding', 'alice-reads', '-n', 'wardle', '--role=flunder-reader', '--user=alice']);
    let allowed = await server.kubectl(['get', 'flunders', '-n', 'wardle', '--as=alice', '--as-group=devs', '-o', 'name']);
    for (let i = 0; i < 50 && allowed.code !== 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      allowed = await server.kubectl(['get', 'flunders', '-n', 'wardle', '--as=alice', '--as-group=devs', '-o', 'name']);
    }
    assert.equal(allowed.code, 0, allowed.stderr);
    const seen = backend.seen.findLast((r) => r.url.startsWith('/apis/wardle.example.com/v1alpha1/namespaces/wardle/flunders'))!;
    assert.deepEqual(seen.user, { name: 'alice', groups: ['devs', 'system:authenticated'], extra: {} });
    assert.equal(seen.headers['impersonate-user'], undefined);
  });

  test('a watch streams through the proxy over HTTP/2 as events happen', async () => {
    const session = connect(`https://127.0.0.1:${server.port}`, { ca: server.caCert, cert: server.clientCert, key: server.clientKey });
    try {
      const stream = session.request({ ':path': '/apis/wardle.example.com/v1alpha1/namespaces/wardle/flunders?watch=true' });
      const lines: string[] = [];
      let buffered = '';
      const waitFor = (n: number) =>
        new Promise<void>((resolve, reject) => {
          const check = () => {
            if (lines.length >= n) resolve();
          };
          stream.on('data', (c: Buffer) => {
            buffered += c.toString('utf8');
            let nl: number;
            while ((nl = buffered.indexOf('\n')) >= 0) {
              lines.push(buffered.slice(0, nl));
              buffered = buffered.slice(nl + 1);
            }
            check();
          });
          stream.once('error', reject);
          check();
        });
      const headers = await new Promise<Record<string, unknown>>((resolve) => stream.once('response', resolve));
      assert.equal(headers[':status'], 200);
      const first = waitFor(1);
      await first;
      assert.equal((JSON.parse(lines[0]!) as { object: { metadata: { name: string } } }).object.metadata.name, 'one');
      const second = waitFor(2);
      await server.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'wardle.example.com/v1alpha1', kind: 'Flunder', metadata: { name: 'two', namespace: 'wardle' } }) });
      await second;
      assert.deepEqual(JSON.parse(lines[1]!).type, 'ADDED');
      assert.equal((JSON.parse(lines[1]!) as { object: { metadata: { name: string } } }).object.metadata.name, 'two');
      stream.close();
    } finally {
      session.close();
    }
  });

  /** Sends a raw HTTP/1.1 upgrade request through Capstan; resolves with the answer's head and the open socket. */
  async function upgradeThrough(path: string, user: { cert: string; key: string }): Promise<{ head: string; socket: TLSSocket; rest: Buffer }> {
    const socket = tlsConnect({ host: '127.0.0.1', port: server.port, ca: server.caCert, cert: user.cert, key: user.key, servername: 'localhost' });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: capstan-echo\r\n\r\n`);
    let got = Buffer.alloc(0);
    for (;;) {
      const chunk = await new Promise<Buffer | null>((resolve) => {
        socket.once('data', resolve);
        socket.once('end', () => resolve(null));
      });
      socket.removeAllListeners('data').removeAllListeners('end');
      if (chunk === null) return { head: got.toString('latin1'), socket, rest: Buffer.alloc(0) };
      got = Buffer.concat([got, chunk]);
      const end = got.indexOf('\r\n\r\n');
      if (end >= 0) return { head: got.subarray(0, end).toString('latin1'), socket, rest: got.subarray(end + 4) };
    }
  }

  /** The next n characters from the socket, or what came before it ended. */
  function readSome(socket: TLSSocket, n: number): Promise<string> {
    return new Promise((resolve) => {
      let got = '';
      if (socket.destroyed || !socket.readable) return resolve(got);
      const done = () => {
        socket.off('data', onData).off('end', done).off('close', done).off('error', done);
        resolve(got);
      };
      const onData = (c: Buffer) => {
        got += c.toString('utf8');
        if (got.length >= n) done();
      };
      socket.on('data', onData).once('end', done).once('close', done).once('error', done);
    });
  }

  test('an HTTP/1.1 upgrade is proxied as kube\'s UpgradeAwareHandler does: the backend\'s 101, then both connections joined past the request timeout', async () => {
    const admin = { cert: server.clientCert, key: server.clientKey };
    const { head, socket, rest } = await upgradeThrough('/apis/wardle.example.com/v1alpha1/namespaces/wardle/flunders/one/echo', admin);
    try {
      const lines = head.split('\r\n');
      assert.equal(lines[0], 'HTTP/1.1 101 Switching Protocols');
      assert.ok(lines.includes('Upgrade: capstan-echo'), head);
      assert.ok(lines.includes('X-Echo-User: capstan-admin'), head);
      assert.equal(rest.length, 0);
      const seen = backend.seen.findLast((r) => r.url.endsWith('/echo'))!;
      assert.equal(seen.user?.name, 'capstan-admin');
      assert.equal(seen.headers.upgrade, 'capstan-echo');
      assert.equal(seen.headers.connection, 'Upgrade');
      socket.write('ping');
      assert.equal(await readSome(socket, 4), 'ping');
      // The request timeout (2 s here) is past: the joined connections still carry bytes, nothing else was written.
      await new Promise((r) => setTimeout(r, 2500));
      socket.write('pong after the timeout');
      assert.equal(await readSome(socket, 22), 'pong after the timeout');
    } finally {
      socket.destroy();
    }
    // Refused by the backend: its answer comes back as it is, and the connection closes after it.
    const refused = await upgradeThrough('/apis/wardle.example.com/v1alpha1/namespaces/wardle/flunders/one/refuse', admin);
    refused.socket.destroy();
    assert.match(refused.head, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.equal(JSON.parse(refused.rest.toString('utf8')).message, 'upgrade refused');
  });

  test('client-node: CustomObjectsApi create, get and list, and an informer fed through the proxy', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromString(server.kubeconfig);
    const api = kc.makeApiClient(k8s.CustomObjectsApi);
    const gvr = { group: 'wardle.example.com', version: 'v1alpha1', namespace: 'wardle', plural: 'flunders' };
    const seen: string[] = [];
    const informer = k8s.makeInformer(kc, '/apis/wardle.example.com/v1alpha1/namespaces/wardle/flunders', () => api.listNamespacedCustomObject(gvr) as never);
    informer.on('add', (o: k8s.KubernetesObject) => seen.push(o.metadata?.name ?? ''));
    await informer.start();
    try {
      const created = (await api.createNamespacedCustomObject({ ...gvr, body: { apiVersion: 'wardle.example.com/v1alpha1', kind: 'Flunder', metadata: { name: 'from-node' } } })) as { metadata: { annotations: Record<string, string> } };
      assert.equal(created.metadata.annotations['wardle.example.com/created-by'], 'capstan-admin');
      const got = (await api.getNamespacedCustomObject({ ...gvr, name: 'from-node' })) as { kind: string };
      assert.equal(got.kind, 'Flunder');
      const list = (await api.listNamespacedCustomObject(gvr)) as { items: { metadata: { name: string } }[] };
      assert.ok(list.items.some((i) => i.metadata.name === 'from-node'));
      for (let i = 0; i < 200 && !seen.includes('from-node'); i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(seen.includes('from-node'), seen.join(','));
    } finally {
      await informer.stop();
    }
  });

  test('the backend\'s certificate is verified against the caBundle: another CA gets 503 with the x509 error', async () => {
    const path = '/apis/wardle.example.com/v1alpha1/namespaces/wardle/flunders';
    await server.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(apiService(backend.port, Buffer.from(server.caCert).toString('base64'))) });
    let r = await server.adminRequest(path);
    for (let i = 0; i < 50 && r.status === 200; i++) {
      await new Promise((res) => setTimeout(res, 50));
      r = await server.adminRequest(path);
    }
    assert.equal(r.status, 503);
    assert.equal(r.body, 'tls: failed to verify certificate: x509: certificate signed by unknown authority\n');
    await server.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(apiService(backend.port, backend.caBundle)) });
    for (let i = 0; i < 50 && r.status !== 200; i++) {
      await new Promise((res) => setTimeout(res, 50));
      r = await server.adminRequest(path);
    }
    assert.equal(r.status, 200);
  });

  test('an APIService whose Service is missing is not Available and its requests get 503 service unavailable', async () => {
    await server.kubectlOk(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: 'v1.nowhere.example.com' },
        spec: { group: 'nowhere.example.com', version: 'v1', service: { namespace: 'wardle', name: 'nope' }, insecureSkipTLSVerify: true, groupPriorityMinimum: 100, versionPriority: 10 },
      }),
    });
    await server.kubectlOk(['wait', '--for=condition=Available=False', 'apiservice/v1.nowhere.example.com', '--timeout=20s']);
    const obj = JSON.parse(await server.kubectlOk(['get', 'apiservice', 'v1.nowhere.example.com', '-o', 'json'])) as { spec: { service: { port: number } }; status: { conditions: Record<string, string>[] } };
    assert.equal(obj.spec.service.port, 443);
    const c = obj.status.conditions.find((x) => x.type === 'Available')!;
    assert.deepEqual([c.status, c.reason, c.message], ['False', 'ServiceNotFound', 'service/nope in "wardle" is not present']);
    const r = await server.adminRequest('/apis/nowhere.example.com/v1/things');
    assert.equal(r.status, 503);
    assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(r.body, 'service unavailable\n');
    // Discovery lists the group; its version has no resources and is marked Stale, as kube's discovery does.
    const aggregated = JSON.parse((await server.adminRequest('/apis', { headers: { accept: AGGREGATED_ACCEPT } })).body) as { items: { metadata: { name: string }; versions: unknown[] }[] };
    assert.deepEqual(aggregated.items.find((i) => i.metadata.name === 'nowhere.example.com')?.versions, [{ version: 'v1', resources: [], freshness: 'Stale' }]);
    await server.kubectlOk(['delete', 'apiservice', 'v1.nowhere.example.com']);
  });

  test('a local APIService (no service) is Available with reason Local', async () => {
    await server.kubectlOk(['apply', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.apps' }, spec: { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 } }),
    });
    await server.kubectlOk(['wait', '--for=condition=Available', 'apiservice/v1.apps', '--timeout=20s']);
    const c = (JSON.parse(await server.kubectlOk(['get', 'apiservice', 'v1.apps', '-o', 'json'])) as { status: { conditions: Record<string, string>[] } }).status.conditions[0]!;
    assert.deepEqual([c.type, c.status, c.reason, c.message], ['Available', 'True', 'Local', 'Local APIServices are always available']);
    assert.equal(await server.kubectlOk(['get', 'deployments', '-n', 'wardle', '-o', 'name']), '', 'apps/v1 stays served locally');
  });

  test('when the backend goes away: 503 with the connection error, then not Available (FailedDiscoveryCheck), then gone with its APIService', async () => {
    await backend.close();
    const r = await server.adminRequest('/apis/wardle.example.com/v1alpha1/namespaces/wardle/flunders');
    assert.equal(r.status, 503);
    // The dial error; or, when a periodic availability check saw the backend gone first, kube's answer for an
    // APIService that is not Available.
    assert.match(r.body, /^(dial tcp (127\.0\.0\.1|\[::1\]):\d+: connect: connection refused|service unavailable)\n$/);
    await server.kubectlOk(['wait', '--for=condition=Available=False', `apiservice/${API_SERVICE}`, '--timeout=20s']);
    const c = (JSON.parse(await server.kubectlOk(['get', 'apiservice', API_SERVICE, '-o', 'json'])) as { status: { conditions: Record<string, string>[] } }).status.conditions[0]!;
    assert.equal(c.reason, 'FailedDiscoveryCheck');
    assert.match(c.message!, /^failing or missing response from https:\/\/localhost:\d+\/apis\/wardle\.example\.com\/v1alpha1: Get "https:\/\/localhost:\d+\/apis\/wardle\.example\.com\/v1alpha1": dial tcp (127\.0\.0\.1|\[::1\]):\d+: connect: connection refused$/);
    const unavailable = await server.adminRequest('/apis/wardle.example.com/v1alpha1/namespaces/wardle/flunders');
    assert.equal(unavailable.status, 503);
    assert.equal(unavailable.body, 'service unavailable\n');
    // Other resources are unaffected.
    assert.equal((await server.kubectl(['get', 'namespace', 'wardle', '-o', 'name'])).stdout, 'namespace/wardle\n');
    await server.kubectlOk(['delete', 'apiservice', API_SERVICE]);
    for (let i = 0; i < 50; i++) {
      if ((await server.adminRequest('/apis/wardle.example.com')).status === 404) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    assert.equal((await server.adminRequest('/apis/wardle.example.com')).status, 404);
    const groups = JSON.parse((await server.adminRequest('/apis')).body) as { groups: { name: string }[] };
    assert.ok(!groups.groups.some((g) => g.name === 'wardle.example.com'));
  });
});
