// Services (SetDefaults_Service, the service REST allocator's visible effects, core validation ValidateService /
// ValidateServiceUpdate, printService): type ClusterIP, sessionAffinity None, ports TCP with targetPort = port,
// traffic policies, single-stack IPv4 families, a cluster IP from 10.96.0.0/12 and node ports from 30000-32767.
// Allocation against the other Services (service-allocation.ts) runs in the strategy's beginWrite, before
// prepareForCreate; the random picks left here only serve objects that did not go through a store.

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goQuote } from '../../../encoding/go-format.ts';
import type { KubeObject } from '../../types.ts';
import { validateLabels, validateQualifiedName, validateDNS1123Label } from '../../validation/meta.ts';
import { isDNS1123Subdomain, isValidPortName, isValidPortNum } from '../../validation/names.ts';
import { buildStrategy, type BuiltinStrategy } from '../generic.ts';
import { arrAt, clone, ensureObj, isObj, objAt, objsAt, semanticEqual, setDefault, setDefaultString, strAt, type Obj } from '../object.ts';
import { ageColumn, column, formatLabels } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { protocolErrors } from './pod-validation.ts';
import { serviceWarnings } from './service-warnings.ts';
import { allocateClusterIP, allocateNodePort, beginServiceWrite, serviceHeldValues, inServiceCIDR, ipToInt, SERVICE_CIDR } from './service-allocation.ts';

export { allocateClusterIP, allocateNodePort, inServiceCIDR, KUBERNETES_SERVICE_IP, NODE_PORT_RANGE, SERVICE_CIDR } from './service-allocation.ts';

const str = (v: unknown) => (typeof v === 'string' ? v : '');

function svcType(svc: KubeObject): string {
  return strAt(svc, 'spec', 'type');
}

function isHeadless(svc: KubeObject): boolean {
  const ips = arrAt(svc, 'spec', 'clusterIPs');
  return ips.length > 0 && ips[0] === 'None';
}

function externallyAccessible(svc: KubeObject): boolean {
  const t = svcType(svc);
  return t === 'LoadBalancer' || t === 'NodePort' || (t === 'ClusterIP' && arrAt(svc, 'spec', 'externalIPs').length > 0);
}

function needsClusterIP(svc: KubeObject): boolean {
  return svcType(svc) !== 'ExternalName';
}

function needsNodePorts(svc: KubeObject): boolean {
  const t = svcType(svc);
  if (t === 'NodePort') return true;
  return t === 'LoadBalancer' && objAt(svc, 'spec')?.allocateLoadBalancerNodePorts !== false;
}

function needsHealthCheck(svc: KubeObject): boolean {
  return svcType(svc) === 'LoadBalancer' && strAt(svc, 'spec', 'externalTrafficPolicy') === 'Local';
}

/** SetDefaults_Service. */
export function defaultService(svc: KubeObject): void {
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
}

/** clusterIPs mirrors clusterIP (the strategy's normalizeClusterIPs). */
function normalizeClusterIPs(spec: Obj, old?: Obj): void {
  const ip = str(spec.clusterIP);
  const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
  if (old && ip === '' && Array.isArray(old.clusterIPs) && ips.length > 0 && ips[0] === '') {
    return;
  }
  if (ips.length === 0 && ip !== '') spec.clusterIPs = [ip];
  else if (ips.length > 0 && ip === '') spec.clusterIP = ips[0];
}

function usedNodePorts(spec: Obj): Set<number> {
  return new Set(objsAt(spec, 'ports').map((p) => (typeof p.nodePort === 'number' ? p.nodePort : 0)).filter((n) => n > 0));
}

