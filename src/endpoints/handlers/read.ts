// GET of one object (or its status/scale), and LIST of a collection (which hands watches to the watch server).

import { badRequest, methodNotSupported } from '../../apis/errors.ts';
import { decodeListOptions, validateListOptions, type ParsedListOptions } from '../options.ts';
import { checkFieldSelector, requiresExactMatch } from '../field-selector.ts';
import { groupResource, requestContext, type Scope } from '../scope.ts';
import { serveWatch } from '../watch.ts';
import { negotiateResourceOutput, writeResult } from './common.ts';
import { goEscape } from '../../encoding/json.ts';
import { JSON_MEDIA_TYPE, prettyRequested, type NegotiatedMediaType } from '../../encoding/negotiate.ts';
import { rawListItems } from '../../registry/list-json.ts';
import type { KubeList } from '../../registry/types.ts';
import { requestHeader, writeBody } from '../respond.ts';

export async function getResource(scope: Scope): Promise<void> {
  const media = negotiateResourceOutput(scope);
  const resourceVersion = scope.r.query.get('resourceVersion') ?? '';
  const options: { resourceVersion?: string; subresource?: string } = {};
  if (resourceVersion) options.resourceVersion = resourceVersion;
  if (scope.subresource) options.subresource = scope.subresource;
  const obj = await scope.store.get(requestContext(scope), scope.name, options);
  writeResult(scope, 200, obj, media);
}

/** Decodes, validates and checks ListOptions as ListResource and DeleteCollection do. */
export function listOptionsFor(scope: Scope): ParsedListOptions {
  const opts = decodeListOptions(scope.r.query);
  validateListOptions(opts, scope.deps.watchListEnabled);
  if (opts.fieldSelector) checkFieldSelector(opts.fieldSelector, scope.def);
  return opts;
}

/**
 * ListResource: a list, or a watch when ?watch is set or the legacy /watch/ path was used.
 * A name (single-object watch) becomes a metadata.name field selector.
 */
export async function listResource(scope: Scope, forceWatch: boolean): Promise<void> {
  const media = negotiateResourceOutput(scope);
  const opts = listOptionsFor(scope);
  if (scope.name) {
    const selector = `metadata.name=${scope.name}`;
    if (opts.fieldSelector) {
      const selected = requiresExactMatch(opts.fieldSelector, 'metadata.name');
      if (selected !== scope.name) throw badRequest("fieldSelector metadata.name doesn't match requested name");
    } else {
      opts.fieldSelector = selector;
    }
  }
  if (opts.watch || forceWatch) {
    if (!scope.def.verbs.includes('watch')) throw methodNotSupported(groupResource(scope.def), 'watch');
    await serveWatch(scope, opts, media);
    return;
  }
  const { watch: _watch, sendInitialEventsSet: _sie, ...listOptions } = opts;
  const list = await scope.store.list(requestContext(scope), listOptions);
  if (!writeRawList(scope, list, media)) writeResult(scope, 200, list, media);
}

/**
 * A list whose items came as stored JSON (list-json.ts) is written by concatenation when the response is plain
 * compact JSON: the same bytes encodeJson(transformResult(list)) gives, without decoding or re-encoding items.
 */
function writeRawList(scope: Scope, list: KubeList, media: NegotiatedMediaType): boolean {
  const raw = rawListItems(list);
  if (!raw || media.mediaType !== JSON_MEDIA_TYPE || media.convert || media.pretty) return false;
  if (prettyRequested(scope.r.query, requestHeader(scope.r.req, 'user-agent'))) return false;
  const head = JSON.stringify({ kind: list.kind, apiVersion: list.apiVersion, metadata: list.metadata });
  const body = `${head.slice(0, -1)},"items":[${raw.join(',')}]}`;
  writeBody(scope.r, 200, JSON_MEDIA_TYPE, `${goEscape(body)}\n`);
  return true;
}
