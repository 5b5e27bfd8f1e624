// kubectl create / apply / patch of built-in kinds against a real Capstan: kube's defaults filled in, kube's 422
// messages on create and on update-only rules (immutable fields, resize rules), kube's columns.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { signedRequestPem } from '../../src/registry/builtin/certificates/test-requests.ts';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

describe('built-in type rules through kubectl', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const ok = (args: string[], input?: string) => s.kubectlOk(args, { input });
  const refused = (args: string[], input?: string) => s.kubectlRefused(args, { input });

  test('lease: leaseDurationSeconds 0 is refused on create and on patch (pkg/apis/coordination/validation)', async () => {
    const lease = (seconds: number) => JSON.stringify({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'x', namespace: 'default' }, spec: { holderIdentity: 'me', leaseDurationSeconds: seconds } });
    assert.equal(await refused(['create', '-f', '-'], lease(0)), 'The Lease "x" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0');
    await ok(['create', '-f', '-'], lease(15));
    assert.equal(
      await refused(['patch', 'lease', 'x', '--type=merge', '-p', '{"spec":{"leaseDurationSeconds":0}}']),
      'The Lease "x" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
    );
    assert.equal(await ok(['get', 'lease', 'x', '-o', 'jsonpath={.spec.leaseDurationSeconds}']), '15');
    assert.match(await ok(['get', 'lease', 'x']), /^NAME\s+HOLDER\s+AGE\nx\s+me\s+\d+s\n$/);
  });

  test('pods and pod templates: kube 1.31 warnings on a valid write (pkg/api/pod/warnings.go), none for an invalid one', async () => {
    const podYaml = (name: string, memory: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: default
spec:
  nodeSelector: {beta.kubernetes.io/os: linux}
  containers:
  - name: app
    image: nginx
    resources: {limits: {memory: ${memory}}}
    env: [{name: MODE, value: a}, {name: MODE, value: b}]
`;
    const created = await s.kubectl(['create', '-f', '-'], { input: podYaml('warned', '0.5') });
    assert.equal(created.code, 0, created.stderr);
    assert.equal(
      created.stderr,
      [
        'Warning: spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead',
        'Warning: spec.containers[0].resources.limits[memory]: fractional byte value "500m" is invalid, must be an integer',
        // The requests defaulted from the limits are warned about too: kube warns about the defaulted pod.
        'Warning: spec.containers[0].resources.requests[memory]: fractional byte value "500m" is invalid, must be an integer',
        'Warning: spec.containers[0].env[1]: hides previous definition of "MODE", which may be dropped when using apply',
        '',
      ].join('\n'),
    );
    // kube skips warnings on pod updates; an invalid pod gets its error alone.
    assert.equal((await s.kubectl(['label', 'pod', 'warned', 'x=y'])).stderr, '');
    const invalid = await s.kubectl(['create', '-f', '-'], { input: podYaml('Invalid', '0.5') });
    assert.equal(invalid.code, 1);
    assert.doesNotMatch(invalid.stderr, /Warning/);

    const deployment = JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web.v1', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }], volumes: [{ name: 'src', gitRepo: { repository: 'https://example.com/r.git' } }] } },
      },
    });
    const dryRun = await s.kubectl(['create', '--dry-run=server', '-f', '-'], { input: deployment });
    const deploymentWarnings = [
      'Warning: metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]',
      'Warning: spec.template.spec.volumes[0].gitRepo: deprecated in v1.11',
      '',
    ].join('\n');
    assert.equal(dryRun.stderr, deploymentWarnings);
    assert.equal((await s.kubectl(['create', '-f', '-'], { input: deployment })).stderr, deploymentWarnings);
    // An update warns about the template when it changes the generation (a Deployment's annotations count, as they
    // go to its ReplicaSets), not otherwise.
    assert.equal((await s.kubectl(['label', 'deployment', 'web.v1', 'tier=front'])).stderr, '');
    assert.equal((await s.kubectl(['annotate', 'deployment', 'web.v1', 'note=x'])).stderr, 'Warning: spec.template.spec.volumes[0].gitRepo: deprecated in v1.11\n');
    assert.equal((await s.kubectl(['scale', 'deployment', 'web.v1', '--replicas=2'])).stderr, 'Warning: spec.template.spec.volumes[0].gitRepo: deprecated in v1.11\n');
  });

  test('services, ingresses and TLS secrets: kube 1.31 warnings (pkg/api/service/warnings.go, the ingress class annotation on create, tls.X509KeyPair)', async () => {
    const placeholder = JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cert', namespace: 'default' }, type: 'kubernetes.io/tls', stringData: { 'tls.crt': 'TODO', 'tls.key': 'TODO' } });
    assert.equal((await s.kubectl(['create', '-f', '-'], { input: placeholder })).stderr, 'Warning: tls: failed to find any PEM data in certificate input\n');

    const service = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'lb', namespace: 'default', annotations: { 'service.kubernetes.io/topology-aware-hints': 'auto' } },
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }], externalIPs: ['192.012.2.2'], loadBalancerSourceRanges: ['2001:0db8::/32'] },
    });
    const serviceWarnings = [
      'Warning: annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead',
      'Warning: spec.externalIPs[0]: IP address was accepted, but will be invalid in a future Kubernetes release: ParseAddr("192.012.2.2"): IPv4 field has octet with leading zero',
      'Warning: spec.loadBalancerSourceRanges[0]: IPv6 prefix "2001:0db8::/32" is not in RFC 5952 canonical format ("2001:db8::/32"), which may cause controller apply-loops',
      '',
    ].join('\n');
    assert.equal((await s.kubectl(['create', '-f', '-'], { input: service })).stderr, serviceWarnings);
    // Services warn on every update, as kube.
    assert.equal((await s.kubectl(['label', 'service', 'lb', 'tier=edge'])).stderr, serviceWarnings);

    const ingress = JSON.stringify({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'classic', namespace: 'default', annotations: { 'kubernetes.io/ingress.class': 'nginx' } },
      spec: { defaultBackend: { service: { name: 'lb', port: { number: 80 } } } },
    });
    assert.equal((await s.kubectl(['create', '-f', '-'], { input: ingress })).stderr, `Warning: annotation "kubernetes.io/ingress.class" is deprecated, please use 'spec.ingressClassName' instead\n`);
    assert.equal((await s.kubectl(['label', 'ingress', 'classic', 'tier=edge'])).stderr, '');
  });

  test('pod annotations: AppArmor profiles synced with their fields on create, invalid deletion costs and profiles refused (ValidatePodSpecificAnnotations)', async () => {
    const pod = (name: string, annotations: Record<string, string>) =>
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', annotations }, spec: { containers: [{ name: 'app', image: 'nginx' }, { name: 'side', image: 'busybox', securityContext: { appArmorProfile: { type: 'Unconfined' } } }] } });
    const created = await s.kubectl(['create', '-f', '-'], { input: pod('armored', { 'container.apparmor.security.beta.kubernetes.io/app': 'localhost/web' }) });
    assert.equal(created.stderr, 'Warning: metadata.annotations[container.apparmor.security.beta.kubernetes.io/app]: deprecated since v1.30; use the "appArmorProfile" field instead\n');
    const stored = JSON.parse(await ok(['get', 'pod', 'armored', '-o', 'json'])) as { metadata: { annotations: Record<string, string> }; spec: { containers: { securityContext?: unknown }[] } };
    assert.deepEqual(stored.spec.containers[0]!.securityContext, { appArmorProfile: { type: 'Localhost', localhostProfile: 'web' } });
    assert.equal(stored.metadata.annotations['container.apparmor.security.beta.kubernetes.io/side'], 'unconfined');

    assert.equal(
      await refused(['create', '-f', '-'], pod('costly', { 'controller.kubernetes.io/pod-deletion-cost': '+5', 'container.apparmor.security.beta.kubernetes.io/app': 'complain' })),
      [
        'Warning: metadata.annotations[container.apparmor.security.beta.kubernetes.io/app]: deprecated since v1.30; use the "appArmorProfile" field instead',
        'The Pod "costly" is invalid: ',
        '* metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "+5": must be a 32bit integer',
        '* metadata.annotations[container.apparmor.security.beta.kubernetes.io/app]: Invalid value: "complain": invalid AppArmor profile name: "complain"',
      ].join('\n'),
    );
    await ok(['annotate', 'pod', 'armored', 'controller.kubernetes.io/pod-deletion-cost=-20']);
    assert.match(await refused(['annotate', 'pod', 'armored', '--overwrite', 'controller.kubernetes.io/pod-deletion-cost=1e3']), /must be a 32bit integer/);
    assert.equal(
      await refused(['annotate', 'pod', 'armored', '--overwrite', 'container.apparmor.security.beta.kubernetes.io/app=unconfined']),
      'The Pod "armored" is invalid: metadata.annotations[container.apparmor.security.beta.kubernetes.io/app]: Forbidden: may not remove or update AppArmor annotations',
    );
    assert.equal(
      await refused(['create', '-f', '-'], pod('tolerant', { 'scheduler.alpha.kubernetes.io/tolerations': '[{"key":"gpu","operator":"Exists","value":"yes"}]' })),
      `The Pod "tolerant" is invalid: metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[0].operator: Invalid value: core.Toleration{Key:"gpu", Operator:"Exists", Value:"yes", Effect:"", TolerationSeconds:(*int64)(nil)}: value must be empty when \`operator\` is 'Exists'`,
    );
  });

  test('pods and pod templates: the fields of features kube 1.31 ships turned off are dropped (dropDisabledFields), kept with --feature-gates', async () => {
    const spec = {
      hostUsers: false,
      containers: [{ name: 'app', image: 'nginx', resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }] }],
    };
    const pod = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'gated', namespace: 'default' }, spec });
    const deployment = JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'gated', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'gated' } }, template: { metadata: { labels: { app: 'gated' } }, spec } },
    });
    await ok(['create', '-f', '-'], pod);
    await ok(['create', '-f', '-'], deployment);
    const path = '-o=jsonpath={.spec.hostUsers}|{.spec.containers[0].resizePolicy}';
    assert.equal(await ok(['get', 'pod', 'gated', path]), '|');
    assert.equal(await ok(['get', 'deployment', 'gated', path.replaceAll('.spec.', '.spec.template.spec.')]), '|');

    const gated = await startTestServer({ featureGates: { UserNamespacesSupport: true } });
    try {
      await gated.kubectlOk(['create', '-f', '-'], { input: pod });
      assert.equal(await gated.kubectlOk(['get', 'pod', 'gated', path]), 'false|');
    } finally {
      await gated.close();
    }
  });

  test('pod specs: security contexts, affinity, spread constraints, DNS and volume sources checked as kube 1.31 checks them; matchLabelKeys merged into the selector', async () => {
    const pod = (name: string, spec: object, labels: Record<string, string> = {}) =>
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels }, spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec } });
    assert.equal(
      await refused(['create', '-f', '-'], pod('insecure', {
        securityContext: { runAsUser: -1, sysctls: [{ name: 'net.core.somaxconn', value: '1024' }], seccompProfile: { type: 'Localhost' } },
        hostNetwork: true,
        affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } } }] } },
        topologySpreadConstraints: [{ maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'Never', labelSelector: {} }],
        dnsConfig: { nameservers: ['dns.example'] },
      })),
      [
        'The Pod "insecure" is invalid: ',
        '* spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive',
        '* spec.securityContext.sysctls[0].name: Invalid value: "net.core.somaxconn": may not be specified when \'hostNetwork\' is true',
        '* spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost',
        '* spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty',
        "* spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: \"\": name part must be non-empty",
        "* spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        '* spec.dnsConfig.nameservers[0]: Invalid value: "dns.example": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        '* spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero',
        '* spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Never": supported values: "DoNotSchedule", "ScheduleAnyway"',
      ].join('\n'),
    );
    const claim = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
    assert.equal(
      await refused(['create', '-f', '-'], pod('volumes', {
        volumes: [
          { name: 'conf', configMap: { name: 'cm', items: [{ key: 'app.conf', path: '../app.conf' }] } },
          { name: 'info', downwardAPI: { items: [{ path: 'node', fieldRef: { fieldPath: 'spec.nodeName' } }] } },
          { name: 'bundle', projected: { sources: [{ configMap: { name: 'a', items: [{ key: 'k', path: 'same' }] } }, { secret: { name: 'b', items: [{ key: 'k', path: 'same' }] } }] } },
          { name: 'host', hostPath: { path: '/var/log', type: 'Folder' } },
          { name: 'scratch', ephemeral: { volumeClaimTemplate: { metadata: { name: 'scratch' }, spec: claim } } },
          { name: 'shared', persistentVolumeClaim: { claimName: 'volumes-scratch' } },
        ],
      })),
      [
        'The Pod "volumes" is invalid: ',
        "* spec.volumes[0].configMap.items[0].path: Invalid value: \"../app.conf\": must not contain '..'",
        '* spec.volumes[1].downwardAPI.fieldRef.fieldPath: Unsupported value: "spec.nodeName": supported values: "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"',
        '* spec.volumes[2].projected: Invalid value: "b": conflicting duplicate paths',
        '* spec.volumes[3].hostPath.type: Unsupported value: "Folder": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
        '* spec.volumes[4].ephemeral.volumeClaimTemplate.metadata.name: Forbidden: cannot be set',
        '* spec.volumes[5].persistentVolumeClaim.claimName: Invalid value: "volumes-scratch": must not reference a PVC that gets created for an ephemeral volume',
      ].join('\n'),
    );
    const affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'zone', matchLabelKeys: ['tenant'], mismatchLabelKeys: ['track'] }] } };
    await ok(['create', '-f', '-'], pod('keyed', { affinity }, { app: 'web', tenant: 'blue', track: 'canary' }));
    assert.equal(
      await ok(['get', 'pod', 'keyed', '-o=jsonpath={.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector}']),
      '{"matchExpressions":[{"key":"tenant","operator":"In","values":["blue"]},{"key":"track","operator":"NotIn","values":["canary"]}],"matchLabels":{"app":"web"}}',
    );
  });

  test('jobs and cron jobs: failure and success policies, status writes and time zones checked as kube 1.31 checks them; managedBy dropped while its gate is off', async () => {
    const job = (name: string, spec: object) =>
      JSON.stringify({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: 'default' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } }, ...spec } });
    const policies = {
      completionMode: 'Indexed',
      completions: 3,
      podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [0, 2] } }, { action: 'Ignore' }] },
      successPolicy: { rules: [{ succeededIndexes: '2-5' }] },
    };
    assert.equal(
      await refused(['create', '-f', '-'], job('policies', policies)),
      [
        'The Job "policies" is invalid: ',
        '* spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set',
        '* spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator',
        '* spec.podFailurePolicy.rules[1]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required',
        '* spec.successPolicy.rules[0].succeededIndexes: Invalid value: "2-5": error parsing succeededIndexes: too large index: "5"',
      ].join('\n'),
    );

    await ok(['create', '-f', '-'], job('managed', { suspend: true, managedBy: 'example.com/queue' }));
    assert.equal(await ok(['get', 'job', 'managed', '-o', 'jsonpath={.spec.managedBy}|{.spec.manualSelector}']), '|false');
    const conditions = ['SuccessCriteriaMet', 'Failed'].map((type) => ({ type, status: 'True', reason: 'Test', message: 'test' }));
    assert.equal(
      await refused(['patch', 'job', 'managed', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { conditions } })]),
      'The Job "managed" is invalid: status.conditions: Invalid value: cannot set SuccessCriteriaMet=True and Failed=true conditions',
    );

    const cronJob = JSON.stringify({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'martian', namespace: 'default' },
      spec: { schedule: '0 3 * * *', timeZone: 'Mars/Olympus_Mons', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'main', image: 'busybox' }] } } } } },
    });
    assert.equal(await refused(['create', '-f', '-'], cronJob), 'The CronJob "martian" is invalid: spec.timeZone: Invalid value: "Mars/Olympus_Mons": unknown time zone Mars/Olympus_Mons');
  });

  test('workloads: selectors, strategies and status counters refused with the values kube prints (%#v of Go maps and structs)', async () => {
    const deployment = (selector: string, labels: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: picky, namespace: default}
spec:
  selector: {matchLabels: ${selector}}
  template:
    metadata: {labels: ${labels}}
    spec: {containers: [{name: c, image: nginx}]}
`;
    assert.equal(
      await refused(['apply', '-f', '-'], deployment('{app: web}', '{app: api, tier: x}')),
      'The Deployment "picky" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"api", "tier":"x"}: `selector` does not match template `labels`',
    );
    await ok(['apply', '-f', '-'], deployment('{app: web}', '{app: web}'));
    assert.equal(
      await refused(['apply', '-f', '-'], deployment('{app: web2}', '{app: web2}')),
      'The Deployment "picky" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    );
    const daemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 0, maxSurge: 0}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: c, image: nginx}]}
`;
    assert.equal(await refused(['create', '-f', '-'], daemonSet), 'The DaemonSet "agent" is invalid: spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0');
    await ok(['create', '-f', '-'], daemonSet.replace('maxUnavailable: 0', 'maxUnavailable: 1'));
    assert.equal(
      await refused(['patch', 'daemonset', 'agent', '--subresource=status', '--type=merge', '-p', '{"status":{"numberReady":-1}}']),
      'The DaemonSet "agent" is invalid: status.numberReady: Invalid value: -1: must be greater than or equal to 0',
    );
  });

  test('priority class: preemptionPolicy defaulted, value may not change (pkg/apis/scheduling/validation)', async () => {
    await ok(['create', 'priorityclass', 'high', '--value=1000']);
    assert.equal(await ok(['get', 'priorityclass', 'high', '-o', 'jsonpath={.preemptionPolicy}']), 'PreemptLowerPriority');
    assert.equal(
      await refused(['patch', 'priorityclass', 'high', '--type=merge', '-p', '{"value":2000}']),
      'The PriorityClass "high" is invalid: value: Forbidden: may not be changed in an update.',
    );
    assert.match(await ok(['get', 'priorityclass', 'high']), /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY\nhigh\s+1000\s+false\s+\d+s\s+PreemptLowerPriority\n$/);
  });

  test('ingress: pathType is required; network policy: policyTypes defaulted (pkg/apis/networking)', async () => {
    const ingress = (pathType?: string) => `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: default
spec:
  rules:
  - host: shop.example.com
    http:
      paths:
      - path: /
${pathType ? `        pathType: ${pathType}\n` : ''}        backend:
          service:
            name: web
            port:
              number: 80
`;
    assert.equal(await refused(['apply', '-f', '-'], ingress()), 'The Ingress "web" is invalid: spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified');
    assert.equal(await ok(['apply', '-f', '-'], ingress('Prefix')), 'ingress.networking.k8s.io/web created\n');
    assert.equal(await ok(['get', 'ingress', 'web', '-o', 'jsonpath={.metadata.generation}']), '1');
    assert.match(await ok(['get', 'ingress', 'web']), /^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\nweb\s+<none>\s+shop\.example\.com\s+80\s+\d+s\n$/);
    await ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np', namespace: 'default' }, spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] } }));
    assert.equal(await ok(['get', 'networkpolicy', 'np', '-o', 'jsonpath={.spec.policyTypes} {.spec.egress[0].ports[0].protocol}']), '["Ingress","Egress"] TCP');
  });

  test('persistent volume claim: volumeMode defaulted, spec fixed while unbound, no shrinking once bound (pkg/apis/core/validation), no growing without an expanding class', async () => {
    await ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }));
    assert.equal(await ok(['get', 'pvc', 'data', '-o', 'jsonpath={.spec.volumeMode} {.status.phase}']), 'Filesystem Pending');
    const unbound = await refused(['patch', 'pvc', 'data', '--type=merge', '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}']);
    assert.match(unbound, /^The PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after creation except resources\.requests and volumeAttributesClassName for bound claims/);
    // The PersistentVolume controller binds it to a volume that fits.
    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'data-volume' }, spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } } }));
    for (let i = 0; i < 100 && (await ok(['get', 'pvc', 'data', '-o', 'jsonpath={.status.phase}'])) !== 'Bound'; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await ok(['get', 'pvc', 'data', '-o', 'jsonpath={.status.phase} {.spec.volumeName}']), 'Bound data-volume');
    assert.equal(
      await refused(['patch', 'pvc', 'data', '--type=merge', '-p', '{"spec":{"resources":{"requests":{"storage":"512Mi"}}}}']),
      'The PersistentVolumeClaim "data" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than previous value',
    );
    // Growing is the PersistentVolumeClaimResize admission plugin's to allow: not for a claim without a class.
    assert.equal(
      await refused(['patch', 'pvc', 'data', '--type=merge', '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}']),
      'Error from server (Forbidden): persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    );
  });

  test('persistent volume claim: dataSource and dataSourceRef kept in step, a source old clients could not name dropped, mismatches refused', async () => {
    const claim = (name: string, spec: object) =>
      JSON.stringify({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec } });
    await ok(['create', '-f', '-'], claim('clone', { dataSource: { kind: 'PersistentVolumeClaim', name: 'origin' } }));
    // Go writes the nil API group of these references as null.
    assert.equal(await ok(['get', 'pvc', 'clone', '-o=jsonpath={.spec.dataSourceRef}']), '{"apiGroup":null,"kind":"PersistentVolumeClaim","name":"origin"}');
    await ok(['create', '-f', '-'], claim('odd', { dataSource: { apiGroup: 'example.com', kind: 'Thing', name: 't' } }));
    assert.equal(await ok(['get', 'pvc', 'odd', '-o=jsonpath={.spec.dataSource}|{.spec.dataSourceRef}']), '|');
    assert.equal(
      await refused(['create', '-f', '-'], claim('mixed', { dataSource: { kind: 'PersistentVolumeClaim', name: 'a' }, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'b' } })),
      'The PersistentVolumeClaim "mixed" is invalid: spec: Invalid value: spec.dataSource: must match dataSourceRef',
    );
  });

  test('node: taints are checked under metadata.taints, as kube reports them', async () => {
    const node = (effect: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, spec: { taints: [{ key: 'dedicated', value: 'db', effect }] } });
    assert.equal(
      await refused(['create', '-f', '-'], node('Sometimes')),
      'The Node "n1" is invalid: metadata.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    );
    await ok(['create', '-f', '-'], node('NoSchedule'));
    await ok(['taint', 'node', 'n1', 'gpu=yes:NoExecute']);
    // TaintNodesByCondition (default-on admission) adds the not-ready taint to every new node, as in kube.
    assert.deepEqual((await ok(['get', 'node', 'n1', '-o', 'jsonpath={.spec.taints[*].key}'])).split(' ').sort(), ['dedicated', 'gpu', 'node.kubernetes.io/not-ready']);
  });

  test('roles: every rule names verbs and resources of API groups, or (cluster roles only) non-resource URLs; aggregation selectors are label selectors (pkg/apis/rbac/validation)', async () => {
    const role = (kind: string, rules: unknown, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name: 'r', ...(kind === 'Role' && { namespace: 'default' }) }, rules, ...extra });
    assert.equal(
      await refused(['create', '-f', '-'], role('Role', [{ resources: ['pods'], verbs: ['get'] }, { apiGroups: [''], resources: ['pods'] }])),
      'The Role "r" is invalid: \n* rules[0].apiGroups: Required value: resource rules must supply at least one api group\n* rules[1].verbs: Required value: verbs must contain at least one value',
    );
    assert.equal(
      await refused(['create', '-f', '-'], role('Role', [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }])),
      'The Role "r" is invalid: rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs',
    );
    assert.equal(
      await refused(['create', '-f', '-'], role('ClusterRole', [{ nonResourceURLs: ['/healthz'], resources: ['pods'], verbs: ['get'] }])),
      'The ClusterRole "r" is invalid: rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: rules cannot apply to both regular resources and non-resource URLs',
    );
    assert.equal(
      await refused(['create', '-f', '-'], role('ClusterRole', null, { aggregationRule: { clusterRoleSelectors: [] } })),
      'The ClusterRole "r" is invalid: aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
    );
    // A selector the aggregation controller could not use never gets stored (and the server stays up).
    assert.equal(
      await refused(['create', '-f', '-'], role('ClusterRole', null, { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { '$bad': 'x' } }] } })),
      'The ClusterRole "r" is invalid: \n* aggregationRule.clusterRoleSelectors[0].matchLabels: Invalid value: "$bad": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')\n* aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.',
    );
    await ok(['create', '-f', '-'], role('ClusterRole', [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }]));
    await ok(['create', 'role', 'reader', '--verb=get', '--resource=pods']);
    assert.equal(await ok(['get', '--raw', '/readyz']), 'ok');
  });

  test('endpoint slice: addressType fixed; limit range: min above max refused', async () => {
    const slice = (addressType: string, address: string) =>
      JSON.stringify({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-1', namespace: 'default' }, addressType, endpoints: [{ addresses: [address] }], ports: [{ port: 80 }] });
    await ok(['apply', '-f', '-'], slice('IPv4', '10.0.0.5'));
    assert.equal(await ok(['get', 'endpointslice', 'web-1', '-o', 'jsonpath={.ports[0].protocol}']), 'TCP');
    assert.equal(
      await refused(['apply', '-f', '-'], slice('IPv6', '2001:db8::5')),
      'The EndpointSlice "web-1" is invalid: addressType: Invalid value: "IPv6": field is immutable',
    );
    const lr = JSON.stringify({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr', namespace: 'default' }, spec: { limits: [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }] } });
    // The default limit is defaulted to the max and the default request to the default limit before validation.
    assert.equal(
      await refused(['create', '-f', '-'], lr),
      // The quantities are the bad values, printed as Go's %#v prints a resource.Quantity.
      'The LimitRange "lr" is invalid: \n* spec.limits[0].min[cpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:2, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"2", Format:"DecimalSI"}: min value 2 is greater than max value 1\n* spec.limits[0].defaultRequest[cpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:1, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1", Format:"DecimalSI"}: min value 2 is greater than default request value 1\n* spec.limits[0].default[cpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:2, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"2", Format:"DecimalSI"}: min value 2 is greater than default value 1',
    );
  });

  test('storage class: reclaimPolicy and volumeBindingMode defaulted, provisioner may not change (pkg/apis/storage/validation)', async () => {
    await ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'csi.example.com' }));
    assert.equal(await ok(['get', 'storageclass', 'fast', '-o', 'jsonpath={.reclaimPolicy} {.volumeBindingMode}']), 'Delete Immediate');
    assert.equal(
      await refused(['patch', 'storageclass', 'fast', '--type=merge', '-p', '{"provisioner":"other.example.com"}']),
      'The StorageClass "fast" is invalid: provisioner: Forbidden: updates to provisioner are forbidden.',
    );
  });

  test('pod disruption budget: minAvailable and maxUnavailable together are refused (pkg/apis/policy/validation)', async () => {
    await ok(['create', 'pdb', 'web2', '--selector=app=web', '--max-unavailable=50%']);
    const both = await refused(['patch', 'pdb', 'web2', '--type=merge', '-p', '{"spec":{"minAvailable":1}}']);
    assert.match(both, /^The PodDisruptionBudget "web2" is invalid: spec: Invalid value: .*: minAvailable and maxUnavailable cannot be both set$/);
  });

  test('HPA: kubectl autoscale gets kube\'s v2 defaults; behavior policies are checked (pkg/apis/autoscaling)', async () => {
    await ok(['create', 'deployment', 'scaled', '--image=nginx']);
    await ok(['autoscale', 'deployment', 'scaled', '--max=5', '--cpu-percent=60']);
    assert.equal(await ok(['get', 'hpa.v2.autoscaling', 'scaled', '-o', 'jsonpath={.spec.minReplicas} {.spec.metrics[0].resource.target.averageUtilization}']), '1 60');
    const bad = await refused(['patch', 'hpa', 'scaled', '--type=merge', '-p', '{"spec":{"maxReplicas":0}}']);
    assert.equal(bad, 'The HorizontalPodAutoscaler "scaled" is invalid: \n* spec.maxReplicas: Invalid value: 0: must be greater than 0\n* spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`');
  });

  test('CSR: the requester is stamped; approval through kubectl certificate approve (pkg/registry/certificates)', async () => {
    const request = Buffer.from(signedRequestPem()).toString('base64');
    const csr = { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'alice' }, spec: { request, signerName: 'example.com/signer', usages: ['client auth'], username: 'mallory' } };
    await ok(['create', '-f', '-'], JSON.stringify(csr));
    assert.equal(await ok(['get', 'csr', 'alice', '-o', 'jsonpath={.spec.username}']), 'capstan-admin');
    assert.match(await ok(['get', 'csr', 'alice']), /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION\nalice\s+\d+s\s+example\.com\/signer\s+capstan-admin\s+<none>\s+Pending\n$/);
    await ok(['certificate', 'approve', 'alice']);
    assert.equal(await ok(['get', 'csr', 'alice', '-o', 'jsonpath={.status.conditions[0].type} {.status.conditions[0].status}']), 'Approved True');
    const bad = await refused(['create', '-f', '-'], JSON.stringify({ ...csr, metadata: { name: 'bob' }, spec: { ...csr.spec, usages: [] } }));
    assert.equal(bad, 'The CertificateSigningRequest "bob" is invalid: spec.usages: Required value');
  });

  test('events: core/v1 keeps the legacy rules; events.k8s.io/v1 creation is strict and its facts are fixed (pkg/apis/core/validation/events.go)', async () => {
    const involved = { kind: 'Pod', name: 'web', namespace: 'default' };
    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'legacy.1', namespace: 'default' }, involvedObject: involved, reason: 'Pulled', type: 'Normal', count: 2 }));
    const v1 = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'web.1', namespace: 'default' }, regarding: involved, reason: 'Started', note: 'started', type: 'Normal', action: 'Start', reportingController: 'example.com/ctl', reportingInstance: 'ctl-1' };
    assert.equal(await refused(['create', '-f', '-'], JSON.stringify(v1)), 'The Event "web.1" is invalid: eventTime: Required value');
    await ok(['create', '-f', '-'], JSON.stringify({ ...v1, eventTime: '2026-01-02T03:04:05.000000Z' }));
    assert.equal(
      await refused(['patch', 'events.v1.events.k8s.io', 'web.1', '--type=merge', '-p', '{"reason":"Stopped"}']),
      'The Event "web.1" is invalid: reason: Invalid value: "Stopped": field is immutable',
    );
  });
});

