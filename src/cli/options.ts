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
  { name: 'advertise-address', type: 'string', valueName: 'ip', help: 'The IP address the kubernetes Service\'s Endpoints and EndpointSlice name for this instance. If blank, a specific IPv4 --bind-address is used, else 127.0.0.1 (loopback addresses get no endpoints, as in kube).' },
  { name: 'endpoint-reconciler-type', type: 'string', valueName: 'string', default: 'lease', help: 'Use an endpoint reconciler (lease, none). lease: every instance keeps a 15 s lease in storage and the endpoints list the live ones. master-count (deprecated in kube) is not supported.' },
  { name: 'tls-cert-file', type: 'string', valueName: 'string', help: 'File containing the default x509 serving certificate (chain). When absent, a certificate signed by the generated CA is used.' },
  { name: 'tls-private-key-file', type: 'string', valueName: 'string', help: 'File containing the default x509 private key matching --tls-cert-file.' },
  { name: 'client-ca-file', type: 'string', valueName: 'string', help: 'A bundle of CA certificates accepted, besides the generated CA, to verify client certificates (CN = user, O = groups).' },
  { name: 'token-auth-file', type: 'string', valueName: 'string', help: 'A CSV file of static bearer tokens: token,user,uid,"group1,group2".' },
  { name: 'anonymous-auth', type: 'bool', default: true, help: 'Enables anonymous requests (user system:anonymous, group system:unauthenticated). Turned off when AlwaysAllow is an authorization mode.' },
  { name: 'authorization-mode', type: 'stringList', valueName: 'strings', default: ['Node', 'RBAC'], help: 'Ordered list of authorization modes: AlwaysAllow, AlwaysDeny, ABAC, Node, RBAC, Webhook. The admin kubeconfig (group system:masters) is always allowed.' },
  { name: 'requestheader-client-ca-file', type: 'string', valueName: 'string', help: 'CA bundle verifying the client certificates of an authenticating proxy; enables the --requestheader-* headers.' },
  { name: 'requestheader-allowed-names', type: 'stringList', valueName: 'strings', help: 'Client certificate common names of the proxy; empty: any certificate of the CA.' },
  { name: 'requestheader-username-headers', type: 'stringList', valueName: 'strings', help: 'Headers naming the user (the first non-empty one wins), e.g. X-Remote-User.' },
  { name: 'requestheader-group-headers', type: 'stringList', valueName: 'strings', help: 'Headers naming the groups, e.g. X-Remote-Group.' },
  { name: 'requestheader-extra-headers-prefix', type: 'stringList', valueName: 'strings', help: 'Header prefixes of extra user information, e.g. X-Remote-Extra-.' },
  { name: 'proxy-client-cert-file', type: 'string', valueName: 'string', help: 'Client certificate the aggregator presents to extension API servers (with --proxy-client-key-file). Default: front-proxy-client, signed by the generated CA, made in the data dir on first use.' },
  { name: 'proxy-client-key-file', type: 'string', valueName: 'string', help: 'Private key of --proxy-client-cert-file.' },
  { name: 'enable-aggregator-routing', type: 'bool', default: true, help: "Accepted for kube-apiserver command lines; always on here: an APIService's ClusterIP Service is reached through its endpoint addresses, as cluster IPs lead nowhere without a service proxy (ExternalName Services through their name)." },
  { name: 'oidc-issuer-url', type: 'string', valueName: 'string', help: 'The https URL of the OpenID issuer; with --oidc-client-id, its ID tokens authenticate.' },
  { name: 'oidc-client-id', type: 'string', valueName: 'string', help: 'The client ID (audience) OpenID tokens must be issued for.' },
  { name: 'oidc-ca-file', type: 'string', valueName: 'string', help: "The CA bundle of the OpenID issuer's TLS certificate (default: the system roots)." },
  { name: 'oidc-username-claim', type: 'string', valueName: 'string', default: 'sub', help: 'The claim naming the user.' },
  { name: 'oidc-username-prefix', type: 'string', valueName: 'string', help: 'Prefix of usernames; default "<issuer>#" for claims other than email; "-" for none.' },
  { name: 'oidc-groups-claim', type: 'string', valueName: 'string', help: 'The claim naming the groups (a string or a list of strings).' },
  { name: 'oidc-groups-prefix', type: 'string', valueName: 'string', help: 'Prefix of group names.' },
  { name: 'oidc-required-claim', type: 'map', valueName: 'mapStringString', help: 'key=value pairs every token must carry.' },
  { name: 'oidc-signing-algs', type: 'stringList', valueName: 'strings', default: ['RS256'], help: 'The JOSE algorithms tokens may be signed with.' },
  { name: 'authentication-token-webhook-config-file', type: 'string', valueName: 'string', help: 'A kubeconfig naming a webhook that authenticates bearer tokens with TokenReviews.' },
  { name: 'authentication-token-webhook-version', type: 'string', valueName: 'string', default: 'v1beta1', help: 'The TokenReview version sent to the token webhook: v1beta1 or v1.' },
  { name: 'authentication-token-webhook-cache-ttl', type: 'string', valueName: 'duration', default: '2m0s', help: 'How long the token webhook\'s answers are cached.' },
  { name: 'authentication-config', type: 'string', valueName: 'string', help: 'File with an AuthenticationConfiguration (apiserver.config.k8s.io): JWT authenticators with CEL claim mappings and validation rules; reloaded when it changes. Exclusive with --oidc-*.' },
  { name: 'authorization-config', type: 'string', valueName: 'string', help: 'File with an AuthorizationConfiguration (apiserver.config.k8s.io): the ordered authorizers, Webhooks with CEL matchConditions among them; reloaded when it changes. Exclusive with --authorization-mode and --authorization-webhook-*.' },
  { name: 'authorization-policy-file', type: 'string', valueName: 'string', help: 'The ABAC mode\'s policies: one JSON Policy object per line.' },
  { name: 'authorization-webhook-config-file', type: 'string', valueName: 'string', help: 'A kubeconfig naming the webhook of the Webhook authorization mode (SubjectAccessReviews).' },
  { name: 'authorization-webhook-version', type: 'string', valueName: 'string', default: 'v1beta1', help: 'The SubjectAccessReview version sent to the authorization webhook: v1beta1 or v1.' },
  { name: 'authorization-webhook-cache-authorized-ttl', type: 'string', valueName: 'duration', default: '5m0s', help: 'How long allowed answers of the authorization webhook are cached.' },
  { name: 'authorization-webhook-cache-unauthorized-ttl', type: 'string', valueName: 'duration', default: '30s', help: 'How long other answers of the authorization webhook are cached.' },
  { name: 'enable-bootstrap-token-auth', type: 'bool', help: 'Allow bootstrap tokens (Secrets bootstrap-token-<id> of type bootstrap.kubernetes.io/token in kube-system) to authenticate; runs their cleaner and the cluster-info signer.' },
  { name: 'service-account-issuer', type: 'stringList', valueName: 'strings', help: 'Issuer of service account tokens (repeatable: the first issues, all are accepted). Default https://kubernetes.default.svc.cluster.local.' },
  { name: 'service-account-signing-key-file', type: 'string', valueName: 'string', help: 'PEM private key (RSA or ECDSA) signing service account tokens. Default: sa.key in --data-dir, generated on first start.' },
  { name: 'service-account-key-file', type: 'stringList', valueName: 'strings', help: 'PEM files of public (or private) keys verifying service account tokens, repeatable. Default: --tls-private-key-file when given.' },
  { name: 'api-audiences', type: 'stringList', valueName: 'strings', help: 'Audiences of the API: tokens must name one of them. Default: the service account issuer.' },
  { name: 'service-account-max-token-expiration', type: 'int', valueName: 'seconds', help: 'The longest lifetime a TokenRequest gets, in seconds (0: no limit).' },
  { name: 'runtime-config', type: 'map', valueName: 'mapStringString', help: 'A set of key=value pairs enabling or disabling API group versions, e.g. api/all=true,batch/v1beta1=false.' },
  { name: 'feature-gates', type: 'map', valueName: 'mapStringBool', help: "A set of key=value pairs that describe feature gates (kube-apiserver 1.31's gates, e.g. WatchList=true); unknown gates are rejected." },
  { name: 'enable-admission-plugins', type: 'stringList', valueName: 'strings', help: 'admission plugins that should be enabled in addition to default enabled ones (NamespaceLifecycle, LimitRanger, ServiceAccount, TaintNodesByCondition, PodSecurity, Priority, DefaultTolerationSeconds, DefaultStorageClass, StorageObjectInUseProtection, PersistentVolumeClaimResize, RuntimeClass, CertificateApproval, CertificateSigning, ClusterTrustBundleAttest, CertificateSubjectRestriction, DefaultIngressClass, MutatingAdmissionWebhook, ValidatingAdmissionPolicy, ValidatingAdmissionWebhook, ResourceQuota). The order of plugins in this flag does not matter.' },
  { name: 'disable-admission-plugins', type: 'stringList', valueName: 'strings', help: 'admission plugins that should be disabled although they are in the default enabled plugins list. The order of plugins in this flag does not matter.' },
  { name: 'admission-control-config-file', type: 'string', valueName: 'string', help: 'File with admission control configuration (an AdmissionConfiguration).' },
  { name: 'history-window', type: 'int', valueName: 'seconds', default: 300, help: 'How much change history storage keeps for watches and resourceVersion reads, in seconds. 0 keeps all.' },
  { name: 'min-request-timeout', type: 'int', valueName: 'int', default: 1800, help: 'The minimum number of seconds a watch is held open; each watch gets a random timeout between this and twice it.' },
  { name: 'request-timeout', type: 'string', valueName: 'duration', default: '1m0s', help: 'An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests.' },
  { name: 'http2-max-streams-per-connection', type: 'int', valueName: 'int', default: 0, help: "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang's default." },
  { name: 'storage-backend', type: 'string', valueName: 'string', default: 'sqlite', help: 'The storage backend: sqlite (a database in --data-dir), memory (lost on exit) or etcd3 (the etcd cluster of --etcd-servers; several Capstan instances may share it).' },
  { name: 'etcd-servers', type: 'stringList', valueName: 'strings', help: 'List of etcd servers to connect with (scheme://ip:port), comma separated.' },
  { name: 'etcd-prefix', type: 'string', valueName: 'string', default: '/registry', help: 'The prefix to prepend to all resource paths in etcd.' },
  { name: 'etcd-cafile', type: 'string', valueName: 'string', help: 'SSL Certificate Authority file used to secure etcd communication.' },
  { name: 'etcd-certfile', type: 'string', valueName: 'string', help: 'SSL certification file used to secure etcd communication.' },
  { name: 'etcd-keyfile', type: 'string', valueName: 'string', help: 'SSL key file used to secure etcd communication.' },
  { name: 'etcd-compaction-interval', type: 'string', valueName: 'duration', default: '5m0s', help: 'The interval of compaction requests. If 0, the compaction request from apiserver is disabled.' },
  { name: 'etcd-count-metric-poll-period', type: 'string', valueName: 'duration', default: '1m0s', help: 'Frequency of polling etcd for number of resources per type. 0 disables the metric collection.' },
  { name: 'cluster-signing-cert-file', type: 'string', valueName: 'string', help: 'PEM CA certificate every kubernetes.io CertificateSigningRequest signer issues certificates with (with --cluster-signing-key-file). Not with the --cluster-signing-<signer>-* flags. Default: the cluster CA in --data-dir.' },
  { name: 'cluster-signing-key-file', type: 'string', valueName: 'string', help: 'PEM RSA or ECDSA private key of --cluster-signing-cert-file.' },
  { name: 'cluster-signing-kubelet-serving-cert-file', type: 'string', valueName: 'string', help: 'PEM CA certificate of the kubernetes.io/kubelet-serving signer (with its -key-file). With any --cluster-signing-<signer>-* flag, signers given no files sign nothing, as in kube-controller-manager.' },
  { name: 'cluster-signing-kubelet-serving-key-file', type: 'string', valueName: 'string', help: 'PEM private key of --cluster-signing-kubelet-serving-cert-file.' },
  { name: 'cluster-signing-kubelet-client-cert-file', type: 'string', valueName: 'string', help: 'PEM CA certificate of the kubernetes.io/kube-apiserver-client-kubelet signer (with its -key-file).' },
  { name: 'cluster-signing-kubelet-client-key-file', type: 'string', valueName: 'string', help: 'PEM private key of --cluster-signing-kubelet-client-cert-file.' },
  { name: 'cluster-signing-kube-apiserver-client-cert-file', type: 'string', valueName: 'string', help: 'PEM CA certificate of the kubernetes.io/kube-apiserver-client signer (with its -key-file). Certificates it issues authenticate only if --client-ca-file trusts it.' },
  { name: 'cluster-signing-kube-apiserver-client-key-file', type: 'string', valueName: 'string', help: 'PEM private key of --cluster-signing-kube-apiserver-client-cert-file.' },
  { name: 'cluster-signing-legacy-unknown-cert-file', type: 'string', valueName: 'string', help: 'PEM CA certificate of the kubernetes.io/legacy-unknown signer (with its -key-file).' },
  { name: 'cluster-signing-legacy-unknown-key-file', type: 'string', valueName: 'string', help: 'PEM private key of --cluster-signing-legacy-unknown-cert-file.' },
  { name: 'cluster-signing-duration', type: 'string', valueName: 'duration', default: '8760h0m0s', help: 'The longest validity the signers of kubernetes.io CertificateSigningRequests give a certificate (they sign with the cluster CA); a request\'s spec.expirationSeconds may ask for less, 10 minutes at least.' },
  { name: 'leader-elect', type: 'bool', help: 'Start a leader election client and gain leadership before running the controllers (namespace lifecycle, ClusterRole aggregation). Default: true with --storage-backend=etcd3, false otherwise.' },
  { name: 'leader-elect-lease-duration', type: 'string', valueName: 'duration', default: '15s', help: 'The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot.' },
  { name: 'leader-elect-renew-deadline', type: 'string', valueName: 'duration', default: '10s', help: 'The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than the lease duration.' },
  { name: 'leader-elect-retry-period', type: 'string', valueName: 'duration', default: '2s', help: 'The duration the clients should wait between attempting acquisition and renewal of a leadership.' },
  { name: 'shutdown-delay-duration', type: 'string', valueName: 'duration', default: '0s', help: 'Time to delay the termination. During that time the server keeps serving requests normally. The endpoints /healthz and /livez will return success, but /readyz immediately returns failure.' },
  { name: 'shutdown-send-retry-after', type: 'bool', default: false, help: 'If true the HTTP Server will continue listening until all non long running request(s) in flight have been drained, during this window all incoming requests will be rejected with a status code 429 and a \'Retry-After\' response header.' },
  { name: 'storage-media-type', type: 'string', valueName: 'string', default: 'application/json', help: 'The media type to use to store objects in storage: application/json, or application/vnd.kubernetes.protobuf (etcd3 only; custom resources stay JSON). Stored values of either type are read.' },
  { name: 'data-dir', type: 'string', valueName: 'string', default: './.capstan', help: 'Directory for the database, certificates and admin.kubeconfig (created 0700).' },
  { name: 'plain-http-port', type: 'int', valueName: 'int', help: 'INSECURE: also serve unencrypted HTTP/1.1 on this port of --bind-address, for local debugging. Off unless given.' },
  { name: 'simulate-workloads', type: 'bool', help: 'Run simulated nodes, kubelets, a scheduler and the workload controllers (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, Service endpoints), so applied apps settle as on a small cluster.' },
  { name: 'simulated-nodes', type: 'int', valueName: 'int', default: 1, help: 'How many nodes --simulate-workloads runs.' },
  { name: 'simulated-metrics-api', type: 'bool', default: true, help: "With --simulate-workloads, serve the resource metrics API (metrics.k8s.io, as metrics-server) from the usage the test controls set, for kubectl top and the horizontal pod autoscaler. False: a cluster without metrics-server, as kind's." },
  { name: 'enable-test-controls', type: 'bool', default: false, help: 'Serve the test controls over HTTP under /capstan/v1/ (snapshots, restore, reset, fork, fault injection, the clock, request recording, logical clusters under /clusters/<name>), for members of system:masters only. For test environments: never turn it on for a shared server.' },
  { name: 'envtest', type: 'bool', help: "Run as controller-runtime's envtest expects kube-apiserver to: accept its flags (etcd ones ignored), memory storage and a temporary data dir unless given, test controls on. See 'capstan --envtest --help'." },
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

