// Reading and decoding request bodies as kube-apiserver's serializers do: size limit, Content-Type,
// JSON/YAML parsing with kube's error messages, apiVersion/kind defaulting and checks, and the strict
// field errors (duplicate and unknown fields) that fieldValidation turns into warnings or a 400.

import { StatusError, badRequest, unsupportedMediaType } from '../apis/errors.ts';
import { parseJson } from '../encoding/json.ts';
import { bytesSyntaxError, JsonSyntaxError } from '../encoding/json-syntax.ts';
import { jsonKind } from '../encoding/json-value.ts';
import { JSON_MEDIA_TYPE, parseContentType, PROTOBUF_MEDIA_TYPE, PROTOBUF_SERVED_MEDIA_TYPES, SERVED_MEDIA_TYPES, YAML_MEDIA_TYPE } from '../encoding/negotiate.ts';
import { decodeEnvelope, decodeEnvelopedObject, protobufDefinition, type Envelope } from '../encoding/protobuf/envelope.ts';
import { ProtobufDecodeError } from '../encoding/protobuf/messages.ts';
import { YamlSyntaxError, yamlDuplicateError } from '../encoding/yaml.ts';
import { prepareYaml, readYaml } from '../encoding/yaml-offthread.ts';
import { noteRequestBody } from '../server/audit/request-notes.ts';
import type { HttpRequest } from '../server/types.ts';

export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

function tooLarge(limit: number): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
}

/**
 * limitedReadBody: the whole body, or 413 RequestEntityTooLarge as soon as it passes the limit (a declared
 * Content-Length past it is refused unread). The rest is never read: the server layer closes the connection
 * or resets the stream once the answer is out.
 */
export function readBody(req: HttpRequest, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer | string): void => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > limit) {
        done();
        req.pause();
        chunks.length = 0;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(buf);
    };
    const onEnd = (): void => {
      done();
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      noteRequestBody(req, body);
      resolve(body);
    };
    const onError = (err: Error): void => {
      done();
      reject(err);
    };
    // The peer went away before the body ended: nothing will answer, and nothing may be written.
    const onClose = (): void => {
      done();
      reject(new Error('the client closed the request before its body ended'));
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
}

/** summarizeData: the start of a body for error messages (text when it looks like JSON, else hex). */
export function summarizeData(data: Buffer, maxLength = 30): string {
  if (data.length === 0) return '<empty>';
  const head = data.length > maxLength ? data.subarray(0, maxLength) : data;
  const suffix = data.length > maxLength ? ' ...' : '';
  if (data[0] === 0x7b) return head.toString('utf8') + suffix;
  return head.toString('hex') + suffix;
}

export type BodyFormat = 'json' | 'yaml' | 'protobuf';

/**
 * NegotiateInputSerializer: JSON (also when no Content-Type is given), YAML, or protobuf where the kind has a
 * message (`protobuf`: built-in kinds); anything else is 415.
 */
export function bodyFormat(contentType: string | undefined, protobuf = false): BodyFormat {
  const mediaType = parseContentType(contentType || JSON_MEDIA_TYPE);
  if (mediaType === JSON_MEDIA_TYPE) return 'json';
  if (mediaType === YAML_MEDIA_TYPE) return 'yaml';
  if (mediaType === PROTOBUF_MEDIA_TYPE && protobuf) return 'protobuf';
  throw unsupportedMediaType([...(protobuf ? PROTOBUF_SERVED_MEDIA_TYPES : SERVED_MEDIA_TYPES)]);
}

export interface RawBody {
  /** The decoded JSON value (null for an empty YAML document). */
  value: unknown;
  format: BodyFormat;
  /** JSON duplicate keys: `duplicate field "a.b"` strict errors. */
  duplicateErrors: string[];
  /** YAML duplicate keys, reported by kube as one strict error ending the decode. */
  yamlDuplicates: string[];
}

