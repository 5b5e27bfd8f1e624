// A webhook's clientConfig as k8s.io/apiserver/pkg/util/webhook validates it (ValidateWebhookURL with https forced,
// ValidateWebhookService), the URL read the way Go's net/url.Parse reads it: its errors and its scheme, host,
// user, fragment and query parts are what the messages show.

import { fieldErrors, goStringsValue, type FieldError } from '../../../apis/errors.ts';
import { goQuote } from '../../../encoding/go-format.ts';
import { isDNS1035Label, isDNS1123Subdomain, isValidPortNum } from '../../validation/names.ts';

/** The parts of a URL the webhook checks look at. */
export interface GoURL {
  scheme: string;
  host: string;
  /** Userinfo.String(): `user` or `user:password`, escaped; undefined without an '@'. */
  user: string | undefined;
  fragment: string;
  rawQuery: string;
}

class GoURLError extends Error {}

const HEX = /^[0-9a-fA-F]{2}$/;

/** url.unescape: `%XX` decoded; a bad escape is an error naming the three bytes. */
function unescape(s: string, host: boolean): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '%') {
      if (!HEX.test(s.slice(i + 1, i + 3))) throw new GoURLError(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      out += String.fromCharCode(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
      continue;
    }
    if (host && c.charCodeAt(0) < 0x80 && !/[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]/.test(c)) throw new GoURLError(`invalid character ${goQuote(c)} in host name`);
    out += c;
  }
  return out;
}

const validOptionalPort = (port: string): boolean => port === '' || /^:[0-9]*$/.test(port);

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const end = host.lastIndexOf(']');
    if (end < 0) throw new GoURLError("missing ']' in host");
    const colonPort = host.slice(end + 1);
    if (!validOptionalPort(colonPort)) throw new GoURLError(`invalid port ${goQuote(colonPort)} after host`);
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0 && !validOptionalPort(host.slice(colon))) throw new GoURLError(`invalid port ${goQuote(host.slice(colon))} after host`);
  }
  return unescape(host, true);
}

const USERINFO = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;

