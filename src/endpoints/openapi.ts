// OpenAPI endpoints as kube-openapi's handlers serve them: /openapi/v2 (JSON or gnostic protobuf), /openapi/v3
// (the index of per-group-version documents with their hashes) and /openapi/v3/<path> (hash-addressed,
// immutable when the hash matches, redirected when it does not). Documents are built lazily from the
// registry's definitions, encoded once, and dropped when the registry changes.

import { parseAccept } from '../encoding/negotiate.ts';
import type { Registry } from '../registry/types.ts';
import { requestHeader } from '../server/request-header.ts';
import type { ApiPathHandler } from './discovery.ts';
import { requestQuery } from '../server/request-query.ts';
import { API_GZIP_THRESHOLD, encodedDocument, serveDocument, serveEmpty, serveStatusDocument, type EncodedDocument } from './discovery-response.ts';
import { openApiV2Document, openApiV3Documents, serverGitVersion } from './openapi-documents.ts';
import { openApiV2Protobuf } from './openapi-protobuf.ts';

export interface OpenApiOptions {
  /** info.version of the documents; default: the gitVersion /version reports. */
  readonly gitVersion?: string;
  /** The aggregated group-versions' OpenAPI v3 documents (src/aggregator), served beside the registry's. */
  readonly external?: { openApiV3(): ReadonlyMap<string, string>; onChange(listener: () => void): void };
}

const PROTOBUF_V2 = 'com.github.proto-openapi.spec.v2.v1.0+protobuf';
const PROTOBUF_V2_DEPRECATED = 'com.github.proto-openapi.spec.v2@v1.0+protobuf';

/** NYTimes gziphandler's default minimum size, which kube-openapi wraps /openapi/v2 in. */
const V2_GZIP_MIN_BYTES = 1400;

type V2Format = 'json' | 'protobuf';

/**
 * kube-openapi's choice: the first Accept clause (goautoneg order) matching JSON or one of the protobuf
 * subtypes; an empty header means any. Undefined: 406.
 */
export function negotiateOpenApiV2(accept: string | undefined): V2Format | undefined {
  const offers: [string, V2Format][] = [
    ['json', 'json'],
    [PROTOBUF_V2_DEPRECATED, 'protobuf'],
    [PROTOBUF_V2, 'protobuf'],
  ];
  for (const clause of parseAccept(accept || '*/*')) {
    for (const [subtype, format] of offers) {
      if (clause.type !== 'application' && clause.type !== '*') continue;
      if (clause.subType !== subtype && clause.subType !== '*') continue;
      return format;
    }
  }
  return undefined;
}

/** The same choice for /openapi/v3/<path>, which Capstan serves as JSON only. */
function acceptsOpenApiV3Json(accept: string | undefined): boolean {
  for (const clause of parseAccept(accept || '*/*')) {
    if (clause.type !== 'application' && clause.type !== '*') continue;
    if (clause.subType === 'json' || clause.subType === '*') return true;
  }
  return false;
}

const header = requestHeader;

interface V3State {
  readonly built: Date;
  readonly documents: Map<string, EncodedDocument>;
  readonly index: EncodedDocument;
}

interface V2State {
  readonly built: Date;
  readonly json: EncodedDocument;
  /** Encoded on first protobuf request; shares the JSON document's ETag as kube-openapi does. */
  protobuf?: EncodedDocument;
}

function htmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');
}

export function createOpenApiHandler(registry: Registry, options: OpenApiOptions = {}): ApiPathHandler {
  const gitVersion = options.gitVersion ?? serverGitVersion();
  let v2: V2State | undefined;
  let v3: V3State | undefined;
  registry.onChange(() => {
    v2 = undefined;
    v3 = undefined;
  });
  options.external?.onChange(() => {
    v3 = undefined;
  });

  function v2State(): V2State {
    if (!v2) {
      v2 = { built: new Date(), json: encodedDocument(JSON.stringify(openApiV2Document(registry.all(), gitVersion))) };
    }
    return v2;
  }

  function v3State(): V3State {
    if (!v3) {
      const documents = new Map<string, EncodedDocument>();
      for (const [key, doc] of openApiV3Documents(registry.all(), gitVersion)) documents.set(key, encodedDocument(JSON.stringify(doc)));
      for (const [key, text] of options.external?.openApiV3() ?? []) if (!documents.has(key)) documents.set(key, encodedDocument(text));
      const paths: Record<string, { serverRelativeURL: string }> = {};
      for (const [key, doc] of documents) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
      v3 = { built: new Date(), documents, index: encodedDocument(JSON.stringify({ paths })) };
    }
    return v3;
  }

  return async (req, res, info) => {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') return false;
    const path = info.path;

    if (path === '/openapi/v2') {
      const format = negotiateOpenApiV2(header(req, 'accept'));
      if (!format) {
        serveEmpty(res, 406, { Vary: 'Accept' });
        return true;
      }
      const state = v2State();
      let doc = state.json;
      if (format === 'protobuf') {
        // Encoded from the JSON bytes, as kube-openapi does, so the document tree need not stay in memory.
        state.protobuf ??= encodedDocument(Buffer.from(openApiV2Protobuf(JSON.parse(state.json.body.toString('utf8')) as Record<string, unknown>)), state.json.hash);
        doc = state.protobuf;
      }
      serveDocument(req, res, doc, {
        contentType: format === 'json' ? 'application/json' : `application/${PROTOBUF_V2}`,
        headers: { Vary: 'Accept' },
        etag: true,
        lastModified: state.built,
        gzipAbove: V2_GZIP_MIN_BYTES - 1,
      });
      return true;
    }

    if (path === '/openapi/v3') {
      const state = v3State();
      serveDocument(req, res, state.index, { contentType: 'application/json', etag: true, lastModified: state.built });
      return true;
    }

    if (path.startsWith('/openapi/v3/')) {
      const key = path.slice('/openapi/v3/'.length);
      const state = v3State();
      const doc = state.documents.get(key);
      if (!doc) return false;
      if (!acceptsOpenApiV3Json(header(req, 'accept'))) {
        serveEmpty(res, 406, { Vary: 'Accept' });
        return true;
      }
      const hash = requestQuery(req).get('hash');
      const headers: Record<string, string> = { Vary: 'Accept' };
      if (hash) {
        if (hash !== doc.hash) {
          // A stale hash: send the client to the current document.
          const location = `/openapi/v3/${key}?hash=${doc.hash}`;
          const body = encodedDocument(`<a href="${htmlEscape(location)}">Moved Permanently</a>.\n\n`, doc.hash);
          serveStatusDocument(req, res, 301, body, { Location: location, 'Content-Type': 'text/html; charset=utf-8', ETag: `"${doc.hash}"`, Vary: 'Accept' });
          return true;
        }
        headers['Cache-Control'] = 'public, immutable';
        const expires = new Date();
        expires.setUTCFullYear(expires.getUTCFullYear() + 1);
        headers['Expires'] = expires.toUTCString();
      }
      serveDocument(req, res, doc, {
        contentType: 'application/json',
        headers,
        etag: true,
        lastModified: state.built,
        gzipAbove: API_GZIP_THRESHOLD,
      });
      return true;
    }
    return false;
  };
}
