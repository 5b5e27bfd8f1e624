import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { clientHost, renderKubeconfig, serverUrl } from './kubeconfig.ts';

test('the kubeconfig is valid YAML with one cluster, user and context named capstan', () => {
  const text = renderKubeconfig({ server: 'https://127.0.0.1:6443', caPem: 'CA\n', clientCertPem: 'CERT\n', clientKeyPem: 'KEY\n' });
  assert.deepEqual(parse(text), {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'capstan', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': Buffer.from('CA\n').toString('base64') } }],
    contexts: [{ name: 'capstan', context: { cluster: 'capstan', user: 'capstan' } }],
    'current-context': 'capstan',
    preferences: {},
    users: [{ name: 'capstan', user: { 'client-certificate-data': Buffer.from('CERT\n').toString('base64'), 'client-key-data': Buffer.from('KEY\n').toString('base64') } }],
  });
});

test('clients dial the bind address when it is loopback, else 127.0.0.1', () => {
  assert.equal(clientHost('127.0.0.1'), '127.0.0.1');
  assert.equal(clientHost('127.0.0.2'), '127.0.0.2');
  assert.equal(clientHost('::1'), '[::1]');
  assert.equal(clientHost('0.0.0.0'), '127.0.0.1');
  assert.equal(clientHost('::'), '127.0.0.1');
  assert.equal(clientHost('192.0.2.10'), '127.0.0.1');
  assert.equal(serverUrl('::1', 6443), 'https://[::1]:6443');
});
