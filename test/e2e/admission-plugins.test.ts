// Built-in admission plugins end to end: LimitRanger defaults and limits, ResourceQuota (status kept by the quota
// controller, "exceeded quota" refusals), NamespaceLifecycle through the chain, and plugins turned off by flag.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestServer, type TestServer } from './helpers.ts';

const json = (o: unknown): string => JSON.stringify(o);
const pod = (name: string, resources?: object) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'nginx', ...(resources ? { resources } : {}) }] } });

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const v = await read();
    if (ok(v) || i >= 100) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('built-in admission plugins', () => {
  let s: TestServer;
  let core: k8s.CoreV1Api;
  before(async () => {
    s = await startTestServer();
    const kc = new k8s.KubeConfig();
    kc.loadFromString(s.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
  });
  after(async () => {
    await s?.close();
  });

  test('LimitRanger: defaults appear on a pod; a container over the max is refused', async () => {
    await s.kubectlOk(['create', 'namespace', 'limited']);
    await s.kubectlOk(['create', '-n', 'limited', '-f', '-'], {
      input: json({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'defaults' }, spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '128Mi' }, defaultRequest: { cpu: '250m' }, max: { cpu: '1' } }] } }),
    });
    await s.kubectlOk(['create', '-n', 'limited', '-f', '-'], { input: json(pod('defaulted')) });
    const p = await core.readNamespacedPod({ name: 'defaulted', namespace: 'limited' });
    assert.deepEqual(JSON.parse(JSON.stringify(p.spec?.containers[0].resources)), { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '128Mi' } });
    assert.equal(p.metadata?.annotations?.['kubernetes.io/limit-ranger'], 'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app');
    const big = await s.kubectl(['create', '-n', 'limited', '-f', '-'], { input: json(pod('big', { limits: { cpu: '2' } })) });
    assert.equal(big.code, 1);
    assert.equal(big.stderr.trim(), 'Error from server (Forbidden): error when creating "STDIN": pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
    assert.equal((await s.kubectl(['get', 'pod', 'big', '-n', 'limited'])).code, 1);
  });

  test('ResourceQuota: status kept by the controller; creates over the quota refused with kube\'s message', async () => {
    await s.kubectlOk(['create', 'namespace', 'quoted']);
    await s.kubectlOk(['create', 'quota', 'objects', '-n', 'quoted', '--hard=configmaps=2,count/secrets=1,requests.cpu=1,pods=5']);
    const status = await eventually(
      async () => JSON.parse(await s.kubectlOk(['get', 'quota', 'objects', '-n', 'quoted', '-o', 'json'])).status,
      (st) => st?.used !== undefined,
    );
    assert.deepEqual(status, { hard: { configmaps: '2', 'count/secrets': '1', 'requests.cpu': '1', pods: '5' }, used: { configmaps: '0', 'count/secrets': '0', 'requests.cpu': '0', pods: '0' } });
    await s.kubectlOk(['create', 'configmap', 'a', '-n', 'quoted']);
    await s.kubectlOk(['create', 'configmap', 'b', '-n', 'quoted']);
    const over = await s.kubectl(['create', 'configmap', 'c', '-n', 'quoted']);
    assert.equal(over.code, 1);
    assert.equal(over.stderr.trim(), 'error: failed to create configmap: configmaps "c" is forbidden: exceeded quota: objects, requested: configmaps=1, used: configmaps=2, limited: configmaps=2');
    await s.kubectlOk(['create', 'secret', 'generic', 's1', '-n', 'quoted']);
    const secret = await s.kubectl(['create', 'secret', 'generic', 's2', '-n', 'quoted']);
    assert.equal(secret.stderr.trim(), 'error: failed to create secret secrets "s2" is forbidden: exceeded quota: objects, requested: count/secrets=1, used: count/secrets=1, limited: count/secrets=1');
    // Pods must name what the quota tracks; then their requests count.
    const unspecified = await s.kubectl(['create', '-n', 'quoted', '-f', '-'], { input: json(pod('p0')) });
    assert.equal(unspecified.stderr.trim(), 'Error from server (Forbidden): error when creating "STDIN": pods "p0" is forbidden: failed quota: objects: must specify requests.cpu for: app');
    await s.kubectlOk(['create', '-n', 'quoted', '-f', '-'], { input: json(pod('p1', { requests: { cpu: '600m' } })) });
    const cpu = await s.kubectl(['create', '-n', 'quoted', '-f', '-'], { input: json(pod('p2', { requests: { cpu: '600m' } })) });
    assert.equal(cpu.stderr.trim(), 'Error from server (Forbidden): error when creating "STDIN": pods "p2" is forbidden: exceeded quota: objects, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1');
    // A delete frees its share once the controller recounts.
    await s.kubectlOk(['delete', 'configmap', 'a', '-n', 'quoted']);
    const freed = await eventually(
      async () => JSON.parse(await s.kubectlOk(['get', 'quota', 'objects', '-n', 'quoted', '-o', 'json'])).status.used,
      (u) => u.configmaps === '1',
    );
    assert.deepEqual(freed, { configmaps: '1', 'count/secrets': '1', 'requests.cpu': '600m', pods: '1' });
    await s.kubectlOk(['create', 'configmap', 'c', '-n', 'quoted']);
  });

  test('PodSecurity: a restricted namespace refuses a privileged pod; warn mode warns', async () => {
    await s.kubectlOk(['create', 'namespace', 'secure']);
    await s.kubectlOk(['label', 'namespace', 'secure', 'pod-security.kubernetes.io/enforce=restricted', 'pod-security.kubernetes.io/warn=restricted']);
    const privileged = { ...pod('priv'), spec: { containers: [{ name: 'app', image: 'nginx', securityContext: { privileged: true } }] } };
    const refused = await s.kubectl(['create', '-n', 'secure', '-f', '-'], { input: json(privileged) });
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr.trim(),
      'Error from server (Forbidden): error when creating "STDIN": pods "priv" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), privileged (container "app" must not set securityContext.privileged=true), runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    const compliant = {
      ...pod('ok'),
      spec: {
        securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
        containers: [{ name: 'app', image: 'nginx', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
      },
    };
    await s.kubectlOk(['create', '-n', 'secure', '-f', '-'], { input: json(compliant) });
    await s.kubectlOk(['create', 'namespace', 'warned']);
    await s.kubectlOk(['label', 'namespace', 'warned', 'pod-security.kubernetes.io/warn=baseline', 'pod-security.kubernetes.io/warn-version=v1.31']);
    const warned = await s.kubectl(['create', '-n', 'warned', '-f', '-'], { input: json({ ...pod('hostnet'), spec: { hostNetwork: true, containers: [{ name: 'app', image: 'nginx' }] } }) });
    assert.equal(warned.code, 0, warned.stderr);
    assert.equal(warned.stderr.trim(), 'Warning: would violate PodSecurity "baseline:v1.31": host namespaces (hostNetwork=true)');
    // Workloads' pod templates are checked for warn and audit, never enforced (kube's ValidatePodController)
    const template = { metadata: { labels: { app: 'w' } }, spec: { hostNetwork: true, containers: [{ name: 'app', image: 'nginx' }] } };
    const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'hostnet' }, spec: { selector: { matchLabels: { app: 'w' } }, template } };
    const cron = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'hostnet' }, spec: { schedule: '@daily', jobTemplate: { spec: { template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } } } } } };
    for (const workload of [deploy, cron]) {
      const created = await s.kubectl(['create', '-n', 'warned', '-f', '-'], { input: json(workload) });
      assert.equal(created.code, 0, created.stderr);
      assert.equal(created.stderr.trim(), 'Warning: would violate PodSecurity "baseline:v1.31": host namespaces (hostNetwork=true)');
    }
    // warn follows an enforce level set on the namespace (kube's PolicyToEvaluate): workloads are warned there
    await s.kubectlOk(['create', 'namespace', 'enforced-only']);
    await s.kubectlOk(['label', 'namespace', 'enforced-only', 'pod-security.kubernetes.io/enforce=baseline']);
    const followed = await s.kubectl(['create', '-n', 'enforced-only', '-f', '-'], { input: json(deploy) });
    assert.equal(followed.stderr.trim(), 'Warning: would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)');
    // a level kube cannot parse is refused on the namespace (ValidateNamespace)
    await s.kubectlOk(['create', 'namespace', 'typo']);
    const typo = await s.kubectl(['label', 'namespace', 'typo', 'pod-security.kubernetes.io/enforce=baselin']);
    assert.equal(typo.code, 1);
    assert.equal(typo.stderr.trim(), 'The Namespace "typo" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "baselin": must be one of privileged, baseline, restricted');
    // a stricter enforce level is tried on the pods already there: kube's warnings, one per set of reasons
    await s.kubectlOk(['create', 'namespace', 'existing']);
    for (const name of ['p1', 'p2']) await s.kubectlOk(['create', '-n', 'existing', '-f', '-'], { input: json(pod(name)) });
    await s.kubectlOk(['create', '-n', 'existing', '-f', '-'], { input: json({ ...pod('hostnet'), spec: { hostNetwork: true, containers: [{ name: 'app', image: 'nginx' }] } }) });
    const labelled = await s.kubectl(['label', 'namespace', 'existing', 'pod-security.kubernetes.io/enforce=baseline']);
    assert.equal(labelled.code, 0, labelled.stderr);
    assert.equal(labelled.stderr.trim(), 'Warning: existing pods in namespace "existing" violate the new PodSecurity enforce level "baseline:latest"\nWarning: hostnet: host namespaces');
    const stricter = await s.kubectl(['label', '--overwrite', 'namespace', 'existing', 'pod-security.kubernetes.io/enforce=restricted']);
    assert.equal(
      stricter.stderr.trim(),
      'Warning: existing pods in namespace "existing" violate the new PodSecurity enforce level "restricted:latest"\n' +
        'Warning: hostnet: allowPrivilegeEscalation != false, unrestricted capabilities, host namespaces, runAsNonRoot != true, seccompProfile\n' +
        'Warning: p1 (and 1 other pod): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    );
    // a relaxed level is not tried
    const relaxed = await s.kubectl(['label', '--overwrite', 'namespace', 'existing', 'pod-security.kubernetes.io/enforce=baseline']);
    assert.equal(relaxed.stderr.trim(), '');
    const enforced = await s.kubectl(['create', '-n', 'secure', '-f', '-'], { input: json(deploy) });
    assert.equal(enforced.code, 0, 'a workload is not refused where its pods would be');
    assert.equal(
      enforced.stderr.trim(),
      'Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), host namespaces (hostNetwork=true), runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
  });

  test('Priority, DefaultTolerationSeconds, DefaultStorageClass, DefaultIngressClass', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: json({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000 }) });
    await s.kubectlOk(['create', '-f', '-'], { input: json({ ...pod('prio'), spec: { priorityClassName: 'high', containers: [{ name: 'app', image: 'nginx' }] } }) });
    const p = JSON.parse(await s.kubectlOk(['get', 'pod', 'prio', '-o', 'json']));
    assert.equal(p.spec.priority, 1000);
    assert.equal(p.spec.preemptionPolicy, 'PreemptLowerPriority');
    assert.deepEqual(p.spec.tolerations, [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
    const unknown = await s.kubectl(['create', '-f', '-'], { input: json({ ...pod('noprio'), spec: { priorityClassName: 'nope', containers: [{ name: 'app', image: 'nginx' }] } }) });
    assert.equal(unknown.stderr.trim(), 'Error from server (Forbidden): error when creating "STDIN": pods "noprio" is forbidden: no PriorityClass with name nope was found');

    await s.kubectlOk(['create', '-f', '-'], {
      input: json({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }, provisioner: 'example.com/disk' }),
    });
    await s.kubectlOk(['create', '-f', '-'], { input: json({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }) });
    assert.equal(JSON.parse(await s.kubectlOk(['get', 'pvc', 'data', '-o', 'json'])).spec.storageClassName, 'standard');

    await s.kubectlOk(['create', '-f', '-'], {
      input: json({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'nginx', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } }, spec: { controller: 'k8s.io/ingress-nginx' } }),
    });
    await s.kubectlOk(['create', '-f', '-'], { input: json({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web' }, spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } }) });
    assert.equal(JSON.parse(await s.kubectlOk(['get', 'ingress', 'web', '-o', 'json'])).spec.ingressClassName, 'nginx');
  });

  test('NamespaceLifecycle through the chain: missing namespace, immortal namespaces', async () => {
    const missing = await s.kubectl(['create', 'configmap', 'x', '-n', 'nowhere']);
    assert.equal(missing.stderr.trim(), 'error: failed to create configmap: namespaces "nowhere" not found');
    const immortal = await s.kubectl(['delete', 'namespace', 'kube-system']);
    assert.equal(immortal.stderr.trim(), 'Error from server (Forbidden): namespaces "kube-system" is forbidden: this namespace may not be deleted');
  });
});

