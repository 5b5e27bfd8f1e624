// Media type negotiation as k8s.io/apiserver's handlers/negotiation does it (goautoneg Accept parsing,
// the as/g/v transform parameters, pretty printing) and Content-Type parsing as Go's mime.ParseMediaType.

import { parseGoBool } from './go-format.ts';
import { memoizeString } from '../apis/string-memo.ts';

export const JSON_MEDIA_TYPE = 'application/json';
export const YAML_MEDIA_TYPE = 'application/yaml';
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** The media types of types without a protobuf message (custom resources), in kube-apiserver's order. */
export const SERVED_MEDIA_TYPES: readonly string[] = [JSON_MEDIA_TYPE, YAML_MEDIA_TYPE];
/** The media types of built-in types, which all have protobuf messages. */
export const PROTOBUF_SERVED_MEDIA_TYPES: readonly string[] = [JSON_MEDIA_TYPE, YAML_MEDIA_TYPE, PROTOBUF_MEDIA_TYPE];
/** The media types that can carry a watch stream. */
export const SERVED_STREAM_MEDIA_TYPES: readonly string[] = [`${JSON_MEDIA_TYPE};stream=watch`];
export const PROTOBUF_SERVED_STREAM_MEDIA_TYPES: readonly string[] = [`${JSON_MEDIA_TYPE};stream=watch`, `${PROTOBUF_MEDIA_TYPE};stream=watch`];

export interface AcceptClause {
  readonly type: string;
  readonly subType: string;
  readonly q: number;
  readonly params: Readonly<Record<string, string>>;
}

/** Go's strconv.ParseFloat(s, 32) on a q value; invalid values count as 0 as goautoneg leaves them. */
function parseQ(s: string): number {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return 0;
  return Math.fround(Number(s));
}

function acceptLess(a: AcceptClause, b: AcceptClause): boolean {
  if (a.q > b.q) return true;
  if (a.type !== '*' && b.type === '*') return true;
  if (a.subType !== '*' && b.subType === '*') return true;
  return false;
}

/**
 * goautoneg.ParseAccept: clauses ordered by q, then specificity (Go's insertion sort for short headers). Clients send
 * the same few headers on every request, so results are kept (shared: callers must not change them).
 */
export const parseAccept: (header: string) => readonly AcceptClause[] = memoizeString((header) => parseAcceptClauses(header), 256);

function parseAcceptClauses(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const rawPart of header.split(',')) {
    const part = rawPart.replace(/^ +| +$/g, '');
    const mrp = part.split(';');
    const sp = mrp[0].split('/');
    const type = sp[0].replace(/^ +| +$/g, '');
    let subType: string;
    if (sp.length === 1 && type === '*') subType = '*';
    else if (sp.length === 2) subType = sp[1].replace(/^ +| +$/g, '');
    else continue;
    const clause = { type, subType, q: 1, params: {} as Record<string, string> };
    for (const param of mrp.slice(1)) {
      const eq = param.indexOf('=');
      if (eq < 0) continue;
      const token = param.slice(0, eq).replace(/^ +| +$/g, '');
      const value = param.slice(eq + 1);
      if (token === 'q') clause.q = parseQ(value);
      else clause.params[token] = value.replace(/^ +| +$/g, '');
    }
    clauses.push(clause);
  }
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && acceptLess(clauses[j], clauses[j - 1]); j--) {
      const t = clauses[j];
      clauses[j] = clauses[j - 1];
      clauses[j - 1] = t;
    }
  }
  return clauses;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface NegotiatedMediaType {
  /** "application/json", "application/yaml" or "application/vnd.kubernetes.protobuf": the response's Content-Type. */
  mediaType: string;
  /** pretty=1 in the Accept clause. */
  pretty: boolean;
  /** as/g/v parameters: Table, PartialObjectMetadata, PartialObjectMetadataList in meta.k8s.io v1 or v1beta1. */
  convert: GroupVersionKind | undefined;
  /** stream=watch was asked for. */
  stream: string;
}

export interface NegotiationRestrictions {
  /** Whether the endpoint serves Table/PartialObjectMetadata transforms (false for errors and non-resource responses). */
  allowTransform: boolean;
  /**
   * The media types an untransformed object may be served in, when fewer than all (kube's StandardSerializers:
   * custom resources have no protobuf of their own but serve PartialObjectMetadata in protobuf).
   */
  untransformed?: readonly string[];
}

