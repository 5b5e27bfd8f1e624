import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagError } from './flags.ts';
import { parseCommandLine } from './options.ts';

test('defaults: sqlite in ./.capstan on 127.0.0.1:6443, Node,RBAC as a real cluster, anonymous left to its default', () => {
  const c = parseCommandLine([]);
  assert.equal(c.kind, 'run');
  if (c.kind !== 'run') return;
  assert.deepEqual(c.options, {
    port: 6443,
    bindAddress: '127.0.0.1',
    endpointReconcilerType: 'lease',
    tlsCertFile: undefined,
    tlsPrivateKeyFile: undefined,
    clientCaFile: undefined,
    tokenAuthFile: undefined,
    anonymousAuth: undefined,
    authorizationMode: ['Node', 'RBAC'],
    serviceAccountIssuers: undefined,
    serviceAccountSigningKeyFile: undefined,
    serviceAccountKeyFiles: undefined,
    apiAudiences: undefined,
    serviceAccountMaxTokenExpirationSeconds: undefined,
    runtimeConfig: '',
    featureGates: {},
    historyWindowSeconds: 300,
    minRequestTimeoutSeconds: 1800,
    requestTimeoutSeconds: 60,
    http2MaxStreamsPerConnection: 0,
    storageBackend: 'sqlite',
    leaderElect: undefined,
    leaderElection: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
    clusterSigningDurationMs: 365 * 24 * 3_600_000,
    clusterSigningCertFile: undefined,
    clusterSigningKeyFile: undefined,
    clusterSigningSignerFiles: undefined,
    shutdownDelaySeconds: 0,
    shutdownSendRetryAfter: false,
    dataDir: './.capstan',
    plainHttpPort: undefined,
    logLevel: 0,
    requestheaderClientCaFile: undefined,
    requestheaderAllowedNames: undefined,
    requestheaderUsernameHeaders: undefined,
    requestheaderGroupHeaders: undefined,
    requestheaderExtraHeadersPrefix: undefined,
    proxyClientCertFile: undefined,
    proxyClientKeyFile: undefined,
    oidcIssuerUrl: undefined,
    oidcClientId: undefined,
    oidcCaFile: undefined,
    oidcUsernameClaim: undefined,
    oidcUsernamePrefix: undefined,
    oidcGroupsClaim: undefined,
    oidcGroupsPrefix: undefined,
    oidcRequiredClaims: undefined,
    oidcSigningAlgs: undefined,
    authenticationConfigFile: undefined,
    authorizationConfigFile: undefined,
    authenticationTokenWebhookConfigFile: undefined,
    authenticationTokenWebhookVersion: 'v1beta1',
    authenticationTokenWebhookCacheTtlSeconds: 120,
    authorizationPolicyFile: undefined,
    authorizationWebhookConfigFile: undefined,
    authorizationWebhookVersion: 'v1beta1',
    authorizationWebhookCacheAuthorizedTtlSeconds: 300,
    authorizationWebhookCacheUnauthorizedTtlSeconds: 30,
    enableBootstrapTokenAuth: undefined,
    namespaceDefaults: true,
    localApiServices: true,
    enableTestControls: false,
    enablePriorityAndFairness: true,
    maxRequestsInflight: 400,
    maxMutatingRequestsInflight: 200,
    audit: { policyFile: undefined, logPath: undefined, logMaxAgeDays: 0, logMaxBackups: 0, logMaxSizeMB: 0, webhookConfigFile: undefined, webhookBatchMaxSize: 400, webhookBatchMaxWaitMs: 30_000 },
  });
});

