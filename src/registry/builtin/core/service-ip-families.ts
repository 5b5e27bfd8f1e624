// The linked cluster-IP fields of a Service (clusterIP, clusterIPs, ipFamilies, ipFamilyPolicy) as kube 1.31 keeps
// them: core validation's ValidateServiceClusterIPsRelatedFields and the update rules of ValidateServiceUpdate
// (validateUpgradeDowngradeClusterIPs/IPFamilies), the Service REST's normalizeClusterIPs and patchAllocatedValues
// (pkg/registry/core/service/storage/storage.go), and the allocator's initIPFamilyFields (storage/alloc.go), which
// runs in BeginCreate/BeginUpdate before the strategy and answers its errors alone. This cluster is single-stack
// IPv4 (--service-cluster-ip-range 10.96.0.0/12): IPv6 and RequireDualStack are refused, except for the headless
// selectorless Services kube lets default to both families.

import { fieldErrors, goStringsValue, type FieldError } from '../../../apis/errors.ts';
import { goNamedStrings } from '../../../apis/go-bad-values.ts';
import type { KubeObject } from '../../types.ts';
import { goIPFamily, INVALID_IP } from '../ip-validation.ts';
import { ensureObj, isObj, objAt, type Obj } from '../object.ts';

/** The families this cluster allocates from (serviceIPAllocatorsByFamily) and its default (the primary range's). */
const CLUSTER_FAMILIES: readonly string[] = ['IPv4'];
const DEFAULT_FAMILY = 'IPv4';

const specOf = (svc: KubeObject | undefined): Obj => objAt(svc, 'spec') ?? {};
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** A []string field as Go holds it: the strings, or none. */
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : String(x))) : []);
/** A pointer field: its value, or undefined for nil. */
const pointer = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : str(v));

const clusterIPs = (spec: Obj): string[] => strings(spec.clusterIPs);
const ipFamilies = (spec: Obj): string[] => strings(spec.ipFamilies);
const ipsValue = (spec: Obj): unknown => goStringsValue(Array.isArray(spec.clusterIPs) ? spec.clusterIPs : null);
const familiesValue = (spec: Obj): unknown => goNamedStrings('core.IPFamily', Array.isArray(spec.ipFamilies) ? spec.ipFamilies : undefined);
/** A *IPFamilyPolicy as field.Error prints it: the value, or null. */
const policyValue = (spec: Obj): unknown => pointer(spec.ipFamilyPolicy) ?? null;

const isIPv6 = (ip: string): boolean => goIPFamily(ip) === 6;
const familyOf = (ip: string): string => (goIPFamily(ip) === 4 ? 'IPv4' : goIPFamily(ip) === 6 ? 'IPv6' : 'unknown');

/** isHeadlessService: clusterIPs is exactly ["None"]. */
export function isHeadlessService(svc: KubeObject | undefined): boolean {
  const ips = clusterIPs(specOf(svc));
  return ips.length === 1 && ips[0] === 'None';
}

const needsClusterIP = (svc: KubeObject): boolean => str(specOf(svc).type) !== 'ExternalName';
const selectorless = (spec: Obj): boolean => !isObj(spec.selector) || Object.keys(spec.selector).length === 0;

/** The storage package's sameClusterIPs and sameIPFamilies: the plural fields alone, element by element. */
const sameList = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
const sameClusterIPs = (a: Obj, b: Obj): boolean => sameList(clusterIPs(a), clusterIPs(b));
const sameIPFamilies = (a: Obj, b: Obj): boolean => sameList(ipFamilies(a), ipFamilies(b));

