// GET of one object (or its status/scale), and LIST of a collection (which hands watches to the watch server).
// Lists built from stored JSON are written by concatenation (see writeRawList).

import { gzip } from '../../encoding/gzip.ts';
import { badRequest, methodNotSupported } from '../../apis/errors.ts';
import { goEscape } from '../../encoding/json.ts';
import { JSON_MEDIA_TYPE, PROTOBUF_MEDIA_TYPE, type NegotiatedMediaType } from '../../encoding/negotiate.ts';
import { heldObjectJson } from '../../registry/item-key-value.ts';
import { itemFromLayout, rawItemsOf } from '../../registry/list-json.ts';
import type { KubeList, KubeObject, StoredObject } from '../../registry/types.ts';
import { storedProtobuf } from '../protobuf-list.ts';
import { rawListBody } from '../list-body.ts';
import { decodeListOptions, validateListOptions, type ParsedListOptions } from '../options.ts';
import { checkFieldSelector, requiresExactMatch } from '../field-selector.ts';
import { endLarge, shouldGzip, warningHeaderValues, writable, writeBody } from '../respond.ts';
import { groupResource, requestContext, type Scope } from '../scope.ts';
import { serveWatch } from '../watch.ts';
import { endIfStarted } from '../../server/write-batching.ts';
import { negotiateResourceOutput, plainJson, servesProtobuf, writeResult } from './common.ts';

export async function getResource(scope: Scope): Promise<void> {
  const media = negotiateResourceOutput(scope);
  const resourceVersion = scope.r.query.get('resourceVersion') ?? '';
  const options: { resourceVersion?: string; subresource?: string } = {};
  if (resourceVersion) options.resourceVersion = resourceVersion;
  if (scope.subresource) options.subresource = scope.subresource;
  const fromStored = scope.store.getStored && (plainJson(scope, media) || (media.mediaType === PROTOBUF_MEDIA_TYPE && !media.convert && servesProtobuf(scope)));
  if (fromStored) {
    const answer = await scope.store.getStored!(requestContext(scope), scope.name, options);
    if (!isStoredObject(answer)) writeResult(scope, 200, answer, media);
    else if (media.mediaType === PROTOBUF_MEDIA_TYPE) writeBody(scope.r, 200, PROTOBUF_MEDIA_TYPE, storedProtobuf(answer, scope.def));
    else writeBody(scope.r, 200, JSON_MEDIA_TYPE, storedJson(answer));
    return;
  }
  const obj = await scope.store.get(requestContext(scope), scope.name, options);
  writeResult(scope, 200, obj, media);
}

function isStoredObject(answer: StoredObject | KubeObject): answer is StoredObject {
  return (answer as Partial<StoredObject>).stored !== undefined;
}

/** The response JSON of a stored object: its text with resourceVersion (and apiVersion) spliced in, escaped as Go does. */
function storedJson(answer: StoredObject): string | Uint8Array {
  if (answer.layout === undefined) return heldObjectJson(answer.stored);
  const { stored, layout, apiVersion } = answer;
  return `${goEscape(itemFromLayout(stored.value, layout, stored.modRevision, { apiVersion })!)}\n`;
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
  const items = rawItemsOf(list);
  if (!items || !plainJson(scope, media)) return false;
  const { req, warnings } = scope.r;
  const res = writable(scope.r.res);
  if (endIfStarted(res)) return true;
  let body: Uint8Array = rawListBody(list, items, scope.r.res);
  const warningValues = warningHeaderValues(warnings);
  if (warningValues.length > 0) res.setHeader('Warning', warningValues);
  if (shouldGzip(scope.r, body.length)) {
    body = gzip(body);
    res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Vary', 'Accept-Encoding');
  }
  res.setHeader('Content-Type', JSON_MEDIA_TYPE);
  res.setHeader('Content-Length', body.length);
  res.writeHead(200);
  if (req.method === 'HEAD') {
    res.end();
    return true;
  }
  endLarge(res, body);
  return true;
}
