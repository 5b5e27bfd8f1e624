// Discovery and OpenAPI against a real Capstan: what kubectl and client-go read before anything else.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const KUBECTL_ACCEPT = `${AGGREGATED},application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json`;

describe('discovery and OpenAPI', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const ok = (args: string[]) => s.kubectlOk(args);

  test('aggregated discovery: content type, ETag and 304', async () => {
    const r = await s.adminRequest('/apis', { headers: { Accept: KUBECTL_ACCEPT } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], AGGREGATED);
    const etag = String(r.headers['etag']);
    assert.match(etag, /^"[0-9A-F]{128}"$/);
    const doc = JSON.parse(r.body) as { items: { metadata: { name: string } }[] };
    assert.equal(doc.items[0].metadata.name, 'apiregistration.k8s.io');
    assert.ok(doc.items.some((i) => i.metadata.name === 'apps'));
    const again = await s.adminRequest('/apis', { headers: { Accept: KUBECTL_ACCEPT, 'If-None-Match': etag } });
    assert.equal(again.status, 304);
  });

  test('legacy discovery: /api, /api/v1 and /apis/apps', async () => {
    const api = JSON.parse((await s.adminRequest('/api')).body) as { kind: string; serverAddressByClientCIDRs: { serverAddress: string }[] };
    assert.equal(api.kind, 'APIVersions');
    assert.equal(api.serverAddressByClientCIDRs[0].serverAddress, `127.0.0.1:${s.port}`);
    const core = JSON.parse((await s.adminRequest('/api/v1')).body) as { resources: Record<string, unknown>[] };
    assert.deepEqual(core.resources.find((r) => r.name === 'configmaps'), {
      name: 'configmaps',
      singularName: 'configmap',
      namespaced: true,
      kind: 'ConfigMap',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['cm'],
      storageVersionHash: 'qFsyl6wFWjQ=',
    });
    const apps = JSON.parse((await s.adminRequest('/apis/apps')).body) as { preferredVersion: { groupVersion: string } };
    assert.equal(apps.preferredVersion.groupVersion, 'apps/v1');
  });

  test('kubectl api-versions and api-resources for a group', async () => {
    const versions = (await ok(['api-versions'])).trim().split('\n');
    assert.ok(versions.includes('v1') && versions.includes('apps/v1') && versions.includes('autoscaling/v2'));
    const wide = await ok(['api-resources', '-o', 'wide', '--api-group=autoscaling']);
    assert.match(wide, /horizontalpodautoscalers\s+hpa\s+autoscaling\/v2\s+true\s+HorizontalPodAutoscaler\s+create,delete,deletecollection,get,list,patch,update,watch\s+all/);
  });

  test('kubectl explain over OpenAPI v2 (protobuf) and v3', async () => {
    const v2 = await ok(['explain', 'deployment.spec.strategy', '--output', 'plaintext-openapiv2']);
    assert.match(v2, /RESOURCE: strategy <Object>/);
    assert.match(v2, /rollingUpdate\s+<Object>/);
    const v3 = await ok(['explain', 'pods.spec.containers.ports']);
    assert.match(v3, /containerPort\s+<integer> -required-/);
  });

  test('OpenAPI v3: the index points at immutable hash-addressed documents', async () => {
    const index = JSON.parse((await s.adminRequest('/openapi/v3')).body) as { paths: Record<string, { serverRelativeURL: string }> };
    const url = index.paths['apis/apps/v1'].serverRelativeURL;
    const doc = await s.adminRequest(url);
    assert.equal(doc.status, 200);
    assert.equal(doc.headers['cache-control'], 'public, immutable');
    const stale = await s.adminRequest('/openapi/v3/apis/apps/v1?hash=00');
    assert.equal(stale.status, 301);
    assert.equal(stale.headers['location'], url);
  });
});