/** ValidateServiceClusterIPsRelatedFields. */
export function validateClusterIPsRelatedFields(svc: KubeObject): FieldError[] {
  const spec = specOf(svc);
  if (str(spec.type) === 'ExternalName') return [];
  const errs: FieldError[] = [];
  let hasInvalidIPs = false;
  const clusterIP = str(spec.clusterIP);
  const ips = clusterIPs(spec);

  // clusterIP and clusterIPs agree (the strategy syncs them for clients that manage one of the two).
  if (clusterIP !== '') {
    if (ips.length === 0) errs.push(fieldErrors.required('spec.clusterIPs'));
    else if (ips[0] !== clusterIP) errs.push(fieldErrors.invalid('spec.clusterIPs', ipsValue(spec), 'first value must match `clusterIP`'));
  } else if (ips.length !== 0) {
    errs.push(fieldErrors.invalid('spec.clusterIPs', ipsValue(spec), 'must be empty when `clusterIP` is not specified'));
  }

  const seen = new Set<string>();
  ipFamilies(spec).forEach((family, i) => {
    if (family !== 'IPv4' && family !== 'IPv6') errs.push(fieldErrors.notSupported(`spec.ipFamilies[${i}]`, family, ['IPv4', 'IPv6']));
    if (seen.has(family)) errs.push(fieldErrors.duplicate(`spec.ipFamilies[${i}]`, family));
    seen.add(family);
  });

  const policy = pointer(spec.ipFamilyPolicy);
  if (policy !== undefined && !['SingleStack', 'PreferDualStack', 'RequireDualStack'].includes(policy)) {
    errs.push(fieldErrors.notSupported('spec.ipFamilyPolicy', policy, ['PreferDualStack', 'RequireDualStack', 'SingleStack']));
  }

  ips.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (ips.length > 1) {
        hasInvalidIPs = true;
        errs.push(fieldErrors.invalid('spec.clusterIPs', ipsValue(spec), "'None' must be the first and only value"));
      }
      return;
    }
    if (goIPFamily(ip) === 0) {
      hasInvalidIPs = true;
      errs.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, ip, INVALID_IP));
    }
  });
  if (ips.length > 2) errs.push(fieldErrors.invalid('spec.clusterIPs', ipsValue(spec), 'may only hold up to 2 values'));
  // Bad or misplaced values would skew what follows (indexes, dual-stackness).
  if (hasInvalidIPs) return errs;

  // netutils.IsDualStackIPStrings: at least one of each family.
  if (ips.length > 1 && !(ips.some(isIPv6) && ips.some((ip) => !isIPv6(ip)))) {
    errs.push(fieldErrors.invalid('spec.clusterIPs', ipsValue(spec), 'may specify no more than one IP for each IP family'));
  }

  const families = ipFamilies(spec);
  if (!isHeadlessService(svc) && ips.length > 0 && families.length > 0) {
    for (const [i, ip] of ips.entries()) {
      if (i > families.length - 1) break;
      if (families[i] === 'IPv4' && isIPv6(ip)) errs.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (families[i] === 'IPv6' && !isIPv6(ip)) errs.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    }
  }
  return errs;
}

/** validateUpgradeDowngradeClusterIPs (ValidateServiceUpdate): the primary cluster IP never changes. */
export function validateUpgradeDowngradeClusterIPs(old: KubeObject, svc: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!needsClusterIP(svc) || !needsClusterIP(old)) return errs;
  if (isHeadlessService(old) && isHeadlessService(svc)) return errs;
  const spec = specOf(svc);
  const oldIPs = clusterIPs(specOf(old));
  const ips = clusterIPs(spec);
  const changed = (i: number) => fieldErrors.invalid(`spec.clusterIPs[${i}]`, ipsValue(spec), 'may not change once set');
  if (oldIPs.length === ips.length) {
    oldIPs.forEach((ip, i) => {
      if (ip !== ips[i]) errs.push(changed(i));
    });
  } else if (oldIPs.length > ips.length) {
    if (ips.length === 0) errs.push(fieldErrors.invalid('spec.clusterIPs[0]', ipsValue(spec), 'primary clusterIP can not be unset'));
    if (oldIPs.length > 0 && ips.length > 0 && ips[0] !== oldIPs[0]) errs.push(changed(0));
    if (ips.length === 1 && pointer(spec.ipFamilyPolicy) !== 'SingleStack') {
      errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policyValue(spec), "must be set to 'SingleStack' when releasing the secondary clusterIP"));
    }
  } else if (oldIPs.length > 0 && ips[0] !== oldIPs[0]) {
    errs.push(changed(0));
  }
  return errs;
}

