// --feature-gates: the gates kube-apiserver 1.31 knows (name, default, stage, locked), parsing with
// component-base's messages, and resolution to a full name -> enabled map (defaults, AllAlpha/AllBeta, overrides).

import { parseGoBool } from '../encoding/go-format.ts';

export type Stage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureSpec {
  readonly default: boolean;
  readonly stage: Stage;
  /** GA or deprecated gates that may not be set to anything but their default. */
  readonly locked: boolean;
}

// name:default(1|0):stage(A|B|G|D)[:L]  (L = locked to default)
const TABLE = `
AllAlpha:0:A AllBeta:0:B
APIListChunking:1:G:L APIResponseCompression:1:B APIServerIdentity:1:B APIServerTracing:1:B APIServingWithRoutine:1:B
AdmissionWebhookMatchConditions:1:G:L AggregatedDiscoveryEndpoint:1:G:L AllowDNSOnlyNodeCSR:0:D AllowServiceLBStatusOnNonLB:0:D
AnonymousAuthConfigurableEndpoints:0:A AnyVolumeDataSource:1:B AppArmor:1:G:L AppArmorFields:1:G:L AuthorizeNodeWithSelectors:0:A
AuthorizeWithSelectors:0:A CPUManager:1:G:L CPUManagerPolicyAlphaOptions:0:A CPUManagerPolicyBetaOptions:1:B CPUManagerPolicyOptions:1:B
CRDValidationRatcheting:1:B CSIMigrationPortworx:1:B CSIVolumeHealth:0:A CloudControllerManagerWebhook:0:A CloudDualStackNodeIPs:1:G:L
ClusterTrustBundle:0:A ClusterTrustBundleProjection:0:A ConsistentListFromCache:1:B ContainerCheckpoint:1:B ContextualLogging:1:B
CoordinatedLeaderElection:0:A CronJobsScheduledAnnotation:1:B CrossNamespaceVolumeDataSource:0:A CustomCPUCFSQuotaPeriod:0:A
CustomResourceFieldSelectors:1:B DRAControlPlaneController:0:A DevicePluginCDIDevices:1:G:L DisableAllocatorDualWrite:0:A
DisableCloudProviders:1:G:L DisableKubeletCSRAdmissionValidation:0:D DisableKubeletCloudCredentialProviders:1:G:L
DisableNodeKubeProxyVersion:1:B DynamicResourceAllocation:0:A EfficientWatchResumption:1:G:L ElasticIndexedJob:1:G:L EventedPLEG:0:A
ExecProbeTimeout:1:G GracefulNodeShutdown:1:B GracefulNodeShutdownBasedOnPodPriority:1:B HPAContainerMetrics:1:G:L HPAScaleToZero:0:A
HonorPVReclaimPolicy:1:B ImageMaximumGCAge:1:B ImageVolume:0:A InPlacePodVerticalScaling:0:A InTreePluginPortworxUnregister:0:A
InformerResourceVersion:0:A JobBackoffLimitPerIndex:1:B JobManagedBy:0:A JobPodFailurePolicy:1:G:L JobPodReplacementPolicy:1:B
JobSuccessPolicy:1:B KMSv1:0:D KMSv2:1:G:L KMSv2KDF:1:G:L KubeProxyDrainingTerminatingNodes:1:G:L KubeletCgroupDriverFromCRI:1:B
KubeletInUserNamespace:0:A KubeletPodResourcesDynamicResources:0:A KubeletPodResourcesGet:0:A KubeletSeparateDiskGC:1:B
KubeletTracing:1:B LegacyServiceAccountTokenCleanUp:1:G:L LoadBalancerIPMode:1:B LocalStorageCapacityIsolationFSQuotaMonitoring:1:B
LogarithmicScaleDown:1:G:L LoggingAlphaOptions:0:A LoggingBetaOptions:1:B MatchLabelKeysInPodAffinity:1:B
MatchLabelKeysInPodTopologySpread:1:B MaxUnavailableStatefulSet:0:A MemoryManager:1:B MemoryQoS:0:A MinDomainsInPodTopologySpread:1:G:L
MultiCIDRServiceAllocator:0:B NFTablesProxyMode:1:B NewVolumeManagerReconstruction:1:G:L NodeInclusionPolicyInPodTopologySpread:1:B
NodeLogQuery:0:B NodeOutOfServiceVolumeDetach:1:G:L NodeSwap:1:B OpenAPIEnums:1:B PDBUnhealthyPodEvictionPolicy:1:G:L
PersistentVolumeLastPhaseTransitionTime:1:G:L PodAndContainerStatsFromCRI:0:A PodDeletionCost:1:B PodDisruptionConditions:1:G:L
PodHostIPs:1:G:L PodIndexLabel:1:B PodLifecycleSleepAction:1:B PodReadyToStartContainersCondition:1:B PodSchedulingReadiness:1:G:L
PortForwardWebsockets:1:B ProcMountType:1:B QOSReserved:0:A RecoverVolumeExpansionFailure:0:A RecursiveReadOnlyMounts:1:B
RelaxedEnvironmentVariableValidation:0:A ReloadKubeletServerCertificateFile:1:B RemainingItemCount:1:G:L
ResilientWatchCacheInitialization:1:B RetryGenerateName:1:B RotateKubeletServerCertificate:1:B RuntimeClassInImageCriAPI:0:A
SELinuxMount:0:A SELinuxMountReadWriteOncePod:1:B SchedulerQueueingHints:0:B SeparateCacheWatchRPC:1:B
SeparateTaintEvictionController:1:B ServerSideApply:1:G:L ServerSideFieldValidation:1:G:L ServiceAccountTokenJTI:1:B
ServiceAccountTokenNodeBinding:1:B ServiceAccountTokenNodeBindingValidation:1:B ServiceAccountTokenPodNodeInfo:1:B
ServiceTrafficDistribution:1:B SidecarContainers:1:B SizeMemoryBackedVolumes:1:B StableLoadBalancerNodeSet:1:G:L
StatefulSetAutoDeletePVC:1:B StatefulSetStartOrdinal:1:G:L StorageNamespaceIndex:1:B StorageVersionAPI:0:A StorageVersionHash:1:B
StorageVersionMigrator:0:A StrictCostEnforcementForVAP:0:B StrictCostEnforcementForWebhooks:0:B StructuredAuthenticationConfiguration:1:B
StructuredAuthorizationConfiguration:1:B SupplementalGroupsPolicy:0:A TopologyAwareHints:1:B TopologyManagerPolicyAlphaOptions:0:A
TopologyManagerPolicyBetaOptions:1:B TopologyManagerPolicyOptions:1:B TranslateStreamCloseWebsocketRequests:1:B
UnauthenticatedHTTP2DOSMitigation:1:B UnknownVersionInteroperabilityProxy:0:A UserNamespacesPodSecurityStandards:0:A
UserNamespacesSupport:0:B ValidatingAdmissionPolicy:1:G:L VolumeAttributesClass:0:A VolumeCapacityPriority:0:A WatchBookmark:1:G:L
WatchCacheInitializationPostStartHook:0:B WatchFromStorageWithoutResourceVersion:0:B WatchList:0:A WatchListClient:0:B WinDSR:0:A
WinOverlay:1:B WindowsHostNetwork:1:A ZeroLimitedNominalConcurrencyShares:1:G:L
`;

