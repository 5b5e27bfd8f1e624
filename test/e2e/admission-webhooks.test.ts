// Admission webhooks end to end: MutatingWebhookConfiguration and ValidatingWebhookConfiguration served by a test
// HTTPS server on loopback with its own CA, called for creates, updates, subresources and deletes, with selectors,
// matchConditions, timeouts under both failure policies, dry run, reinvocation, warnings and bad answers.
// kubectl and @kubernetes/client-node are the clients.

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestServer, type TestServer } from './helpers.ts';
import { patchOf, startWebhookServer, type WebhookServer } from './admission-webhook-server.ts';

const json = (o: unknown): string => JSON.stringify(o);

describe('admission webhooks', () => {
  let s: TestServer;
  let hooks: WebhookServer;
  let core: k8s.CoreV1Api;

  before(async () => {
    s = await startTestServer();
    hooks = await startWebhookServer(['hooks.webhooks.svc']);
    const kc = new k8s.KubeConfig();
    kc.loadFromString(s.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    await s.kubectlOk(['create', 'namespace', 'webhooks']);
    await s.kubectlOk(['create', 'namespace', 'watched']);
    await s.kubectlOk(['label', 'namespace', 'watched', 'admission=on']);
    // The webhook "in the cluster": an ExternalName Service naming localhost (kube's service resolver dials
    // <externalName>:<the reference's port>), with a serving certificate for hooks.webhooks.svc.
    await s.kubectlOk(['create', '-f', '-'], {
      input: json({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'hooks', namespace: 'webhooks' }, spec: { type: 'ExternalName', externalName: 'localhost' } }),
    });
  });
  after(async () => {
    await s?.close();
    await hooks?.close();
  });
  beforeEach(async () => {
    hooks.received.length = 0;
    await s.kubectl(['delete', 'mutatingwebhookconfigurations,validatingwebhookconfigurations', '--all']);
  });

  const rule = (resources: string[], operations = ['CREATE', 'UPDATE']) => ({ apiGroups: ['*'], apiVersions: ['*'], resources, operations });

  test('configurations get the v1 defaults and kube validation', async () => {
    const bad = await s.kubectl(['create', '-f', '-'], {
      input: json({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'bad' },
        webhooks: [
          { name: 'a.example.com', clientConfig: { url: 'https://127.0.0.1:1/x' } },
          { name: 'a.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 31, clientConfig: { url: 'http://127.0.0.1:1/x' } },
        ],
      }),
    });
    assert.equal(bad.code, 1);
    assert.equal(
      bad.stderr.trim(),
      'The ValidatingWebhookConfiguration "bad" is invalid: \n' +
        '* webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun\n' +
        '* webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1\n' +
        '* webhooks[1].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds\n' +
        '* webhooks[1].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]\n' +
        '* webhooks[1].name: Duplicate value: "a.example.com"',
    );
    await s.kubectlOk(['create', '-f', '-'], {
      input: json({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: 'defaults' },
        webhooks: [{ name: 'd.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { service: { name: 'hooks', namespace: 'webhooks' } }, rules: [rule(['nothing'])] }],
      }),
    });
    const got = JSON.parse(await s.kubectlOk(['get', 'mutatingwebhookconfiguration', 'defaults', '-o', 'json']));
    const w = got.webhooks[0];
    assert.deepEqual(
      { failurePolicy: w.failurePolicy, matchPolicy: w.matchPolicy, timeoutSeconds: w.timeoutSeconds, reinvocationPolicy: w.reinvocationPolicy, ns: w.namespaceSelector, os: w.objectSelector, port: w.clientConfig.service.port, scope: w.rules[0].scope },
      { failurePolicy: 'Fail', matchPolicy: 'Equivalent', timeoutSeconds: 10, reinvocationPolicy: 'Never', ns: {}, os: {}, port: 443, scope: '*' },
    );
  });

  test('a mutating webhook behind a Service and a validating one by URL, with selectors and matchConditions', async () => {
    hooks.handle('/mutate', (req) => {
      const labels = req.object.metadata.labels ?? {};
      return { response: { allowed: true, warnings: ['mutated by test'], ...patchOf([{ op: 'add', path: '/metadata/labels', value: { ...labels, mutated: 'yes' } }]) } };
    });
    hooks.handle('/validate', (req) => {
      if (req.object?.data?.forbidden) return { response: { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'forbidden key' } } };
      return { response: { allowed: true } };
    });
    await s.kubectlOk(['create', '-f', '-'], {
      input: json({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: 'MutatingWebhookConfiguration',
            metadata: { name: 'mutate' },
            webhooks: [
              {
                name: 'mutate.example.com',
                sideEffects: 'None',
                admissionReviewVersions: ['v1'],
                clientConfig: { service: { name: 'hooks', namespace: 'webhooks', path: '/mutate', port: hooks.port }, caBundle: hooks.caBundle },
                rules: [rule(['configmaps'])],
                namespaceSelector: { matchLabels: { admission: 'on' } },
                objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
                matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:serviceaccount:')" }],
              },
            ],
          },
          {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: 'ValidatingWebhookConfiguration',
            metadata: { name: 'validate' },
            webhooks: [
              {
                name: 'validate.example.com',
                sideEffects: 'None',
                admissionReviewVersions: ['v1'],
                clientConfig: { url: hooks.url('/validate'), caBundle: hooks.caBundle },
                rules: [rule(['configmaps'], ['*'])],
                matchConditions: [{ name: 'only-data', expression: "request.operation == 'DELETE' || has(object.data)" }],
              },
            ],
          },
        ],
      }),
    });

    // Create in the selected namespace: mutated (label added), warning passed on.
    const created = await s.kubectl(['create', 'configmap', 'one', '-n', 'watched', '--from-literal=a=1']);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stderr, /Warning: mutated by test/);
    const one = JSON.parse(await s.kubectlOk(['get', 'configmap', 'one', '-n', 'watched', '-o', 'json']));
    assert.equal(one.metadata.labels.mutated, 'yes');
    const mutateReq = hooks.received.find((r) => r.path === '/mutate')!.review;
    assert.equal(mutateReq.apiVersion, 'admission.k8s.io/v1');
    assert.deepEqual(
      { kind: mutateReq.request.kind, resource: mutateReq.request.resource, operation: mutateReq.request.operation, namespace: mutateReq.request.namespace, name: mutateReq.request.name, dryRun: mutateReq.request.dryRun, user: mutateReq.request.userInfo.username, old: mutateReq.request.oldObject },
      { kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' }, operation: 'CREATE', namespace: 'watched', name: 'one', dryRun: false, user: 'capstan-admin', old: null },
    );
    assert.equal(mutateReq.request.options.kind, 'CreateOptions');

    // Not in a selected namespace, or excluded by the object selector: not mutated.
    hooks.received.length = 0;
    await s.kubectlOk(['create', 'configmap', 'two', '-n', 'default', '--from-literal=a=1']);
    await s.kubectlOk(['create', '-n', 'watched', '-f', '-'], { input: json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'three', labels: { skip: 'y' } }, data: { a: '1' } }) });
    assert.equal(hooks.received.filter((r) => r.path === '/mutate').length, 0);
    assert.equal(JSON.parse(await s.kubectlOk(['get', 'configmap', 'two', '-o', 'json'])).metadata.labels, undefined);

    // matchConditions: a ConfigMap without data is not sent to the validating webhook.
    hooks.received.length = 0;
    await s.kubectlOk(['create', 'configmap', 'empty']);
    assert.equal(hooks.received.filter((r) => r.path === '/validate').length, 0);

    // The validating webhook refuses a create (client-node) and an update (kubectl); nothing changes.
    await assert.rejects(
      core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'refused' }, data: { forbidden: 'x' } } }),
      (e: { code?: number; body?: string }) => {
        assert.equal(e.code, 403);
        const status = JSON.parse(e.body!);
        assert.equal(status.message, 'admission webhook "validate.example.com" denied the request: forbidden key');
        assert.equal(status.reason, 'Forbidden');
        return true;
      },
    );
    assert.equal((await s.kubectl(['get', 'configmap', 'refused'])).code, 1);
    const upd = await s.kubectl(['patch', 'configmap', 'two', '--type=merge', '-p', '{"data":{"forbidden":"y"}}']);
    assert.equal(upd.code, 1);
    assert.equal(upd.stderr.trim(), 'Error from server (Forbidden): admission webhook "validate.example.com" denied the request: forbidden key');
    const upReq = hooks.received.filter((r) => r.path === '/validate').at(-1)!.review.request;
    assert.equal(upReq.operation, 'UPDATE');
    assert.equal(upReq.oldObject.data.forbidden, undefined);
    assert.equal(upReq.object.data.forbidden, 'y');
    assert.equal(JSON.parse(await s.kubectlOk(['get', 'configmap', 'two', '-o', 'json'])).data.forbidden, undefined);

    // Delete: the validating webhook gets the old object.
    hooks.handle('/validate', (req) => (req.operation === 'DELETE' && req.oldObject?.metadata?.name === 'two' ? { response: { allowed: false, status: { message: 'keep two' } } } : { response: { allowed: true } }));
    const del = await s.kubectl(['delete', 'configmap', 'two']);
    assert.equal(del.code, 1);
    assert.equal(del.stderr.trim(), 'Error from server: admission webhook "validate.example.com" denied the request: keep two');
    await s.kubectlOk(['get', 'configmap', 'two']);
    await s.kubectlOk(['delete', 'configmap', 'empty']);
    const delReq = hooks.received.filter((r) => r.path === '/validate').at(-1)!.review.request;
    assert.deepEqual({ op: delReq.operation, name: delReq.name, object: delReq.object, old: delReq.oldObject.metadata.name, opts: delReq.options.kind }, { op: 'DELETE', name: 'empty', object: null, old: 'empty', opts: 'DeleteOptions' });
  });

  test('subresources: scale and status reach webhooks that name them', async () => {
    hooks.handle('/scale', (req) => (req.object.spec.replicas > 3 ? { response: { allowed: false, status: { code: 422, reason: 'Invalid', message: 'at most 3 replicas' } } } : { response: { allowed: true } }));
    await s.kubectlOk(['create', '-f', '-'], {
      input: json({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'scale' },
        webhooks: [{ name: 'scale.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: hooks.url('/scale'), caBundle: hooks.caBundle }, rules: [rule(['deployments/scale'], ['UPDATE'])] }],
      }),
    });
    await s.kubectlOk(['create', 'deployment', 'web', '--image=nginx', '--replicas=1']);
    await s.kubectlOk(['scale', 'deployment', 'web', '--replicas=2']);
    const req = hooks.received.find((r) => r.path === '/scale')!.review.request;
    assert.deepEqual(
      { kind: req.kind, resource: req.resource, subResource: req.subResource, replicas: req.object.spec.replicas, old: req.oldObject.spec.replicas },
      { kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, resource: { group: 'apps', version: 'v1', resource: 'deployments' }, subResource: 'scale', replicas: 2, old: 1 },
    );
    const refused = await s.kubectl(['scale', 'deployment', 'web', '--replicas=5']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /admission webhook "scale\.example\.com" denied the request: at most 3 replicas/);
    assert.equal(JSON.parse(await s.kubectlOk(['get', 'deployment', 'web', '-o', 'json'])).spec.replicas, 2);
    // A status write is not a scale write: the webhook is not called for it.
    hooks.received.length = 0;
    await s.kubectlOk(['patch', 'deployment', 'web', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":2}}']);
    assert.equal(hooks.received.length, 0);
  });

  test('matchPolicy Equivalent: a rule naming autoscaling/v1 sees an autoscaling/v2 create, converted; Exact does not', async () => {
    const config = (matchPolicy: string) =>
      json({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'hpa' },
        webhooks: [{ name: 'hpa.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'], matchPolicy, clientConfig: { url: hooks.url('/hpa'), caBundle: hooks.caBundle }, rules: [{ apiGroups: ['autoscaling'], apiVersions: ['v1'], resources: ['horizontalpodautoscalers'], operations: ['CREATE'] }] }],
      });
    const hpa = (name: string) =>
      json({
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name },
        spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
      });
    await s.kubectlOk(['create', '-f', '-'], { input: config('Equivalent') });
    await s.kubectlOk(['create', '-f', '-'], { input: hpa('h1') });
    const req = hooks.received.find((r) => r.path === '/hpa')!.review.request;
    assert.deepEqual(
      { kind: req.kind, resource: req.resource, requestKind: req.requestKind, requestResource: req.requestResource, apiVersion: req.object.apiVersion, target: req.object.spec.targetCPUUtilizationPercentage },
      {
        kind: { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' },
        resource: { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' },
        requestKind: { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' },
        requestResource: { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' },
        apiVersion: 'autoscaling/v1',
        target: 50,
      },
    );
    hooks.received.length = 0;
    await s.kubectlOk(['apply', '-f', '-'], { input: config('Exact') });
    await s.kubectlOk(['create', '-f', '-'], { input: hpa('h2') });
    assert.equal(hooks.received.length, 0);
  });

  test('a webhook that times out: Fail refuses, Ignore lets the request through', async () => {
    hooks.handle('/slow', () => ({ response: { allowed: true }, delayMs: 3000 }));
    const config = (policy: string) =>
      json({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'slow' },
        webhooks: [{ name: 'slow.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 1, failurePolicy: policy, clientConfig: { url: hooks.url('/slow'), caBundle: hooks.caBundle }, rules: [rule(['secrets'])] }],
      });
    await s.kubectlOk(['create', '-f', '-'], { input: config('Fail') });
    const failed = await s.kubectl(['create', 'secret', 'generic', 'slow1', '--from-literal=a=b']);
    assert.equal(failed.code, 1);
    assert.equal(
      failed.stderr.trim(),
      `error: failed to create secret Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "https://127.0.0.1:${hooks.port}/slow?timeout=1s": context deadline exceeded`,
    );
    assert.equal((await s.kubectl(['get', 'secret', 'slow1'])).code, 1);
    await s.kubectlOk(['apply', '-f', '-'], { input: config('Ignore') });
    await s.kubectlOk(['create', 'secret', 'generic', 'slow2', '--from-literal=a=b']);
    await s.kubectlOk(['get', 'secret', 'slow2']);
  });

  test('dry run reaches a NoneOnDryRun webhook with dryRun set and stores nothing', async () => {
    hooks.handle('/side', () => ({ response: { allowed: true, ...patchOf([{ op: 'add', path: '/metadata/annotations', value: { seen: 'dry' } }]) } }));
    await s.kubectlOk(['create', '-f', '-'], {
      input: json({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: 'side' },
        webhooks: [{ name: 'side.example.com', sideEffects: 'NoneOnDryRun', admissionReviewVersions: ['v1'], clientConfig: { url: hooks.url('/side'), caBundle: hooks.caBundle }, rules: [rule(['serviceaccounts'])] }],
      }),
    });
    const out = JSON.parse(await s.kubectlOk(['create', 'serviceaccount', 'dry', '--dry-run=server', '-o', 'json']));
    assert.equal(out.metadata.annotations.seen, 'dry');
    assert.equal(hooks.received.at(-1)!.review.request.dryRun, true);
    assert.deepEqual(hooks.received.at(-1)!.review.request.options.dryRun, ['All']);
    assert.equal((await s.kubectl(['get', 'serviceaccount', 'dry'])).code, 1);
  });

  test('reinvocationPolicy IfNeeded calls a webhook again after a later one changed the object', async () => {
    hooks.handle('/first', (req) => ({ response: { allowed: true, ...patchOf([{ op: 'add', path: '/metadata/annotations', value: { ...(req.object.metadata.annotations ?? {}), first: String(Object.keys(req.object.metadata.labels ?? {}).length) } }]) } }));
    hooks.handle('/second', (req) => ({ response: { allowed: true, ...patchOf([{ op: 'add', path: '/metadata/labels', value: { ...(req.object.metadata.labels ?? {}), second: 'yes' } }]) } }));
    const hook = (name: string, path: string, extra: object) => ({ name, sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: hooks.url(path), caBundle: hooks.caBundle }, rules: [rule(['podtemplates'])], ...extra });
    await s.kubectlOk(['create', '-f', '-'], {
      input: json({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'a-first' }, webhooks: [hook('first.example.com', '/first', { reinvocationPolicy: 'IfNeeded' }), hook('second.example.com', '/second', {})] }),
    });
    await s.kubectlOk(['create', '-f', '-'], { input: json({ apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'tpl' }, template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } }) });
    assert.deepEqual(hooks.received.map((r) => r.path), ['/first', '/second', '/first']);
    const tpl = JSON.parse(await s.kubectlOk(['get', 'podtemplate', 'tpl', '-o', 'json']));
    assert.equal(tpl.metadata.annotations.first, '1');
    assert.equal(tpl.metadata.labels.second, 'yes');
  });

  test('bad answers: garbage, a wrong uid, a patch breaking the schema; kube errors, nothing stored, server up', async () => {
    const hook = (name: string, path: string) => ({ name, sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: hooks.url(path), caBundle: hooks.caBundle }, rules: [rule(['configmaps'])], objectSelector: { matchLabels: { bad: path.slice(1) } } });
    hooks.handle('/garbage', () => ({ raw: 'garbage' }));
    hooks.handle('/uid', () => ({ raw: json({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'not-the-uid', allowed: true } }) }));
    hooks.handle('/schema', () => ({ response: { allowed: true, ...patchOf([{ op: 'add', path: '/data', value: 42 }]) } }));
    await s.kubectlOk(['create', '-f', '-'], {
      input: json({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'bad' }, webhooks: [hook('garbage.example.com', '/garbage'), hook('uid.example.com', '/uid'), hook('schema.example.com', '/schema')] }),
    });
    const create = (label: string) => s.kubectl(['create', '-f', '-'], { input: json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `bad-${label}`, labels: { bad: label } }, data: { a: '1' } }) });
    const garbage = await create('garbage');
    assert.equal(
      garbage.stderr.trim(),
      'Error from server (InternalError): error when creating "STDIN": Internal error occurred: failed calling webhook "garbage.example.com": failed to call webhook: couldn\'t get version/kind; json parse error: invalid character \'g\' looking for beginning of value',
    );
    const uid = await create('uid');
    assert.match(uid.stderr, /Internal error occurred: failed calling webhook "uid\.example\.com": received invalid webhook response: expected response\.uid="[0-9a-f-]{36}", got "not-the-uid"$/m);
    const schema = await create('schema');
    assert.equal(
      schema.stderr.trim(),
      'Error from server (InternalError): error when creating "STDIN": Internal error occurred: json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string',
    );
    for (const n of ['garbage', 'uid', 'schema']) assert.equal((await s.kubectl(['get', 'configmap', `bad-${n}`])).code, 1);
    assert.equal((await s.adminRequest('/readyz')).status, 200);
  });

  test('answers encoding/json refuses, as kube words them: mistyped fields, int32 overflow, bad base64, a patch that is not JSON, an empty or null body; a refusal code Go cannot write', async () => {
    const answers: Record<string, Parameters<WebhookServer['handle']>[1]> = {
      allowed: () => ({ response: { allowed: 'yes' } }),
      code: () => ({ response: { allowed: false, status: { code: 10_000_000_000, message: 'no' } } }),
      cause: () => ({ response: { allowed: false, status: { code: 403, details: { causes: [{ field: 7 }] } } } }),
      base64: () => ({ response: { allowed: true, patchType: 'JSONPatch', patch: 'garbage' } }),
      notjson: () => ({ response: { allowed: true, patchType: 'JSONPatch', patch: Buffer.from('garbage').toString('base64') } }),
      notops: () => ({ response: { allowed: true, patchType: 'JSONPatch', patch: Buffer.from('[5]').toString('base64') } }),
      nullpatch: () => ({ response: { allowed: true, patchType: 'JSONPatch', patch: Buffer.from('null').toString('base64') } }),
      empty: () => ({ raw: '' }),
      null: () => ({ raw: 'null' }),
      bigcode: () => ({ response: { allowed: false, status: { code: 2_000_000_000, message: 'no' } } }),
    };
    const hook = (name: string) => ({ name: `${name}.example.com`, sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: hooks.url(`/json-${name}`), caBundle: hooks.caBundle }, rules: [rule(['configmaps'])], objectSelector: { matchLabels: { json: name } } });
    for (const [name, answer] of Object.entries(answers)) hooks.handle(`/json-${name}`, answer);
    await s.kubectlOk(['create', '-f', '-'], { input: json({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'json' }, webhooks: Object.keys(answers).map(hook) }) });
    const create = async (name: string) => {
      const r = await s.adminRequest('/api/v1/namespaces/webhooks/configmaps', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: json({ metadata: { name: `json-${name}`, labels: { json: name } } }) });
      return r.status === 201 || r.headers['content-type'] !== 'application/json' ? `${r.status} ${r.body}` : `${r.status} ${(JSON.parse(r.body) as { message: string }).message}`;
    };
    const failed = (name: string, reason: string) => `500 Internal error occurred: failed calling webhook "${name}.example.com": ${reason}`;
    assert.equal(await create('allowed'), failed('allowed', 'failed to call webhook: json: cannot unmarshal string into Go struct field AdmissionResponse.response.allowed of type bool'));
    assert.equal(await create('code'), failed('code', 'failed to call webhook: json: cannot unmarshal number 10000000000 into Go struct field Status.response.status.code of type int32'));
    assert.equal(await create('cause'), failed('cause', 'failed to call webhook: json: cannot unmarshal number into Go struct field StatusCause.response.status.details.causes.field of type string'));
    assert.equal(await create('base64'), failed('base64', 'failed to call webhook: illegal base64 data at input byte 4'));
    assert.equal(await create('notjson'), "500 Internal error occurred: invalid character 'g' looking for beginning of value");
    assert.equal(await create('notops'), '500 Internal error occurred: json: cannot unmarshal number into Go value of type jsonpatch.Operation');
    assert.equal(await create('empty'), failed('empty', 'failed to call webhook: 0-length response with status code: 200 and content type: application/json'));
    assert.equal(await create('null'), failed('null', 'received invalid webhook response: webhook response was absent'));
    // Go's WriteHeader refuses a code past 999: the handler panics, and the request gets the panic answer.
    assert.equal(await create('bigcode'), '500 This request caused apiserver to panic. Look in the logs for details.\n');
    assert.match(await create('nullpatch'), /^201 /);
    for (const n of Object.keys(answers).filter((n) => n !== 'nullpatch')) assert.equal((await s.kubectl(['get', 'configmap', `json-${n}`, '-n', 'webhooks'])).code, 1);
    assert.equal((await s.adminRequest('/readyz')).status, 200);
  });
});
