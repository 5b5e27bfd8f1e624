// How a pod resolves names (pkg/apis/core/validation validatePodDNSConfig and ValidateHostAliases of kube 1.31):
// spec.dnsConfig and spec.hostAliases, with kube's paths and messages.

import { fieldErrors, goStringsValue, type FieldError } from '../../../apis/errors.ts';
import { isDNS1123Subdomain } from '../../validation/names.ts';
import { validIPErrors } from '../ip-validation.ts';
import { isObj } from '../object.ts';

// The limits of libc's resolver.
const MAX_NAMESERVERS = 3;
const MAX_SEARCH_PATHS = 32;
const MAX_SEARCH_LIST_CHARS = 2048;

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function subdomainErrors(value: string, path: string): FieldError[] {
  return isDNS1123Subdomain(value).map((m) => fieldErrors.invalid(path, value, m));
}

function searchErrors(searches: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (searches.length > MAX_SEARCH_PATHS) errs.push(fieldErrors.invalid(path, goStringsValue(searches), `must not have more than ${MAX_SEARCH_PATHS} search paths`));
  if (Buffer.byteLength(searches.join(' ')) > MAX_SEARCH_LIST_CHARS) {
    errs.push(fieldErrors.invalid(path, goStringsValue(searches), `must not have more than ${MAX_SEARCH_LIST_CHARS} characters (including spaces) in the search list`));
  }
  // A fully qualified search domain (trailing dot) is fine.
  searches.forEach((s, i) => errs.push(...subdomainErrors(s.endsWith('.') ? s.slice(0, -1) : s, `${path}[${i}]`)));
  return errs;
}

/** validatePodDNSConfig: dnsPolicy None needs nameservers; nameservers, searches and options must be usable. */
export function validatePodDNSConfig(dnsConfig: unknown, dnsPolicy: string, path: string): FieldError[] {
  if (dnsPolicy === 'None') {
    if (!isObj(dnsConfig)) return [fieldErrors.required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (list(dnsConfig.nameservers).length === 0) return [fieldErrors.required(`${path}.nameservers`, 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (!isObj(dnsConfig)) return [];
  const errs: FieldError[] = [];
  const nameservers = list(dnsConfig.nameservers).map(str);
  if (nameservers.length > MAX_NAMESERVERS) {
    errs.push(fieldErrors.invalid(`${path}.nameservers`, goStringsValue(nameservers), `must not have more than ${MAX_NAMESERVERS} nameservers`));
  }
  nameservers.forEach((ns, i) => errs.push(...validIPErrors(ns, `${path}.nameservers[${i}]`)));
  errs.push(...searchErrors(list(dnsConfig.searches).map(str), `${path}.searches`));
  list(dnsConfig.options).forEach((o, i) => {
    if (str(isObj(o) ? o.name : undefined) === '') errs.push(fieldErrors.required(`${path}.options[${i}]`, 'must not be empty'));
  });
  return errs;
}

/** ValidateHostAliases: each ip an IP address, each hostname a DNS subdomain. */
export function validateHostAliases(hostAliases: unknown, path: string): FieldError[] {
  return list(hostAliases).flatMap((alias, i) => {
    const a = isObj(alias) ? alias : {};
    return [
      ...validIPErrors(str(a.ip), `${path}[${i}].ip`),
      ...list(a.hostnames).flatMap((h, j) => subdomainErrors(str(h), `${path}[${i}].hostnames[${j}]`)),
    ];
  });
}
