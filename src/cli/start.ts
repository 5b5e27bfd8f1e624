// Starting Capstan: data dir, certificates, storage, authentication, authorization, the API, listeners,
// the admin kubeconfig. Shared by the command line (src/cli/main.ts) and the library (src/index.ts).

import { chmod, mkdtemp, rm, stat, writeFile, rename } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TokenFile } from '../auth/authn/token-file.ts';
import { loadTokenFile } from '../auth/authn/token-file.ts';
import { buildAuthenticator } from '../auth/authn/build.ts';
import type { AuthorizerFactory } from '../auth/authz/modes.ts';
import { buildAuthorizer, builtinAuthorizerFactories, validateAuthorizationModes } from '../auth/authz/modes.ts';
import type { Authorizer } from '../auth/authz/types.ts';
import { startControlPlane } from '../controllers/index.ts';
import { identityLeaseName, startIdentityLease } from '../controllers/apiserver-identity.ts';
import { startFlowControlConfig } from '../controllers/flowcontrol-config.ts';
import { createFlowControl, type FlowControl } from '../server/flowcontrol/dispatcher.ts';
import { hostname } from 'node:os';
import { componentStatusStore, probeHealthz, runningInProcess, SCHEDULER_PORT, storageCheck } from '../registry/component-statuses.ts';
import { createRegistry } from '../registry/registry.ts';
import type { SimulationOptions } from '../controllers/simulation/index.ts';
import { podSubresourcesWrapper } from '../registry/builtin/core/pod-subresources.ts';
import { bootstrapTokenAuthenticator } from '../auth/authn/bootstrap-token.ts';
import { oidcAuthenticator } from '../auth/authn/oidc.ts';
import { parseAuthenticationConfiguration } from '../auth/authn/authentication-config.ts';
import { jwtAuthenticators } from '../auth/authn/jwt.ts';
import { buildConfiguredAuthorizer, configuredModes, parseAuthorizationConfiguration, type AuthorizationConfiguration } from '../auth/authz/authorization-config.ts';
import { watchConfigFile } from '../auth/config-file.ts';
import { parseAbacPolicies } from '../auth/authz/abac.ts';
import { tokenWebhookAuthenticator } from '../auth/authn/token-webhook.ts';
import { serviceAccountAuthenticator } from '../auth/authn/service-account.ts';
import type { AuthnRequest, Authenticator } from '../auth/authn/types.ts';
import { loadServiceAccountKeys, type KeyOptions, type ServiceAccountKeys } from '../auth/serviceaccount/keys.ts';
import { tokenRequestWrapper } from '../auth/serviceaccount/token-request.ts';
import { createTokenIssuer, DEFAULT_ISSUER } from '../auth/serviceaccount/tokens.ts';
import type { CustomResourceDefinition } from '../registry/apiextensions/crd-types.ts';
import { installCrds, type CrdSource, type InstallCrdsOptions } from '../testing/install-crds.ts';
import { rbacRuleResolver } from '../auth/authz/rbac/authorizer.ts';
import { rbacEscalationWrappers } from '../auth/authz/rbac/escalation.ts';
import { paramAccessWrappers } from '../registry/builtin/admissionregistration/param-access.ts';
import { startRbacPolicy, type RbacPolicy } from '../auth/authz/rbac/policy.ts';
import { createRequestHandler } from '../server/handler.ts';
import { createServerMetrics } from '../server/metrics.ts';
import type { ForkedServer, LogicalCluster, TestControls } from '../testing/controls.ts';
import type { RequestQuery, RequestRecord } from '../testing/recorder.ts';
import { createMemoryStorage } from '../storage/memory/memory-storage.ts';
import type { StorageSnapshot } from '../storage/types.ts';
import { buildAuditor, validateAuditOptions, type AuditOptions } from '../server/audit/options.ts';
import { createHealthEndpoints, namedCheck } from '../server/health.ts';
import { createIdleRelease } from '../server/idle-release.ts';
import type { Listener, ServingLimits } from '../server/listen.ts';
import { listenPlain, listenSecure } from '../server/listen.ts';
import type { Logger } from '../server/log.ts';
import { createLogger } from '../server/log.ts';
import { DEFAULT_SIGNING_DURATION_MS } from '../controllers/csr-signing.ts';
import { ConfigError, readRequired } from './config-error.ts';
import { signingCas } from './signing-cas.ts';
import { ensurePki, ensureProxyClientPair, PROXY_CLIENT_NAME, splitPemCertificates } from '../server/pki.ts';
import { makeDirectories } from '../server/make-directories.ts';
import { startAggregator } from '../aggregator/aggregator.ts';
import type { AggregatedApiGet } from '../controllers/simulation/horizontal-pod-autoscaler.ts';
import { startApiServiceRegistration } from '../aggregator/autoregister.ts';
import type { EnsurePkiOptions, EnsurePkiResult } from '../server/pki.ts';
import { serverHealthChecks } from '../server/server-checks.ts';
import type { ApiServer, ApiServerOptions } from '../server/types.ts';
import { JWKS_PATH } from '../endpoints/openid-metadata.ts';
import type { EtcdOpenOptions, OpenStorageOptions } from '../storage/open.ts';
import type { Storage } from '../storage/types.ts';
import { masterLeasesOf } from '../controllers/master-leases.ts';
import { featureGateWarnings, resolveFeatureGates } from './feature-gates.ts';
import { buildChain, enabledPlugins, readAdmissionConfigFile, validatePluginFlags } from '../admission/plugin-set.ts';
import { PLUGIN_FACTORIES } from '../admission/plugins/index.ts';
import { closeWebhookConnections } from '../webhook/client.ts';
import type { InProcessAdmission } from '../admission/webhook/in-process.ts';
import { renderKubeconfig, serverUrl } from './kubeconfig.ts';

/** Quiet time after a busy period before memory is handed back. */
const IDLE_RELEASE_MS = 5000;
/** Quiet time after start-up before its memory is handed back (with releaseMemoryAfterStart). */
const STARTUP_RELEASE_MS = 200;