const FIND_KIND_TYPE = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export function gvString(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** The message of a body kube could not even read the version/kind of (transformDecodeError without a kind). */
function unrecognized(kind: string, reason: string, data: Buffer): StatusError {
  return badRequest(`the object provided is unrecognized (must be of type ${kind}): ${reason} (${summarizeData(data)})`);
}

/** Readies a body for parseBody: YAML is parsed now, off the event loop when large. */
export async function prepareBody(data: Buffer, format: BodyFormat): Promise<void> {
  if (format === 'yaml') await prepareYaml(data.toString('utf8'));
}

/** Parses the body per its format; syntax errors are 400 worded as kube's decoder words them. */
export function parseBody(data: Buffer, format: BodyFormat, expectedKind: string): RawBody {
  const text = data.toString('utf8');
  if (format === 'yaml') {
    try {
      const parsed = readYaml(text);
      return { value: parsed.value, format, duplicateErrors: [], yamlDuplicates: parsed.duplicates };
    } catch (e) {
      if (e instanceof YamlSyntaxError) throw unrecognized(expectedKind, e.message, data);
      throw e;
    }
  }
  try {
    const parsed = parseJson(text);
    return { value: parsed.value, format, duplicateErrors: parsed.duplicates.map((p) => `duplicate field ${JSON.stringify(p)}`), yamlDuplicates: [] };
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw unrecognized(expectedKind, `couldn't get version/kind; json parse error: ${bytesSyntaxError(data, e).message}`, data);
    throw e;
  }
}

/** copyKindDefaults: the envelope's group/version/kind with what it lacks taken from the endpoint's kind. */
function envelopeKind(env: Envelope, expected: GroupVersionKind): GroupVersionKind {
  const slash = env.apiVersion.indexOf('/');
  let group = slash < 0 ? '' : env.apiVersion.slice(0, slash);
  let version = slash < 0 ? env.apiVersion : env.apiVersion.slice(slash + 1);
  const kind = env.kind === '' ? expected.kind : env.kind;
  if (version === '' && group === '') {
    group = expected.group;
    version = expected.version;
  }
  if (version === '' && group === expected.group) version = expected.version;
  return { group, version, kind };
}

/**
 * protobuf.Serializer.Decode: the envelope (kube's errors for an empty body, a wrong magic, truncated bytes),
 * then the object's message when its kind has one. A kind without a message decodes to its type meta only,
 * for the kind checks to refuse it as kube's scheme does. Custom resources (unstructured) cannot be read from
 * protobuf at all: kube's decoder refuses them once the envelope is read.
 */
export function parseProtobufBody(data: Buffer, expected: GroupVersionKind, custom = false): RawBody {
  let env: Envelope;
  try {
    env = decodeEnvelope(data);
  } catch (e) {
    if (e instanceof ProtobufDecodeError) throw unrecognized(expected.kind, e.message, data);
    throw e;
  }
  const gvk = envelopeKind(env, expected);
  if (custom) {
    // errNotMarshalable of k8s.io/apimachinery/pkg/runtime/serializer/protobuf, through transformDecodeError.
    throw badRequest(`${gvk.kind} in version ${JSON.stringify(gvk.version)} cannot be handled as a ${expected.kind}: object *unstructured.Unstructured does not implement the protobuf marshalling interface and cannot be encoded`);
  }
  const definition = protobufDefinition(gvString(gvk.group, gvk.version), gvk.kind);
  let value: Record<string, unknown> = {};
  if (env.kind !== '') value.kind = env.kind;
  if (env.apiVersion !== '') value.apiVersion = env.apiVersion;
  if (definition) {
    try {
      value = decodeEnvelopedObject(env, definition);
    } catch (e) {
      // transformDecodeError with the kind known.
      if (e instanceof ProtobufDecodeError) throw badRequest(`${gvk.kind} in version ${JSON.stringify(gvk.version)} cannot be handled as a ${expected.kind}: ${e.message}`);
      throw e;
    }
  }
  return { value, format: 'protobuf', duplicateErrors: [], yamlDuplicates: [] };
}

export interface InterpretedBody {
  object: Record<string, unknown>;
  /** The body's group/version/kind after kube's defaulting from the endpoint. */
  gvk: GroupVersionKind;
}

/**
 * SimpleMetaFactory.Interpret plus gvkWithDefaults: reads apiVersion and kind, fills what is missing
 * from the endpoint's kind. Throws the 400 kube answers for bodies whose version/kind cannot be read.
 */
export function interpretBody(raw: RawBody, data: Buffer, expected: GroupVersionKind, custom: boolean): InterpretedBody {
  let value = raw.value;
  if (value === null || value === undefined) value = {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw unrecognized(expected.kind, `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(value)} into Go value of type ${FIND_KIND_TYPE}`, data);
  }
  const object = value as Record<string, unknown>;
  for (const field of ['apiVersion', 'kind'] as const) {
    const v = object[field];
    if (v !== undefined && v !== null && typeof v !== 'string') {
      throw unrecognized(expected.kind, `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(v)} into Go struct field .${field} of type string`, data);
    }
  }
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  let group = '';
  let version = '';
  if (apiVersion !== '') {
    const parts = apiVersion.split('/');
    if (parts.length === 1) version = parts[0];
    else if (parts.length === 2) [group, version] = parts;
    else throw unrecognized(expected.kind, `unexpected GroupVersion string: ${apiVersion}`, data);
  }
  let kind = typeof object.kind === 'string' ? object.kind : '';
  if (custom) {
    // Unstructured decoding keeps the body's own apiVersion and requires a kind.
    if (kind === '') throw unrecognized(expected.kind, `Object 'Kind' is missing in '${data.toString('utf8')}'`, data);
    return { object, gvk: { group, version, kind } };
  }
  if (kind === '') kind = expected.kind;
  if (version === '' && group === '') {
    group = expected.group;
    version = expected.version;
  }
  if (version === '' && group === expected.group) version = expected.version;
  return { object, gvk: { group, version, kind } };
}

/** Whether some served definition has the given group/version (to word a version mismatch like kube). */
export type KnownGroupVersion = (group: string, version: string) => boolean;
/** Whether some served definition has the given kind in the given group/version. */
export type KnownKind = (group: string, version: string, kind: string) => boolean;

function versionedType(gvk: GroupVersionKind): string {
  return `${gvk.version}.${gvk.kind}`;
}

function internalType(expected: GroupVersionKind): string {
  const pkg = expected.group === '' ? 'core' : expected.group.split('.')[0];
  return `${pkg}.${expected.kind}`;
}

/**
 * The checks after decoding: the body's kind must be the endpoint's (built-in types are converted through
 * the scheme, so another kind fails conversion) and its group/version the endpoint's.
 */
export function checkBodyKind(gvk: GroupVersionKind, expected: GroupVersionKind, custom: boolean, knownGroupVersion: KnownGroupVersion, knownKind: KnownKind): void {
  const gv = gvString(gvk.group, gvk.version);
  const expectedGV = gvString(expected.group, expected.version);
  const mismatch = () => badRequest(`the API version in the data (${gv}) does not match the expected API version (${expectedGV})`);
  if (custom) {
    if (gv !== expectedGV) throw mismatch();
    return;
  }
  const cannotHandle = (reason: string) => badRequest(`${gvk.kind} in version ${JSON.stringify(gvk.version)} cannot be handled as a ${expected.kind}: ${reason}`);
  const notRegistered = () => cannotHandle(`no kind ${JSON.stringify(gvk.kind)} is registered for version ${JSON.stringify(gv)} in scheme "pkg/api/legacyscheme/scheme.go:30"`);
  if (gvk.kind !== expected.kind) {
    if (knownKind(gvk.group, gvk.version, gvk.kind)) throw cannotHandle(`converting (${versionedType(gvk)}) to (${internalType(expected)}): unknown conversion`);
    throw notRegistered();
  }
  if (gv !== expectedGV) {
    if (knownGroupVersion(gvk.group, gvk.version)) throw mismatch();
    throw notRegistered();
  }
}

/** The 400 for a body whose strict decoding failed under fieldValidation=Strict (or YAML duplicates). */
export function strictDecodingError(gvk: GroupVersionKind, expectedKind: string, errors: readonly string[]): StatusError {
  return badRequest(`${gvk.kind} in version ${JSON.stringify(gvk.version)} cannot be handled as a ${expectedKind}: strict decoding error: ${errors.join(', ')}`);
}

export function yamlStrictErrors(raw: RawBody): string[] {
  return raw.yamlDuplicates.length > 0 ? [yamlDuplicateError(raw.yamlDuplicates)] : [];
}
