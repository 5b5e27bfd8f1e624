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
    runtimeConfig: '',
    featureGates: {},
    historyWindowSeconds: 300,
    minRequestTimeoutSeconds: 1800,
    requestTimeoutSeconds: 60,
    http2MaxStreamsPerConnection: 0,
    storageBackend: 'sqlite',
    leaderElect: undefined,
    leaderElection: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
    shutdownDelaySeconds: 0,
    shutdownSendRetryAfter: false,
    dataDir: './.capstan',
    plainHttpPort: undefined,
    logLevel: 0,
  });
});

test('every flag maps to its option', () => {
  const c = parseCommandLine([
    '--secure-port=0', '--bind-address', '::1', '--tls-cert-file=c.pem', '--tls-private-key-file=k.pem', '--client-ca-file=ca.pem',
    '--token-auth-file=t.csv', '--anonymous-auth=false', '--authorization-mode=AlwaysDeny,AlwaysAllow', '--runtime-config=api/all=true',
    '--feature-gates=WatchList=true', '--feature-gates', 'AllAlpha=false', '--history-window=60', '--min-request-timeout=10',
    '--storage-backend=memory', '--data-dir=/tmp/x', '--plain-http-port=8080', '-v', '4',
    '--leader-elect=true', '--leader-elect-lease-duration=30s', '--leader-elect-renew-deadline=20s', '--leader-elect-retry-period=3s',
    '--shutdown-delay-duration=2s', '--shutdown-send-retry-after',
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
    runtimeConfig: 'api/all=true',
    featureGates: { WatchList: true, AllAlpha: false },
    historyWindowSeconds: 60,
    minRequestTimeoutSeconds: 10,
    requestTimeoutSeconds: 60,
    http2MaxStreamsPerConnection: 0,
    storageBackend: 'memory',
    leaderElect: true,
    leaderElection: { leaseDurationMs: 30_000, renewDeadlineMs: 20_000, retryPeriodMs: 3_000 },
    shutdownDelaySeconds: 2,
    shutdownSendRetryAfter: true,
    dataDir: '/tmp/x',
    plainHttpPort: 8080,
    logLevel: 4,
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
  assert.deepEqual(cmd.options.etcd, { servers: ['http://127.0.0.1:1', 'http://127.0.0.1:2'], prefix: '/kube', caFile: '/ca', certFile: '/c', keyFile: '/k', compactionIntervalMs: 90_000 });
  const defaults = parseCommandLine(['--storage-backend=etcd3', '--etcd-servers=http://127.0.0.1:1']);
  assert.equal(defaults.kind === 'run' && defaults.options.etcd?.prefix, '/registry');
  assert.equal(defaults.kind === 'run' && defaults.options.etcd?.compactionIntervalMs, 300_000);
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
    [['--leader-elect-lease-duration=5s'], 'leaseDuration must be greater than renewDeadline'],
    [['serve'], '"capstan" does not take any arguments, got ["serve"]'],
  ];
  for (const [argv, message] of cases) assert.throws(() => parseCommandLine(argv), (e: unknown) => e instanceof FlagError && e.message === message, argv.join(' '));
});
