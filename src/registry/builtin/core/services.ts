// Services as kube-apiserver 1.31 writes them: SetDefaults_Service, the Service REST's BeginCreate/BeginUpdate
// (patchAllocatedValues, normalizeClusterIPs, initIPFamilyFields: service-ip-families.ts; allocation against the
// other Services: service-allocation.ts), the strategy (PrepareForCreate/Update, dropServiceDisabledFields,
// dropTypeDependentFields, the status strategy), core validation (ValidateService, ValidateServiceUpdate,
// ValidateServiceStatusUpdate) and printService. The cluster is single-stack IPv4: cluster IPs from 10.96.0.0/12,
// node ports from 30000-32767. The random picks in prepareFor* only serve objects that did not go through a store.

import { fieldErrors, invalid, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goInt, goText } from '../../../apis/go-bad-values.ts';
import { goQuote } from '../../../encoding/go-format.ts';
import type { KubeObject } from '../../types.ts';
import { validateLabels, validateQualifiedName, validateDNS1123Label } from '../../validation/meta.ts';
import { isDNS1123Subdomain, isValidPortName, isValidPortNum } from '../../validation/names.ts';
import { buildStrategy, type BuiltinStrategy } from '../generic.ts';
import { ipFamily, nonSpecialIPErrors, validCIDRErrors, validIPErrors } from '../ip-validation.ts';
import { arrAt, ensureObj, isObj, objAt, objsAt, setDefault, setDefaultString, strAt, type Obj } from '../object.ts';
import { ageColumn, column, formatLabels } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { protocolErrors } from './pod-validation.ts';
import { serviceWarnings } from './service-warnings.ts';
import { allocateClusterIP, allocateNodePort, beginServiceWrite, serviceHeldValues, inServiceCIDR, SERVICE_CIDR } from './service-allocation.ts';
import {
  initIPFamilyFields,
  isHeadlessService,
  normalizeClusterIPs,
  validateClusterIPsRelatedFields,
  validateUpgradeDowngradeClusterIPs,
  validateUpgradeDowngradeIPFamilies,
} from './service-ip-families.ts';

export { allocateClusterIP, allocateNodePort, inServiceCIDR, KUBERNETES_SERVICE_IP, NODE_PORT_RANGE, SERVICE_CIDR } from './service-allocation.ts';

type Gates = Readonly<Record<string, boolean>>;

const str = (v: unknown) => (typeof v === 'string' ? v : '');
/** A pointer field: its value, or undefined for nil. */
const pointer = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : str(v));
const specOf = (svc: KubeObject): Obj => objAt(svc, 'spec') ?? {};

const KUBELET_PORT = 10250;
const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;
const TOPOLOGY_HINTS_ANNOTATION = 'service.kubernetes.io/topology-aware-hints';
const TOPOLOGY_MODE_ANNOTATION = 'service.kubernetes.io/topology-mode';
const SOURCE_RANGES_ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges';

function svcType(svc: KubeObject): string {
  return strAt(svc, 'spec', 'type');
}

/** apiservice.ExternallyAccessible. */
function externallyAccessible(svc: KubeObject): boolean {
  const t = svcType(svc);
  return t === 'LoadBalancer' || t === 'NodePort' || (t === 'ClusterIP' && arrAt(svc, 'spec', 'externalIPs').length > 0);
}

function needsClusterIP(svc: KubeObject): boolean {
  return svcType(svc) !== 'ExternalName';
}

/** The REST's needsNodePort: NodePort, or LoadBalancer unless allocateLoadBalancerNodePorts is false. */
function needsNodePorts(svc: KubeObject): boolean {
  const t = svcType(svc);
  if (t === 'NodePort') return true;
  return t === 'LoadBalancer' && objAt(svc, 'spec')?.allocateLoadBalancerNodePorts !== false;
}

/** apiservice.NeedsHealthCheck. */
function needsHealthCheck(svc: KubeObject): boolean {
  return svcType(svc) === 'LoadBalancer' && strAt(svc, 'spec', 'externalTrafficPolicy') === 'Local';
}

