// DELETE of one object and of a collection, with DeleteOptions from the body or the query.

import { StatusError } from '../../apis/errors.ts';
import { JsonSyntaxError, scanJsonBytes } from '../../encoding/json-syntax.ts';
import { YamlSyntaxError } from '../../encoding/yaml.ts';
import { readYaml } from '../../encoding/yaml-offthread.ts';
import { bodyFormat, prepareBody, readBody } from '../body.ts';
import { decodeDeleteOptionsQuery, deleteOptionsFromBody, validateDeleteOptions, type ParsedDeleteOptions } from '../options.ts';
import { requestHeader } from '../respond.ts';
import { admissionInfo, requestContext, type Scope } from '../scope.ts';
import { admitDelete } from '../../admission/request.ts';
import type { DeleteOptions, KubeObject } from '../../registry/types.ts';
import { negotiateResourceOutput, writeResult } from './common.ts';
import { decodeProtobufObject } from '../../encoding/protobuf/envelope.ts';
import { ProtobufDecodeError } from '../../encoding/protobuf/messages.ts';
import { listOptionsFor } from './read.ts';

/** Errors kube does not turn into an API status: 500 with no reason and the raw message. */
function unknownError(message: string): StatusError {
  return new StatusError(500, '', message);
}

const DELETE_OPTIONS_API_VERSIONS = new Set(['v1', 'meta.k8s.io/v1', 'meta.k8s.io/v1beta1']);

/** DeleteOptions are read with the meta.k8s.io codecs (protobuf included), whatever the resource. */
function decodeDeleteBody(scope: Scope, data: Buffer): ParsedDeleteOptions {
  const format = bodyFormat(requestHeader(scope.r.req, 'content-type'), true);
  let value: unknown;
  try {
    if (format === 'protobuf') value = decodeProtobufObject(data);
    else if (format === 'yaml') value = readYaml(data.toString('utf8')).value;
    else {
      scanJsonBytes(data);
      value = JSON.parse(data.toString('utf8'));
    }
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw unknownError(`couldn't get version/kind; json parse error: ${e.message}`);
    if (e instanceof YamlSyntaxError || e instanceof ProtobufDecodeError) throw unknownError(e.message);
    throw e;
  }
  if (value === null) value = {};
  if (typeof value !== 'object' || Array.isArray(value)) throw unknownError('decoded object cannot be converted to DeleteOptions');
  const body = value as Record<string, unknown>;
  const kind = body.kind ?? 'DeleteOptions';
  const apiVersion = typeof body.apiVersion === 'string' ? body.apiVersion : '';
  const groupVersion = scope.def.group ? `${scope.def.group}/${scope.def.version}` : scope.def.version;
  if (kind !== 'DeleteOptions' || (apiVersion !== '' && !DELETE_OPTIONS_API_VERSIONS.has(apiVersion) && apiVersion !== groupVersion)) {
    throw unknownError('decoded object cannot be converted to DeleteOptions');
  }
  return deleteOptionsFromBody(body);
}

/** DeleteOptions from a non-empty body, else from the query; validated (422). */
async function deleteOptionsFor(scope: Scope): Promise<ParsedDeleteOptions> {
  const data = await readBody(scope.r.req);
  if (data.length > 0) await prepareBody(data, bodyFormat(requestHeader(scope.r.req, 'content-type'), true));
  const opts = data.length > 0 ? decodeDeleteBody(scope, data) : decodeDeleteOptionsQuery(scope.r.query);
  validateDeleteOptions(opts);
  return opts;
}

function storeOptions(opts: ParsedDeleteOptions): DeleteOptions {
  const out: DeleteOptions = {};
  if (opts.gracePeriodSeconds !== undefined) out.gracePeriodSeconds = opts.gracePeriodSeconds;
  if (opts.preconditions !== undefined) out.preconditions = opts.preconditions;
  if (opts.propagationPolicy !== undefined) out.propagationPolicy = opts.propagationPolicy;
  if (opts.orphanDependents !== undefined) out.orphanDependents = opts.orphanDependents;
  return out;
}

export async function deleteResource(scope: Scope): Promise<void> {
  const media = negotiateResourceOutput(scope);
  const opts = await deleteOptionsFor(scope);
  const options = storeOptions(opts);
  const extra = { dryRun: opts.dryRun, admission: true, deleteOptions: { ...options } };
  // kube's delete handler runs the mutating phase itself, without objects; the store runs the validating one.
  if (scope.deps.admission) await admitDelete(scope.deps.admission, admissionInfo(scope, extra), scope.name);
  const result = await scope.store.delete(requestContext(scope, extra), scope.name, options);
  // kube answers 202 only when the object lingers and the client explicitly asked orphanDependents=false.
  const code = !result.deletedImmediately && opts.orphanDependents === false ? 202 : 200;
  writeResult(scope, code, (result.status as KubeObject | undefined) ?? result.object, media);
}

export async function deleteCollection(scope: Scope): Promise<void> {
  const media = negotiateResourceOutput(scope);
  const listOptions = listOptionsFor(scope);
  const opts = await deleteOptionsFor(scope);
  const { watch: _watch, sendInitialEventsSet: _sie, ...storeListOptions } = listOptions;
  const options = storeOptions(opts);
  const extra = { dryRun: opts.dryRun, admission: true, deleteOptions: { ...options } };
  if (scope.deps.admission) await admitDelete(scope.deps.admission, admissionInfo(scope, extra), '');
  const list = await scope.store.deleteCollection(requestContext(scope, extra), storeListOptions, options);
  writeResult(scope, 200, list, media);
}
