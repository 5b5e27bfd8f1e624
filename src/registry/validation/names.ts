// Syntax checks of names and keys (k8s.io/apimachinery/pkg/util/validation, .../api/validation/path and the
// name functions of k8s.io/apimachinery/pkg/api/validation), returning kube's exact messages.

import {
  DNS1123_LABEL_MAX,
  DNS1123_SUBDOMAIN_MAX,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  maxLenError,
  regexError,
} from '../../apis/labels.ts';

export { DNS1123_LABEL_MAX, DNS1123_SUBDOMAIN_MAX, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, maxLenError, regexError };

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);
const dns1035LabelMsg = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!dns1035LabelRe.test(value)) errs.push(regexError(dns1035LabelMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyRe = new RegExp(`^${configMapKeyFmt}$`);
const configMapKeyMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

function chDirPrefixErrors(value: string): string[] {
  if (value === '.') return [`must not be '.'`];
  if (value === '..') return [`must not be '..'`];
  if (value.startsWith('..')) return [`must not start with '..'`];
  return [];
}

/** Keys of ConfigMap data/binaryData and Secret data. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!configMapKeyRe.test(value)) errs.push(regexError(configMapKeyMsg, configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  errs.push(...chDirPrefixErrors(value));
  return errs;
}

const envVarNameFmt = '[-._a-zA-Z][-._a-zA-Z0-9]*';
const envVarNameRe = new RegExp(`^${envVarNameFmt}$`);
const envVarNameMsg = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit";

export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!envVarNameRe.test(value)) errs.push(regexError(envVarNameMsg, envVarNameFmt, 'my.env-name', 'MY_ENV.NAME', 'MyEnvName1'));
  errs.push(...chDirPrefixErrors(value));
  return errs;
}

export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/** IANA service names: at most 15 of [-a-z0-9], at least one letter, no leading/trailing or double hyphens. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

const httpHeaderNameFmt = '[-A-Za-z0-9]+';
export function isHTTPHeaderName(value: string): string[] {
  return new RegExp(`^${httpHeaderNameFmt}$`).test(value)
    ? []
    : [regexError("a valid HTTP header must consist of alphanumeric characters or '-'", httpHeaderNameFmt, 'X-Header-Name')];
}

/** path.IsValidPathSegmentName (prefix=false) and IsValidPathSegmentPrefix (prefix=true). */
export function isValidPathSegment(name: string, prefix: boolean): string[] {
  if (!prefix && (name === '.' || name === '..')) return [`may not be '${name}'`];
  const errs: string[] = [];
  if (name.includes('/')) errs.push(`may not contain '/'`);
  if (name.includes('%')) errs.push(`may not contain '%'`);
  return errs;
}

/** A ValidateNameFunc: `prefix` is true when the value is a generateName that gets a suffix appended. */
export type NameValidator = (name: string, prefix: boolean) => string[];

// A generateName may end in '-' because a suffix follows; kube masks the trailing character before checking.
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? name.slice(0, -2) + 'a' : name;
}

export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
export const nameIsDNS1035Label: NameValidator = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);
export const nameIsPathSegment: NameValidator = (name, prefix) => isValidPathSegment(name, prefix);