export interface CapstanOptions {
  /** 'memory' (library default), 'sqlite' (command-line default) or 'etcd3' (with `etcd`). */
  storageBackend?: 'memory' | 'sqlite' | 'etcd3';
  /** The etcd3 backend: --etcd-servers, --etcd-prefix, TLS files, --etcd-compaction-interval. */
  etcd?: EtcdOpenOptions;
  /**
   * --leader-elect: run the controllers only while holding the kube-system/kube-controller-manager Lease. Default:
   * on with etcd3 (where several instances may share storage), off with memory and sqlite (one process owns them).
   */
  leaderElect?: boolean;
  /** --leader-elect-lease-duration / -renew-deadline / -retry-period (ms; kube's 15 s, 10 s, 2 s). */
  leaderElection?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  /** --cluster-signing-duration (ms): the longest validity the CSR signers give (default one year). */
  clusterSigningDurationMs?: number;
  /**
   * kube-controller-manager's --cluster-signing-cert-file and --cluster-signing-key-file: the CA (PEM certificate and
   * RSA or ECDSA key) every kubernetes.io CertificateSigningRequest signer signs with. Default: the cluster CA.
   */
  clusterSigningCertFile?: string;
  clusterSigningKeyFile?: string;
  /**
   * --cluster-signing-<signer>-cert-file / -key-file by signer stem (kubelet-serving, kubelet-client,
   * kube-apiserver-client, legacy-unknown): that signer's own CA. Not with the pair above; the signers given none
   * then sign nothing, as in kube.
   */
  clusterSigningSignerFiles?: Readonly<Record<string, { readonly certFile?: string; readonly keyFile?: string }>>;
  /** Where certificates, the kubeconfig and the sqlite database live. Library default: a new temp dir, removed by close(). */
  dataDir?: string;
  /** HTTPS port; 0 picks a free one (library default). */
  port?: number;
  bindAddress?: string;
  /** --advertise-address: the IP the `kubernetes` Endpoints and EndpointSlice name. Default: a specific IPv4 bind address, else 127.0.0.1. */
  advertiseAddress?: string;
  /** --endpoint-reconciler-type: lease (default; on etcd3 every live instance is listed) or none. */
  endpointReconcilerType?: 'lease' | 'none';
  runtimeConfig?: string;
  /** Explicit gate settings; unknown gates are rejected as kube does. */
  featureGates?: Record<string, boolean>;
  /** Default ['AlwaysAllow']. */
  authorizationMode?: string[];
  tokenAuthFile?: string;
  clientCaFile?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** Default true; turned off when AlwaysAllow is among the modes, as kube-apiserver does (warning when asked for explicitly). */
  anonymousAuth?: boolean;
  historyWindowSeconds?: number;
  minRequestTimeoutSeconds?: number;
  /** --request-timeout in seconds (default 60): non-long-running requests past it are answered 504. */
  requestTimeoutSeconds?: number;
  /** --http2-max-streams-per-connection (0, the default, means kube's 100). */
  http2MaxStreamsPerConnection?: number;
  /** Connection timeouts (library only; default kube's: 32 s header read, 90 s idle, 10 s HTTP/2 preface). */
  connectionTimeouts?: Pick<ServingLimits, 'readHeaderTimeoutMs' | 'idleTimeoutMs' | 'http2PrefaceTimeoutMs'>;
  /** Also serve plain, unauthenticated-transport HTTP on this port (0 = a free one). Insecure: debugging only. */
  plainHttpPort?: number;
  /** Log verbosity: <0 warnings and errors only (library default), 0 start-up facts, higher = more. */
  logLevel?: number;
  logger?: Logger;
  /** Seconds in-flight requests get to finish at close (default 5). */
  shutdownGraceSeconds?: number;
  /** --shutdown-delay-duration: at close, /readyz fails at once and requests are still served this long (default 0). */
  shutdownDelaySeconds?: number;
  /** --shutdown-send-retry-after: after the delay, new requests get 429 + Retry-After while in-flight ones drain. */
  shutdownSendRetryAfter?: boolean;
  /** Replace the API (tests). Default: createApiServer from src/endpoints/api-server.ts. */
  createApi?: (options: ApiServerOptions) => ApiServer | Promise<ApiServer>;
  /** Replace the storage opener (tests). Default: openStorage from src/storage/open.ts. */
  openStorage?: (options: OpenStorageOptions) => Promise<Storage>;
  /** Extra authorization modes by name (e.g. RBAC), next to AlwaysAllow and AlwaysDeny. */
  authorizers?: Record<string, AuthorizerFactory>;
  /** Request metrics and /metrics (library only; default on). The observability benchmark turns them off for its baseline. */
  metrics?: boolean;
  /** --enable-admission-plugins: plugins on besides kube's default set (names as kube-apiserver 1.31). */
  enableAdmissionPlugins?: string[];
  /** --disable-admission-plugins: plugins of the default set to turn off. */
  disableAdmissionPlugins?: string[];
  /** --admission-control-config-file: an AdmissionConfiguration with per-plugin configuration. */
  admissionControlConfigFile?: string;
  /**
   * In-process admission for tests: functions that receive the AdmissionRequest and answer as a webhook would
   * (`mutate` runs after the mutating webhooks, `validate` with the validating webhooks).
   */
  admission?: InProcessAdmission;
  /** --enable-priority-and-fairness (default true). */
  enablePriorityAndFairness?: boolean;
  /** --max-requests-inflight (default 400). */
  maxRequestsInflight?: number;
  /** --max-mutating-requests-inflight (default 200). */
  maxMutatingRequestsInflight?: number;
  /** --audit-policy-file, --audit-log-*, --audit-webhook-*. */
  audit?: AuditOptions;
  /** --service-account-issuer: the first issues tokens, all are accepted. Default https://kubernetes.default.svc.cluster.local. */
  serviceAccountIssuers?: string[];
  /** --service-account-signing-key-file. Default: sa.key in the data dir, generated (ECDSA P-256) when missing. */
  serviceAccountSigningKeyFile?: string;
  /** --service-account-key-file (verification keys). Default: the TLS private key when tlsPrivateKeyFile is given. */
  serviceAccountKeyFiles?: string[];
  /** --api-audiences. Default: the issuer. */
  apiAudiences?: string[];
  /** --service-account-max-token-expiration, seconds. */
  serviceAccountMaxTokenExpirationSeconds?: number;
  /** --requestheader-client-ca-file: the CA of the authenticating proxy's client certificates (enables it). */
  requestheaderClientCaFile?: string;
  /** --requestheader-allowed-names: the proxy certificate common names accepted (empty: any). */
  requestheaderAllowedNames?: string[];
  /** --requestheader-username-headers, e.g. X-Remote-User. */
  requestheaderUsernameHeaders?: string[];
  /** --requestheader-group-headers, e.g. X-Remote-Group. */
  requestheaderGroupHeaders?: string[];
  /** --requestheader-extra-headers-prefix, e.g. X-Remote-Extra-. */
  requestheaderExtraHeadersPrefix?: string[];
  /**
   * --proxy-client-cert-file / --proxy-client-key-file: the client certificate the aggregator presents to extension
   * API servers. Default: CN front-proxy-client, signed by the generated CA (<dataDir>/pki, made on first use).
   */
  proxyClientCertFile?: string;
  proxyClientKeyFile?: string;
  /** How often the aggregator checks every APIService's backend again (kube: 30 s). */
  aggregatorResyncMs?: number;
  /** --oidc-issuer-url (https): enables OpenID Connect tokens, with the --oidc-* settings below. */
  oidcIssuerUrl?: string;
  /** --oidc-client-id: the audience tokens must name (required with the issuer). */
  oidcClientId?: string;
  /** --oidc-ca-file: the CA bundle of the issuer's TLS; default the system roots. */
  oidcCaFile?: string;
  /** --oidc-username-claim (default sub), --oidc-username-prefix, --oidc-groups-claim, --oidc-groups-prefix. */
  oidcUsernameClaim?: string;
  oidcUsernamePrefix?: string;
  oidcGroupsClaim?: string;
  oidcGroupsPrefix?: string;
  /** --oidc-required-claim key=value pairs. */
  oidcRequiredClaims?: Record<string, string>;
  /** --oidc-signing-algs (default RS256). */
  oidcSigningAlgs?: string[];
  /** --authentication-token-webhook-config-file: a kubeconfig naming a TokenReview webhook. */
  authenticationTokenWebhookConfigFile?: string;
  /** --authentication-token-webhook-version: v1beta1 (default) or v1. */
  authenticationTokenWebhookVersion?: string;
  /** --authentication-token-webhook-cache-ttl, seconds (default 120). */
  authenticationTokenWebhookCacheTtlSeconds?: number;
  /** --authentication-config: an AuthenticationConfiguration file (JWT authenticators); exclusive with --oidc-*. */
  authenticationConfigFile?: string;
  /** --authorization-config: an AuthorizationConfiguration file; exclusive with --authorization-mode and the webhook flags. */
  authorizationConfigFile?: string;
  /** How often the two configuration files are checked for changes (ms, default 1000); a test hook, not a flag. */
  authConfigCheckIntervalMs?: number;
  /** --authorization-policy-file: the ABAC mode's policies, one JSON object per line. */
  authorizationPolicyFile?: string;
  /** --authorization-webhook-config-file: a kubeconfig naming the Webhook mode's SubjectAccessReview webhook. */
  authorizationWebhookConfigFile?: string;
  /** --authorization-webhook-version: v1beta1 (default) or v1. */
  authorizationWebhookVersion?: string;
  /** --authorization-webhook-cache-authorized-ttl / -unauthorized-ttl, seconds (defaults 300 and 30). */
  authorizationWebhookCacheAuthorizedTtlSeconds?: number;
  authorizationWebhookCacheUnauthorizedTtlSeconds?: number;
  /** --enable-bootstrap-token-auth: bootstrap tokens authenticate; their cleaner and the cluster-info signer run. */
  enableBootstrapTokenAuth?: boolean;
  /**
   * Run what kube-controller-manager puts in every namespace: the `default` ServiceAccount and the `kube-root-ca.crt`
   * ConfigMap, and its tokens controller (legacy service account token Secrets). The command line does; the library does not unless asked (as envtest, which runs no controller manager).
   */
  namespaceDefaults?: boolean;
  /**
   * Register kube-apiserver's local APIServices (`v1.`, `v1.apps`, ..., and one per served custom resource version),
   * which `kubectl get apiservices` lists. The command line does; the library does not unless asked (they are about
   * 40 writes at every start on the memory backend).
   */
  localApiServices?: boolean;
  /** Simulated nodes, kubelets, scheduler and workload controllers (--simulate-workloads); true: one node, kube-like delays. */
  simulateWorkloads?: boolean | SimulationOptions;
  /** Watch cache tuning hooks (tests), not flags: kube's defaults otherwise. */
  watchCacheTuning?: { bookmarkIntervalMs?: number; maxQueuedEvents?: number };
  /**
   * The test controls (snapshots, faults, clock, recording, logical clusters): the handle's methods and the HTTP
   * door under /capstan/v1/ (system:masters only). Library default true; the command line's --enable-test-controls.
   */
  enableTestControls?: boolean;
  /**
   * Hand start-up's memory back once the server has been quiet for a moment after it (one memory-reducing garbage
   * collection). The command line does; the library leaves it to the process that embeds it.
   */
  releaseMemoryAfterStart?: boolean;
}

