// The official Kubernetes Python client (Debian's python3-kubernetes, which .ci/run installs) against Capstan:
// python-client.py reads /version/, lists, creates, patches, watches, scales, installs a CRD and its custom
// resources, discovers with the dynamic client and deletes, and prints what it saw; this test compares it exactly.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCommand, startTestServer, type TestServer } from './helpers.ts';

/** Debian's interpreter: the package installs the client for it, not for other Pythons on PATH. */
const PYTHON = '/usr/bin/python3';

let s: TestServer;
before(async () => {
  s = await startTestServer({ storageBackend: 'sqlite' });
});
after(async () => s?.close());

test('the Python client reads, writes, watches and discovers as against kube-apiserver', async () => {
  const kubeconfig = await s.writeKubeconfig('python', { clientCert: s.clientCert, clientKey: s.clientKey });
  const r = await runCommand(PYTHON, [join(import.meta.dirname, 'python-client.py'), kubeconfig], { timeoutMs: 60_000, env: process.env });
  assert.equal(r.code, 0, `python-client.py failed (is python3-kubernetes installed for ${PYTHON}?): ${r.stderr}`);
  assert.deepEqual(JSON.parse(r.stdout), {
    version: 'v1.31.0',
    namespaces: ['default', 'kube-node-lease', 'kube-public', 'kube-system'],
    created: ['py', { k: 'v' }, true, 36],
    patched: { k: 'v2' },
    duplicate: [409, 'AlreadyExists', 'configmaps "py" already exists'],
    absent: [404, 'NotFound'],
    watch: [['ADDED', 'py-2']],
    deployment: [1, 'RollingUpdate', 'Always'],
    scaled: 3,
    invalid_gizmo: [422, 'Invalid', 'Gizmo.py.example.com "g2" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1'],
    gizmos: [['g1', 2]],
    dynamic_gizmos: ['g1'],
    dynamic_configmaps: ['py', 'py-2'],
    deleted: 'Success',
    remaining: ['py-2'],
  });
});