const healthCheckNodePort = (svc: KubeObject): number => {
  const v = specOf(svc).healthCheckNodePort;
  return typeof v === 'number' ? v : 0;
};

/** SetDefaults_Service (and the LoadBalancerIPMode default of an ingress with an ip). */
export function defaultService(svc: KubeObject, gates: Gates = {}): void {
  const spec = ensureObj(svc, 'spec');
  setDefaultString(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const timeout = (objAt(objAt(spec, 'sessionAffinityConfig'), 'clientIP') ?? {}).timeoutSeconds;
    if (timeout === undefined || timeout === null) spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  setDefaultString(spec, 'type', 'ClusterIP');
  for (const port of objsAt(spec, 'ports')) {
    setDefaultString(port, 'protocol', 'TCP');
    if (port.targetPort === undefined || port.targetPort === null || port.targetPort === 0 || port.targetPort === '') port.targetPort = port.port;
  }
  if (externallyAccessible(svc)) setDefaultString(spec, 'externalTrafficPolicy', 'Cluster');
  if (['NodePort', 'LoadBalancer', 'ClusterIP'].includes(str(spec.type))) setDefault(spec, 'internalTrafficPolicy', 'Cluster');
  if (spec.type === 'LoadBalancer') setDefault(spec, 'allocateLoadBalancerNodePorts', true);
  if (spec.type === 'LoadBalancer' && gates.LoadBalancerIPMode !== false) defaultIngressIPMode(svc);
}

function defaultIngressIPMode(svc: KubeObject): void {
  for (const ingress of objsAt(svc, 'status', 'loadBalancer', 'ingress')) {
    if (str(ingress.ip) !== '' && pointer(ingress.ipMode) === undefined) ingress.ipMode = 'VIP';
  }
}

function usedNodePorts(spec: Obj): Set<number> {
  return new Set(objsAt(spec, 'ports').map((p) => (typeof p.nodePort === 'number' ? p.nodePort : 0)).filter((n) => n > 0));
}

/**
 * patchAllocatedValues: values kube allocated that a client left out (a re-applied manifest) are kept from the
 * stored object: the cluster IPs, node ports by port name (unless another port now holds them), the health check
 * node port.
 */
function patchAllocatedValues(svc: KubeObject, old: KubeObject): void {
  const spec = ensureObj(svc, 'spec');
  const oldSpec = specOf(old);
  if (needsClusterIP(old) && needsClusterIP(svc)) {
    if (str(spec.clusterIP) === '' && str(oldSpec.clusterIP) !== '') spec.clusterIP = oldSpec.clusterIP;
    if (arrAt(spec, 'clusterIPs').length === 0 && arrAt(oldSpec, 'clusterIPs').length > 0) spec.clusterIPs = structuredClone(oldSpec.clusterIPs);
  }
  if (needsNodePorts(old) && needsNodePorts(svc)) {
    const newUsed = usedNodePorts(spec);
    const used = new Set([...usedNodePorts(oldSpec)].filter((p) => newUsed.has(p)));
    const byName = new Map<string, number>();
    for (const p of objsAt(oldSpec, 'ports')) byName.set(str(p.name), typeof p.nodePort === 'number' ? p.nodePort : 0);
    for (const port of objsAt(spec, 'ports')) {
      if (port.nodePort) continue;
      const oldVal = byName.get(str(port.name)) ?? 0;
      if (oldVal !== 0 && !used.has(oldVal)) port.nodePort = oldVal;
    }
  }
  if (needsHealthCheck(old) && needsHealthCheck(svc) && healthCheckNodePort(svc) === 0 && healthCheckNodePort(old) !== 0) {
    spec.healthCheckNodePort = healthCheckNodePort(old);
  }
}

/**
 * The Service REST's BeginCreate/BeginUpdate up to allocation: values left out patched from the stored object,
 * clusterIP and clusterIPs synced, the IP family fields initialized, or kube's 422 with only their errors. The
 * strategy's beginWrite runs it before allocating against the other Services; prepareFor* run it again (a no-op
 * by then) for objects that did not go through a store.
 */
export function beginServiceFields(svc: KubeObject, old?: KubeObject): void {
  if (old) patchAllocatedValues(svc, old);
  normalizeClusterIPs(svc, old);
  const errs = initIPFamilyFields(svc, old);
  if (errs.length > 0) throw invalid({ group: '', kind: 'Service' }, svc.metadata?.name ?? '', errs);
}

/** Random picks for what the allocators would have given an object that did not go through a store. */
function allocateLeftovers(svc: KubeObject): void {
  const spec = ensureObj(svc, 'spec');
  if (!needsClusterIP(svc)) return;
  if (arrAt(spec, 'clusterIPs').length === 0) {
    const ip = allocateClusterIP();
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
  }
  if (needsNodePorts(svc)) {
    const used = usedNodePorts(spec);
    for (const port of objsAt(spec, 'ports')) {
      if (!port.nodePort) {
        port.nodePort = allocateNodePort(used);
        used.add(port.nodePort as number);
      }
    }
  }
  if (needsHealthCheck(svc) && !spec.healthCheckNodePort) spec.healthCheckNodePort = allocateNodePort(usedNodePorts(spec));
}

/** dropServiceDisabledFields: trafficDistribution needs its gate, unless the stored object uses it. */
function dropServiceDisabledFields(svc: KubeObject, old: KubeObject | undefined, gates: Gates): void {
  const inUse = old !== undefined && pointer(specOf(old).trafficDistribution) !== undefined;
  if (gates.ServiceTrafficDistribution === false && !inUse) delete ensureObj(svc, 'spec').trafficDistribution;
}

/**
 * The REST's defaultOnReadInternalTrafficPolicy: an ExternalName Service shows no internalTrafficPolicy (kept in
 * storage, dropped on every read in kube; dropped on write here, where reads do not change objects). A value
 * validation refuses stays, for validation to refuse.
 */
function dropExternalNameInternalTrafficPolicy(svc: KubeObject): void {
  const spec = ensureObj(svc, 'spec');
  if (svcType(svc) === 'ExternalName' && (spec.internalTrafficPolicy === 'Cluster' || spec.internalTrafficPolicy === 'Local')) delete spec.internalTrafficPolicy;
}

const sameStrings = (a: unknown, b: unknown): boolean => {
  const x = Array.isArray(a) ? a : [];
  const y = Array.isArray(b) ? b : [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
};

/** reflect.DeepEqual of two slices: nil and empty differ. */
const deepEqualSlices = (a: unknown, b: unknown): boolean => (Array.isArray(a) && Array.isArray(b) ? sameStrings(a, b) : !Array.isArray(a) && !Array.isArray(b));

/**
 * dropTypeDependentFields (update only): on a change of type, what the old type needed and the new one does not is
 * dropped when the client left it as stored (cluster IPs and families on a move to ExternalName, node ports
 * unless new ones were added, the health check node port, allocateLoadBalancerNodePorts, the loadBalancerClass,
 * the externalTrafficPolicy), so `type: ClusterIP` alone turns a LoadBalancer into a ClusterIP; changed values
 * stay, for validation to refuse. The load-balancer status goes with any type but LoadBalancer.
 */
function dropTypeDependentFields(svc: KubeObject, old: KubeObject): void {
  const spec = ensureObj(svc, 'spec');
  const oldSpec = specOf(old);
  if (needsClusterIP(old) && !needsClusterIP(svc)) {
    if (str(spec.clusterIP) === str(oldSpec.clusterIP) && sameStrings(spec.clusterIPs, oldSpec.clusterIPs)) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (deepEqualSlices(spec.ipFamilies, oldSpec.ipFamilies)) delete spec.ipFamilies;
    if (str(spec.ipFamilyPolicy) === str(oldSpec.ipFamilyPolicy)) delete spec.ipFamilyPolicy;
  }
  const anyNodePorts = (o: KubeObject) => svcType(o) === 'NodePort' || svcType(o) === 'LoadBalancer';
  const oldNodePorts = usedNodePorts(oldSpec);
  if (anyNodePorts(old) && !anyNodePorts(svc) && [...usedNodePorts(spec)].every((p) => oldNodePorts.has(p))) {
    for (const port of objsAt(spec, 'ports')) delete port.nodePort;
  }
  if (needsHealthCheck(old) && !needsHealthCheck(svc) && healthCheckNodePort(svc) === healthCheckNodePort(old)) delete spec.healthCheckNodePort;
  if (svcType(old) === 'LoadBalancer' && svcType(svc) !== 'LoadBalancer') {
    const alloc = spec.allocateLoadBalancerNodePorts;
    const oldAlloc = oldSpec.allocateLoadBalancerNodePorts;
    if (alloc !== undefined && alloc !== null && oldAlloc !== undefined && oldAlloc !== null && alloc === oldAlloc) delete spec.allocateLoadBalancerNodePorts;
    if (pointer(spec.loadBalancerClass) === pointer(oldSpec.loadBalancerClass)) delete spec.loadBalancerClass;
  }
  if (externallyAccessible(old) && !externallyAccessible(svc) && str(spec.externalTrafficPolicy) === str(oldSpec.externalTrafficPolicy)) delete spec.externalTrafficPolicy;
  if (svcType(svc) !== 'LoadBalancer') ensureObj(svc, 'status').loadBalancer = {};
}

// ---- validation (ValidateService and friends) ----

/** The core.ServicePort kube keys duplicate ports by (protocol and port only), as field.Duplicate prints it. */
function servicePortKey(port: Obj): unknown {
  return renderedBadValue(
    `core.ServicePort{Name:"", Protocol:${goText(port.protocol)}, AppProtocol:(*string)(nil), Port:${goInt(port.port)}, ` +
      'TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
  );
}

function validateServicePort(port: Obj, requireName: boolean, names: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(port.name);
  if (requireName && name === '') errs.push(fieldErrors.required(`${path}.name`));
  else if (name !== '') {
    errs.push(...validateDNS1123Label(name, `${path}.name`));
    if (names.has(name)) errs.push(fieldErrors.duplicate(`${path}.name`, name));
    else names.add(name);
  }
  const portNum = typeof port.port === 'number' ? port.port : 0;
  for (const m of isValidPortNum(portNum)) errs.push(fieldErrors.invalid(`${path}.port`, portNum, m));
  errs.push(...protocolErrors(port.protocol, `${path}.protocol`));
  const target = port.targetPort;
  if (typeof target === 'string') for (const m of isValidPortName(target)) errs.push(fieldErrors.invalid(`${path}.targetPort`, target, m));
  else {
    const n = typeof target === 'number' ? target : 0;
    for (const m of isValidPortNum(n)) errs.push(fieldErrors.invalid(`${path}.targetPort`, n, m));
  }
  if (typeof port.appProtocol === 'string') errs.push(...validateQualifiedName(port.appProtocol, `${path}.appProtocol`));
  return errs;
}

/** validateClientIPAffinityConfig. */
function clientIPAffinityErrors(spec: Obj): FieldError[] {
  const why = 'when session affinity type is ClientIP';
  const config = spec.sessionAffinityConfig;
  if (!isObj(config)) return [fieldErrors.required('spec.sessionAffinityConfig', why)];
  if (!isObj(config.clientIP)) return [fieldErrors.required('spec.sessionAffinityConfig.clientIP', why)];
  const timeout = config.clientIP.timeoutSeconds;
  if (timeout === undefined || timeout === null) return [fieldErrors.required('spec.sessionAffinityConfig.clientIP.timeoutSeconds', why)];
  const t = typeof timeout === 'number' ? timeout : 0;
  if (t <= 0 || t > MAX_CLIENT_IP_AFFINITY_SECONDS) {
    return [fieldErrors.invalid('spec.sessionAffinityConfig.clientIP.timeoutSeconds', t, `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY_SECONDS}`)];
  }
  return [];
}

/** validateLoadBalancerClassField: immutable between LoadBalancers, a qualified name, LoadBalancer only. */
function loadBalancerClassErrors(svc: KubeObject, old?: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const cls = pointer(specOf(svc).loadBalancerClass);
  if (old && svcType(old) === 'LoadBalancer' && svcType(svc) === 'LoadBalancer' && cls !== pointer(specOf(old).loadBalancerClass)) {
    errs.push(fieldErrors.invalid('spec.loadBalancerClass', cls ?? null, 'may not change once set'));
  }
  if (svcType(svc) === 'LoadBalancer') {
    if (cls !== undefined) errs.push(...validateQualifiedName(cls, 'spec.loadBalancerClass'));
  } else if (cls !== undefined) {
    errs.push(fieldErrors.forbidden('spec.loadBalancerClass', "may only be used when `type` is 'LoadBalancer'"));
  }
  return errs;
}

/** validateServiceExternalTrafficPolicy (with the health check node port). */
function externalTrafficPolicyErrors(svc: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const etp = strAt(svc, 'spec', 'externalTrafficPolicy');
  if (!externallyAccessible(svc)) {
    if (etp !== '') errs.push(fieldErrors.invalid('spec.externalTrafficPolicy', etp, 'may only be set for externally-accessible services'));
  } else if (etp === '') errs.push(fieldErrors.required('spec.externalTrafficPolicy'));
  else if (etp !== 'Cluster' && etp !== 'Local') errs.push(fieldErrors.notSupported('spec.externalTrafficPolicy', etp, ['Cluster', 'Local']));
  const hc = healthCheckNodePort(svc);
  if (!needsHealthCheck(svc)) {
    if (hc !== 0) errs.push(fieldErrors.invalid('spec.healthCheckNodePort', hc, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
  } else if (hc === 0) errs.push(fieldErrors.required('spec.healthCheckNodePort'));
  else for (const m of isValidPortNum(hc)) errs.push(fieldErrors.invalid('spec.healthCheckNodePort', hc, m));
  return errs;
}

/** ValidateService past ValidateObjectMeta (which the strategy skeleton runs first). */
export function validateServiceSpec(svc: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const annotations = objAt(svc.metadata, 'annotations') ?? {};
  if (Object.hasOwn(annotations, TOPOLOGY_MODE_ANNOTATION) && Object.hasOwn(annotations, TOPOLOGY_HINTS_ANNOTATION)) {
    const mode = str(annotations[TOPOLOGY_MODE_ANNOTATION]);
    if (mode !== str(annotations[TOPOLOGY_HINTS_ANNOTATION])) {
      errs.push(fieldErrors.invalid(`metadata.annotations[${TOPOLOGY_MODE_ANNOTATION}]`, mode, `must match annotations[${TOPOLOGY_HINTS_ANNOTATION}] when both are specified`));
    }
  }

  const spec = specOf(svc);
  const type = str(spec.type);
  const ports = objsAt(spec, 'ports');
  const headless = isHeadlessService(svc);
  if (ports.length === 0 && !headless && type !== 'ExternalName') errs.push(fieldErrors.required('spec.ports'));
  switch (type) {
    case 'LoadBalancer':
      ports.forEach((p, i) => {
        // kube's workaround for clouds that open firewalls too wide.
        if (p.port === KUBELET_PORT) errs.push(fieldErrors.invalid(`spec.ports[${i}]`, KUBELET_PORT, `may not expose port ${KUBELET_PORT} externally since it is used by kubelet`));
      });
      if (headless) errs.push(fieldErrors.invalid('spec.clusterIPs[0]', 'None', "may not be set to 'None' for LoadBalancer services"));
      break;
    case 'NodePort':
      if (headless) errs.push(fieldErrors.invalid('spec.clusterIPs[0]', 'None', "may not be set to 'None' for NodePort services"));
      break;
    case 'ExternalName': {
      if (arrAt(spec, 'clusterIPs').length > 0) errs.push(fieldErrors.forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
      if (arrAt(spec, 'ipFamilies').length > 0) errs.push(fieldErrors.forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
      if (pointer(spec.ipFamilyPolicy) !== undefined) errs.push(fieldErrors.forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
      // A CNAME may end in a dot (fully qualified).
      const cname = str(spec.externalName).replace(/\.$/, '');
      if (cname !== '') for (const m of isDNS1123Subdomain(cname)) errs.push(fieldErrors.invalid('spec.externalName', cname, m));
      else errs.push(fieldErrors.required('spec.externalName'));
      break;
    }
  }

  const names = new Set<string>();
  ports.forEach((p, i) => errs.push(...validateServicePort(p, ports.length > 1, names, `spec.ports[${i}]`)));
  if (spec.selector !== undefined && spec.selector !== null) errs.push(...validateLabels(spec.selector, 'spec.selector'));

  const affinity = str(spec.sessionAffinity);
  if (affinity === '') errs.push(fieldErrors.required('spec.sessionAffinity'));
  else if (affinity !== 'ClientIP' && affinity !== 'None') errs.push(fieldErrors.notSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  if (affinity === 'ClientIP') errs.push(...clientIPAffinityErrors(spec));
  else if (affinity === 'None' && spec.sessionAffinityConfig !== undefined && spec.sessionAffinityConfig !== null) {
    errs.push(fieldErrors.forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }

  errs.push(...validateClusterIPsRelatedFields(svc));

  arrAt(spec, 'externalIPs').forEach((ip, i) => {
    const path = `spec.externalIPs[${i}]`;
    const bad = validIPErrors(str(ip), path);
    errs.push(...(bad.length > 0 ? bad : nonSpecialIPErrors(str(ip), path)));
  });

  if (type === '') errs.push(fieldErrors.required('spec.type'));
  else if (!['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'].includes(type)) {
    errs.push(fieldErrors.notSupported('spec.type', type, ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort']));
  }
  if (type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if (p.nodePort) errs.push(fieldErrors.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  }
  // Duplicates by (protocol, nodePort), then by (protocol, port).
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (!p.nodePort) return;
    const key = `${str(p.protocol)}/${String(p.nodePort)}`;
    if (nodePorts.has(key)) errs.push(fieldErrors.duplicate(`spec.ports[${i}].nodePort`, p.nodePort));
    nodePorts.add(key);
  });
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${str(p.protocol)}/${goInt(p.port)}`;
    if (seen.has(key)) errs.push(fieldErrors.duplicate(`spec.ports[${i}]`, servicePortKey(p)));
    seen.add(key);
  });

  // The source ranges (space-padded values tolerated, a historical accident), else their annotation.
  const ranges = arrAt(spec, 'loadBalancerSourceRanges');
  if (ranges.length > 0) {
    const path = 'spec.LoadBalancerSourceRanges';
    if (type !== 'LoadBalancer') errs.push(fieldErrors.forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
    ranges.forEach((v, i) => errs.push(...validCIDRErrors(str(v).trim(), `${path}[${i}]`)));
  } else if (Object.hasOwn(annotations, SOURCE_RANGES_ANNOTATION)) {
    const path = `metadata.annotations[${SOURCE_RANGES_ANNOTATION}]`;
    if (type !== 'LoadBalancer') errs.push(fieldErrors.forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
    const val = str(annotations[SOURCE_RANGES_ANNOTATION]).trim();
    if (val !== '') for (const v of val.split(',')) errs.push(...validCIDRErrors(v.trim(), path));
  }

  if (spec.allocateLoadBalancerNodePorts !== undefined && spec.allocateLoadBalancerNodePorts !== null && type !== 'LoadBalancer') {
    errs.push(fieldErrors.forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  }
  if (type === 'LoadBalancer' && (spec.allocateLoadBalancerNodePorts === undefined || spec.allocateLoadBalancerNodePorts === null)) {
    errs.push(fieldErrors.required('allocateLoadBalancerNodePorts'));
  }
  errs.push(...loadBalancerClassErrors(svc));
  errs.push(...externalTrafficPolicyErrors(svc));

  // validateServiceInternalTrafficFieldsValue: required for the types that default it (not forbidden elsewhere, as
  // stored objects have it).
  const itp = spec.internalTrafficPolicy;
  if ((itp === undefined || itp === null) && ['NodePort', 'LoadBalancer', 'ClusterIP'].includes(type)) errs.push(fieldErrors.required('spec.internalTrafficPolicy'));
  if (itp !== undefined && itp !== null && itp !== 'Cluster' && itp !== 'Local') errs.push(fieldErrors.notSupported('spec.internalTrafficPolicy', str(itp), ['Cluster', 'Local']));

  const distribution = pointer(spec.trafficDistribution);
  if (distribution !== undefined && distribution !== 'PreferClose') errs.push(fieldErrors.notSupported('spec.trafficDistribution', distribution, ['PreferClose']));
  return errs;
}

/** ValidateServiceUpdate's rules beyond ValidateService of the new object. */
function validateServiceUpdate(svc: KubeObject, old: KubeObject): FieldError[] {
  const errs = [...validateUpgradeDowngradeClusterIPs(old, svc), ...validateUpgradeDowngradeIPFamilies(old, svc), ...loadBalancerClassErrors(svc, old)];
  // validateServiceExternalTrafficFieldsUpdate.
  if (needsHealthCheck(old) && needsHealthCheck(svc) && healthCheckNodePort(svc) !== healthCheckNodePort(old)) {
    errs.push(fieldErrors.forbidden('spec.healthCheckNodePort', 'field is immutable'));
  }
  return errs;
}

/** ValidateLoadBalancerStatus (ValidateServiceStatusUpdate). */
export function validateLoadBalancerStatus(svc: KubeObject, gates: Gates = {}): FieldError[] {
  const errs: FieldError[] = [];
  const path = 'status.loadBalancer.ingress';
  if (gates.AllowServiceLBStatusOnNonLB !== true && svcType(svc) !== 'LoadBalancer' && arrAt(svc, 'status', 'loadBalancer', 'ingress').length !== 0) {
    return [fieldErrors.forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'")];
  }
  objsAt(svc, 'status', 'loadBalancer', 'ingress').forEach((ingress, i) => {
    const p = `${path}[${i}]`;
    const ip = str(ingress.ip);
    if (ip !== '') errs.push(...validIPErrors(ip, `${p}.ip`));
    const mode = pointer(ingress.ipMode);
    if (gates.LoadBalancerIPMode !== false && mode === undefined) {
      if (ip !== '') errs.push(fieldErrors.required(`${p}.ipMode`, 'must be specified when `ip` is set'));
    } else if (mode !== undefined && ip === '') {
      errs.push(fieldErrors.forbidden(`${p}.ipMode`, 'may not be specified when `ip` is not set'));
    } else if (mode !== undefined && mode !== 'Proxy' && mode !== 'VIP') {
      errs.push(fieldErrors.notSupported(`${p}.ipMode`, mode, ['Proxy', 'VIP']));
    }
    const hostname = str(ingress.hostname);
    if (hostname !== '') {
      for (const m of isDNS1123Subdomain(hostname)) errs.push(fieldErrors.invalid(`${p}.hostname`, hostname, m));
      if (ipFamily(hostname) !== 0) errs.push(fieldErrors.invalid(`${p}.hostname`, hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

/** The status strategy: SetDefaults_Service's ipMode on the written status, dropServiceStatusDisabledFields. */
function prepareStatus(svc: KubeObject, old: KubeObject, gates: Gates): void {
  if (gates.LoadBalancerIPMode === false) {
    const inUse = objsAt(old, 'status', 'loadBalancer', 'ingress').some((ingress) => pointer(ingress.ipMode) !== undefined);
    if (!inUse) for (const ingress of objsAt(svc, 'status', 'loadBalancer', 'ingress')) delete ingress.ipMode;
  } else if (svcType(svc) === 'LoadBalancer') defaultIngressIPMode(svc);
}

/**
 * A requested cluster IP outside the range, as the allocator refuses it (the store's beginWrite refuses it first;
 * this serves objects that did not go through a store).
 */
function clusterIPRangeErrors(svc: KubeObject): FieldError[] {
  if (!needsClusterIP(svc)) return [];
  const ips = arrAt(svc, 'spec', 'clusterIPs').filter((ip): ip is string => typeof ip === 'string');
  for (const ip of ips) {
    if (ip === 'None' || ipFamily(ip) !== 4) continue;
    if (!inServiceCIDR(ip)) {
      return [
        fieldErrors.invalid(
          'spec.clusterIPs',
          renderedBadValue(`[]string{${ips.map(goQuote).join(', ')}}`),
          `failed to allocate IP ${ip}: the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${SERVICE_CIDR}`,
        ),
      ];
    }
  }
  return [];
}

export function serviceStrategy(rules: TypeRules): BuiltinStrategy {
  const gates = rules.featureGates;
  const strategy = buildStrategy(rules, {
    defaults: (obj) => defaultService(obj, gates),
    warnings: (obj) => serviceWarnings(obj),
    prepareForCreate(obj) {
      beginServiceFields(obj);
      allocateLeftovers(obj);
      dropServiceDisabledFields(obj, undefined, gates);
      dropExternalNameInternalTrafficPolicy(obj);
    },
    prepareForUpdate(obj, old) {
      beginServiceFields(obj, old);
      allocateLeftovers(obj);
      dropServiceDisabledFields(obj, old, gates);
      dropTypeDependentFields(obj, old);
      dropExternalNameInternalTrafficPolicy(obj);
    },
    validate: (obj) => [...validateServiceSpec(obj), ...clusterIPRangeErrors(obj)],
    validateUpdate: (obj, old, _ctx, validateNew) => [...validateServiceUpdate(obj, old), ...validateNew().filter((e) => !e.detail?.startsWith('failed to allocate IP'))],
    prepareForStatusUpdate: (merged, old) => prepareStatus(merged, old, gates),
    validateStatusUpdate: (obj) => validateLoadBalancerStatus(obj, gates),
  });
  return {
    ...strategy,
    // BeginCreate/BeginUpdate: the decoded object is defaulted (the store defaults an update later), the IP
    // fields settled or refused, then the values allocated against the other Services.
    async beginWrite(obj, old, ctx, holders, claims) {
      if (old) defaultService(obj, gates);
      beginServiceFields(obj, old);
      return beginServiceWrite(obj, old, ctx, holders, claims);
    },
    heldValues: serviceHeldValues,
  };
}

// ---- printing (printService) ----

function externalIP(svc: KubeObject): string {
  const external = arrAt(svc, 'spec', 'externalIPs').map(String);
  switch (svcType(svc)) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const set = new Set<string>();
      for (const ing of objsAt(svc, 'status', 'loadBalancer', 'ingress')) {
        if (str(ing.ip) !== '') set.add(str(ing.ip));
        else if (str(ing.hostname) !== '') set.add(str(ing.hostname));
      }
      // Server-side tables are wide: the list is not clipped.
      const lb = [...set].sort().join(',');
      if (external.length > 0) return [...(lb ? lb.split(',') : []), ...external].join(',');
      return lb !== '' ? lb : '<pending>';
    }
    case 'ExternalName':
      return strAt(svc, 'spec', 'externalName');
  }
  return '<unknown>';
}

function portString(svc: KubeObject): string {
  const s = objsAt(svc, 'spec', 'ports')
    .map((p) => (typeof p.nodePort === 'number' && p.nodePort > 0 ? `${String(p.port)}:${p.nodePort}/${str(p.protocol)}` : `${String(p.port)}/${str(p.protocol)}`))
    .join(',');
  return s === '' ? '<none>' : s;
}

export function serviceFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: serviceStrategy(rules),
    printerColumns: [
      column('Type', 'string', 'How the service is exposed.', (o) => svcType(o)),
      column('Cluster-IP', 'string', 'The primary cluster IP.', (o) => {
        const ips = arrAt(o, 'spec', 'clusterIPs');
        return ips.length > 0 ? String(ips[0]) : '<none>';
      }),
      column('External-IP', 'string', 'External addresses of the service.', externalIP),
      column('Port(s)', 'string', 'Ports the service exposes.', portString),
      ageColumn,
      column('Selector', 'string', 'Labels of the pods the service routes to.', (o) => formatLabels(objAt(o, 'spec')?.selector), 1),
    ],
    selectableFields: {
      'spec.clusterIP': (o) => strAt(o, 'spec', 'clusterIP'),
      'spec.type': (o) => strAt(o, 'spec', 'type'),
    },
  };
}
