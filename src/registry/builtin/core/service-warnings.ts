// The warnings kube-apiserver 1.31 sends with a valid write of a Service (pkg/api/service's GetWarningsForService):
// the deprecated topology hints annotation, addresses validation accepts but Go's netip does not (IPv4 octets with
// leading zeros) or that are not written canonically (IPv6), and fields the Service's type ignores.

import { isIP } from 'node:net';
import { isObj, strAt, type Obj } from '../object.ts';

const TOPOLOGY_HINTS_ANNOTATION = 'service.kubernetes.io/topology-aware-hints';
const TOPOLOGY_MODE_ANNOTATION = 'service.kubernetes.io/topology-mode';

/** An IPv4 address with an octet Go's netip.ParseAddr refuses for its leading zero. */
const hasLeadingZeroOctet = (ip: string): boolean => ip.split('.').some((o) => o.length > 1 && o.startsWith('0'));

/** RFC 5952's text of an IPv6 address, as Go's netip.Addr.String writes it. */
function canonicalIPv6(address: string): string | undefined {
  try {
    // WHATWG URL parsing writes IPv6 hosts canonically (lowercase, zeros compressed, the longest run first).
    const host = new URL(`http://[${address}]/`).hostname;
    return host.slice(1, -1);
  } catch {
    return undefined;
  }
}

/** getWarningsForIP. */
function ipWarnings(path: string, address: string): string[] {
  if (isIP(address) === 0 && /^[\d.]+$/.test(address) && hasLeadingZeroOctet(address)) {
    return [`${path}: IP address was accepted, but will be invalid in a future Kubernetes release: ParseAddr(${JSON.stringify(address)}): IPv4 field has octet with leading zero`];
  }
  if (isIP(address) !== 6) return [];
  const canonical = canonicalIPv6(address);
  if (canonical === undefined || canonical === address || address.includes('.')) return [];
  return [`${path}: IPv6 address ${JSON.stringify(address)} is not in RFC 5952 canonical format (${JSON.stringify(canonical)}), which may cause controller apply-loops`];
}

/** getWarningsForCIDR. */
function cidrWarnings(path: string, cidr: string): string[] {
  const slash = cidr.indexOf('/');
  if (slash < 0) return [];
  const [address, bits] = [cidr.slice(0, slash), cidr.slice(slash + 1)];
  const refused = (why: string): string[] => [`${path}: IP prefix was accepted, but will be invalid in a future Kubernetes release: netip.ParsePrefix(${JSON.stringify(cidr)}): ${why}`];
  if (isIP(address) === 0 && /^[\d.]+$/.test(address) && hasLeadingZeroOctet(address)) return refused(`ParseAddr(${JSON.stringify(address)}): IPv4 field has octet with leading zero`);
  if (bits.length > 1 && bits.startsWith('0')) return refused(`bad bits after slash: ${JSON.stringify(bits)}`);
  if (isIP(address) !== 6) return [];
  const canonical = canonicalIPv6(address);
  if (canonical === undefined || canonical === address || address.includes('.')) return [];
  return [`${path}: IPv6 prefix ${JSON.stringify(cidr)} is not in RFC 5952 canonical format (${JSON.stringify(`${canonical}/${bits}`)}), which may cause controller apply-loops`];
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** GetWarningsForService (create and update alike). */
export function serviceWarnings(service: Obj): string[] {
  const out: string[] = [];
  const annotations = isObj(service.metadata) && isObj(service.metadata.annotations) ? service.metadata.annotations : {};
  if (Object.hasOwn(annotations, TOPOLOGY_HINTS_ANNOTATION)) out.push(`annotation ${TOPOLOGY_HINTS_ANNOTATION} is deprecated, please use ${TOPOLOGY_MODE_ANNOTATION} instead`);
  const spec = isObj(service.spec) ? service.spec : {};
  const clusterIP = strAt(spec, 'clusterIP');
  // helper.IsServiceIPSet: a cluster IP that is neither empty nor None.
  if (clusterIP !== '' && clusterIP !== 'None') strings(spec.clusterIPs).forEach((ip, i) => out.push(...ipWarnings(`spec.clusterIPs[${i}]`, ip)));
  const externalIPs = strings(spec.externalIPs);
  externalIPs.forEach((ip, i) => out.push(...ipWarnings(`spec.externalIPs[${i}]`, ip)));
  const loadBalancerIP = strAt(spec, 'loadBalancerIP');
  if (loadBalancerIP !== '') out.push(...ipWarnings('spec.loadBalancerIP', loadBalancerIP));
  strings(spec.loadBalancerSourceRanges).forEach((cidr, i) => out.push(...cidrWarnings(`spec.loadBalancerSourceRanges[${i}]`, cidr)));
  const type = strAt(spec, 'type');
  if (type === 'ExternalName' && externalIPs.length > 0) out.push('spec.externalIPs is ignored when spec.type is "ExternalName"');
  if (type !== 'ExternalName' && strAt(spec, 'externalName') !== '') out.push('spec.externalName is ignored when spec.type is not "ExternalName"');
  return out;
}
