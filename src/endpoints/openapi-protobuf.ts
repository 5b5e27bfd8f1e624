// The OpenAPI v2 document in protobuf (gnostic's openapi.v2.Document, OpenAPIv2.proto), as kube-openapi serves
// it for Accept: application/com.github.proto-openapi.spec.v2[@.]v1.0+protobuf. kubectl reads /openapi/v2 only
// in this form (validation, explain --output plaintext-openapiv2). Vendor extensions, defaults and enum values
// travel as YAML text in Any.yaml, as gnostic's compiler stores them.

import { stringify as toYaml } from 'yaml';
import type { Json } from './openapi-schemas.ts';

const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;

/** A protobuf message under construction: fields appended to a growable buffer, nested messages length-prefixed. */
class Message {
  private buf = Buffer.allocUnsafe(64);
  private pos = 0;

  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  private varint(value: number): void {
    this.reserve(10);
    let v = value;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
  }

  private key(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  private bytes(field: number, bytes: Uint8Array): void {
    this.key(field, BYTES);
    this.varint(bytes.length);
    this.reserve(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  private text(field: number, value: string): void {
    const length = Buffer.byteLength(value, 'utf8');
    this.key(field, BYTES);
    this.varint(length);
    this.reserve(length);
    this.pos += this.buf.write(value, this.pos, 'utf8');
  }

  string(field: number, value: unknown): this {
    if (typeof value === 'string' && value !== '') this.text(field, value);
    return this;
  }

  /** Repeated strings keep empty elements. */
  strings(field: number, values: unknown): this {
    if (Array.isArray(values)) for (const v of values) if (typeof v === 'string') this.text(field, v);
    return this;
  }

  /** A proto3 bool: written only when true, unless it is a oneof member (`always`). */
  bool(field: number, value: unknown, always = false): this {
    if (typeof value !== 'boolean' || (!value && !always)) return this;
    this.key(field, VARINT);
    this.varint(value ? 1 : 0);
    return this;
  }

  int64(field: number, value: unknown): this {
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) return this;
    this.key(field, VARINT);
    this.varint(value);
    return this;
  }

  double(field: number, value: unknown): this {
    if (typeof value !== 'number' || value === 0) return this;
    this.key(field, FIXED64);
    this.reserve(8);
    this.buf.writeDoubleLE(value, this.pos);
    this.pos += 8;
    return this;
  }

  message(field: number, child: Message | undefined): this {
    if (child) this.bytes(field, child.finish());
    return this;
  }

  finish(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const plainScalar = /^[A-Za-z][A-Za-z0-9_./-]*$/;
const yamlKeywords = /^(true|false|yes|no|on|off|null|y|n)$/i;
const yamlCache = new Map<string, string>();

/** YAML text of a JSON value; documents repeat the same few extension values thousands of times. */
function yamlOf(value: unknown): string {
  if (typeof value === 'boolean') return `${value}\n`;
  if (typeof value === 'string' && plainScalar.test(value) && !yamlKeywords.test(value)) return `${value}\n`;
  const key = JSON.stringify(value);
  let text = yamlCache.get(key);
  if (text === undefined) {
    text = toYaml(value, { lineWidth: 0 });
    if (yamlCache.size < 10_000) yamlCache.set(key, text);
  }
  return text;
}

/** Any { yaml = 2 }: the value as YAML text. */
function anyMessage(value: unknown): Message {
  return new Message().string(2, yamlOf(value));
}

/** repeated NamedAny vendor_extension: the x-* keys of an object. */
function vendorExtensions(msg: Message, field: number, obj: Json): void {
  for (const [k, v] of Object.entries(obj)) {
    if (k.startsWith('x-')) msg.message(field, new Message().string(1, k).message(2, anyMessage(v)));
  }
}

function schemaMessage(s: Json): Message {
  const m = new Message();
  m.string(1, s.$ref);
  m.string(2, s.format);
  m.string(3, s.title);
  m.string(4, s.description);
  if (s.default !== undefined) m.message(5, anyMessage(s.default));
  m.double(6, s.multipleOf);
  m.double(7, s.maximum);
  m.bool(8, s.exclusiveMaximum);
  m.double(9, s.minimum);
  m.bool(10, s.exclusiveMinimum);
  m.int64(11, s.maxLength);
  m.int64(12, s.minLength);
  m.string(13, s.pattern);
  m.int64(14, s.maxItems);
  m.int64(15, s.minItems);
  m.bool(16, s.uniqueItems);
  m.int64(17, s.maxProperties);
  m.int64(18, s.minProperties);
  m.strings(19, s.required);
  if (Array.isArray(s.enum)) for (const v of s.enum) m.message(20, anyMessage(v));
  if (typeof s.additionalProperties === 'boolean') {
    m.message(21, new Message().bool(2, s.additionalProperties, true));
  } else if (isObject(s.additionalProperties)) {
    m.message(21, new Message().message(1, schemaMessage(s.additionalProperties)));
  }
  if (typeof s.type === 'string') m.message(22, new Message().string(1, s.type));
  if (isObject(s.items)) m.message(23, new Message().message(1, schemaMessage(s.items)));
  if (Array.isArray(s.allOf)) for (const a of s.allOf) if (isObject(a)) m.message(24, schemaMessage(a));
  if (isObject(s.properties)) {
    const props = new Message();
    for (const [name, p] of Object.entries(s.properties)) if (isObject(p)) props.message(1, new Message().string(1, name).message(2, schemaMessage(p)));
    m.message(25, props);
  }
  m.bool(27, s.readOnly);
  vendorExtensions(m, 31, s);
  return m;
}

function parameterMessage(p: Json): Message {
  let param: Message;
  if (p.in === 'body') {
    const body = new Message().string(1, p.description).string(2, p.name).string(3, p.in).bool(4, p.required);
    if (isObject(p.schema)) body.message(5, schemaMessage(p.schema));
    vendorExtensions(body, 6, p);
    param = new Message().message(1, body);
  } else {
    // Query (3) and path (4) sub-schemas share their first fields; path's are shifted by one after "name".
    const path = p.in === 'path';
    const sub = new Message().bool(1, p.required).string(2, p.in).string(3, p.description).string(4, p.name);
    sub.string(path ? 5 : 6, p.type).string(path ? 6 : 7, p.format).bool(path ? 19 : 20, p.uniqueItems);
    vendorExtensions(sub, path ? 22 : 23, p);
    param = new Message().message(2, new Message().message(path ? 4 : 3, sub));
  }
  return new Message().message(1, param);
}

function responsesMessage(responses: Json): Message {
  const m = new Message();
  for (const [code, r] of Object.entries(responses)) {
    if (!isObject(r)) continue;
    const response = new Message().string(1, r.description);
    if (isObject(r.schema)) response.message(2, new Message().message(1, schemaMessage(r.schema)));
    m.message(1, new Message().string(1, code).message(2, new Message().message(1, response)));
  }
  return m;
}

function operationMessage(o: Json): Message {
  const m = new Message();
  m.strings(1, o.tags);
  m.string(2, o.summary);
  m.string(3, o.description);
  m.string(5, o.operationId);
  m.strings(6, o.produces);
  m.strings(7, o.consumes);
  if (Array.isArray(o.parameters)) for (const p of o.parameters) if (isObject(p)) m.message(8, parameterMessage(p));
  if (isObject(o.responses)) m.message(9, responsesMessage(o.responses));
  m.strings(10, o.schemes);
  m.bool(11, o.deprecated);
  vendorExtensions(m, 13, o);
  return m;
}

const pathItemFields: [string, number][] = [
  ['get', 2],
  ['put', 3],
  ['post', 4],
  ['delete', 5],
  ['options', 6],
  ['head', 7],
  ['patch', 8],
];

function pathItemMessage(item: Json): Message {
  const m = new Message();
  m.string(1, item.$ref);
  for (const [method, field] of pathItemFields) if (isObject(item[method])) m.message(field, operationMessage(item[method]));
  if (Array.isArray(item.parameters)) for (const p of item.parameters) if (isObject(p)) m.message(9, parameterMessage(p));
  vendorExtensions(m, 10, item);
  return m;
}

function securityDefinitionsMessage(defs: Json): Message {
  const m = new Message();
  for (const [name, d] of Object.entries(defs)) {
    if (!isObject(d) || d.type !== 'apiKey') continue;
    const apiKey = new Message().string(1, d.type).string(2, d.name).string(3, d.in).string(4, d.description);
    m.message(1, new Message().string(1, name).message(2, new Message().message(2, apiKey)));
  }
  return m;
}

/** Encodes a Swagger 2.0 document (as produced by openapi-documents) as gnostic's openapi.v2.Document. */
export function openApiV2Protobuf(doc: Json): Uint8Array {
  const m = new Message();
  m.string(1, doc.swagger);
  if (isObject(doc.info)) m.message(2, new Message().string(1, doc.info.title).string(2, doc.info.version).string(3, doc.info.description));
  m.string(3, doc.host);
  m.string(4, doc.basePath);
  m.strings(5, doc.schemes);
  m.strings(6, doc.consumes);
  m.strings(7, doc.produces);
  if (isObject(doc.paths)) {
    const paths = new Message();
    for (const [path, item] of Object.entries(doc.paths)) if (isObject(item)) paths.message(2, new Message().string(1, path).message(2, pathItemMessage(item)));
    m.message(8, paths);
  }
  if (isObject(doc.definitions)) {
    const defs = new Message();
    for (const [name, s] of Object.entries(doc.definitions)) if (isObject(s)) defs.message(1, new Message().string(1, name).message(2, schemaMessage(s)));
    m.message(9, defs);
  }
  if (Array.isArray(doc.security)) {
    for (const requirement of doc.security) {
      if (!isObject(requirement)) continue;
      const req = new Message();
      for (const [name, scopes] of Object.entries(requirement)) req.message(1, new Message().string(1, name).message(2, new Message().strings(1, scopes)));
      m.message(12, req);
    }
  }
  if (isObject(doc.securityDefinitions)) m.message(13, securityDefinitionsMessage(doc.securityDefinitions));
  vendorExtensions(m, 16, doc);
  return m.finish();
}
