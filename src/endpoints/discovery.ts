// Discovery endpoints: /api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>, legacy and aggregated
// (Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList). Documents are built from the
// registry's definitions, encoded once and cached until the registry changes.

import { notAcceptable } from '../apis/errors.ts';
import { encodeJson } from '../encoding/json.ts';
import { JSON_MEDIA_TYPE, negotiateOutput, parseAccept, prettyRequested, PROTOBUF_MEDIA_TYPE, PROTOBUF_SERVED_MEDIA_TYPES, YAML_MEDIA_TYPE } from '../encoding/negotiate.ts';
import { encodeProtobufObject } from '../encoding/protobuf/envelope.ts';
import { encodeYaml } from '../encoding/yaml.ts';
import type { Registry, ResourceDefinition } from '../registry/types.ts';
import type { HttpRequest, HttpResponse } from '../server/types.ts';
import type { RequestInfo } from './request-info.ts';
import {
  aggregatedDiscoveryDocument,
  apiGroupDocument,
  apiGroupListDocument,
  apiResourceListDocument,
  apiVersionsDocument,
  type AggregatedVersion,
  type ExternalGroupVersion,
} from './discovery-documents.ts';
import { requestQuery } from '../server/request-query.ts';
import { API_GZIP_THRESHOLD, encodedDocument, serveDocument, serveStatus, type EncodedDocument } from './discovery-response.ts';

/** Answers the request and resolves true when it is one of this handler's paths; false leaves it to others. */
export type ApiPathHandler = (req: HttpRequest, res: HttpResponse, info: RequestInfo) => Promise<boolean>;

/** How a document is written: JSON (compact or indented), YAML or protobuf. */
type Encoding = 'json' | 'pretty' | 'yaml' | 'protobuf';
type Negotiated = { aggregated: AggregatedVersion; mediaType: string; pretty: boolean } | { legacy: string; pretty: boolean };

const AGGREGATED_GROUP = 'apidiscovery.k8s.io';
const AGGREGATED_KIND = 'APIGroupDiscoveryList';

/**
 * Picks the response format as kube's discovery wrapper does: a clause asking for APIGroupDiscoveryList
 * (v2 or v2beta1, JSON or protobuf) selects aggregated discovery where it is served (/api and /apis); otherwise
 * the legacy documents are negotiated like any non-resource response (JSON, YAML or protobuf, no conversions).
 */
export function negotiateDiscovery(accept: string | undefined, aggregatedAllowed: boolean): Negotiated | undefined {
  if (aggregatedAllowed && accept) {
    for (const clause of parseAccept(accept)) {
      const { g, v, as } = clause.params;
      if (g === undefined && v === undefined && as === undefined) {
        // An acceptable plain clause ranked first wins over a later aggregated one.
        if (negotiateOutput(`${clause.type}/${clause.subType}`, { allowTransform: false }, PROTOBUF_SERVED_MEDIA_TYPES)) break;
        continue;
      }
      const application = clause.type === 'application' || clause.type === '*';
      const mediaType = clause.subType === 'vnd.kubernetes.protobuf' ? PROTOBUF_MEDIA_TYPE : clause.subType === 'json' || clause.subType === '*' ? JSON_MEDIA_TYPE : undefined;
      if (application && mediaType && g === AGGREGATED_GROUP && as === AGGREGATED_KIND && (v === 'v2' || v === 'v2beta1')) {
        return { aggregated: v, mediaType, pretty: clause.params.pretty === '1' };
      }
    }
  }
  const media = negotiateOutput(accept, { allowTransform: false }, PROTOBUF_SERVED_MEDIA_TYPES);
  return media ? { legacy: media.mediaType, pretty: media.pretty } : undefined;
}

function encode(value: unknown, encoding: Encoding): EncodedDocument {
  if (encoding === 'protobuf') return encodedDocument(Buffer.from(encodeProtobufObject(value)));
  return encodedDocument(encoding === 'yaml' ? encodeYaml(value) : encodeJson(value, encoding === 'pretty'));
}

function aggregatedContentType(mediaType: string, version: AggregatedVersion): string {
  return `${mediaType};g=${AGGREGATED_GROUP};v=${version};as=${AGGREGATED_KIND}`;
}

