// Capstan's command-line flags (kube-apiserver's names where one exists) and their translation to
// startCapstan options. Problems are FlagError (exit 2).

import { isIP } from 'node:net';
import { FlagError, parseFlags } from './flags.ts';
import type { FlagSpec, ParsedFlags } from './flags.ts';
import { parseFeatureGateFlag, resolveFeatureGates } from './feature-gates.ts';
import { parseGoDuration } from './duration.ts';
import type { CapstanOptions } from './start.ts';

export const FLAGS: readonly FlagSpec[] = [
  { name: 'secure-port', type: 'int', valueName: 'int', default: 6443, help: 'The port on which to serve HTTPS (HTTP/2 and HTTP/1.1). 0 picks a free port.' },
  { name: 'bind-address', type: 'string', valueName: 'ip', default: '127.0.0.1', help: 'The IP address on which to listen for the --secure-port port (0.0.0.0 or :: for all interfaces).' },
  { name: 'tls-cert-file', type: 'string', valueName: 'string', help: 'File containing the default x509 serving certificate (chain). When absent, a certificate signed by the generated CA is used.' },
  { name: 'tls-private-key-file', type: 'string', valueName: 'string', help: 'File containing the default x509 private key matching --tls-cert-file.' },
  { name: 'client-ca-file', type: 'string', valueName: 'string', help: 'A bundle of CA certificates accepted, besides the generated CA, to verify client certificates (CN = user, O = groups).' },
  { name: 'token-auth-file', type: 'string', valueName: 'string', help: 'A CSV file of static bearer tokens: token,user,uid,"group1,group2".' },
  { name: 'anonymous-auth', type: 'bool', default: true, help: 'Enables anonymous requests (user system:anonymous, group system:unauthenticated). Turned off when AlwaysAllow is an authorization mode.' },
  { name: 'authorization-mode', type: 'stringList', valueName: 'strings', default: ['Node', 'RBAC'], help: 'Ordered list of authorization modes: AlwaysAllow, AlwaysDeny, Node, RBAC. The admin kubeconfig (group system:masters) is always allowed.' },
  { name: 'requestheader-client-ca-file', type: 'string', valueName: 'string', help: 'CA bundle verifying the client certificates of an authenticating proxy; enables the --requestheader-* headers.' },
  { name: 'requestheader-allowed-names', type: 'stringList', valueName: 'strings', help: 'Client certificate common names of the proxy; empty: any certificate of the CA.' },
  { name: 'requestheader-username-headers', type: 'stringList', valueName: 'strings', help: 'Headers naming the user (the first non-empty one wins), e.g. X-Remote-User.' },
  { name: 'requestheader-group-headers', type: 'stringList', valueName: 'strings', help: 'Headers naming the groups, e.g. X-Remote-Group.' },
  { name: 'requestheader-extra-headers-prefix', type: 'stringList', valueName: 'strings', help: 'Header prefixes of extra user information, e.g. X-Remote-Extra-.' },
  { name: 'enable-bootstrap-token-auth', type: 'bool', help: 'Allow bootstrap tokens (Secrets bootstrap-token-<id> of type bootstrap.kubernetes.io/token in kube-system) to authenticate; runs their cleaner and the cluster-info signer.' },
  { name: 'service-account-issuer', type: 'stringList', valueName: 'strings', help: 'Issuer of service account tokens (repeatable: the first issues, all are accepted). Default https://kubernetes.default.svc.cluster.local.' },
  { name: 'service-account-signing-key-file', type: 'string', valueName: 'string', help: 'PEM private key (RSA or ECDSA) signing service account tokens. Default: sa.key in --data-dir, generated on first start.' },
  { name: 'service-account-key-file', type: 'stringList', valueName: 'strings', help: 'PEM files of public (or private) keys verifying service account tokens, repeatable. Default: --tls-private-key-file when given.' },
  { name: 'api-audiences', type: 'stringList', valueName: 'strings', help: 'Audiences of the API: tokens must name one of them. Default: the service account issuer.' },
  { name: 'service-account-max-token-expiration', type: 'int', valueName: 'seconds', help: 'The longest lifetime a TokenRequest gets, in seconds (0: no limit).' },
  { name: 'runtime-config', type: 'map', valueName: 'mapStringString', help: 'A set of key=value pairs enabling or disabling API group versions, e.g. api/all=true,batch/v1beta1=false.' },
  { name: 'feature-gates', type: 'map', valueName: 'mapStringBool', help: "A set of key=value pairs that describe feature gates (kube-apiserver 1.31's gates, e.g. WatchList=true); unknown gates are rejected." },
  { name: 'history-window', type: 'int', valueName: 'seconds', default: 300, help: 'How much change history storage keeps for watches and resourceVersion reads, in seconds. 0 keeps all.' },
  { name: 'min-request-timeout', type: 'int', valueName: 'int', default: 1800, help: 'The minimum number of seconds a watch is held open; each watch gets a random timeout between this and twice it.' },
  { name: 'request-timeout', type: 'string', valueName: 'duration', default: '1m0s', help: 'An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests.' },
  { name: 'http2-max-streams-per-connection', type: 'int', valueName: 'int', default: 0, help: "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang's default." },
  { name: 'storage-backend', type: 'string', valueName: 'string', default: 'sqlite', help: 'The storage backend: sqlite (a database in --data-dir) or memory (lost on exit).' },
  { name: 'data-dir', type: 'string', valueName: 'string', default: './.capstan', help: 'Directory for the database, certificates and admin.kubeconfig (created 0700).' },
  { name: 'plain-http-port', type: 'int', valueName: 'int', help: 'INSECURE: also serve unencrypted HTTP/1.1 on this port of --bind-address, for local debugging. Off unless given.' },
  { name: 'enable-priority-and-fairness', type: 'bool', default: true, help: 'If true, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness' },
  { name: 'max-requests-inflight', type: 'int', valueName: 'int', default: 400, help: "This and --max-mutating-requests-inflight are summed to determine the server's total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of non-mutating requests in flight, or a zero value disables the limit completely." },
  { name: 'max-mutating-requests-inflight', type: 'int', valueName: 'int', default: 200, help: "This and --max-requests-inflight are summed to determine the server's total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of mutating requests in flight, or a zero value disables the limit completely." },
  { name: 'audit-policy-file', type: 'string', valueName: 'string', help: 'Path to the file that defines the audit policy configuration.' },
  { name: 'audit-log-path', type: 'string', valueName: 'string', help: "If set, all requests coming to the apiserver will be logged to this file.  '-' means standard out." },
  { name: 'audit-log-maxage', type: 'int', valueName: 'int', default: 0, help: 'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.' },
  { name: 'audit-log-maxbackup', type: 'int', valueName: 'int', default: 0, help: "The maximum number of old audit log files to retain. Setting a value of 0 will mean there's no restriction on the number of files." },
  { name: 'audit-log-maxsize', type: 'int', valueName: 'int', default: 0, help: 'The maximum size in megabytes of the audit log file before it gets rotated.' },
  { name: 'audit-webhook-config-file', type: 'string', valueName: 'string', help: 'Path to a kubeconfig formatted file that defines the audit webhook configuration.' },
  { name: 'audit-webhook-batch-max-size', type: 'int', valueName: 'int', default: 400, help: 'The maximum size of a batch. Only used in batch mode.' },
  { name: 'audit-webhook-batch-max-wait', type: 'string', valueName: 'duration', default: '30s', help: "The amount of time to wait before force writing the batch that hadn't reached the max size. Only used in batch mode." },
  { name: 'v', short: 'v', type: 'int', valueName: 'Level', default: 0, help: 'Number for the log level verbosity (logs are JSON lines on stderr).' },
  { name: 'version', type: 'bool', help: 'Print version information and quit.' },
  { name: 'help', short: 'h', type: 'bool', help: 'Help for capstan.' },
];