/**
 * validateUpgradeDowngradeIPFamilies (ValidateServiceUpdate): the primary family never changes. Kube's own quirks
 * are kept: an unset primary family is judged by clusterIPs, and a changed one in a grown or shrunk list shows
 * clusterIPs as its value.
 */
export function validateUpgradeDowngradeIPFamilies(old: KubeObject, svc: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!needsClusterIP(svc) || !needsClusterIP(old)) return errs;
  const headless = isHeadlessService(svc);
  if (headless !== isHeadlessService(old) || headless) return errs;
  const spec = specOf(svc);
  const oldFamilies = ipFamilies(specOf(old));
  const families = ipFamilies(spec);
  if (oldFamilies.length === families.length) {
    oldFamilies.forEach((family, i) => {
      if (family !== families[i]) errs.push(fieldErrors.invalid('spec.ipFamilies[0]', familiesValue(spec), 'may not change once set'));
    });
  } else if (oldFamilies.length > families.length) {
    if (clusterIPs(spec).length === 0) errs.push(fieldErrors.invalid('spec.ipFamilies[0]', familiesValue(spec), 'primary ipFamily can not be unset'));
    if (families.length > 0 && families[0] !== oldFamilies[0]) errs.push(fieldErrors.invalid('spec.ipFamilies[0]', ipsValue(spec), 'may not change once set'));
    if (families.length === 1 && pointer(spec.ipFamilyPolicy) !== 'SingleStack') {
      errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policyValue(spec), "must be set to 'SingleStack' when releasing the secondary ipFamily"));
    }
  } else if (oldFamilies.length > 0 && families.length > 0 && families[0] !== oldFamilies[0]) {
    errs.push(fieldErrors.invalid('spec.ipFamilies[0]', ipsValue(spec), 'may not change once set'));
  }
  return errs;
}

/**
 * normalizeClusterIPs: a client that writes clusterIP alone (an old client) gets clusterIPs to match; on update,
 * clusterIPs left out keep their stored values, and a changed clusterIP over unchanged clusterIPs replaces them.
 */
export function normalizeClusterIPs(svc: KubeObject, old?: KubeObject): void {
  const spec = ensureObj(svc, 'spec');
  const clusterIP = str(spec.clusterIP);
  if (!old) {
    if (clusterIP !== '' && clusterIPs(spec).length === 0) spec.clusterIPs = [clusterIP];
    return;
  }
  const oldSpec = specOf(old);
  const oldClusterIP = str(oldSpec.clusterIP);
  if (clusterIPs(oldSpec).length > 0 && clusterIPs(spec).length === 0 && oldClusterIP === clusterIP) spec.clusterIPs = structuredClone(oldSpec.clusterIPs);
  if (oldClusterIP !== clusterIP) {
    if (oldClusterIP !== '' && clusterIP === '') {
      if (sameClusterIPs(oldSpec, spec)) delete spec.clusterIPs;
    } else if (sameClusterIPs(oldSpec, spec)) {
      spec.clusterIPs = [clusterIP];
    }
  }
}

/** isMatchingPreferDualStackClusterIPFields: an update of a PreferDualStack Service that leaves its IPs alone. */
function isMatchingPreferDualStack(svc: KubeObject, old: KubeObject | undefined): boolean {
  if (!old) return false;
  const spec = specOf(svc);
  const oldSpec = specOf(old);
  const policy = pointer(spec.ipFamilyPolicy);
  if (policy === undefined) return false;
  if (str(oldSpec.type) !== str(spec.type)) return false;
  if (!['ClusterIP', 'NodePort', 'LoadBalancer'].includes(str(spec.type))) return false;
  if (policy !== 'PreferDualStack') return false;
  const oldPolicy = pointer(oldSpec.ipFamilyPolicy);
  if (oldPolicy !== undefined && oldPolicy !== 'PreferDualStack') return false;
  return sameClusterIPs(oldSpec, spec) && sameIPFamilies(oldSpec, spec);
}