/** A map flag's "k=v,k2=v2" as a record (undefined when not given). */
function keyValuePairs(raw: string | undefined): Record<string, string> | undefined {
  if (!raw) return undefined;
  const out: Record<string, string> = {};
  for (const pair of raw.split(',')) {
    const eq = pair.indexOf('=');
    if (eq < 0) throw new FlagError(`invalid argument ${JSON.stringify(raw)} for "--oidc-required-claim" flag: ${pair} must be formatted as key=value`);
    out[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  return out;
}

/** A Go duration flag's value in seconds (FlagError with pflag's wording when it does not parse). */
function durationSeconds(v: ParsedFlags['values'], flag: string): number {
  const raw = v[flag] as string;
  try {
    return parseGoDuration(raw) / 1000;
  } catch (e) {
    throw invalid(raw, `--${flag}`, (e as Error).message);
  }
}

/** The --cluster-signing-<signer>-cert-file / -key-file flags given, by signer stem. */
function signerFiles(v: Readonly<Record<string, unknown>>): Record<string, { certFile?: string; keyFile?: string }> | undefined {
  const out: Record<string, { certFile?: string; keyFile?: string }> = {};
  for (const stem of ['kubelet-serving', 'kubelet-client', 'kube-apiserver-client', 'legacy-unknown']) {
    const certFile = (v[`cluster-signing-${stem}-cert-file`] as string | undefined) || undefined;
    const keyFile = (v[`cluster-signing-${stem}-key-file`] as string | undefined) || undefined;
    if (certFile || keyFile) out[stem] = { ...(certFile ? { certFile } : {}), ...(keyFile ? { keyFile } : {}) };
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

export function parseCommandLine(argv: readonly string[]): CliCommand {
  return commandFromFlags(parseFlags(FLAGS, argv));
}

/** The command parsed flags ask for (shared with the envtest command line, which parses more flags). */
export function commandFromFlags(parsed: ParsedFlags): CliCommand {
  const v = parsed.values;
  if (v.help === true) return { kind: 'help' };
  if (v.version === true) return { kind: 'version' };
  if (parsed.positional.length > 0) throw new FlagError(`"capstan" does not take any arguments, got ${JSON.stringify(parsed.positional)}`);

  const bind = v['bind-address'] as string;
  if (isIP(bind) === 0) throw invalid(bind, '--bind-address', `failed to parse IP: ${JSON.stringify(bind)}`);
  const advertise = (v['advertise-address'] as string | undefined) || undefined;
  if (advertise !== undefined && isIP(advertise) === 0) throw invalid(advertise, '--advertise-address', `failed to parse IP: ${JSON.stringify(advertise)}`);
  const reconciler = v['endpoint-reconciler-type'] as string;
  if (reconciler !== 'lease' && reconciler !== 'none') {
    throw new FlagError(`--endpoint-reconciler-type "${reconciler}" is not supported by Capstan, allowed values: lease, none`);
  }

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
  if (backend !== 'sqlite' && backend !== 'memory' && backend !== 'etcd3') {
    throw new FlagError(`--storage-backend invalid, allowed values: sqlite, memory, etcd3. If not specified, it will default to 'sqlite'`);
  }
  const durationFlag = (name: string): number => {
    const raw = v[name] as string;
    try {
      return parseGoDuration(raw);
    } catch (e) {
      throw invalid(raw, `--${name}`, (e as Error).message);
    }
  };
  const etcdServers = ((v['etcd-servers'] as string[] | undefined) ?? []).filter((s) => s !== '');
  // kube's EtcdOptions.Validate messages.
  if (backend === 'etcd3' && etcdServers.length === 0) throw new FlagError('--etcd-servers must be specified');
  const compactionIntervalMs = durationFlag('etcd-compaction-interval');
  durationFlag('etcd-count-metric-poll-period');
  const mediaType = v['storage-media-type'] as string;
  if (!['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'].includes(mediaType)) {
    throw new FlagError(`--storage-media-type "${mediaType}" invalid, allowed values: application/json, application/vnd.kubernetes.protobuf, application/yaml`);
  }
  const leaseDurationMs = durationFlag('leader-elect-lease-duration');
  const renewDeadlineMs = durationFlag('leader-elect-renew-deadline');
  const retryPeriodMs = durationFlag('leader-elect-retry-period');
  // client-go's NewLeaderElector checks.
  if (!(leaseDurationMs > renewDeadlineMs)) throw new FlagError('leaseDuration must be greater than renewDeadline');
  if (!(renewDeadlineMs > retryPeriodMs * 1.2)) throw new FlagError('renewDeadline must be greater than retryPeriod*JitterFactor');
  const clusterSigningDurationMs = durationFlag('cluster-signing-duration');
  const shutdownDelayMs = durationFlag('shutdown-delay-duration');
  if (shutdownDelayMs < 0) throw new FlagError('--shutdown-delay-duration can not be negative value');
  if (mediaType === 'application/yaml') throw new FlagError(`--storage-media-type "${mediaType}" is not supported by Capstan (objects are stored as application/json or application/vnd.kubernetes.protobuf)`);
  if (mediaType !== 'application/json' && backend !== 'etcd3') throw new FlagError(`--storage-media-type "${mediaType}" needs --storage-backend=etcd3 (${backend} stores application/json)`);
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

  const structuredAuthz = parsed.given.has('authorization-config');
  const options: CapstanOptions = {
    port: v['secure-port'] as number,
    bindAddress: bind,
    ...(advertise !== undefined ? { advertiseAddress: advertise } : {}),
    endpointReconcilerType: reconciler,
    tlsCertFile: (v['tls-cert-file'] as string | undefined) || undefined,
    tlsPrivateKeyFile: (v['tls-private-key-file'] as string | undefined) || undefined,
    clientCaFile: (v['client-ca-file'] as string | undefined) || undefined,
    tokenAuthFile: (v['token-auth-file'] as string | undefined) || undefined,
    anonymousAuth: parsed.given.has('anonymous-auth') ? (v['anonymous-auth'] as boolean) : undefined,
    authorizationMode: structuredAuthz && !parsed.given.has('authorization-mode') ? undefined : (v['authorization-mode'] as string[]),
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
    leaderElect: parsed.given.has('leader-elect') ? (v['leader-elect'] as boolean) : undefined,
    leaderElection: { leaseDurationMs, renewDeadlineMs, retryPeriodMs },
    clusterSigningDurationMs,
    clusterSigningCertFile: (v['cluster-signing-cert-file'] as string | undefined) || undefined,
    clusterSigningKeyFile: (v['cluster-signing-key-file'] as string | undefined) || undefined,
    clusterSigningSignerFiles: signerFiles(v),
    shutdownDelaySeconds: shutdownDelayMs / 1000,
    shutdownSendRetryAfter: v['shutdown-send-retry-after'] as boolean,
    ...(backend === 'etcd3'
      ? {
          etcd: {
            servers: etcdServers,
            prefix: v['etcd-prefix'] as string,
            caFile: (v['etcd-cafile'] as string | undefined) || undefined,
            certFile: (v['etcd-certfile'] as string | undefined) || undefined,
            keyFile: (v['etcd-keyfile'] as string | undefined) || undefined,
            compactionIntervalMs,
            mediaType: mediaType as 'application/json' | 'application/vnd.kubernetes.protobuf',
          },
        }
      : {}),
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
    proxyClientCertFile: (v['proxy-client-cert-file'] as string | undefined) || undefined,
    proxyClientKeyFile: (v['proxy-client-key-file'] as string | undefined) || undefined,
    oidcIssuerUrl: (v['oidc-issuer-url'] as string | undefined) || undefined,
    oidcClientId: (v['oidc-client-id'] as string | undefined) || undefined,
    oidcCaFile: (v['oidc-ca-file'] as string | undefined) || undefined,
    oidcUsernameClaim: parsed.given.has('oidc-username-claim') ? (v['oidc-username-claim'] as string) : undefined,
    oidcUsernamePrefix: parsed.given.has('oidc-username-prefix') ? (v['oidc-username-prefix'] as string) : undefined,
    oidcGroupsClaim: (v['oidc-groups-claim'] as string | undefined) || undefined,
    oidcGroupsPrefix: (v['oidc-groups-prefix'] as string | undefined) || undefined,
    oidcRequiredClaims: keyValuePairs(v['oidc-required-claim'] as string | undefined),
    oidcSigningAlgs: parsed.given.has('oidc-signing-algs') ? (v['oidc-signing-algs'] as string[]) : undefined,
    authenticationConfigFile: (v['authentication-config'] as string | undefined) || undefined,
    authorizationConfigFile: (v['authorization-config'] as string | undefined) || undefined,
    authenticationTokenWebhookConfigFile: (v['authentication-token-webhook-config-file'] as string | undefined) || undefined,
    authenticationTokenWebhookVersion: v['authentication-token-webhook-version'] as string,
    authenticationTokenWebhookCacheTtlSeconds: durationSeconds(v, 'authentication-token-webhook-cache-ttl'),
    authorizationPolicyFile: (v['authorization-policy-file'] as string | undefined) || undefined,
    authorizationWebhookConfigFile: (v['authorization-webhook-config-file'] as string | undefined) || undefined,
    // With --authorization-config, only the webhook flags actually given count (kube refuses them together).
    authorizationWebhookVersion: structuredAuthz && !parsed.given.has('authorization-webhook-version') ? undefined : (v['authorization-webhook-version'] as string),
    authorizationWebhookCacheAuthorizedTtlSeconds: structuredAuthz && !parsed.given.has('authorization-webhook-cache-authorized-ttl') ? undefined : durationSeconds(v, 'authorization-webhook-cache-authorized-ttl'),
    authorizationWebhookCacheUnauthorizedTtlSeconds: structuredAuthz && !parsed.given.has('authorization-webhook-cache-unauthorized-ttl') ? undefined : durationSeconds(v, 'authorization-webhook-cache-unauthorized-ttl'),
    enableBootstrapTokenAuth: v['enable-bootstrap-token-auth'] === true ? true : undefined,
    namespaceDefaults: true,
    localApiServices: true,
    ...(v['simulate-workloads'] === true ? { simulateWorkloads: { nodes: v['simulated-nodes'] as number, metricsApi: v['simulated-metrics-api'] as boolean } } : {}),
    enableTestControls: v['enable-test-controls'] === true,
  };
  if (parsed.given.has('enable-admission-plugins')) options.enableAdmissionPlugins = v['enable-admission-plugins'] as string[];
  if (parsed.given.has('disable-admission-plugins')) options.disableAdmissionPlugins = v['disable-admission-plugins'] as string[];
  if (parsed.given.has('admission-control-config-file')) options.admissionControlConfigFile = v['admission-control-config-file'] as string;
  return { kind: 'run', options, verbosity };
}
