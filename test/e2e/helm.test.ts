// helm (v3.17.3, the official binary: scripts/fetch-helm.ts) against Capstan: a chart made by `helm create` is
// installed, upgraded, rolled back, dry-run on the server and uninstalled, with releases stored as helm stores them
// (Secrets of type helm.sh/release.v1); a chart's CRDs are installed before its custom resources; a chart kube
// refuses fails with kube's message; and with simulated workloads `--wait`, `--atomic`, hook Jobs and `helm test`
// settle as on a cluster.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureHelm } from '../../scripts/fetch-helm.ts';
import { runCommand, startTestServer, type CommandResult, type TestServer } from './helpers.ts';

interface Helm {
  run(args: readonly string[], timeoutMs?: number): Promise<CommandResult>;
  ok(args: readonly string[], timeoutMs?: number): Promise<string>;
  /** A chart made by `helm create` (nginx Deployment, Service, ServiceAccount, a test-connection hook pod). */
  readonly chart: string;
  readonly dir: string;
}

/** helm with its own kubeconfig (127.0.0.1) and cache, config and data homes in a scratch directory. */
async function helmFor(s: TestServer): Promise<Helm> {
  const binary = ensureHelm();
  const dir = await mkdtemp(join(tmpdir(), 'capstan-helm-'));
  const kubeconfig = await s.writeKubeconfig('helm', { clientCert: s.clientCert, clientKey: s.clientKey });
  const env = {
    ...process.env,
    KUBECONFIG: kubeconfig,
    HELM_CACHE_HOME: join(dir, 'cache'),
    HELM_CONFIG_HOME: join(dir, 'config'),
    HELM_DATA_HOME: join(dir, 'data'),
  };
  const run = (args: readonly string[], timeoutMs = 60_000): Promise<CommandResult> => runCommand(binary, args, { env, cwd: dir, timeoutMs });
  const ok = async (args: readonly string[], timeoutMs?: number): Promise<string> => {
    const r = await run(args, timeoutMs);
    if (r.code !== 0) throw new Error(`helm ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  };
  await ok(['create', 'mychart']);
  return { run, ok, chart: join(dir, 'mychart'), dir };
}

interface ReleaseSecret {
  metadata: { name: string; labels: Record<string, string> };
  type: string;
}

async function releaseSecrets(s: TestServer, namespace: string, release: string): Promise<ReleaseSecret[]> {
  const out = await s.kubectlOk(['get', 'secrets', '-n', namespace, '-l', `owner=helm,name=${release}`, '-o', 'json']);
  return (JSON.parse(out).items as ReleaseSecret[]).sort((a, b) => Number(a.metadata.labels.version) - Number(b.metadata.labels.version));
}

describe('helm', () => {
  let s: TestServer;
  let helm: Helm;
  before(async () => {
    s = await startTestServer({ storageBackend: 'sqlite' });
    helm = await helmFor(s);
  });
  after(async () => {
    await s?.close();
    if (helm) await rm(helm.dir, { recursive: true, force: true });
  });

  test('install stores the release as a Secret and creates the chart’s objects', async () => {
    const out = await helm.ok(['install', 'demo', helm.chart, '--namespace', 'default']);
    assert.match(out, /^STATUS: deployed$/m);
    assert.match(out, /^REVISION: 1$/m);
    const secrets = await releaseSecrets(s, 'default', 'demo');
    assert.deepEqual(
      secrets.map((x) => [x.metadata.name, x.type, x.metadata.labels.status, x.metadata.labels.version]),
      [['sh.helm.release.v1.demo.v1', 'helm.sh/release.v1', 'deployed', '1']],
    );
    const objects = await s.kubectlOk(['get', 'deployment,service,serviceaccount', '-l', 'app.kubernetes.io/instance=demo', '-o', 'name']);
    assert.deepEqual(objects.trim().split('\n').sort(), ['deployment.apps/demo-mychart', 'service/demo-mychart', 'serviceaccount/demo-mychart']);
    const deployment = JSON.parse(await s.kubectlOk(['get', 'deployment', 'demo-mychart', '-o', 'json']));
    assert.equal(deployment.metadata.annotations['meta.helm.sh/release-name'], 'demo');
    assert.equal(deployment.metadata.labels['app.kubernetes.io/managed-by'], 'Helm');
    assert.equal(deployment.spec.replicas, 1);
    const listed = JSON.parse(await helm.ok(['list', '--namespace', 'default', '--output', 'json']));
    assert.deepEqual(
      listed.map((r: Record<string, string>) => [r.name, r.namespace, r.revision, r.status, r.chart, r.app_version]),
      [['demo', 'default', '1', 'deployed', 'mychart-0.1.0', '1.16.0']],
    );
  });

  test('upgrade, history and rollback', async () => {
    assert.match(await helm.ok(['upgrade', 'demo', helm.chart, '--set', 'replicaCount=3']), /^REVISION: 2$/m);
    assert.equal(await s.kubectlOk(['get', 'deployment', 'demo-mychart', '-o', 'jsonpath={.spec.replicas}']), '3');
    assert.match(await helm.ok(['rollback', 'demo', '1']), /Rollback was a success! Happy Helming!/);
    assert.equal(await s.kubectlOk(['get', 'deployment', 'demo-mychart', '-o', 'jsonpath={.spec.replicas}']), '1');
    const history = JSON.parse(await helm.ok(['history', 'demo', '--output', 'json']));
    assert.deepEqual(
      history.map((h: { revision: number; status: string; description: string }) => [h.revision, h.status, h.description]),
      [
        [1, 'superseded', 'Install complete'],
        [2, 'superseded', 'Upgrade complete'],
        [3, 'deployed', 'Rollback to 1'],
      ],
    );
    assert.deepEqual(
      (await releaseSecrets(s, 'default', 'demo')).map((x) => [x.metadata.labels.version, x.metadata.labels.status]),
      [['1', 'superseded'], ['2', 'superseded'], ['3', 'deployed']],
    );
    assert.match(await helm.ok(['get', 'manifest', 'demo']), /^kind: Deployment$/m);
    assert.match(await helm.ok(['get', 'values', 'demo', '--all']), /^replicaCount: 1$/m);
  });

  test('install --dry-run=server is checked by the server and stores nothing', async () => {
    const out = await helm.ok(['install', 'trial', helm.chart, '--dry-run=server']);
    assert.match(out, /^STATUS: pending-install$/m);
    assert.match(out, /^kind: Deployment$/m);
    assert.deepEqual(await releaseSecrets(s, 'default', 'trial'), []);
    const r = await s.kubectl(['get', 'deployment', 'trial-mychart']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Error from server \(NotFound\): deployments\.apps "trial-mychart" not found/);
  });

  test('upgrade --install --create-namespace installs into a new namespace', async () => {
    const out = await helm.ok(['upgrade', '--install', 'other', helm.chart, '--namespace', 'apps', '--create-namespace']);
    assert.match(out, /Release "other" does not exist\. Installing it now\./);
    assert.equal(await s.kubectlOk(['get', 'namespace', 'apps', '-o', 'jsonpath={.status.phase}']), 'Active');
    assert.equal(await s.kubectlOk(['get', 'deployment', 'other-mychart', '-n', 'apps', '-o', 'jsonpath={.metadata.name}']), 'other-mychart');
    const all = JSON.parse(await helm.ok(['list', '--all-namespaces', '--output', 'json']));
    assert.deepEqual(all.map((r: Record<string, string>) => `${r.namespace}/${r.name}`).sort(), ['apps/other', 'default/demo']);
  });

  test('a chart the server refuses fails with kube’s message and leaves a failed release', async () => {
    const bad = join(helm.dir, 'bad');
    await mkdir(join(bad, 'templates'), { recursive: true });
    await writeFile(join(bad, 'Chart.yaml'), 'apiVersion: v2\nname: bad\nversion: 0.1.0\n');
    await writeFile(join(bad, 'templates', 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Not_A_Valid_Name\ndata:\n  a: "1"\n');
    const r = await helm.run(['install', 'broken', bad]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /ConfigMap "Not_A_Valid_Name" is invalid: metadata\.name: Invalid value: "Not_A_Valid_Name": a lowercase RFC 1123 subdomain must consist of/);
    assert.deepEqual((await releaseSecrets(s, 'default', 'broken')).map((x) => x.metadata.labels.status), ['failed']);
  });

  test('a chart’s CRDs are installed before its custom resources, which are validated against them', async () => {
    const chart = join(helm.dir, 'widgets');
    await mkdir(join(chart, 'crds'), { recursive: true });
    await mkdir(join(chart, 'templates'), { recursive: true });
    await writeFile(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: widgets\nversion: 0.1.0\n');
    await writeFile(
      join(chart, 'crds', 'widgets.yaml'),
      [
        'apiVersion: apiextensions.k8s.io/v1',
        'kind: CustomResourceDefinition',
        'metadata: {name: widgets.example.com}',
        'spec:',
        '  group: example.com',
        '  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}',
        '  scope: Namespaced',
        '  versions:',
        '  - name: v1',
        '    served: true',
        '    storage: true',
        '    schema:',
        '      openAPIV3Schema:',
        '        type: object',
        '        properties:',
        '          spec: {type: object, properties: {size: {type: integer, minimum: 1}}}',
        '',
      ].join('\n'),
    );
    await writeFile(join(chart, 'templates', 'widget.yaml'), 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  size: {{ .Values.size }}\n');
    assert.match(await helm.ok(['install', 'small', chart, '--set', 'size=2']), /^STATUS: deployed$/m);
    assert.equal(await s.kubectlOk(['get', 'widget', 'small', '-o', 'jsonpath={.spec.size}']), '2');
    // An upgrade patches a custom resource with a JSON merge patch (strategic merge is for built-in kinds only).
    assert.match(await helm.ok(['upgrade', 'small', chart, '--set', 'size=4']), /^REVISION: 2$/m);
    assert.equal(await s.kubectlOk(['get', 'widget', 'small', '-o', 'jsonpath={.spec.size}']), '4');
    const r = await helm.run(['install', 'empty', chart, '--set', 'size=-1']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Widget\.example\.com "empty" is invalid: spec\.size: Invalid value: -1: spec\.size in body should be greater than or equal to 1/);
    // helm never deletes the CRDs of a chart: uninstalling keeps the CRD and deletes the release's resources.
    await helm.ok(['uninstall', 'small']);
    assert.equal(await s.kubectlOk(['get', 'widgets', '-o', 'name']), '');
    assert.equal(await s.kubectlOk(['get', 'crd', 'widgets.example.com', '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}']), 'True');
  });

  test('uninstall deletes the chart’s objects and the release', async () => {
    assert.match(await helm.ok(['uninstall', 'demo']), /release "demo" uninstalled/);
    assert.equal(await s.kubectlOk(['get', 'deployment,service,serviceaccount', '-l', 'app.kubernetes.io/instance=demo', '-o', 'name']), '');
    assert.deepEqual(await releaseSecrets(s, 'default', 'demo'), []);
  });
});

describe('helm with simulated workloads', () => {
  let s: TestServer;
  let helm: Helm;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 1, podStartupMs: 20, jobPodRunMs: 50 } });
    helm = await helmFor(s);
  });
  after(async () => {
    await s?.close();
    if (helm) await rm(helm.dir, { recursive: true, force: true });
  });

  test('install --wait returns once the Deployment is ready', async () => {
    assert.match(await helm.ok(['install', 'web', helm.chart, '--wait', '--timeout', '60s']), /^STATUS: deployed$/m);
    const deployment = JSON.parse(await s.kubectlOk(['get', 'deployment', 'web-mychart', '-o', 'json']));
    assert.equal(deployment.status.readyReplicas, 1);
  });

  test('helm test runs the chart’s test pod to success', async () => {
    const out = await helm.ok(['test', 'web', '--timeout', '60s']);
    assert.match(out, /^TEST SUITE:\s+web-mychart-test-connection$/m);
    assert.match(out, /^Phase:\s+Succeeded$/m);
    assert.equal(await s.kubectlOk(['get', 'pod', 'web-mychart-test-connection', '-o', 'jsonpath={.status.phase}']), 'Succeeded');
  });

  test('a pre-install hook Job runs to completion before the release’s objects, and is deleted once it succeeds', async () => {
    const chart = join(helm.dir, 'hooked');
    await mkdir(join(chart, 'templates'), { recursive: true });
    await writeFile(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: hooked\nversion: 0.1.0\n');
    await writeFile(
      join(chart, 'templates', 'migrate.yaml'),
      [
        'apiVersion: batch/v1',
        'kind: Job',
        'metadata:',
        '  name: {{ .Release.Name }}-migrate',
        '  annotations:',
        '    helm.sh/hook: pre-install',
        '    helm.sh/hook-delete-policy: hook-succeeded',
        'spec:',
        '  template:',
        '    spec:',
        '      restartPolicy: Never',
        '      containers: [{name: migrate, image: busybox, command: ["true"]}]',
        '',
      ].join('\n'),
    );
    await writeFile(join(chart, 'templates', 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\ndata:\n  migrated: "yes"\n');
    assert.match(await helm.ok(['install', 'hooked', chart, '--timeout', '60s']), /^STATUS: deployed$/m);
    assert.equal(await s.kubectlOk(['get', 'configmap', 'hooked-settings', '-o', 'jsonpath={.data.migrated}']), 'yes');
    const r = await s.kubectl(['get', 'job', 'hooked-migrate']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Error from server \(NotFound\): jobs\.batch "hooked-migrate" not found/);
  });

  test('install --wait of a chart with a claim and a StatefulSet returns once the claims are bound and the pods ready', async () => {
    const chart = join(helm.dir, 'stateful');
    await mkdir(join(chart, 'templates'), { recursive: true });
    await writeFile(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: stateful\nversion: 0.1.0\n');
    const manifests = [
      'apiVersion: v1',
      'kind: PersistentVolumeClaim',
      'metadata: {name: "{{ .Release.Name }}-uploads"}',
      'spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}',
      '---',
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: "{{ .Release.Name }}-web"}',
      'spec:',
      '  selector: {matchLabels: {app: "{{ .Release.Name }}-web"}}',
      '  template:',
      '    metadata: {labels: {app: "{{ .Release.Name }}-web"}}',
      '    spec:',
      '      containers: [{name: web, image: nginx, volumeMounts: [{name: uploads, mountPath: /uploads}]}]',
      '      volumes: [{name: uploads, persistentVolumeClaim: {claimName: "{{ .Release.Name }}-uploads"}}]',
      '---',
      'apiVersion: apps/v1',
      'kind: StatefulSet',
      'metadata: {name: "{{ .Release.Name }}-db"}',
      'spec:',
      '  replicas: 2',
      '  serviceName: db',
      '  selector: {matchLabels: {app: "{{ .Release.Name }}-db"}}',
      '  template:',
      '    metadata: {labels: {app: "{{ .Release.Name }}-db"}}',
      '    spec: {containers: [{name: db, image: postgres, volumeMounts: [{name: data, mountPath: /var/lib/postgresql}]}]}',
      '  volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}]',
      '',
    ];
    await writeFile(join(chart, 'templates', 'app.yaml'), manifests.join('\n'));
    assert.match(await helm.ok(['install', 'shop', chart, '--wait', '--timeout', '60s']), /^STATUS: deployed$/m);
    assert.equal(await s.kubectlOk(['get', 'pvc', 'shop-uploads', 'data-shop-db-0', 'data-shop-db-1', '-o', 'jsonpath={.items[*].status.phase}']), 'Bound Bound Bound');
    assert.equal(await s.kubectlOk(['get', 'statefulset', 'shop-db', '-o', 'jsonpath={.status.readyReplicas}']), '2');
    // The chart's claim goes with the release; its volume (reclaim policy Delete) with it.
    const volume = await s.kubectlOk(['get', 'pvc', 'shop-uploads', '-o', 'jsonpath={.spec.volumeName}']);
    assert.match(await helm.ok(['uninstall', 'shop', '--wait', '--timeout', '60s']), /release "shop" uninstalled/);
    const deadline = Date.now() + 20_000;
    while ((await s.kubectl(['get', 'pv', volume])).code === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.notEqual((await s.kubectl(['get', 'pv', volume])).code, 0);
  });

  test('upgrade --atomic --wait scales and uninstall --wait removes everything', async () => {
    assert.match(await helm.ok(['upgrade', 'web', helm.chart, '--set', 'replicaCount=2', '--atomic', '--wait', '--timeout', '60s']), /^REVISION: 2$/m);
    assert.equal(await s.kubectlOk(['get', 'deployment', 'web-mychart', '-o', 'jsonpath={.status.readyReplicas}']), '2');
    assert.match(await helm.ok(['uninstall', 'web', '--wait', '--timeout', '60s']), /release "web" uninstalled/);
    assert.equal(await s.kubectlOk(['get', 'deployment,service', '-l', 'app.kubernetes.io/instance=web', '-o', 'name']), '');
  });
});
