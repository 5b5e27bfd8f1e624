// POST (create) and PUT (update, including status and scale) as kube-apiserver's createHandler and
// UpdateResource run them: negotiate, read, decode options, decode and check the body, store, answer.

import { bodyFormat, prepareBody, readBody } from '../body.ts';
import { managerOrUserAgent } from '../field-manager.ts';
import { decodeWriteOptions } from '../options.ts';
import { requestHeader } from '../respond.ts';
import { writeContext, type Scope } from '../scope.ts';
import type { KubeObject } from '../../registry/types.ts';
import { checkName, decodeObjectForWrite, dedupOwnerReferences, ensureNamespace, negotiateResourceOutput, readsProtobuf, writeResult } from './common.ts';
import { cloneJson } from '../../apis/json-clone.ts';
import { notFoundPath } from '../../apis/errors.ts';

export async function createResource(scope: Scope): Promise<void> {
  const media = negotiateResourceOutput(scope);
  const format = bodyFormat(requestHeader(scope.r.req, 'content-type'), readsProtobuf(scope));
  const data = await readBody(scope.r.req);
  const options = decodeWriteOptions(scope.r.query, 'CreateOptions');
  await prepareBody(data, format);
  const obj = decodeObjectForWrite(scope, data, format, options.fieldValidation);
  ensureNamespace(scope, obj);
  dedupOwnerReferences(scope, obj, false);
  const ctx = await writeContext(scope, { dryRun: options.dryRun, fieldManager: managerOrUserAgent(options.fieldManager, scope.userAgent) });
  if (scope.subresource) {
    // A subresource that makes a new object from the body (TokenRequest); the stores that serve one say so.
    if (!scope.store.createSubresource) throw notFoundPath();
    writeResult(scope, 201, await scope.store.createSubresource(ctx, scope.name, scope.subresource, obj), media);
    return;
  }
  const created = await scope.store.create(ctx, obj);
  writeResult(scope, 201, created, media);
}

export async function updateResource(scope: Scope): Promise<void> {
  const media = negotiateResourceOutput(scope);
  const data = await readBody(scope.r.req);
  const options = decodeWriteOptions(scope.r.query, 'UpdateOptions');
  const format = bodyFormat(requestHeader(scope.r.req, 'content-type'), readsProtobuf(scope));
  await prepareBody(data, format);
  const obj = decodeObjectForWrite(scope, data, format, options.fieldValidation);
  ensureNamespace(scope, obj);
  checkName(scope, obj);
  dedupOwnerReferences(scope, obj, false);
  const ctx = await writeContext(scope, { dryRun: options.dryRun, fieldManager: managerOrUserAgent(options.fieldManager, scope.userAgent) });
  // The store may call tryUpdate again after a conflict: hand it a fresh copy each time.
  const tryUpdate = (): KubeObject => cloneJson(obj);
  const uid = obj.metadata?.uid;
  const result = await scope.store.update(ctx, scope.name, tryUpdate, { subresource: scope.subresource || undefined, preconditionUid: uid ? uid : undefined });
  writeResult(scope, result.created ? 201 : 200, result.object, media);
}