/**
 * initIPFamilyFields: defaults ipFamilyPolicy (the stored one on update; RequireDualStack for a headless Service
 * without a selector; else SingleStack) and ipFamilies (from the cluster IPs, else the cluster's family), and
 * returns what kube refuses before allocating: the clusterIPs-related validation, secondary values released without
 * SingleStack, SingleStack with two values, and families this cluster does not have. Changes svc in place.
 */
export function initIPFamilyFields(svc: KubeObject, old?: KubeObject): FieldError[] {
  const spec = ensureObj(svc, 'spec');
  if (str(spec.type) === 'ExternalName') return [];
  if (isMatchingPreferDualStack(svc, old)) return [];

  const oldSpec = old ? specOf(old) : undefined;
  const headlessSelectorless = str(spec.clusterIP) === 'None' && selectorless(spec);
  if (pointer(spec.ipFamilyPolicy) === undefined) {
    const oldPolicy = oldSpec ? pointer(oldSpec.ipFamilyPolicy) : undefined;
    spec.ipFamilyPolicy = oldPolicy ?? (headlessSelectorless ? 'RequireDualStack' : 'SingleStack');
  }
  const policy = str(spec.ipFamilyPolicy);

  const pre = validateClusterIPsRelatedFields(svc);
  if (pre.length > 0) return pre;

  const errs: FieldError[] = [];
  if (oldSpec) {
    if (policy === 'SingleStack') {
      // Setting SingleStack over unchanged values is clear intent: the primary values stay.
      if (sameClusterIPs(oldSpec, spec) && clusterIPs(spec).length > 1) spec.clusterIPs = clusterIPs(spec).slice(0, 1);
      if (sameIPFamilies(oldSpec, spec) && ipFamilies(spec).length > 1) spec.ipFamilies = ipFamilies(spec).slice(0, 1);
    } else {
      const reduced = (now: string[], before: string[]) => now.length > 0 && now.length < before.length;
      if (reduced(clusterIPs(spec), clusterIPs(oldSpec))) {
        errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policyValue(spec), "must be 'SingleStack' to release the secondary cluster IP"));
      }
      if (reduced(ipFamilies(spec), ipFamilies(oldSpec))) {
        errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policyValue(spec), "must be 'SingleStack' to release the secondary IP family"));
      }
    }
  }

  if (policy === 'SingleStack') {
    if (clusterIPs(spec).length === 2) {
      errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policyValue(spec), "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
    }
    if (ipFamilies(spec).length === 2) {
      errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policyValue(spec), "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
    }
  }

  // ipFamilies follow the cluster IPs given: a missing entry is inferred, unless this cluster lacks the family.
  const families = ipFamilies(spec);
  let inferred = false;
  for (const [i, ip] of clusterIPs(spec).entries()) {
    if (ip === 'None') break;
    const family = familyOf(ip);
    if (i < families.length) continue;
    if (!CLUSTER_FAMILIES.includes(family)) {
      errs.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, ipsValue(spec), `${family} is not configured on this cluster`));
    } else {
      families.push(family);
      inferred = true;
    }
  }
  if (inferred) spec.ipFamilies = [...families];
  if (errs.length > 0) return errs;

  // Headless without a selector: any families, both by default, even on a single-stack cluster.
  if (headlessSelectorless) {
    if (families.length === 0) families.push(DEFAULT_FAMILY);
    if (families.length < 2 && policy !== 'SingleStack') families.push(families[0] === 'IPv4' ? 'IPv6' : 'IPv4');
    spec.ipFamilies = [...families];
    return [];
  }

  if (policy === 'RequireDualStack' && CLUSTER_FAMILIES.length < 2) {
    errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policyValue(spec), 'this cluster is not configured for dual-stack services'));
  }
  families.forEach((family, i) => {
    if (!CLUSTER_FAMILIES.includes(family)) errs.push(fieldErrors.invalid(`spec.ipFamilies[${i}]`, family, 'not configured on this cluster'));
  });
  if (errs.length > 0) return errs;
  if (families.length === 0) spec.ipFamilies = [DEFAULT_FAMILY];
  return [];
}