export interface Capstan {
  /** https://127.0.0.1:<port> (or the loopback bind address). */
  readonly url: string;
  readonly port: number;
  /** The plain-HTTP URL when plainHttpPort was given. */
  readonly plainHttpUrl?: string;
  /** The admin kubeconfig, YAML text. */
  readonly kubeconfig: string;
  readonly kubeconfigPath: string;
  readonly caCert: string;
  readonly clientCert: string;
  readonly clientKey: string;
  readonly dataDir: string;
  /**
   * Creates (or updates) CustomResourceDefinitions from YAML/JSON files, directories of them, or objects, and
   * resolves once every one is Established and served (envtest's CRDInstallOptions).
   */
  installCRDs(sources: CrdSource | readonly CrdSource[], options?: InstallCrdsOptions): Promise<CustomResourceDefinition[]>;
  /** The test controls (src/testing/controls.ts); undefined when enableTestControls is false. */
  readonly controls: TestControls | undefined;
  snapshot(): Promise<string>;
  restore(id: string): Promise<void>;
  reset(): Promise<void>;
  fork(id?: string): Promise<ForkedServer>;
  readonly faults: TestControls['faults'];
  readonly clock: TestControls['clock'];
  /** The simulated kubelets (with simulateWorkloads): `kubelets.stop('capstan-node-2')` takes that node down. */
  readonly kubelets: TestControls['kubelets'];
  /** The simulated containers' usage (with simulateWorkloads): `usage.add({ selector: 'app=web', cpu: '400m' })`. */
  readonly usage: TestControls['usage'];
  /**
   * How the simulated containers run (with simulateWorkloads): `containers.add({ selector: 'app=web', exitCode: 1,
   * after: '5s', logs: 'panic: no config\n' })` makes them exit and restart as their restartPolicy says, and print.
   */
  readonly containers: TestControls['containers'];
  requests(query?: RequestQuery): RequestRecord[];
  readonly recording: TestControls['recording'];
  createCluster(name: string): Promise<LogicalCluster>;
  deleteCluster(name: string): Promise<boolean>;
  /** Graceful stop: listeners, API, storage; removes the data dir when it was a temp dir made by startCapstan. */
  close(): Promise<void>;
}

export { ConfigError } from './config-error.ts';

/** --authorization-config read and validated at start (kube's BuiltInAuthorizationOptions.Validate). */
/**
 * The library runs no controller that makes namespaces' default service accounts unless asked (namespaceDefaults),
 * so, as envtest starts kube-apiserver with --disable-admission-plugins=ServiceAccount, the ServiceAccount plugin is
 * off there unless named in enableAdmissionPlugins; otherwise every pod would be refused for want of one.
 */
function libraryDisabledPlugins(options: CapstanOptions, enable: readonly string[], disable: readonly string[]): readonly string[] {
  if (options.namespaceDefaults || enable.includes('ServiceAccount') || disable.includes('ServiceAccount')) return disable;
  return [...disable, 'ServiceAccount'];
}