/** Userinfo.String(): the user and password escaped again as Go escapes them. */
function userText(userinfo: string): string {
  if (!USERINFO.test(userinfo)) throw new GoURLError('net/url: invalid userinfo');
  const escape = (s: string) => [...new TextEncoder().encode(s)].map((b) => (/[A-Za-z0-9\-_.~$&+,;=]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
  const colon = userinfo.indexOf(':');
  if (colon < 0) return escape(unescape(userinfo, false));
  return `${escape(unescape(userinfo.slice(0, colon), false))}:${escape(unescape(userinfo.slice(colon + 1), false))}`;
}

function schemeOf(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new GoURLError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

/** net/url.Parse, as far as the webhook checks need it: the parts, or Go's error text. */
export function parseGoURL(raw: string): GoURL | { error: string } {
  try {
    return parseParts(raw);
  } catch (e) {
    if (e instanceof GoURLError) return { error: `parse ${goQuote(raw)}: ${e.message}` };
    throw e;
  }
}

function parseParts(raw: string): GoURL {
  const hash = raw.indexOf('#');
  const beforeFragment = hash < 0 ? raw : raw.slice(0, hash);
  const fragment = hash < 0 ? '' : raw.slice(hash + 1);
  if (/[\x00-\x1f\x7f]/.test(beforeFragment)) throw new GoURLError('net/url: invalid control character in URL');
  const url: GoURL = { scheme: '', host: '', user: undefined, fragment: '', rawQuery: '' };
  if (beforeFragment !== '*') {
    let [scheme, rest] = schemeOf(beforeFragment);
    url.scheme = scheme.toLowerCase();
    if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
    else if (rest.includes('?')) {
      url.rawQuery = rest.slice(rest.indexOf('?') + 1);
      rest = rest.slice(0, rest.indexOf('?'));
    }
    if (!rest.startsWith('/') && url.scheme !== '') {
      url.fragment = unescape(fragment, false);
      return url;
    }
    if (!rest.startsWith('/') && rest.split('/')[0].includes(':')) throw new GoURLError('first path segment in URL cannot contain colon');
    if ((url.scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
      const slash = rest.indexOf('/', 2);
      const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
      rest = slash < 0 ? '' : rest.slice(slash);
      const at = authority.lastIndexOf('@');
      url.host = parseHost(authority.slice(at + 1));
      if (at >= 0) url.user = userText(authority.slice(0, at));
    }
    unescape(rest, false);
  }
  url.fragment = unescape(fragment, false);
  return url;
}

const FORM = '; desired format: https://host[/path]';

/** ValidateWebhookURL(fldPath, url, forceHttps=true). */
export function validateWebhookURL(path: string, raw: string): FieldError[] {
  const u = parseGoURL(raw);
  if ('error' in u) return [fieldErrors.required(path, `url must be a valid URL: ${u.error}${FORM}`)];
  const errs: FieldError[] = [];
  if (u.scheme !== 'https') errs.push(fieldErrors.invalid(path, u.scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (u.host === '') errs.push(fieldErrors.invalid(path, u.host, `host must be specified${FORM}`));
  if (u.user !== undefined) errs.push(fieldErrors.invalid(path, u.user, 'user information is not permitted in the URL'));
  if (u.fragment !== '') errs.push(fieldErrors.invalid(path, u.fragment, 'fragments are not permitted in the URL'));
  if (u.rawQuery !== '') errs.push(fieldErrors.invalid(path, u.rawQuery, 'query parameters are not permitted in the URL'));
  return errs;
}

/**
 * ValidateWebhookService(fldPath, namespace, name, path, port). The admissionregistration validation passes the
 * service's name where the namespace goes and the other way round, so an empty name is reported at .namespace
 * and an empty namespace at .name (`swapped`).
 */
export function validateWebhookService(path: string, service: Record<string, unknown>, swapped: boolean): FieldError[] {
  const str = (k: string) => (typeof service[k] === 'string' ? (service[k] as string) : '');
  const [namespace, name] = swapped ? [str('name'), str('namespace')] : [str('namespace'), str('name')];
  const errs: FieldError[] = [];
  if (name === '') errs.push(fieldErrors.required(`${path}.name`));
  if (namespace === '') errs.push(fieldErrors.required(`${path}.namespace`));
  const port = typeof service.port === 'number' ? service.port : 0;
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0) errs.push(fieldErrors.invalid(`${path}.port`, port, `port is not valid: ${portErrs.join(', ')}`));
  if (typeof service.path !== 'string') return errs;
  errs.push(...servicePathErrors(`${path}.path`, service.path));
  return errs;
}

function servicePathErrors(path: string, urlPath: string): FieldError[] {
  if (urlPath === '/' || urlPath === '') return [];
  if (urlPath === '//') return [fieldErrors.invalid(path, urlPath, 'segment[0] may not be empty')];
  const errs: FieldError[] = [];
  if (!urlPath.startsWith('/')) errs.push(fieldErrors.invalid(path, urlPath, "must start with a '/'"));
  let toCheck = urlPath.slice(1);
  if (toCheck.endsWith('/')) toCheck = toCheck.slice(0, -1);
  toCheck.split('/').forEach((step, i) => {
    if (step === '') {
      errs.push(fieldErrors.invalid(path, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const m of isDNS1123Subdomain(step)) errs.push(fieldErrors.invalid(path, urlPath, `segment[${i}]: ${m}`));
  });
  return errs;
}

/**
 * The checks validateAdmissionReviewVersions and the CRD's validateConversionReviewVersions share for a non-empty
 * list: no duplicates, DNS-1035 labels, and (when required) one version the server understands.
 */
export function reviewVersionListErrors(versions: readonly string[], accepted: readonly string[], requireRecognized: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldErrors.invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const m of isDNS1035Label(v)) errs.push(fieldErrors.invalid(`${path}[${i}]`, v, m));
  });
  if (requireRecognized && !versions.some((v) => accepted.includes(v))) {
    errs.push(fieldErrors.invalid(path, goStringsValue(versions), `must include at least one of ${accepted.join(', ')}`));
  }
  return errs;
}
