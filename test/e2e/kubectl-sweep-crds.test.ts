// kubectl workflows around CRDs and Secrets checked against what kube-apiserver 1.31 answers: a CRD schema's own
// descriptions are published in OpenAPI (so `kubectl explain` shows them), a dockerconfigjson Secret with malformed
// JSON is refused with encoding/json's own syntax error, and a scale path holding the wrong type is reported with
// unstructured's accessor error (the value printed as Go's %v prints it).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
  await s.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(widgetCrd) });
  await s.kubectlOk(['wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=10s']);
});
after(async () => s?.close());

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: 'A widget.',
            properties: {
              spec: {
                type: 'object',
                description: 'What the widget should be.',
                properties: { size: { type: 'integer', description: 'How big it is.' }, replicas: { type: 'integer' } },
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
};

test('kubectl explain shows the descriptions a CRD schema carries', async () => {
  const explain = await s.kubectlOk(['explain', 'widgets.spec']);
  assert.match(explain, /^FIELD: spec <Object>\n\n\nDESCRIPTION:\n    What the widget should be\.\n/m);
  assert.match(explain, /^  size\t<integer>\n    How big it is\.\n/m);
  assert.match(await s.kubectlOk(['explain', 'widgets']), /^DESCRIPTION:\n    A widget\.\n/m);
  const published = JSON.parse(await s.kubectlOk(['get', '--raw', '/openapi/v3/apis/example.com/v1']));
  const widget = published.components.schemas['com.example.v1.Widget'];
  assert.equal(widget.description, 'A widget.');
  assert.equal(widget.properties.spec.properties.size.description, 'How big it is.');
});

test('a scale path holding the wrong type is reported as unstructured accessors report it', async () => {
  await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } }) });
  const r = await s.kubectl(['patch', 'wd', 'w', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":"x"}}']);
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr,
    'The Widget "w" is invalid: \n' +
      '* status.replicas: Invalid value: "string": status.replicas in body must be of type integer: "string"\n' +
      '* status.replicas: Invalid value: 0: .status.replicas accessor error: x is of the type string, expected int64\n',
  );
});

test('a dockerconfigjson Secret must hold a JSON object: encoding/json errors verbatim', async () => {
  const create = (name: string, value: string) =>
    s.kubectl(['create', 'secret', 'generic', name, '--type=kubernetes.io/dockerconfigjson', `--from-literal=.dockerconfigjson=${value}`]);
  const prefix = (name: string) => `error: failed to create secret Secret "${name}" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": `;
  const cases: [string, string, string][] = [
    ['literal', 'notjson', "invalid character 'o' in literal null (expecting 'u')"],
    ['trailing', '{"auths":{},}', "invalid character '}' looking for beginning of object key string"],
    ['array', '[1]', 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['truncated', '{"auths":', 'unexpected end of JSON input'],
  ];
  for (const [name, value, message] of cases) {
    const r = await create(name, value);
    assert.equal(r.code, 1, name);
    assert.equal(r.stderr, `${prefix(name)}${message}\n`);
  }
  const missing = await s.kubectl(['create', 'secret', 'generic', 'missing', '--type=kubernetes.io/dockerconfigjson', '--from-literal=x=y']);
  assert.equal(missing.stderr, 'error: failed to create secret Secret "missing" is invalid: data[.dockerconfigjson]: Required value\n');
  assert.equal(await s.kubectlOk(['create', 'secret', 'docker-registry', 'ok', '--docker-server=r.io', '--docker-username=u', '--docker-password=p', '-o', 'jsonpath={.type}']), 'kubernetes.io/dockerconfigjson');
});