function structuredAuthorizationConfig(options: CapstanOptions): AuthorizationConfiguration {
  const legacy = [options.authorizationMode, options.authorizationWebhookConfigFile, options.authorizationWebhookVersion, options.authorizationWebhookCacheAuthorizedTtlSeconds, options.authorizationWebhookCacheUnauthorizedTtlSeconds];
  if (legacy.some((v) => v !== undefined)) throw new ConfigError('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
  try {
    return parseAuthorizationConfiguration(readFileSync(options.authorizationConfigFile!, 'utf8'));
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
}

/** Validates and completes options; throws ConfigError. Exposed for the command line and tests. */
export function completeOptions(options: CapstanOptions, log: Logger) {
  const authorizationConfig = options.authorizationConfigFile ? structuredAuthorizationConfig(options) : undefined;
  const modes = authorizationConfig
    ? configuredModes(authorizationConfig)
    : options.authorizationMode && options.authorizationMode.length > 0
      ? options.authorizationMode
      : ['AlwaysAllow'];
  const factories = { ...builtinAuthorizerFactories, ...options.authorizers };
  const modeErrors = validateAuthorizationModes(modes, Object.keys(factories));
  const oidcFlagsSet = [options.oidcIssuerUrl, options.oidcClientId, options.oidcCaFile, options.oidcUsernameClaim, options.oidcUsernamePrefix, options.oidcGroupsClaim, options.oidcGroupsPrefix, options.oidcSigningAlgs].some((v) => v !== undefined) || Object.keys(options.oidcRequiredClaims ?? {}).length > 0;
  // kube-apiserver's BuiltInAuthenticationOptions.Validate.
  if (options.authenticationConfigFile && oidcFlagsSet) modeErrors.push('authentication-config file and oidc-* flags are mutually exclusive');
  else if (options.authenticationConfigFile) {
    try {
      parseAuthenticationConfiguration(readFileSync(options.authenticationConfigFile, 'utf8'), options.serviceAccountIssuers ?? [DEFAULT_ISSUER]);
    } catch (e) {
      modeErrors.push((e as Error).message);
    }
  }
  // kube-apiserver's OIDC flag validation.
  if (options.oidcIssuerUrl !== undefined || options.oidcClientId !== undefined) {
    if (!options.oidcIssuerUrl || !options.oidcClientId) modeErrors.push('oidc-issuer-url and oidc-client-id must be specified together');
    else if (!/^https:\/\//.test(options.oidcIssuerUrl)) modeErrors.push(`oidc-issuer-url (${options.oidcIssuerUrl}) must use https scheme`);
  }
  // kube-apiserver's BuiltInAuthorizationOptions.Validate.
  if (modes.includes('ABAC') && !options.authorizationPolicyFile) modeErrors.push("authorization-mode ABAC's authorization policy file not passed");
  if (!modes.includes('ABAC') && options.authorizationPolicyFile) modeErrors.push('cannot specify --authorization-policy-file without mode ABAC');
  if (modes.includes('Webhook') && !authorizationConfig && !options.authorizationWebhookConfigFile) modeErrors.push("authorization-mode Webhook's authorization config file not passed");
  if (!modes.includes('Webhook') && options.authorizationWebhookConfigFile) modeErrors.push('cannot specify --authorization-webhook-config-file without mode Webhook');
  for (const [flag, v] of [['--authentication-token-webhook-version', options.authenticationTokenWebhookVersion], ['--authorization-webhook-version', options.authorizationWebhookVersion]] as const) {
    if (v !== undefined && v !== 'v1' && v !== 'v1beta1') modeErrors.push(`invalid ${flag.slice(2)} ${JSON.stringify(v)}, only v1 and v1beta1 are supported`);
  }
  if (modeErrors.length > 0) throw new ConfigError(modeErrors.length === 1 ? modeErrors[0] : `[${modeErrors.join(', ')}]`);
  const enablePlugins = options.enableAdmissionPlugins ?? [];
  const disablePlugins = options.disableAdmissionPlugins ?? [];
  const pluginErrors = validatePluginFlags(enablePlugins, disablePlugins);
  if (pluginErrors.length > 0) throw new ConfigError(pluginErrors.length === 1 ? pluginErrors[0] : `[${pluginErrors.join(', ')}]`);
  let featureGates: Record<string, boolean>;
  try {
    featureGates = resolveFeatureGates(options.featureGates ?? {});
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  for (const w of featureGateWarnings(options.featureGates ?? {})) log.warn(w);
  let anonymous = options.anonymousAuth ?? true;
  if (anonymous && modes.includes('AlwaysAllow')) {
    // kube-apiserver's rule. It warns even for its own default; here only an explicit request is worth a warning.
    if (options.anonymousAuth === true) {
      log.warn('AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer');
    }
    anonymous = false;
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`--secure-port ${port} must be between 0 and 65535, inclusive (0 picks a free port)`);
  const plain = options.plainHttpPort;
  if (plain !== undefined && (!Number.isInteger(plain) || plain < 0 || plain > 65535)) throw new ConfigError(`--plain-http-port ${plain} must be between 0 and 65535, inclusive (0 picks a free port)`);
  if (!!options.tlsCertFile !== !!options.tlsPrivateKeyFile) throw new ConfigError('--tls-cert-file and --tls-private-key-file must be given together');
  const backend = options.storageBackend ?? 'memory';
  if (backend !== 'memory' && backend !== 'sqlite' && backend !== 'etcd3') throw new ConfigError(`--storage-backend invalid, allowed values: sqlite, memory, etcd3. If not specified, it will default to 'sqlite'`);
  if (backend === 'etcd3' && !(options.etcd && options.etcd.servers.length > 0)) throw new ConfigError('--etcd-servers must be specified');
  const historyWindowSeconds = options.historyWindowSeconds ?? 300;
  if (!(historyWindowSeconds >= 0)) throw new ConfigError('--history-window can not be negative value');
  const minRequestTimeoutSeconds = options.minRequestTimeoutSeconds ?? 1800;
  if (!(minRequestTimeoutSeconds >= 0)) throw new ConfigError('--min-request-timeout can not be negative value');
  const requestTimeoutSeconds = options.requestTimeoutSeconds ?? 60;
  // ServerRunOptions.Validate's messages.
  if (!(requestTimeoutSeconds >= 0)) throw new ConfigError('--request-timeout can not be negative value');
  const maxRequestsInflight = options.maxRequestsInflight ?? 400;
  const maxMutatingRequestsInflight = options.maxMutatingRequestsInflight ?? 200;
  const enablePriorityAndFairness = options.enablePriorityAndFairness ?? true;
  // ServerRunOptions.Validate's messages.
  if (maxRequestsInflight < 0) throw new ConfigError('--max-requests-inflight can not be negative value');
  if (maxMutatingRequestsInflight < 0) throw new ConfigError('--max-mutating-requests-inflight can not be negative value');
  if (enablePriorityAndFairness && maxRequestsInflight + maxMutatingRequestsInflight <= 0) {
    throw new ConfigError('--max-requests-inflight plus --max-mutating-requests-inflight must be positive when --enable-priority-and-fairness is true');
  }
  const auditErrors = validateAuditOptions(options.audit ?? {});
  if (auditErrors.length > 0) throw new ConfigError(auditErrors.length === 1 ? auditErrors[0]! : `[${auditErrors.join(', ')}]`);
  const http2MaxStreamsPerConnection = options.http2MaxStreamsPerConnection ?? 0;
  if (!(http2MaxStreamsPerConnection >= 0)) throw new ConfigError('--http2-max-streams-per-connection can not be negative value');
  return {
    modes,
    factories,
    authorizationConfig,
    admissionPlugins: enabledPlugins(enablePlugins, libraryDisabledPlugins(options, enablePlugins, disablePlugins)),
    featureGates,
    anonymous,
    port,
    plainHttpPort: plain,
    backend,
    historyWindowSeconds,
    minRequestTimeoutSeconds,
    requestTimeoutMs: requestTimeoutSeconds * 1000,
    maxRequestsInflight,
    maxMutatingRequestsInflight,
    enablePriorityAndFairness,
    http2MaxStreamsPerConnection,
    bindAddress: options.bindAddress ?? '127.0.0.1',
    runtimeConfig: options.runtimeConfig ?? '',
  };
}

export async function prepareDataDir(dataDir: string | undefined, log: Logger): Promise<{ dir: string; temporary: boolean }> {
  if (dataDir === undefined) return { dir: await mkdtemp(join(tmpdir(), 'capstan-')), temporary: true };
  const dir = resolve(dataDir);
  const existing = await stat(dir).catch(() => undefined);
  if (!existing) {
    try {
      makeDirectories(dir, 0o700);
    } catch (e) {
      throw new ConfigError(`--data-dir ${dir}: ${(e as Error).message}`);
    }
    await chmod(dir, 0o700);
  } else if (!existing.isDirectory()) {
    throw new ConfigError(`--data-dir ${dir} is not a directory`);
  } else if ((existing.mode & 0o077) !== 0) {
    // It holds private keys and the database: other users get no access. A directory of ours is tightened;
    // one that others may write to and that is not ours to tighten (someone else's, or shared like /tmp) is refused.
    const mode = (existing.mode & 0o7777).toString(8).padStart(4, '0');
    const ours = typeof process.getuid !== 'function' || existing.uid === process.getuid();
    // A sticky directory (/tmp and the like) is shared by design: never tightened, refused when writable.
    const shared = (existing.mode & 0o1000) !== 0;
    if (ours && !shared) {
      await chmod(dir, 0o700);
      log.warn('data directory was accessible to other users; its mode is now 0700', { dataDir: dir, mode });
    } else if ((existing.mode & 0o022) !== 0) {
      throw new ConfigError(`--data-dir ${dir} is writable by other users (mode ${mode}) and shared or not owned by this user; use a directory of your own`);
    } else {
      log.warn('data directory is readable by other users; it holds private keys', { dataDir: dir, mode });
    }
  }
  return { dir, temporary: false };
}

/** kube's --advertise-address for the `kubernetes` endpoints: a specific IPv4 bind address, else loopback. */
function advertiseAddressFor(bindAddress: string): string {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(bindAddress) && bindAddress !== '0.0.0.0' ? bindAddress : '127.0.0.1';
}

/** A webhook's kubeconfig (the YAML reader loads only when one is configured). */
async function webhookTargetFromKubeconfig(path: string) {
  return (await import('../webhook/kubeconfig.ts')).webhookTargetFromKubeconfig(path);
}

async function defaultOpenStorage(options: OpenStorageOptions): Promise<Storage> {
  const { openStorage } = await import('../storage/open.ts');
  return openStorage(options);
}

/** An authorizer that asks the one `current()` returns at the time of each call. */
function forwardingAuthorizer(current: () => Authorizer): Authorizer {
  return {
    authorize: (attrs) => current().authorize(attrs),
    rulesFor: (user, namespace) => {
      const a = current();
      return a.rulesFor ? a.rulesFor(user, namespace) : { resourceRules: [], nonResourceRules: [], incomplete: true };
    },
  };
}

async function defaultCreateApi(options: ApiServerOptions): Promise<ApiServer> {
  const { createApiServer } = await import('../endpoints/api-server.ts');
  return createApiServer(options);
}

async function writeFileAtomic(path: string, data: string, mode: number): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, data, { mode });
  await chmod(tmp, mode);
  await rename(tmp, path);
}

/** Promise.all that waits for every promise before failing, so nothing opened is left behind unclosed. */
async function allSettled<T extends readonly unknown[]>(promises: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

// Servers on temporary data dirs (the library's default) share one PKI per process, so a test suite that starts
// many servers pays for key generation once.
const processPki = new Map<string, Promise<EnsurePkiResult>>();

function pkiFor(options: EnsurePkiOptions, temporary: boolean): Promise<EnsurePkiResult> {
  if (!temporary) return ensurePki(options);
  const key = `${options.bindAddress} ${options.skipServing ? 'no-serving' : 'serving'}`;
  const cached = processPki.get(key);
  if (cached) return cached.then((r) => ({ pki: r.pki, generated: [] }));
  const fresh = ensurePki(options);
  processPki.set(key, fresh);
  fresh.catch(() => processPki.delete(key));
  return fresh;
}

// Their service-account signing key likewise: a generated key (no key files given) is made once per process.
let processSaKeys: Promise<ServiceAccountKeys> | undefined;

function serviceAccountKeysFor(options: KeyOptions, temporary: boolean): Promise<ServiceAccountKeys> {
  const generated = !options.signingKeyFile && !options.tlsPrivateKeyFile && !(options.keyFiles?.length);
  if (!temporary || !generated) return loadServiceAccountKeys(options);
  if (processSaKeys) return processSaKeys;
  const fresh = loadServiceAccountKeys(options);
  processSaKeys = fresh;
  fresh.catch(() => (processSaKeys = undefined));
  return fresh;
}

function need(controls: TestControls | undefined): TestControls {
  if (!controls) throw new Error('the test controls are off (enableTestControls: false)');
  return controls;
}

/** Stands in for a group of controls when they are off: every method throws. */
function controlsOff<T extends object>(): T {
  return new Proxy({} as T, { get: (_t, name) => (typeof name === 'string' ? () => need(undefined) : undefined) });
}

/** A second server on memory storage holding the snapshot's objects (its own temp dir, port and PKI reuse). */
async function startFork(parent: CapstanOptions, snapshot: StorageSnapshot, log: Logger): Promise<ForkedServer> {
  const child = await startCapstan({
    ...parent,
    logger: log,
    storageBackend: 'memory',
    dataDir: undefined,
    port: 0,
    plainHttpPort: undefined,
    tlsCertFile: undefined,
    tlsPrivateKeyFile: undefined,
    openStorage: async () => {
      const storage = createMemoryStorage();
      await storage.restore(snapshot);
      return storage;
    },
  });
  return { url: child.url, kubeconfig: child.kubeconfig, kubeconfigPath: child.kubeconfigPath, close: () => child.close() };
}

/** The oldest Node.js Capstan runs on: package.json's engines, which bin/capstan.js checks before it loads anything. */
const REQUIRED_NODE = [22, 13] as const;

/** A library user on an older Node gets the command's one sentence, not an error from deep in start-up. */
function checkNodeVersion(): void {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major < REQUIRED_NODE[0] || (major === REQUIRED_NODE[0] && minor < REQUIRED_NODE[1])) {
    throw new Error(`capstan requires Node.js ${REQUIRED_NODE.join('.')} or newer; this is Node.js ${process.versions.node}.`);
  }
}

export async function startCapstan(options: CapstanOptions = {}): Promise<Capstan> {
  checkNodeVersion();
  const startedAt = performance.now();
  const log = options.logger ?? createLogger({ verbosity: options.logLevel ?? -1 });
  const cfg = completeOptions(options, log);
  const { dir: dataDir, temporary } = await prepareDataDir(options.dataDir, log);

  const cleanups: Array<() => Promise<void>> = [];
  /** Runs as shutdown begins, before the shutdown delay (kube's pre-shutdown hooks). */
  let preShutdown: (() => Promise<void>) | undefined;
  const cleanup = async (): Promise<void> => {
    for (const c of cleanups.reverse()) await c().catch((e: unknown) => log.error('error during shutdown', { error: e }));
    cleanups.length = 0;
  };
  if (temporary) cleanups.push(() => rm(dataDir, { recursive: true, force: true }));

  try {
    if (!!options.proxyClientCertFile !== !!options.proxyClientKeyFile) throw new ConfigError('--proxy-client-cert-file and --proxy-client-key-file must be given together');
    const [pkiResult, tokenFile, extraClientCa, customTls, storage, saKeys, requestHeaderCa, oidcCa, abacPolicies, tokenWebhookTarget, authzWebhookTarget, proxyClientPair] = await allSettled([
      pkiFor({ dataDir, bindAddress: cfg.bindAddress, skipServing: !!options.tlsCertFile }, temporary),
      options.tokenAuthFile ? loadTokenFile(options.tokenAuthFile).catch((e: Error) => Promise.reject(new ConfigError(e.message))) : Promise.resolve<TokenFile | undefined>(undefined),
      options.clientCaFile ? readRequired(options.clientCaFile, 'client CA file') : Promise.resolve(''),
      options.tlsCertFile && options.tlsPrivateKeyFile
        ? Promise.all([readRequired(options.tlsCertFile, 'TLS certificate file'), readRequired(options.tlsPrivateKeyFile, 'TLS private key file')])
        : Promise.resolve(undefined),
      (options.openStorage ?? defaultOpenStorage)({
        backend: cfg.backend === 'etcd3' ? 'etcd' : cfg.backend,
        dataDir,
        historyWindowSeconds: cfg.historyWindowSeconds,
        etcd: options.etcd && { onCompactionError: (error) => log.error('etcd compaction failed', { error }), ...options.etcd },
      }).then((s) => {
        cleanups.push(() => s.close());
        return s;
      }),
      serviceAccountKeysFor({
        dataDir,
        signingKeyFile: options.serviceAccountSigningKeyFile,
        keyFiles: options.serviceAccountKeyFiles,
        tlsPrivateKeyFile: options.tlsPrivateKeyFile,
      }, temporary).catch((e: Error) => Promise.reject(new ConfigError(e.message))),
      options.requestheaderClientCaFile ? readRequired(options.requestheaderClientCaFile, 'request header client CA file') : Promise.resolve(''),
      options.oidcCaFile ? readRequired(options.oidcCaFile, 'OIDC CA file') : Promise.resolve(undefined),
      options.authorizationPolicyFile
        ? readRequired(options.authorizationPolicyFile, 'authorization policy file').then((text) => {
            try {
              return parseAbacPolicies(text, options.authorizationPolicyFile!);
            } catch (e) {
              throw new ConfigError((e as Error).message);
            }
          })
        : Promise.resolve(undefined),
      options.authenticationTokenWebhookConfigFile ? webhookTargetFromKubeconfig(options.authenticationTokenWebhookConfigFile).catch((e: Error) => Promise.reject(new ConfigError(e.message))) : Promise.resolve(undefined),
      options.authorizationWebhookConfigFile ? webhookTargetFromKubeconfig(options.authorizationWebhookConfigFile).catch((e: Error) => Promise.reject(new ConfigError(e.message))) : Promise.resolve(undefined),
      options.proxyClientCertFile && options.proxyClientKeyFile
        ? Promise.all([readRequired(options.proxyClientCertFile, 'proxy client certificate file'), readRequired(options.proxyClientKeyFile, 'proxy client key file')]).then(([certPem, keyPem]) => ({ certPem, keyPem }))
        : Promise.resolve(undefined),
    ] as const);
    const tokenIssuer = createTokenIssuer(saKeys, options.serviceAccountIssuers ?? [DEFAULT_ISSUER], options.apiAudiences ?? []);
    const { pki, generated } = pkiResult;
    for (const w of tokenFile?.warnings ?? []) log.warn(w);
    if (options.clientCaFile && splitPemCertificates(extraClientCa).length === 0) throw new ConfigError(`client CA file ${JSON.stringify(options.clientCaFile)} holds no PEM certificate`);
    if (options.requestheaderClientCaFile && splitPemCertificates(requestHeaderCa).length === 0) {
      throw new ConfigError(`request header client CA file ${JSON.stringify(options.requestheaderClientCaFile)} holds no PEM certificate`);
    }
    const userClientCaPems = [pki.ca.certPem, ...splitPemCertificates(extraClientCa)];
    const requestHeader = options.requestheaderClientCaFile
      ? {
          caPems: splitPemCertificates(requestHeaderCa),
          allowedNames: options.requestheaderAllowedNames ?? [],
          usernameHeaders: options.requestheaderUsernameHeaders ?? [],
          groupHeaders: options.requestheaderGroupHeaders ?? [],
          extraHeaderPrefixes: options.requestheaderExtraHeadersPrefix ?? [],
        }
      : undefined;

    // storage -> registry (with its watch caches) -> authenticators and authorizers reading through it -> control
    // plane -> endpoints. The review kinds and the RBAC and service account stores live in the registry and use the
    // authenticators and authorizer built after it: they reach them through forwarders, bound before any request.
    // RBAC's policy informers are shared by the RBAC authorizer and the escalation checks of the RBAC stores.
    let authorizer: Authorizer | undefined;
    let tokenAuthenticator: Authenticator | undefined;
    let policy: RbacPolicy | undefined;
    const rbacPolicy = (): RbacPolicy => (policy ??= startRbacPolicy(registry));
    cleanups.push(async () => policy?.stop());
    const rbacResolver = rbacRuleResolver(rbacPolicy);
    // Simulated workloads run where kube-controller-manager's loops run: on the instance that leads.
    const simulation = options.simulateWorkloads ? (options.simulateWorkloads === true ? {} : options.simulateWorkloads) : undefined;
    // What componentstatuses report: Capstan's own components, kube's probe for a scheduler it does not run.
    const components = new Map([
      ['controller-manager', runningInProcess],
      ['scheduler', simulation ? runningInProcess : probeHealthz(SCHEDULER_PORT)],
      ...(cfg.backend === 'etcd3' ? [['etcd-0', storageCheck(() => storage.ready(), 'etcd')] as const] : []),
    ]);
    const virtualStores = new Map([['/componentstatuses', componentStatusStore(() => components)]]);
    const registry = await createRegistry({
      storage,
      runtimeConfig: cfg.runtimeConfig,
      featureGates: cfg.featureGates,
      watchCache: { historyWindowSeconds: cfg.historyWindowSeconds, ...options.watchCacheTuning },
      reviews: { authorizer: forwardingAuthorizer(() => authorizer!), tokenAuthenticator: { authenticate: (req) => tokenAuthenticator!.authenticate(req) }, apiAudiences: tokenIssuer.apiAudiences },
      storeWrappers: new Map([
        ...rbacEscalationWrappers({ authorizer: () => authorizer!, resolver: () => rbacResolver }),
        ...paramAccessWrappers({ authorizer: () => authorizer!, registry: () => registry }),
        ['/pods', podSubresourcesWrapper(() => registry)],
        ['/serviceaccounts', tokenRequestWrapper(() => ({ issuer: tokenIssuer, registry, maxExpirationSeconds: options.serviceAccountMaxTokenExpirationSeconds }))],
      ]),
      virtualStores,
    });
    cleanups.push(() => registry.close());
    const metrics = options.metrics === false ? undefined : createServerMetrics(() => registry.storedObjectCounts());
    // The apiserver identity (its lease name), known once the server listens; the reload metrics carry its hash.
    let apiServerId = '';
    const reloadReporter = (config: 'authentication' | 'authorization', path: string) => (status: 'success' | 'failure', error?: string) => {
      metrics?.recordConfigReload(config, status, apiServerId);
      if (status === 'success') log.info(`reloaded the ${config} configuration`, { path });
      else log.error(`the ${config} configuration could not be reloaded; the previous one stays in force`, { path, error });
    };
    const checkIntervalMs = options.authConfigCheckIntervalMs;
    const authnConfig = options.authenticationConfigFile
      ? await watchConfigFile({
          path: options.authenticationConfigFile,
          load: (text) => jwtAuthenticators(parseAuthenticationConfiguration(text, tokenIssuer.acceptedIssuers)),
          onReload: reloadReporter('authentication', options.authenticationConfigFile),
          intervalMs: checkIntervalMs,
        }).catch((e: Error) => Promise.reject(new ConfigError(e.message)))
      : undefined;
    if (authnConfig) cleanups.push(async () => authnConfig.stop());

    const tokenAuthenticators = [
      ...(options.enableBootstrapTokenAuth ? [bootstrapTokenAuthenticator(registry)] : []),
      serviceAccountAuthenticator({ issuer: tokenIssuer, registry }),
      ...(options.oidcIssuerUrl && options.oidcClientId
        ? [
            oidcAuthenticator({
              issuerUrl: options.oidcIssuerUrl,
              clientId: options.oidcClientId,
              caPem: oidcCa,
              usernameClaim: options.oidcUsernameClaim,
              usernamePrefix: options.oidcUsernamePrefix,
              groupsClaim: options.oidcGroupsClaim,
              groupsPrefix: options.oidcGroupsPrefix,
              requiredClaims: options.oidcRequiredClaims,
              signingAlgs: options.oidcSigningAlgs,
            }),
          ]
        : []),
      ...(authnConfig ? [{ authenticate: (req: AuthnRequest) => authnConfig.current().authenticate(req) }] : []),
      ...(tokenWebhookTarget
        ? [tokenWebhookAuthenticator({ target: tokenWebhookTarget, version: options.authenticationTokenWebhookVersion ?? 'v1beta1', cacheTtlMs: (options.authenticationTokenWebhookCacheTtlSeconds ?? 120) * 1000 })]
        : []),
    ];
    const authenticator = buildAuthenticator({ clientCertificates: true, requestHeader, clientCaPems: userClientCaPems, tokenFile, tokenAuthenticators, anonymous: cfg.anonymous });
    // TokenReview's: the bearer token authenticators only (client certificates play no part).
    tokenAuthenticator = buildAuthenticator({ clientCertificates: false, tokenFile, tokenAuthenticators, anonymous: false });
    const webhook = authzWebhookTarget
      ? {
          target: authzWebhookTarget,
          version: options.authorizationWebhookVersion ?? 'v1beta1',
          authorizedTtlMs: (options.authorizationWebhookCacheAuthorizedTtlSeconds ?? 300) * 1000,
          unauthorizedTtlMs: (options.authorizationWebhookCacheUnauthorizedTtlSeconds ?? 30) * 1000,
        }
      : undefined;
    if (options.authorizationConfigFile) {
      const ctx = { registry, rbacPolicy, abacPolicies };
      const authzConfig = await watchConfigFile({
        path: options.authorizationConfigFile,
        load: (text) => buildConfiguredAuthorizer(parseAuthorizationConfiguration(text), cfg.factories, ctx, webhookTargetFromKubeconfig),
        onReload: reloadReporter('authorization', options.authorizationConfigFile),
        intervalMs: checkIntervalMs,
      }).catch((e: Error) => Promise.reject(new ConfigError(e.message)));
      cleanups.push(async () => authzConfig.stop());
      authorizer = forwardingAuthorizer(() => authzConfig.current());
    } else authorizer = await buildAuthorizer(cfg.modes, cfg.factories, { registry, rbacPolicy, webhook, abacPolicies });
    const admissionConfigs = options.admissionControlConfigFile
      ? await readAdmissionConfigFile(options.admissionControlConfigFile).catch((e: Error) => Promise.reject(new ConfigError(`failed to read plugin config: ${e.message}`)))
      : undefined;
    const admission = await buildChain(cfg.admissionPlugins, PLUGIN_FACTORIES, { registry, authorizer, inProcess: options.admission }, admissionConfigs);
    cleanups.push(async () => {
      admission.close();
      closeWebhookConnections();
    });

    // What clients trust (kubeconfigs, kube-root-ca.crt, cluster-info): the CA and, with a certificate of the
    // caller's, its chain too (Go accepts a leaf found among the roots).
    const trustedCa = customTls ? pki.ca.certPem + splitPemCertificates(customTls[0]).join('') : pki.ca.certPem;
    // The URL the server ends up listening on (issuer discovery, cluster-info), known once it listens.
    let publicUrl = '';
    let flowControl: FlowControl | undefined;
    // Before the controllers: their watches then start on configuration already in place.
    if (cfg.enablePriorityAndFairness) {
      const config = await startFlowControlConfig(registry);
      if (config) {
        cleanups.push(async () => config.stop());
        await config.synced();
        // The queue wait limit: a quarter of the request timeout (kube's APF request wait limit).
        flowControl = createFlowControl({ config, serverConcurrencyLimit: cfg.maxRequestsInflight + cfg.maxMutatingRequestsInflight, queueWaitMs: (cfg.requestTimeoutMs || 60_000) / 4 });
      }
    }
    // What extension API servers read to trust the aggregator's client certificate and the clients it vouches for:
    // the --requestheader-* settings, or, without them, the generated CA and the aggregator's own certificate name.
    const authenticationInfo: Record<string, string> = {
      'client-ca-file': userClientCaPems.join(''),
      'requestheader-client-ca-file': requestHeader ? requestHeader.caPems.join('') : pki.ca.certPem,
      'requestheader-allowed-names': JSON.stringify(requestHeader ? requestHeader.allowedNames : [PROXY_CLIENT_NAME]),
      'requestheader-username-headers': JSON.stringify(requestHeader ? requestHeader.usernameHeaders : ['X-Remote-User']),
      'requestheader-group-headers': JSON.stringify(requestHeader ? requestHeader.groupHeaders : ['X-Remote-Group']),
      'requestheader-extra-headers-prefix': JSON.stringify(requestHeader ? requestHeader.extraHeaderPrefixes : ['X-Remote-Extra-']),
    };
    // The aggregation layer starts after the control plane; the simulated autoscaler reads aggregated APIs through it.
    const aggregated: { get: AggregatedApiGet } = { get: async () => undefined };
    const controlPlane = await startControlPlane(registry, {
      bootstrap: {
        authenticationInfo,
        securePort: cfg.port !== 0 ? cfg.port : undefined,
        advertiseAddress: options.advertiseAddress ?? advertiseAddressFor(cfg.bindAddress),
        endpointReconciler: options.endpointReconcilerType ?? 'lease',
        leases: masterLeasesOf(storage),
        onError: (error) => log.error('bootstrap objects could not be reconciled', { error }),
      },
      rbacBootstrapPolicy: cfg.modes.includes('RBAC'),
      namespaceDefaults: options.namespaceDefaults ? { rootCaPem: trustedCa } : false,
      serviceAccountTokens: options.namespaceDefaults ? { caPem: trustedCa, issueLegacy: (ns, sa, secret) => tokenIssuer.issueLegacy(ns, sa, secret) } : undefined,
      bootstrapTokens: options.enableBootstrapTokenAuth ? { caPem: trustedCa, server: () => publicUrl || undefined } : undefined,
      csrSigning: { cas: await signingCas(options, pki.ca, log), durationMs: options.clusterSigningDurationMs ?? DEFAULT_SIGNING_DURATION_MS },
      csrApproving: authorizer,
      ...(simulation ? { whileLeading: async () => (await import('../controllers/simulation/index.ts')).startSimulation(registry, simulation, admission, (group, version, path, user) => aggregated.get(group, version, path, user)) } : {}),
      ...((options.leaderElect ?? cfg.backend === 'etcd3')
        ? { leaderElection: { ...options.leaderElection, onError: (error: unknown) => log.v(2, 'leader election round failed', { error }) } }
        : {}),
    });
    cleanups.push(() => controlPlane.stop());
    preShutdown = () => controlPlane.preShutdown();
    // RBAC's informers start after the defaults are in place, so the first request already sees them.
    if (cfg.modes.includes('RBAC')) await rbacPolicy().synced();
    const namespacesReady = namedCheck('poststarthook/start-system-namespaces-controller', () => {
      if (!controlPlane.ready()) throw new Error('system namespaces are not created yet');
    });


    // The aggregation layer (the apiregistration group may be turned off with --runtime-config).
    const aggregator = registry.lookup('apiregistration.k8s.io', 'v1', 'apiservices')
      ? startAggregator(registry, {
          proxyClient: () => (proxyClientPair ? Promise.resolve(proxyClientPair) : ensureProxyClientPair(dataDir, pki.ca)),
          resyncMs: options.aggregatorResyncMs,
          onError: (message, fields) => log.v(2, message, fields),
        })
      : undefined;
    if (aggregator) cleanups.push(() => aggregator.stop());
    if (aggregator) aggregated.get = (group, version, path, user) => aggregator.get(group, version, path, user);
    // kube-apiserver's autoregistration: a local APIService for every group-version served here.
    const apiServiceRegistration = aggregator && options.localApiServices ? startApiServiceRegistration(registry) : undefined;
    if (apiServiceRegistration) cleanups.push(() => apiServiceRegistration.stop());

    const createApi = options.createApi ?? defaultCreateApi;
    const api = await createApi({
      registry,
      simulatedContainers: {
        logs: (pod, container) => controlPlane.containers()?.script(pod, container).logs,
        exec: (pod, container, command, stdin) => controlPlane.containers()?.exec(pod, container, command, stdin) ?? { stdout: '', stderr: '', exitCode: 0 },
        answersFromStdin: (pod, container, command) => controlPlane.containers()?.answersFromStdin(pod, container, command) ?? false,
        portTarget: (pod, port) => controlPlane.containers()?.portTarget(pod, port),
      },
      featureGates: cfg.featureGates,
      minRequestTimeoutSeconds: cfg.minRequestTimeoutSeconds,
      postStartChecks: [
        namespacesReady,
        ...(apiServiceRegistration
          ? [
              namedCheck('autoregister-completion', () => {
                if (!apiServiceRegistration.startDone()) throw new Error('the local APIServices are not registered yet');
              }),
            ]
          : []),
      ],
      openIdMetadata: () => ({
        configuration: {
          issuer: tokenIssuer.issuer,
          jwks_uri: `${publicUrl}${JWKS_PATH}`,
          response_types_supported: ['id_token'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: [...new Set(tokenIssuer.keys.jwks.map((k) => k.alg!))],
        },
        jwks: { keys: tokenIssuer.keys.jwks },
      }),
      logger: log,
      dataDir,
      admission,
      aggregator,
    });
    cleanups.push(() => api.close());

    // The test controls; their url and kubeconfigs are known once the listener is up (before any request).
    let servedUrl = '';
    let kubeconfigFor: (server: string) => string = () => '';
    const controls =
      options.enableTestControls === false
        ? undefined
        : (await import('../testing/controls.ts')).createTestControls({
            storage,
            registry,
            controlPlane,
            log,
            url: () => servedUrl,
            kubeconfigFor: (server) => kubeconfigFor(server),
            fork: (snapshot) => startFork(options, snapshot, log),
            buildCluster: async () => {
              const clusterStorage = createMemoryStorage();
              const clusterRegistry = await createRegistry({
                storage: clusterStorage,
                runtimeConfig: cfg.runtimeConfig,
                featureGates: cfg.featureGates,
                watchCache: { historyWindowSeconds: cfg.historyWindowSeconds, ...options.watchCacheTuning },
                reviews: { authorizer: forwardingAuthorizer(() => authorizer!), tokenAuthenticator },
                virtualStores,
              });
              const clusterPlane = await startControlPlane(clusterRegistry, { bootstrap: { advertiseAddress: options.advertiseAddress ?? advertiseAddressFor(cfg.bindAddress), onError: () => {} } });
              const clusterApi = await createApi({ registry: clusterRegistry, featureGates: cfg.featureGates, minRequestTimeoutSeconds: cfg.minRequestTimeoutSeconds, logger: log, dataDir });
              return {
                api: clusterApi,
                async close() {
                  await clusterPlane.stop();
                  await clusterApi.close();
                  await clusterRegistry.close();
                  await clusterStorage.close();
                },
              };
            },
          });
    if (controls) cleanups.push(() => controls.internals.close());
    const hooks = controls ? (await import('../testing/request-hooks.ts')).testControlHooks(controls, controls.internals, { httpDoor: true }) : undefined;

    let shuttingDown = false;
    let draining = false;
    const health = createHealthEndpoints(serverHealthChecks(storage, api, () => shuttingDown), log);
    // Memory grown under load goes back to the system once requests have stopped for a few seconds.
    const idleRelease = createIdleRelease({ idleMs: IDLE_RELEASE_MS, onRelease: (ms) => log.v(4, 'released memory after a busy period', { gcMs: Math.round(ms) }) });
    cleanups.push(async () => idleRelease.close());
    let audit;
    try {
      audit = await buildAuditor(options.audit, log);
    } catch (e) {
      throw new ConfigError((e as Error).message);
    }
    if (audit) {
      const a = audit;
      cleanups.push(() => a.shutdown());
    }
    const maxInFlight = cfg.enablePriorityAndFairness ? undefined : { readOnly: cfg.maxRequestsInflight, mutating: cfg.maxMutatingRequestsInflight };
    const handler = createRequestHandler({ authenticator, authorizer, health, api, log, requestTimeoutMs: cfg.requestTimeoutMs, metrics, idleRelease, hooks, draining: () => draining, audit, flowControl, maxInFlight });

    const servingCert = customTls ? customTls[0] : pki.serving.certPem;
    const servingKey = customTls ? customTls[1] : pki.serving.keyPem;
    // The listener asks for certificates of the user CAs and of the authenticating proxy's CA.
    const clientCaPems = [...userClientCaPems, ...(requestHeader?.caPems ?? [])];
    const graceMs = (options.shutdownGraceSeconds ?? 5) * 1000;
    let secure: Listener;
    try {
      secure = await listenSecure(cfg.port, cfg.bindAddress, { certPem: servingCert, keyPem: servingKey, clientCaPems }, handler, { ...options.connectionTimeouts, http2MaxStreamsPerConnection: cfg.http2MaxStreamsPerConnection });
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.code === 'EADDRINUSE') throw new Error(`failed to listen on ${cfg.bindAddress}:${cfg.port}: address already in use`);
      if (err.code === 'EADDRNOTAVAIL' || err.code === 'EACCES') throw new Error(`failed to listen on ${cfg.bindAddress}:${cfg.port}: ${err.code}`);
      throw new Error(`failed to serve HTTPS: ${err.message}`);
    }
    cleanups.push(() => secure.close(graceMs));
    let plain: Listener | undefined;
    if (cfg.plainHttpPort !== undefined) {
      plain = await listenPlain(cfg.plainHttpPort, cfg.bindAddress, handler, options.connectionTimeouts);
      const p = plain;
      cleanups.push(() => p.close(graceMs));
      log.warn('serving plain HTTP: requests and credentials on this port are not encrypted; use it for local debugging only', { port: plain.port });
    }

    apiServerId = identityLeaseName(`${hostname()}:${cfg.bindAddress}:${secure.port}`);
    if (cfg.featureGates.APIServerIdentity) {
      const identity = startIdentityLease(registry, {
        identitySource: `${hostname()}:${cfg.bindAddress}:${secure.port}`,
        onError: (error) => log.error('the apiserver identity lease could not be renewed', { error }),
      });
      if (identity) {
        cleanups.push(() => identity.stop());
        await identity.ready;
      }
    }
    const url = serverUrl(cfg.bindAddress, secure.port);
    publicUrl = url;
    await controlPlane.bootstrapTokens()?.sync();
    const kubeconfig = renderKubeconfig({ server: url, caPem: trustedCa, clientCertPem: pki.admin.certPem, clientKeyPem: pki.admin.keyPem });
    const kubeconfigPath = join(dataDir, 'admin.kubeconfig');
    // A fresh temporary directory cannot hold one yet: a new file is made with its mode.
    if (temporary) await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600, flag: 'wx' });
    else await writeFileAtomic(kubeconfigPath, kubeconfig, 0o600);
    servedUrl = url;
    kubeconfigFor = (server) => renderKubeconfig({ server, caPem: trustedCa, clientCertPem: pki.admin.certPem, clientKeyPem: pki.admin.keyPem });
    // reset() returns here: everything start-up made (system namespaces, bootstrap objects, stored CRDs).
    await controls?.internals.markBaseline();
    if (options.releaseMemoryAfterStart) idleRelease.afterStartup(STARTUP_RELEASE_MS);

    log.info('Capstan serving', {
      url,
      bindAddress: secure.address,
      port: secure.port,
      storage: storage.name,
      dataDir,
      authorizationModes: cfg.modes,
      anonymousAuth: cfg.anonymous,
      generated: generated.length > 0 ? generated : undefined,
      startupMs: Math.round(performance.now() - startedAt),
    });

    let closing: Promise<void> | undefined;
    return {
      url,
      port: secure.port,
      plainHttpUrl: plain ? `http://${url.slice('https://'.length).replace(/:\d+$/, '')}:${plain.port}` : undefined,
      kubeconfig,
      kubeconfigPath,
      caCert: pki.ca.certPem,
      clientCert: pki.admin.certPem,
      clientKey: pki.admin.keyPem,
      dataDir,
      installCRDs: (sources, installOptions) => installCrds(registry, sources, installOptions),
      controls,
      snapshot: async () => need(controls).snapshot(),
      restore: async (id) => need(controls).restore(id),
      reset: async () => need(controls).reset(),
      fork: async (id) => need(controls).fork(id),
      faults: controls?.faults ?? controlsOff<TestControls['faults']>(),
      clock: controls?.clock ?? controlsOff<TestControls['clock']>(),
      kubelets: controls?.kubelets ?? controlsOff<TestControls['kubelets']>(),
      usage: controls?.usage ?? controlsOff<TestControls['usage']>(),
      containers: controls?.containers ?? controlsOff<TestControls['containers']>(),
      requests: (query) => need(controls).requests(query),
      recording: controls?.recording ?? controlsOff<TestControls['recording']>(),
      createCluster: async (name) => need(controls).createCluster(name),
      deleteCluster: async (name) => need(controls).deleteCluster(name),
      close: () =>
        (closing ??= (async () => {
          // kube's graceful termination: readyz fails first, requests are served through the delay, then
          // (with --shutdown-send-retry-after) new ones are turned away while those in flight finish.
          shuttingDown = true;
          await preShutdown?.().catch((e: unknown) => log.error('error during shutdown', { error: e }));
          const delayMs = (options.shutdownDelaySeconds ?? 0) * 1000;
          if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
          if (options.shutdownSendRetryAfter) {
            draining = true;
            const deadline = Date.now() + graceMs;
            while (handler.inFlight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
          }
          await cleanup();
        })()),
    };
  } catch (e) {
    await cleanup();
    throw e;
  }
}