test('every flag maps to its option', () => {
  const c = parseCommandLine([
    '--secure-port=0', '--bind-address', '::1', '--advertise-address=192.0.2.7', '--endpoint-reconciler-type=none', '--tls-cert-file=c.pem', '--tls-private-key-file=k.pem', '--client-ca-file=ca.pem',
    '--token-auth-file=t.csv', '--anonymous-auth=false', '--authorization-mode=AlwaysDeny,AlwaysAllow', '--runtime-config=api/all=true',
    '--feature-gates=WatchList=true', '--feature-gates', 'AllAlpha=false', '--history-window=60', '--min-request-timeout=10',
    '--request-timeout=2m30s', '--http2-max-streams-per-connection=250',
    '--storage-backend=memory', '--data-dir=/tmp/x', '--plain-http-port=8080', '-v', '4', '--enable-test-controls',
    '--service-account-issuer=https://a', '--service-account-issuer', 'https://b', '--service-account-signing-key-file=sa.key',
    '--service-account-key-file=a.pub', '--service-account-key-file=b.pub', '--api-audiences=x,y', '--service-account-max-token-expiration=7200', '--enable-bootstrap-token-auth',
    '--authentication-token-webhook-config-file=tw.kubeconfig', '--authentication-token-webhook-version=v1', '--authentication-token-webhook-cache-ttl=10s',
    '--authorization-policy-file=abac.jsonl', '--authorization-webhook-config-file=aw.kubeconfig', '--authorization-webhook-version=v1', '--authorization-webhook-cache-authorized-ttl=1m',
    '--authorization-webhook-cache-unauthorized-ttl=1500ms',
    '--oidc-issuer-url=https://issuer', '--oidc-client-id=capstan', '--oidc-ca-file=oidc-ca.pem', '--oidc-username-claim=email', '--oidc-username-prefix=-',
    '--oidc-groups-claim=groups', '--oidc-groups-prefix=oidc:', '--oidc-required-claim=hd=example.com', '--oidc-required-claim=tier=gold', '--oidc-signing-algs=RS256,ES256',
    '--requestheader-client-ca-file=proxy-ca.pem', '--requestheader-allowed-names=front-proxy-client', '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group', '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    '--proxy-client-cert-file=front-proxy-client.crt', '--proxy-client-key-file=front-proxy-client.key', '--enable-aggregator-routing=true',
    '--leader-elect=true', '--leader-elect-lease-duration=30s', '--leader-elect-renew-deadline=20s', '--leader-elect-retry-period=3s', '--cluster-signing-duration=2h',
    '--cluster-signing-kubelet-serving-cert-file=ks.crt', '--cluster-signing-kubelet-serving-key-file=ks.key', '--cluster-signing-legacy-unknown-key-file=lu.key',
    '--shutdown-delay-duration=2s', '--shutdown-send-retry-after',
    '--enable-priority-and-fairness=false', '--max-requests-inflight=10', '--max-mutating-requests-inflight=5',
    '--audit-policy-file=policy.yaml', '--audit-log-path=-', '--audit-log-maxage=7', '--audit-log-maxbackup=3', '--audit-log-maxsize=50',
    '--audit-webhook-config-file=hook.kubeconfig', '--audit-webhook-batch-max-size=10', '--audit-webhook-batch-max-wait=1s',
  ]);
  assert.equal(c.kind, 'run');
  if (c.kind !== 'run') return;
  assert.deepEqual(c.options, {
    port: 0,
    bindAddress: '::1',
    advertiseAddress: '192.0.2.7',
    endpointReconcilerType: 'none',
    tlsCertFile: 'c.pem',
    tlsPrivateKeyFile: 'k.pem',
    clientCaFile: 'ca.pem',
    tokenAuthFile: 't.csv',
    anonymousAuth: false,
    authorizationMode: ['AlwaysDeny', 'AlwaysAllow'],
    serviceAccountIssuers: ['https://a', 'https://b'],
    serviceAccountSigningKeyFile: 'sa.key',
    serviceAccountKeyFiles: ['a.pub', 'b.pub'],
    apiAudiences: ['x', 'y'],
    serviceAccountMaxTokenExpirationSeconds: 7200,
    runtimeConfig: 'api/all=true',
    featureGates: { WatchList: true, AllAlpha: false },
    historyWindowSeconds: 60,
    minRequestTimeoutSeconds: 10,
    requestTimeoutSeconds: 150,
    http2MaxStreamsPerConnection: 250,
    storageBackend: 'memory',
    leaderElect: true,
    leaderElection: { leaseDurationMs: 30_000, renewDeadlineMs: 20_000, retryPeriodMs: 3_000 },
    clusterSigningDurationMs: 2 * 3_600_000,
    clusterSigningCertFile: undefined,
    clusterSigningKeyFile: undefined,
    clusterSigningSignerFiles: { 'kubelet-serving': { certFile: 'ks.crt', keyFile: 'ks.key' }, 'legacy-unknown': { keyFile: 'lu.key' } },
    shutdownDelaySeconds: 2,
    shutdownSendRetryAfter: true,
    dataDir: '/tmp/x',
    plainHttpPort: 8080,
    logLevel: 4,
    requestheaderClientCaFile: 'proxy-ca.pem',
    requestheaderAllowedNames: ['front-proxy-client'],
    requestheaderUsernameHeaders: ['X-Remote-User'],
    requestheaderGroupHeaders: ['X-Remote-Group'],
    requestheaderExtraHeadersPrefix: ['X-Remote-Extra-'],
    proxyClientCertFile: 'front-proxy-client.crt',
    proxyClientKeyFile: 'front-proxy-client.key',
    oidcIssuerUrl: 'https://issuer',
    oidcClientId: 'capstan',
    oidcCaFile: 'oidc-ca.pem',
    oidcUsernameClaim: 'email',
    oidcUsernamePrefix: '-',
    oidcGroupsClaim: 'groups',
    oidcGroupsPrefix: 'oidc:',
    oidcRequiredClaims: { hd: 'example.com', tier: 'gold' },
    oidcSigningAlgs: ['RS256', 'ES256'],
    authenticationConfigFile: undefined,
    authorizationConfigFile: undefined,
    authenticationTokenWebhookConfigFile: 'tw.kubeconfig',
    authenticationTokenWebhookVersion: 'v1',
    authenticationTokenWebhookCacheTtlSeconds: 10,
    authorizationPolicyFile: 'abac.jsonl',
    authorizationWebhookConfigFile: 'aw.kubeconfig',
    authorizationWebhookVersion: 'v1',
    authorizationWebhookCacheAuthorizedTtlSeconds: 60,
    authorizationWebhookCacheUnauthorizedTtlSeconds: 1.5,
    enableBootstrapTokenAuth: true,
    namespaceDefaults: true,
    localApiServices: true,
    enableTestControls: true,
    enablePriorityAndFairness: false,
    maxRequestsInflight: 10,
    maxMutatingRequestsInflight: 5,
    audit: { policyFile: 'policy.yaml', logPath: '-', logMaxAgeDays: 7, logMaxBackups: 3, logMaxSizeMB: 50, webhookConfigFile: 'hook.kubeconfig', webhookBatchMaxSize: 10, webhookBatchMaxWaitMs: 1000 },
  });
  assert.equal(c.verbosity, 4);
});