const STAGES: Record<string, Stage> = { A: 'ALPHA', B: 'BETA', G: 'GA', D: 'DEPRECATED' };

function buildKnown(): ReadonlyMap<string, FeatureSpec> {
  const m = new Map<string, FeatureSpec>();
  for (const entry of TABLE.split(/\s+/)) {
    if (!entry) continue;
    const [name, def, stage, lock] = entry.split(':');
    m.set(name, { default: def === '1', stage: STAGES[stage], locked: lock === 'L' });
  }
  return m;
}

export const KNOWN_FEATURE_GATES: ReadonlyMap<string, FeatureSpec> = buildKnown();


/** Parses "A=true,B=false" into a map, with component-base's error messages. */
export function parseFeatureGateFlag(value: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const item of value.split(',')) {
    if (item.length === 0) continue;
    const eq = item.indexOf('=');
    const k = (eq < 0 ? item : item.slice(0, eq)).trim();
    if (eq < 0) throw new Error(`missing bool value for ${k}`);
    const v = item.slice(eq + 1).trim();
    const b = parseGoBool(v);
    if (b === undefined) throw new Error(`invalid value of ${k}=${v}, err: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
    out[k] = b;
  }
  return out;
}

/** Checks the explicit settings against the known gates; returns the full resolved map. */
export function resolveFeatureGates(explicit: Readonly<Record<string, boolean>>): Record<string, boolean> {
  for (const [k, v] of Object.entries(explicit)) {
    const spec = KNOWN_FEATURE_GATES.get(k);
    if (!spec) throw new Error(`unrecognized feature gate: ${k}`);
    if (spec.locked && spec.default !== v) throw new Error(`cannot set feature gate ${k} to ${v}, feature is locked to ${spec.default}`);
  }
  const allAlpha = explicit.AllAlpha ?? false;
  const allBeta = explicit.AllBeta ?? false;
  const out: Record<string, boolean> = {};
  for (const [name, spec] of KNOWN_FEATURE_GATES) {
    let enabled = spec.default;
    if (spec.stage === 'ALPHA' && allAlpha && name !== 'AllAlpha') enabled = true;
    if (spec.stage === 'BETA' && allBeta && name !== 'AllBeta') enabled = true;
    if (name in explicit) enabled = explicit[name];
    out[name] = enabled;
  }
  return out;
}

/** The warnings component-base logs for explicit settings of GA and deprecated gates (featuregate.Set). */
export function featureGateWarnings(explicit: Readonly<Record<string, boolean>>): string[] {
  const warnings: string[] = [];
  for (const [k, v] of Object.entries(explicit)) {
    const spec = KNOWN_FEATURE_GATES.get(k);
    if (spec?.stage === 'GA') warnings.push(`Setting GA feature gate ${k}=${v}. It will be removed in a future release.`);
    else if (spec?.stage === 'DEPRECATED') warnings.push(`Setting deprecated feature gate ${k}=${v}. It will be removed in a future release.`);
  }
  return warnings;
}