describe('admission plugins turned off', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ disableAdmissionPlugins: ['LimitRanger', 'ResourceQuota'] });
  });
  after(async () => {
    await s?.close();
  });

  test('--disable-admission-plugins: no defaults, no quota', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: json({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'defaults', namespace: 'default' }, spec: { limits: [{ type: 'Container', default: { cpu: '500m' } }] } }) });
    await s.kubectlOk(['create', 'quota', 'none', '--hard=configmaps=0']);
    await s.kubectlOk(['create', '-f', '-'], { input: json(pod('plain')) });
    const p = JSON.parse(await s.kubectlOk(['get', 'pod', 'plain', '-o', 'json']));
    assert.deepEqual(p.spec.containers[0].resources, {});
    await s.kubectlOk(['create', 'configmap', 'allowed']);
  });
});

describe('--admission-control-config-file', () => {
  let s: TestServer;
  let dir: string;
  before(async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    dir = await mkdtemp(join(tmpdir(), 'capstan-admission-config-'));
    await writeFile(
      join(dir, 'admission.yaml'),
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: PodSecurity',
        '  configuration:',
        '    apiVersion: pod-security.admission.config.k8s.io/v1',
        '    kind: PodSecurityConfiguration',
        '    defaults:',
        '      enforce: baseline',
        '    exemptions:',
        '      namespaces: [kube-system]',
        '',
      ].join('\n'),
    );
    s = await startTestServer({ admissionControlConfigFile: join(dir, 'admission.yaml') });
  });
  after(async () => {
    await s?.close();
    const { rm } = await import('node:fs/promises');
    await rm(dir, { recursive: true, force: true });
  });

  test('PodSecurity defaults from the configuration apply to unlabelled namespaces; exemptions are honoured', async () => {
    const privileged = (name: string) => json({ ...pod(name), spec: { containers: [{ name: 'app', image: 'nginx', securityContext: { privileged: true } }] } });
    const refused = await s.kubectl(['create', '-f', '-'], { input: privileged('priv') });
    assert.equal(refused.stderr.trim(), 'Error from server (Forbidden): error when creating "STDIN": pods "priv" is forbidden: violates PodSecurity "baseline:latest": privileged (container "app" must not set securityContext.privileged=true)');
    await s.kubectlOk(['create', '-n', 'kube-system', '-f', '-'], { input: privileged('priv') });
  });
});