test('--help and --version', () => {
  assert.deepEqual(parseCommandLine(['--help']), { kind: 'help' });
  assert.deepEqual(parseCommandLine(['-h']), { kind: 'help' });
  assert.deepEqual(parseCommandLine(['--version']), { kind: 'version' });
});

test('etcd3 flags: servers, prefix, TLS files and the compaction interval', () => {
  const cmd = parseCommandLine(['--storage-backend=etcd3', '--etcd-servers=http://127.0.0.1:1,http://127.0.0.1:2', '--etcd-prefix=/kube', '--etcd-cafile=/ca', '--etcd-certfile=/c', '--etcd-keyfile=/k', '--etcd-compaction-interval=1m30s']);
  assert.equal(cmd.kind, 'run');
  if (cmd.kind !== 'run') return;
  assert.equal(cmd.options.storageBackend, 'etcd3');
  assert.deepEqual(cmd.options.etcd, { servers: ['http://127.0.0.1:1', 'http://127.0.0.1:2'], prefix: '/kube', caFile: '/ca', certFile: '/c', keyFile: '/k', compactionIntervalMs: 90_000, mediaType: 'application/json' });
  const defaults = parseCommandLine(['--storage-backend=etcd3', '--etcd-servers=http://127.0.0.1:1']);
  assert.equal(defaults.kind === 'run' && defaults.options.etcd?.prefix, '/registry');
  assert.equal(defaults.kind === 'run' && defaults.options.etcd?.compactionIntervalMs, 300_000);
  const protobuf = parseCommandLine(['--storage-backend=etcd3', '--etcd-servers=http://127.0.0.1:1', '--storage-media-type=application/vnd.kubernetes.protobuf']);
  assert.equal(protobuf.kind === 'run' && protobuf.options.etcd?.mediaType, 'application/vnd.kubernetes.protobuf');
});

test('bad values are FlagErrors with kube\'s messages', () => {
  const cases: Array<[string[], string]> = [
    [['--bind-address=localhost'], 'invalid argument "localhost" for "--bind-address" flag: failed to parse IP: "localhost"'],
    [['--feature-gates=Nope=true'], 'invalid argument "Nope=true" for "--feature-gates" flag: unrecognized feature gate: Nope'],
    [['--feature-gates=WatchList'], 'invalid argument "WatchList" for "--feature-gates" flag: missing bool value for WatchList'],
    [['--feature-gates=WatchList=yes'], 'invalid argument "WatchList=yes" for "--feature-gates" flag: invalid value of WatchList=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'],
    [['--feature-gates=ServerSideApply=false'], 'invalid argument "ServerSideApply=false" for "--feature-gates" flag: cannot set feature gate ServerSideApply to false, feature is locked to true'],
    [['--storage-backend=etcd2'], "--storage-backend invalid, allowed values: sqlite, memory, etcd3. If not specified, it will default to 'sqlite'"],
    [['--storage-backend=etcd3'], '--etcd-servers must be specified'],
    [['--storage-backend=etcd3', '--etcd-servers=http://127.0.0.1:2379', '--etcd-compaction-interval=5x'], 'invalid argument "5x" for "--etcd-compaction-interval" flag: time: unknown unit "x" in duration "5x"'],
    [['--storage-media-type=text/plain'], '--storage-media-type "text/plain" invalid, allowed values: application/json, application/vnd.kubernetes.protobuf, application/yaml'],
    [['--advertise-address=apiserver'], 'invalid argument "apiserver" for "--advertise-address" flag: failed to parse IP: "apiserver"'],
    [['--endpoint-reconciler-type=master-count'], '--endpoint-reconciler-type "master-count" is not supported by Capstan, allowed values: lease, none'],
    [['--storage-media-type=application/vnd.kubernetes.protobuf'], '--storage-media-type "application/vnd.kubernetes.protobuf" needs --storage-backend=etcd3 (sqlite stores application/json)'],
    [['--storage-backend=etcd3', '--etcd-servers=http://127.0.0.1:2379', '--storage-media-type=application/yaml'], '--storage-media-type "application/yaml" is not supported by Capstan (objects are stored as application/json or application/vnd.kubernetes.protobuf)'],
    [['--leader-elect-lease-duration=5s'], 'leaseDuration must be greater than renewDeadline'],
    [['serve'], '"capstan" does not take any arguments, got ["serve"]'],
    [['--request-timeout=60'], 'invalid argument "60" for "--request-timeout" flag: time: missing unit in duration "60"'],
  ];
  for (const [argv, message] of cases) assert.throws(() => parseCommandLine(argv), (e: unknown) => e instanceof FlagError && e.message === message, argv.join(' '));
});