export type CliCommand = { kind: 'help' } | { kind: 'version' } | { kind: 'run'; options: CapstanOptions; verbosity: number };

function invalid(raw: string, flag: string, problem: string): FlagError {
  return new FlagError(`invalid argument ${JSON.stringify(raw)} for "${flag}" flag: ${problem}`);
}

export function parseCommandLine(argv: readonly string[]): CliCommand {
  const parsed: ParsedFlags = parseFlags(FLAGS, argv);
  const v = parsed.values;
  if (v.help === true) return { kind: 'help' };
  if (v.version === true) return { kind: 'version' };
  if (parsed.positional.length > 0) throw new FlagError(`"capstan" does not take any arguments, got ${JSON.stringify(parsed.positional)}`);

  const bind = v['bind-address'] as string;
  if (isIP(bind) === 0) throw invalid(bind, '--bind-address', `failed to parse IP: ${JSON.stringify(bind)}`);

  let featureGates: Record<string, boolean> = {};
  if (parsed.given.has('feature-gates')) {
    const raw = v['feature-gates'] as string;
    try {
      featureGates = parseFeatureGateFlag(raw);
      resolveFeatureGates(featureGates);
    } catch (e) {
      throw invalid(raw, '--feature-gates', (e as Error).message);
    }
  }

  const backend = v['storage-backend'] as string;
  if (backend !== 'sqlite' && backend !== 'memory') {
    throw new FlagError(`--storage-backend invalid, allowed values: sqlite, memory. If not specified, it will default to 'sqlite'`);
  }
  const rawTimeout = v['request-timeout'] as string;
  let requestTimeoutMs: number;
  try {
    requestTimeoutMs = parseGoDuration(rawTimeout);
  } catch (e) {
    throw invalid(rawTimeout, '--request-timeout', (e as Error).message);
  }
  const rawBatchWait = v['audit-webhook-batch-max-wait'] as string;
  let batchWaitMs: number;
  try {
    batchWaitMs = parseGoDuration(rawBatchWait);
  } catch (e) {
    throw invalid(rawBatchWait, '--audit-webhook-batch-max-wait', (e as Error).message);
  }
  const verbosity = v.v as number;
  if (verbosity < 0) throw invalid(String(verbosity), '-v, --v', 'must be a non-negative number');

  const options: CapstanOptions = {
    port: v['secure-port'] as number,
    bindAddress: bind,
    tlsCertFile: (v['tls-cert-file'] as string | undefined) || undefined,
    tlsPrivateKeyFile: (v['tls-private-key-file'] as string | undefined) || undefined,
    clientCaFile: (v['client-ca-file'] as string | undefined) || undefined,
    tokenAuthFile: (v['token-auth-file'] as string | undefined) || undefined,
    anonymousAuth: parsed.given.has('anonymous-auth') ? (v['anonymous-auth'] as boolean) : undefined,
    authorizationMode: v['authorization-mode'] as string[],
    serviceAccountIssuers: (v['service-account-issuer'] as string[] | undefined) ?? undefined,
    serviceAccountSigningKeyFile: (v['service-account-signing-key-file'] as string | undefined) || undefined,
    serviceAccountKeyFiles: (v['service-account-key-file'] as string[] | undefined) ?? undefined,
    apiAudiences: (v['api-audiences'] as string[] | undefined) ?? undefined,
    serviceAccountMaxTokenExpirationSeconds: parsed.given.has('service-account-max-token-expiration') ? (v['service-account-max-token-expiration'] as number) : undefined,
    runtimeConfig: (v['runtime-config'] as string | undefined) ?? '',
    featureGates,
    historyWindowSeconds: v['history-window'] as number,
    minRequestTimeoutSeconds: v['min-request-timeout'] as number,
    requestTimeoutSeconds: requestTimeoutMs / 1000,
    http2MaxStreamsPerConnection: v['http2-max-streams-per-connection'] as number,
    storageBackend: backend,
    dataDir: v['data-dir'] as string,
    plainHttpPort: parsed.given.has('plain-http-port') ? (v['plain-http-port'] as number) : undefined,
    logLevel: verbosity,
    enablePriorityAndFairness: v['enable-priority-and-fairness'] as boolean,
    maxRequestsInflight: v['max-requests-inflight'] as number,
    maxMutatingRequestsInflight: v['max-mutating-requests-inflight'] as number,
    audit: {
      policyFile: (v['audit-policy-file'] as string | undefined) || undefined,
      logPath: (v['audit-log-path'] as string | undefined) || undefined,
      logMaxAgeDays: v['audit-log-maxage'] as number,
      logMaxBackups: v['audit-log-maxbackup'] as number,
      logMaxSizeMB: v['audit-log-maxsize'] as number,
      webhookConfigFile: (v['audit-webhook-config-file'] as string | undefined) || undefined,
      webhookBatchMaxSize: v['audit-webhook-batch-max-size'] as number,
      webhookBatchMaxWaitMs: batchWaitMs,
    },
    requestheaderClientCaFile: (v['requestheader-client-ca-file'] as string | undefined) || undefined,
    requestheaderAllowedNames: v['requestheader-allowed-names'] as string[] | undefined,
    requestheaderUsernameHeaders: v['requestheader-username-headers'] as string[] | undefined,
    requestheaderGroupHeaders: v['requestheader-group-headers'] as string[] | undefined,
    requestheaderExtraHeadersPrefix: v['requestheader-extra-headers-prefix'] as string[] | undefined,
    enableBootstrapTokenAuth: v['enable-bootstrap-token-auth'] === true ? true : undefined,
    namespaceDefaults: true,
  };
  return { kind: 'run', options, verbosity };
}