function allocate(svc: KubeObject): void {
  const spec = ensureObj(svc, 'spec');
  normalizeClusterIPs(spec);
  if (!needsClusterIP(svc)) return;
  if (str(spec.clusterIP) === '') {
    const ip = allocateClusterIP();
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
  }
  const headless = isHeadless(svc);
  if (spec.ipFamilyPolicy === undefined || spec.ipFamilyPolicy === null) {
    const selectorless = !isObj(spec.selector) || Object.keys(spec.selector).length === 0;
    spec.ipFamilyPolicy = headless && selectorless ? 'RequireDualStack' : 'SingleStack';
  }
  if (!Array.isArray(spec.ipFamilies) || spec.ipFamilies.length === 0) spec.ipFamilies = ['IPv4'];
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

/** The allocator's patchAllocatedValues: values a client left out are kept from the stored object. */
function patchAllocatedValues(svc: KubeObject, old: KubeObject): void {
  const spec = ensureObj(svc, 'spec');
  const oldSpec = objAt(old, 'spec') ?? {};
  if (needsClusterIP(old) && needsClusterIP(svc)) {
    if (str(spec.clusterIP) === '') spec.clusterIP = clone(oldSpec.clusterIP);
    const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
    if ((ips.length === 0 || ips[0] === '') && oldSpec.clusterIPs !== undefined) spec.clusterIPs = clone(oldSpec.clusterIPs);
    if ((!Array.isArray(spec.ipFamilies) || spec.ipFamilies.length === 0) && oldSpec.ipFamilies !== undefined) spec.ipFamilies = clone(oldSpec.ipFamilies);
    if ((spec.ipFamilyPolicy === undefined || spec.ipFamilyPolicy === null) && oldSpec.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = oldSpec.ipFamilyPolicy;
  }
  if (needsNodePorts(old) && needsNodePorts(svc)) {
    const oldUsed = usedNodePorts(oldSpec);
    const newUsed = usedNodePorts(spec);
    const byName = new Map(objsAt(oldSpec, 'ports').map((p) => [str(p.name), p.nodePort]));
    for (const port of objsAt(spec, 'ports')) {
      if (!port.nodePort) {
        const oldVal = byName.get(str(port.name));
        if (typeof oldVal === 'number' && !(oldUsed.has(oldVal) && newUsed.has(oldVal))) port.nodePort = oldVal;
      }
    }
  }
  if (needsHealthCheck(old) && needsHealthCheck(svc) && !spec.healthCheckNodePort) spec.healthCheckNodePort = oldSpec.healthCheckNodePort;
}

/**
 * dropTypeDependentFields: on a change of type, what the old type needed and the new one does not is dropped when
 * the client left it as it was (the node ports, health check port, allocateLoadBalancerNodePorts, the
 * loadBalancerClass, the externalTrafficPolicy), so `type: ClusterIP` alone turns a LoadBalancer into a ClusterIP.
 */
function dropTypeDependentFields(svc: KubeObject, old: KubeObject): void {
  const spec = ensureObj(svc, 'spec');
  const oldSpec = objAt(old, 'spec') ?? {};
  const same = (k: string) => semanticEqual(spec[k], oldSpec[k]);
  const anyNodePorts = (o: KubeObject) => svcType(o) === 'NodePort' || svcType(o) === 'LoadBalancer';
  const nodePorts = (ports: Obj[]) => ports.map((p) => p.nodePort ?? 0);
  if (anyNodePorts(old) && !anyNodePorts(svc) && semanticEqual(nodePorts(objsAt(spec, 'ports')), nodePorts(objsAt(oldSpec, 'ports')))) {
    for (const port of objsAt(spec, 'ports')) delete port.nodePort;
  }
  if (needsHealthCheck(old) && !needsHealthCheck(svc) && same('healthCheckNodePort')) delete spec.healthCheckNodePort;
  if (svcType(old) === 'LoadBalancer' && svcType(svc) !== 'LoadBalancer') {
    if (spec.allocateLoadBalancerNodePorts != null && same('allocateLoadBalancerNodePorts')) delete spec.allocateLoadBalancerNodePorts;
    if (same('loadBalancerClass')) delete spec.loadBalancerClass;
  }
  if (externallyAccessible(old) && !externallyAccessible(svc) && same('externalTrafficPolicy')) delete spec.externalTrafficPolicy;
}

/** The Go struct kube puts in Duplicate errors for ports, rendered the way the error body shows it. */
function servicePortKey(port: Obj): Record<string, unknown> {
  return { Name: '', Protocol: str(port.protocol), AppProtocol: null, Port: port.port ?? 0, TargetPort: 0, NodePort: 0 };
}

function validIP(ip: string): boolean {
  return ipToInt(ip) !== undefined || (/^[0-9a-fA-F:]+$/.test(ip) && ip.includes(':'));
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

export function validateServiceSpec(svc: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objAt(svc, 'spec') ?? {};
  const type = str(spec.type);
  const ports = objsAt(spec, 'ports');
  const headless = isHeadless(svc);
  if (ports.length === 0 && !headless && type !== 'ExternalName') errs.push(fieldErrors.required('spec.ports'));
  switch (type) {
    case 'LoadBalancer':
    case 'NodePort':
      if (headless) errs.push(fieldErrors.invalid('spec.clusterIPs[0]', 'None', `may not be set to 'None' for ${type} services`));
      break;
    case 'ExternalName': {
      if (arrAt(spec, 'clusterIPs').length > 0) errs.push(fieldErrors.forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
      if (arrAt(spec, 'ipFamilies').length > 0) errs.push(fieldErrors.forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
      if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null) errs.push(fieldErrors.forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
      const cname = str(spec.externalName).replace(/\.$/, '');
      if (cname !== '') for (const m of isDNS1123Subdomain(cname)) errs.push(fieldErrors.invalid('spec.externalName', cname, m));
      else errs.push(fieldErrors.required('spec.externalName'));
      break;
    }
  }
  const names = new Set<string>();
  ports.forEach((p, i) => errs.push(...validateServicePort(p, ports.length > 1, names, `spec.ports[${i}]`)));
  if (isObj(spec.selector)) errs.push(...validateLabels(spec.selector, 'spec.selector'));
  const affinity = str(spec.sessionAffinity);
  if (affinity === '') errs.push(fieldErrors.required('spec.sessionAffinity'));
  else if (affinity !== 'ClientIP' && affinity !== 'None') errs.push(fieldErrors.notSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  if (affinity === 'ClientIP') {
    const timeout = objAt(objAt(spec, 'sessionAffinityConfig'), 'clientIP')?.timeoutSeconds;
    if (typeof timeout !== 'number') errs.push(fieldErrors.required('spec.sessionAffinityConfig', 'when session affinity type is ClientIP'));
    else if (timeout <= 0 || timeout > 86400) {
      errs.push(fieldErrors.invalid('spec.sessionAffinityConfig.clientIP.timeoutSeconds', timeout, 'must be greater than 0 and less than 86400'));
    }
  } else if (affinity === 'None' && spec.sessionAffinityConfig !== undefined && spec.sessionAffinityConfig !== null) {
    errs.push(fieldErrors.forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }
  arrAt(spec, 'clusterIPs').forEach((ip, i) => {
    if (ip === 'None' && i === 0) return;
    if (typeof ip !== 'string' || !validIP(ip)) errs.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
  });
  arrAt(spec, 'externalIPs').forEach((ip, i) => {
    if (typeof ip !== 'string' || !validIP(ip)) errs.push(fieldErrors.invalid(`spec.externalIPs[${i}]`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
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
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (!p.nodePort) return;
    const key = `${str(p.protocol)}/${String(p.nodePort)}`;
    if (nodePorts.has(key)) errs.push(fieldErrors.duplicate(`spec.ports[${i}].nodePort`, p.nodePort));
    nodePorts.add(key);
  });
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${str(p.protocol)}/${String(p.port ?? 0)}`;
    if (seen.has(key)) errs.push(fieldErrors.duplicate(`spec.ports[${i}]`, servicePortKey(p)));
    seen.add(key);
  });
  if (arrAt(spec, 'loadBalancerSourceRanges').length > 0 && type !== 'LoadBalancer') {
    errs.push(fieldErrors.forbidden('spec.LoadBalancerSourceRanges', "may only be used when `type` is 'LoadBalancer'"));
  }
  if (spec.allocateLoadBalancerNodePorts !== undefined && spec.allocateLoadBalancerNodePorts !== null && type !== 'LoadBalancer') {
    errs.push(fieldErrors.forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  }
  if (type === 'LoadBalancer' && (spec.allocateLoadBalancerNodePorts === undefined || spec.allocateLoadBalancerNodePorts === null)) {
    errs.push(fieldErrors.required('allocateLoadBalancerNodePorts'));
  }
  const etp = str(spec.externalTrafficPolicy);
  if (!externallyAccessible(svc)) {
    if (etp !== '') errs.push(fieldErrors.invalid('spec.externalTrafficPolicy', etp, 'may only be set for externally-accessible services'));
  } else if (etp === '') errs.push(fieldErrors.required('spec.externalTrafficPolicy'));
  else if (etp !== 'Cluster' && etp !== 'Local') errs.push(fieldErrors.notSupported('spec.externalTrafficPolicy', etp, ['Cluster', 'Local']));
  const itp = spec.internalTrafficPolicy;
  if ((itp === undefined || itp === null) && ['NodePort', 'LoadBalancer', 'ClusterIP'].includes(type)) errs.push(fieldErrors.required('spec.internalTrafficPolicy'));
  if (typeof itp === 'string' && itp !== 'Cluster' && itp !== 'Local') errs.push(fieldErrors.notSupported('spec.internalTrafficPolicy', itp, ['Cluster', 'Local']));
  const policy = spec.ipFamilyPolicy;
  if (typeof policy === 'string' && !['SingleStack', 'PreferDualStack', 'RequireDualStack'].includes(policy)) {
    errs.push(fieldErrors.notSupported('spec.ipFamilyPolicy', policy, ['PreferDualStack', 'RequireDualStack', 'SingleStack']));
  }
  arrAt(spec, 'ipFamilies').forEach((f, i) => {
    if (f !== 'IPv4' && f !== 'IPv6') errs.push(fieldErrors.notSupported(`spec.ipFamilies[${i}]`, f, ['IPv4', 'IPv6']));
  });
  return errs;
}

function validateServiceUpdate(svc: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (svcType(old) === 'ExternalName' || svcType(svc) === 'ExternalName') return errs;
  const oldIPs = arrAt(old, 'spec', 'clusterIPs');
  const newIPs = arrAt(svc, 'spec', 'clusterIPs');
  if (oldIPs.length > 0 && newIPs.length > 0 && oldIPs[0] !== newIPs[0]) {
    errs.push(fieldErrors.invalid('spec.clusterIPs[0]', newIPs[0], 'may not change once set'));
  }
  const oldFamilies = arrAt(old, 'spec', 'ipFamilies');
  const newFamilies = arrAt(svc, 'spec', 'ipFamilies');
  if (oldFamilies.length > 0 && newFamilies.length > 0 && oldFamilies[0] !== newFamilies[0]) {
    errs.push(fieldErrors.invalid('spec.ipFamilies[0]', newFamilies[0], 'may not change once set'));
  }
  return errs;
}

function clusterIPRangeErrors(svc: KubeObject): FieldError[] {
  if (!needsClusterIP(svc)) return [];
  const ips = arrAt(svc, 'spec', 'clusterIPs').filter((ip): ip is string => typeof ip === 'string');
  for (const ip of ips) {
    if (ip === 'None' || !validIP(ip) || ip.includes(':')) continue;
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
  const strategy = buildStrategy(rules, {
    defaults: (obj) => defaultService(obj),
    warnings: (obj) => serviceWarnings(obj),
    prepareForCreate(obj) {
      allocate(obj);
    },
    prepareForUpdate(obj, old) {
      dropTypeDependentFields(obj, old);
      patchAllocatedValues(obj, old);
      normalizeClusterIPs(ensureObj(obj, 'spec'), objAt(old, 'spec'));
      if (!needsClusterIP(obj)) {
        const spec = ensureObj(obj, 'spec');
        if (needsClusterIP(old)) {
          delete spec.clusterIP;
          delete spec.clusterIPs;
          delete spec.ipFamilies;
          delete spec.ipFamilyPolicy;
        }
        return;
      }
      allocate(obj);
    },
    validate: (obj) => [...validateServiceSpec(obj), ...clusterIPRangeErrors(obj)],
    validateUpdate: (obj, old, _ctx, validateNew) => [...validateServiceUpdate(obj, old), ...validateNew().filter((e) => !e.detail?.startsWith('failed to allocate IP'))],
  });
  return { ...strategy, beginWrite: beginServiceWrite, heldValues: serviceHeldValues };
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