const META_GROUP = 'meta.k8s.io';

function transformAllowed(mediaType: string, convert: GroupVersionKind | undefined, restrictions: NegotiationRestrictions): boolean {
  if (!convert) return true;
  if (!restrictions.allowTransform) return false;
  if (convert.group !== META_GROUP || (convert.version !== 'v1' && convert.version !== 'v1beta1')) return false;
  switch (convert.kind) {
    case 'Table':
      return mediaType === JSON_MEDIA_TYPE || mediaType === YAML_MEDIA_TYPE;
    case 'PartialObjectMetadata':
    case 'PartialObjectMetadataList':
      return true;
    default:
      return false;
  }
}

function acceptOptions(params: Record<string, string>, mediaType: string, restrictions: NegotiationRestrictions): NegotiatedMediaType | undefined {
  let convert: GroupVersionKind | undefined;
  let pretty = false;
  let stream = '';
  for (const [k, v] of Object.entries(params)) {
    switch (k) {
      case 'as':
        convert = { group: convert?.group ?? '', version: convert?.version ?? '', kind: v };
        break;
      case 'g':
        convert = { group: v, version: convert?.version ?? '', kind: convert?.kind ?? '' };
        break;
      case 'v':
        convert = { group: convert?.group ?? '', version: v, kind: convert?.kind ?? '' };
        break;
      case 'stream':
        // JSON and protobuf have stream serializers (YAML has none), and "watch" is the only stream schema.
        if (v !== '' && ((mediaType !== JSON_MEDIA_TYPE && mediaType !== PROTOBUF_MEDIA_TYPE) || v !== 'watch')) return undefined;
        stream = v;
        break;
      case 'sv':
        if (v !== '' && v !== 'v1') return undefined;
        break;
      case 'pretty':
        pretty = v === '1';
        break;
      default:
        break;
    }
  }
  if (!transformAllowed(mediaType, convert, restrictions)) return undefined;
  if (!convert && restrictions.untransformed && !restrictions.untransformed.includes(mediaType)) return undefined;
  return { mediaType, pretty, convert, stream };
}

/**
 * NegotiateMediaTypeOptions: the first Accept clause (in goautoneg order) that one of the served media types
 * satisfies with acceptable parameters. An empty header means JSON. Undefined: 406.
 */
export function negotiateOutput(accept: string | undefined, restrictions: NegotiationRestrictions, served: readonly string[] = SERVED_MEDIA_TYPES): NegotiatedMediaType | undefined {
  if (!accept) return { mediaType: served[0], pretty: false, convert: undefined, stream: '' };
  for (const clause of parseAccept(accept)) {
    for (const mediaType of served) {
      const slash = mediaType.indexOf('/');
      const type = mediaType.slice(0, slash);
      const subType = mediaType.slice(slash + 1);
      const matches = (clause.type === type && (clause.subType === subType || clause.subType === '*')) || (clause.type === '*' && clause.subType === '*');
      if (!matches) continue;
      const options = acceptOptions(clause.params, mediaType, restrictions);
      if (options) return options;
    }
  }
  return undefined;
}


/** isPrettyPrint: ?pretty= wins when present; otherwise browsers, curl and wget get indented output. */
export function prettyRequested(query: URLSearchParams, userAgent: string | undefined): boolean {
  const pp = query.get('pretty');
  if (pp) return parseGoBool(pp) ?? false;
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

const tokenChars = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * mime.ParseMediaType's media type part: lowercased "type/subtype", or undefined when malformed.
 * Parameters are checked for syntax only.
 */
export function parseContentType(value: string): string | undefined {
  const semi = value.indexOf(';');
  const base = (semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase();
  const slash = base.indexOf('/');
  if (slash <= 0 || slash === base.length - 1) return undefined;
  if (!tokenChars.test(base.slice(0, slash)) || !tokenChars.test(base.slice(slash + 1))) return undefined;
  if (semi >= 0) {
    for (const param of value.slice(semi + 1).split(';')) {
      const p = param.trim();
      if (p === '') continue;
      const eq = p.indexOf('=');
      if (eq <= 0 || !tokenChars.test(p.slice(0, eq).trim())) return undefined;
    }
  }
  return base;
}

/** negotiateContentEncoding: "gzip" when the client lists it (parameters ignored). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  for (const part of acceptEncoding.split(',')) {
    const token = part.split(';')[0].trim().toLowerCase();
    if (token === 'gzip') return true;
  }
  return false;
}
