// The string formats a CRD schema validates (apiextensions-apiserver pkg/apiserver/validation/formats.go, the
// set supported since 1.0), each checked as kube-openapi's strfmt.Default registry checks it. Names are
// normalized as go-openapi does (dashes removed), so "date-time" is "datetime". Any other format is stripped
// from the schema before validation and never checked.

import { isIP } from 'node:net';

export type FormatCheck = (value: string) => boolean;

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const HEX_COLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGB_PART = '(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])';
const RGB_COLOR = new RegExp(`^rgb\\(\\s*${RGB_PART}\\s*,\\s*${RGB_PART}\\s*,\\s*${RGB_PART}\\s*\\)$`);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/;
const CREDIT_CARD = /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/;
const MAC = /^(?:[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){5}|[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){7}|[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){19}|[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4}){2}|[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4}){3}|[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4}){9})$/;
const DATE_TIME_TAIL = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
const GO_DURATION = /^[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$/;
const DURATION_PART = /(\d+)\s*([A-Za-z\u00b5]+)/g;
const DURATION_UNITS: string[][] = [
  ['ns', 'nano'],
  ['us', '\u00b5s', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];

/** time.Parse("2006-01-02", s): four-digit year, real month and day. */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return day <= days;
}

/** strfmt.IsDateTime: a date, "t", then a time with a zone, compared as strings (no range check beyond 23:59:59). */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0])) return false;
  const m = DATE_TIME_TAIL.exec(parts[1]);
  if (!m) return false;
  return m[1] <= '23' && m[2] <= '59' && m[3] <= '59';
}

/** strfmt.ParseDuration: time.ParseDuration, else "<n> <unit>" parts with long unit names. */
function isDuration(s: string): boolean {
  if (s === '0' || GO_DURATION.test(s)) return true;
  let ok = false;
  for (const m of s.matchAll(DURATION_PART)) {
    const unit = m[2].trim().toLowerCase();
    for (const variants of DURATION_UNITS) {
      const last = variants.length - 1;
      variants.forEach((v, i) => {
        if ((i === last && unit.startsWith(v)) || v === unit) ok = true;
      });
    }
  }
  return ok;
}

/** url.ParseRequestURI: an absolute URI or an absolute path, no spaces or control characters. */
function isURI(s: string): boolean {
  if (s === '' || /[\s\x00-\x1f\x7f]/.test(s)) return false;
  if (s.startsWith('/')) return true;
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(s);
  if (!m) return false;
  const rest = m[2];
  if (rest.startsWith('//')) {
    const authority = rest.slice(2).split(/[/?#]/, 1)[0];
    const host = authority.includes('@') ? authority.slice(authority.lastIndexOf('@') + 1) : authority;
    if (host.startsWith('[')) return /^\[[0-9a-fA-F:.%A-Za-z]+\](:\d*)?$/.test(host);
    return /^[^:]*(:\d*)?$/.test(host);
  }
  return true;
}

function luhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

function isCreditCard(s: string): boolean {
  const digits = s.replace(/[^0-9]/g, '');
  return CREDIT_CARD.test(digits) && luhn(digits);
}

function isISBN10(s: string): boolean {
  const v = s.replace(/[\s-]/g, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * (v.charCodeAt(i) - 48);
  sum += v[9] === 'X' ? 100 : 10 * (v.charCodeAt(9) - 48);
  return sum % 11 === 0;
}

function isISBN13(s: string): boolean {
  const v = s.replace(/[\s-]/g, '');
  if (!/^[0-9]{13}$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * (v.charCodeAt(i) - 48);
  return (10 - (sum % 10)) % 10 === v.charCodeAt(12) - 48;
}

function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  const family = isIP(ip);
  if (family === 0 || !/^[0-9]{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/** Normalized format name (dashes removed) -> check, as registered in strfmt.Default. */
export const FORMAT_CHECKS: ReadonlyMap<string, FormatCheck> = new Map<string, FormatCheck>([
  ['bsonobjectid', (s) => /^[0-9a-fA-F]{24}$/.test(s)],
  ['uri', isURI],
  ['email', (s) => EMAIL.test(s)],
  ['hostname', (s) => HOSTNAME.test(s) && Buffer.byteLength(s) <= 255 && s.split('.').every((p) => Buffer.byteLength(p) <= 63)],
  ['ipv4', (s) => isIP(s) !== 0 && s.includes('.')],
  ['ipv6', (s) => isIP(s) !== 0 && s.includes(':')],
  ['cidr', isCIDR],
  ['mac', (s) => MAC.test(s)],
  ['uuid', (s) => UUID.test(s)],
  ['uuid3', (s) => UUID3.test(s)],
  ['uuid4', (s) => UUID4.test(s)],
  ['uuid5', (s) => UUID5.test(s)],
  ['isbn', (s) => isISBN10(s) || isISBN13(s)],
  ['isbn10', isISBN10],
  ['isbn13', isISBN13],
  ['creditcard', isCreditCard],
  ['ssn', (s) => SSN.test(s)],
  ['hexcolor', (s) => HEX_COLOR.test(s)],
  ['rgbcolor', (s) => RGB_COLOR.test(s)],
  ['byte', (s) => BASE64.test(s.replace(/[\r\n]/g, ''))],
  ['password', () => true],
  ['date', isDate],
  ['duration', isDuration],
  ['datetime', isDateTime],
]);

/**
 * The format kube keeps after StripUnsupportedFormatsPostProcess: int32/int64 on integers, float/double on
 * numbers, the registered string formats on strings or untyped nodes; anything else becomes "".
 */
export function supportedFormat(type: string, format: string | undefined): string {
  if (!format) return '';
  switch (type) {
    case '':
    case 'string':
      return FORMAT_CHECKS.has(format.replaceAll('-', '')) ? format : '';
    case 'integer':
      return format === 'int32' || format === 'int64' ? format : '';
    case 'number':
      return format === 'float' || format === 'double' ? format : '';
    default:
      return '';
  }
}