/** host:port the client reached us on, as net.JoinHostPort writes it (kube uses its advertise address). */
function serverAddress(req: HttpRequest): string {
  const socket = req.socket as { localAddress?: string; localPort?: number } | undefined;
  let host = socket?.localAddress ?? '127.0.0.1';
  if (host.startsWith('::ffff:')) host = host.slice(7);
  const port = socket?.localPort ?? 0;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

type DocumentKey = string;

/** Which discovery document a request addresses, or undefined when the path is not a discovery path. */
type Target =
  | { kind: 'apiVersions' }
  | { kind: 'groupList' }
  | { kind: 'group'; group: string }
  | { kind: 'resourceList'; group: string; version: string };

function targetOf(info: RequestInfo): Target | undefined {
  if (info.isResourceRequest) return undefined;
  if (info.apiPrefix === 'api') {
    if (info.apiGroup !== '') return undefined;
    if (info.apiVersion === '' && info.parts.length === 0) return { kind: 'apiVersions' };
    if (info.apiVersion !== '' && info.parts.length === 0) return { kind: 'resourceList', group: '', version: info.apiVersion };
    return undefined;
  }
  if (info.apiPrefix === 'apis') {
    if (info.apiGroup === '' && info.apiVersion === '' && info.parts.length === 0) return { kind: 'groupList' };
    if (info.apiGroup !== '' && info.apiVersion === '' && info.parts.length <= 1) return { kind: 'group', group: info.apiGroup };
    if (info.apiGroup !== '' && info.apiVersion !== '' && info.parts.length === 0) {
      return { kind: 'resourceList', group: info.apiGroup, version: info.apiVersion };
    }
  }
  return undefined;
}

/** The group-versions other servers serve through APIServices (src/aggregator), for discovery to list. */
export interface ExternalDiscovery {
  groupVersions(): readonly ExternalGroupVersion[];
  onChange(listener: () => void): void;
}

/**
 * `compress`: the APIResponseCompression feature gate (kube writes discovery through the same response writers).
 * `external`: the aggregated group-versions (their /apis/<group>/<version> documents come from their servers).
 */
export function createDiscoveryHandler(registry: Registry, options: { compress?: boolean; external?: ExternalDiscovery } = {}): ApiPathHandler {
  const gzipAbove = options.compress === false ? undefined : API_GZIP_THRESHOLD;
  // Encoded documents of the current registry state; null marks "no such document" (404) so misses are cached too.
  let cache = new Map<DocumentKey, EncodedDocument | null>();
  let defsSnapshot: readonly ResourceDefinition[] | undefined;
  let externalSnapshot: readonly ExternalGroupVersion[] | undefined;
  const invalidate = () => {
    cache = new Map();
    defsSnapshot = undefined;
    externalSnapshot = undefined;
  };
  registry.onChange(invalidate);
  options.external?.onChange(invalidate);
  const defs = () => (defsSnapshot ??= registry.all());
  const external = () => (externalSnapshot ??= options.external?.groupVersions() ?? []);

  function cached(key: DocumentKey, build: () => unknown, encoding: Encoding): EncodedDocument | null {
    const fullKey = `${encoding}:${key}`;
    let doc = cache.get(fullKey);
    if (doc === undefined) {
      const value = build();
      doc = value === undefined ? null : encode(value, encoding);
      cache.set(fullKey, doc);
    }
    return doc;
  }

  return async (req, res, info) => {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') return false;
    const target = targetOf(info);
    if (!target) return false;

    // Aggregated discovery is served on /api and /apis only.
    const aggregatedAllowed = target.kind === 'apiVersions' || target.kind === 'groupList';
    const acceptHeader = req.headers.accept;
    const negotiated = negotiateDiscovery(Array.isArray(acceptHeader) ? acceptHeader.join(',') : acceptHeader, aggregatedAllowed);

    // Unknown groups and versions are not ours: the caller answers 404 as for any unknown path.
    if (target.kind === 'group' && !defs().some((d) => d.group === target.group) && !external().some((e) => e.group === target.group)) return false;
    if (target.kind === 'resourceList' && !defs().some((d) => d.group === target.group && d.version === target.version)) return false;

    if (!negotiated) {
      serveStatus(res, notAcceptable([...PROTOBUF_SERVED_MEDIA_TYPES]));
      return true;
    }
    const query = requestQuery(req);
    const userAgent = Array.isArray(req.headers['user-agent']) ? req.headers['user-agent'][0] : req.headers['user-agent'];
    const pretty = negotiated.pretty || prettyRequested(query, userAgent);

    if ('aggregated' in negotiated) {
      const scope = target.kind === 'apiVersions' ? 'api' : 'apis';
      const version = negotiated.aggregated;
      const encoding: Encoding = negotiated.mediaType === PROTOBUF_MEDIA_TYPE ? 'protobuf' : pretty ? 'pretty' : 'json';
      const doc = cached(`aggregated:${scope}:${version}`, () => aggregatedDiscoveryDocument(defs(), scope, version, external()), encoding);
      if (!doc) return false;
      serveDocument(req, res, doc, {
        contentType: aggregatedContentType(negotiated.mediaType, version),
        headers: { Vary: 'Accept', 'Cache-Control': 'public' },
        etag: true,
        gzipAbove,
      });
      return true;
    }

    const mediaType = negotiated.legacy;
    const format: Encoding = mediaType === YAML_MEDIA_TYPE ? 'yaml' : mediaType === PROTOBUF_MEDIA_TYPE ? 'protobuf' : pretty ? 'pretty' : 'json';
    let doc: EncodedDocument | null;
    switch (target.kind) {
      case 'apiVersions': {
        // Depends on the address the client connected to: cheap, not cached.
        doc = encode(apiVersionsDocument(serverAddress(req)), format);
        break;
      }
      case 'groupList':
        doc = cached(`groups`, () => apiGroupListDocument(defs(), external()), format);
        break;
      case 'group':
        doc = cached(`group:${target.group}`, () => apiGroupDocument(defs(), target.group, external()), format);
        break;
      case 'resourceList':
        doc = cached(
          `resources:${target.group}/${target.version}`,
          () => apiResourceListDocument(defs(), target.group, target.version),
          format,
        );
        break;
    }
    if (!doc) return false;
    serveDocument(req, res, doc, { contentType: mediaType, gzipAbove });
    return true;
  };
}