describe('opt-in plugins and node/runtime defaults', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ enableAdmissionPlugins: ['AlwaysPullImages', 'NamespaceAutoProvision', 'DenyServiceExternalIPs'] });
  });
  after(async () => {
    await s?.close();
  });

  test('AlwaysPullImages, NamespaceAutoProvision, DenyServiceExternalIPs', async () => {
    await s.kubectlOk(['create', '-n', 'made-on-demand', '-f', '-'], { input: json({ ...pod('pull'), spec: { containers: [{ name: 'app', image: 'nginx', imagePullPolicy: 'IfNotPresent' }] } }) });
    await s.kubectlOk(['get', 'namespace', 'made-on-demand']);
    const p = JSON.parse(await s.kubectlOk(['get', 'pod', 'pull', '-n', 'made-on-demand', '-o', 'json']));
    assert.equal(p.spec.containers[0].imagePullPolicy, 'Always');
    const svc = await s.kubectl(['create', '-f', '-'], { input: json({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext' }, spec: { ports: [{ port: 80 }], externalIPs: ['192.0.2.10'] } }) });
    assert.equal(svc.stderr.trim(), 'Error from server (Forbidden): error when creating "STDIN": services "ext" is forbidden: spec.externalIPs: Forbidden: use of external IPs is denied by admission control');
  });

  test('TaintNodesByCondition taints new nodes not-ready; RuntimeClass refuses an unknown class', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: json({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }) });
    assert.deepEqual(JSON.parse(await s.kubectlOk(['get', 'node', 'n1', '-o', 'json'])).spec.taints, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
    const r = await s.kubectl(['create', '-f', '-'], { input: json({ ...pod('rc'), spec: { runtimeClassName: 'gvisor', containers: [{ name: 'app', image: 'nginx' }] } }) });
    assert.equal(r.stderr.trim(), 'Error from server (Forbidden): error when creating "STDIN": pods "rc" is forbidden: pod rejected: RuntimeClass "gvisor" not found');
  });
});
