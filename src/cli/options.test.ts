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
    dataDir: './.capstan',
    plainHttpPort: undefined,
    logLevel: 0,
    requestheaderClientCaFile: undefined,
    requestheaderAllowedNames: undefined,
    requestheaderUsernameHeaders: undefined,
    requestheaderGroupHeaders: undefined,
    requestheaderExtraHeadersPrefix: undefined,
    enableBootstrapTokenAuth: undefined,
    namespaceDefaults: true,
    enablePriorityAndFairness: true,
    maxRequestsInflight: 400,
    maxMutatingRequestsInflight: 200,
    audit: { policyFile: undefined, logPath: undefined, logMaxAgeDays: 0, logMaxBackups: 0, logMaxSizeMB: 0, webhookConfigFile: undefined, webhookBatchMaxSize: 400, webhookBatchMaxWaitMs: 30_000 },
  });
});

test('every flag maps to its option', () => {
  const c = parseCommandLine([
    '--secure-port=0', '--bind-address', '::1', '--tls-cert-file=c.pem', '--tls-private-key-file=k.pem', '--client-ca-file=ca.pem',
    '--token-auth-file=t.csv', '--anonymous-auth=false', '--authorization-mode=AlwaysDeny,AlwaysAllow', '--runtime-config=api/all=true',
    '--feature-gates=WatchList=true', '--feature-gates', 'AllAlpha=false', '--history-window=60', '--min-request-timeout=10',
    '--storage-backend=memory', '--data-dir=/tmp/x', '--plain-http-port=8080', '-v', '4',
    '--service-account-issuer=https://a', '--service-account-issuer', 'https://b', '--service-account-signing-key-file=sa.key',
    '--service-account-key-file=a.pub', '--service-account-key-file=b.pub', '--api-audiences=x,y', '--service-account-max-token-expiration=7200', '--enable-bootstrap-token-auth',
    '--requestheader-client-ca-file=proxy-ca.pem', '--requestheader-allowed-names=front-proxy-client', '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group', '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    '--enable-priority-and-fairness=false', '--max-requests-inflight=10', '--max-mutating-requests-inflight=5',
    '--audit-policy-file=policy.yaml', '--audit-log-path=-', '--audit-log-maxage=7', '--audit-log-maxbackup=3', '--audit-log-maxsize=50',
    '--audit-webhook-config-file=hook.kubeconfig', '--audit-webhook-batch-max-size=10', '--audit-webhook-batch-max-wait=1s',
  ]);
  assert.equal(c.kind, 'run');
  if (c.kind !== 'run') return;
  assert.deepEqual(c.options, {
    port: 0,
    bindAddress: '::1',
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
    requestTimeoutSeconds: 60,
    http2MaxStreamsPerConnection: 0,
    storageBackend: 'memory',
    dataDir: '/tmp/x',
    plainHttpPort: 8080,
    logLevel: 4,
    requestheaderClientCaFile: 'proxy-ca.pem',
    requestheaderAllowedNames: ['front-proxy-client'],
    requestheaderUsernameHeaders: ['X-Remote-User'],
    requestheaderGroupHeaders: ['X-Remote-Group'],
    requestheaderExtraHeadersPrefix: ['X-Remote-Extra-'],
    enableBootstrapTokenAuth: true,
    namespaceDefaults: true,
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

test('bad values are FlagErrors with kube\'s messages', () => {
  const cases: Array<[string[], string]> = [
    [['--bind-address=localhost'], 'invalid argument "localhost" for "--bind-address" flag: failed to parse IP: "localhost"'],
    [['--feature-gates=Nope=true'], 'invalid argument "Nope=true" for "--feature-gates" flag: unrecognized feature gate: Nope'],
    [['--feature-gates=WatchList'], 'invalid argument "WatchList" for "--feature-gates" flag: missing bool value for WatchList'],
    [['--feature-gates=WatchList=yes'], 'invalid argument "WatchList=yes" for "--feature-gates" flag: invalid value of WatchList=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'],
    [['--feature-gates=ServerSideApply=false'], 'invalid argument "ServerSideApply=false" for "--feature-gates" flag: cannot set feature gate ServerSideApply to false, feature is locked to true'],
    [['--storage-backend=etcd3'], "--storage-backend invalid, allowed values: sqlite, memory. If not specified, it will default to 'sqlite'"],
    [['serve'], '"capstan" does not take any arguments, got ["serve"]'],
  ];
  for (const [argv, message] of cases) assert.throws(() => parseCommandLine(argv), (e: unknown) => e instanceof FlagError && e.message === message, argv.join(' '));
});