test('--envtest takes the flags controller-runtime envtest passes, ignores the etcd ones, defaults to memory with test controls', async () => {
  const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { parseEnvtestCommandLine, wantsEnvtest } = await import('./envtest.ts');
  const dir = await mkdtemp(join(tmpdir(), 'capstan-envtest-'));
  try {
    await writeFile(join(dir, 'apiserver.crt'), 'cert');
    await writeFile(join(dir, 'apiserver.key'), 'key');
    const argv = [
      '--envtest', '--advertise-address=127.0.0.1', '--etcd-servers=http://127.0.0.1:2379', `--cert-dir=${dir}`, '--insecure-port=0',
      '--secure-port=40001', '--disable-admission-plugins=ServiceAccount', '--service-cluster-ip-range=10.0.0.0/24', '--allow-privileged=true',
      '--authorization-mode=RBAC', '--bind-address=127.0.0.1', '--service-account-issuer=https://127.0.0.1:40001/',
      `--service-account-key-file=${dir}/sa-signer.crt`, `--service-account-signing-key-file=${dir}/sa-signer.key`, `--client-ca-file=${dir}/client-cert-auth-ca.crt`,
    ];
    assert.equal(wantsEnvtest(argv), true);
    assert.equal(wantsEnvtest(['--', '--envtest']), false);
    const c = parseEnvtestCommandLine(argv);
    assert.equal(c.kind, 'run');
    if (c.kind !== 'run') return;
    assert.equal(c.options.port, 40001);
    assert.equal(c.options.bindAddress, '127.0.0.1');
    assert.deepEqual(c.options.authorizationMode, ['RBAC']);
    assert.equal(c.options.clientCaFile, `${dir}/client-cert-auth-ca.crt`);
    assert.equal(c.options.tlsCertFile, join(dir, 'apiserver.crt'));
    assert.equal(c.options.tlsPrivateKeyFile, join(dir, 'apiserver.key'));
    assert.equal(c.options.storageBackend, 'memory');
    assert.equal(c.options.dataDir, undefined);
    assert.equal(c.options.enableTestControls, true);
    assert.throws(() => parseEnvtestCommandLine(['--envtest', '--etcd-bogus=1']), (e: Error) => e instanceof FlagError && e.message === 'unknown flag: --etcd-bogus');
    assert.throws(() => parseCommandLine(['--insecure-port=0']), FlagError);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('--authentication-config and --authorization-config: the defaults of the flags they exclude are not taken as given', () => {
  const c = parseCommandLine(['--authentication-config=/etc/authn.yaml', '--authorization-config=/etc/authz.yaml']);
  assert.equal(c.kind, 'run');
  if (c.kind !== 'run') return;
  assert.equal(c.options.authenticationConfigFile, '/etc/authn.yaml');
  assert.equal(c.options.authorizationConfigFile, '/etc/authz.yaml');
  for (const key of ['authorizationMode', 'authorizationWebhookVersion', 'authorizationWebhookCacheAuthorizedTtlSeconds', 'authorizationWebhookCacheUnauthorizedTtlSeconds', 'oidcUsernameClaim', 'oidcSigningAlgs'] as const) {
    assert.equal(c.options[key], undefined, key);
  }
  const both = parseCommandLine(['--authorization-config=/etc/authz.yaml', '--authorization-mode=RBAC']);
  assert.deepEqual(both.kind === 'run' && both.options.authorizationMode, ['RBAC']);
});
