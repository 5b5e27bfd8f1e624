// Generates src/apis/generated/model.json (an ApiModel) and src/apis/generated/protobuf.json (its messages' protobuf
// facts, read apart) from the kube-apiserver 1.31 reference data in
// shared/k8s-1.31: openapi-v2.json for resources, verbs, scopes and schemas; generated.proto for protobuf
// field numbers. Facts the document lacks (short names, categories, default enablement, group order) come
// from the small tables below. Output is deterministic: running it twice yields identical bytes.
//
// Usage: node scripts/generate-model.ts [referenceDir]

import fs from 'node:fs';
import path from 'node:path';
import { compareKubeAwareVersions } from '../src/apis/versions.ts';
import { EXTRA_JSON_NAMES, EXTRA_PROTO_FILES } from './extra-proto-facts.ts';
import type { ApiModel, GroupFacts, GroupVersionFacts, ProtobufFacts, ProtoFieldFacts, ProtoMessageFacts, ProtoScalar, ResourceFacts, SchemaNode, SubresourceFacts } from '../src/apis/model-types.ts';
import { parseScriptArgs } from './script-args.ts';

export const DEFAULT_REFERENCE_DIR = path.resolve(import.meta.dirname, '../../shared/k8s-1.31');
export const MODEL_PATH = path.resolve(import.meta.dirname, '../src/apis/generated/model.json');
export const PROTOBUF_PATH = path.resolve(import.meta.dirname, '../src/apis/generated/protobuf.json');

// ---------------------------------------------------------------------------------------------------------
// Facts the OpenAPI document does not carry (kube-apiserver 1.31).
// ---------------------------------------------------------------------------------------------------------

/**
 * GroupPriorityMinimum of the built-in APIServices (kube-apiserver's aggregator tables); /apis lists groups by
 * descending priority, ties broken by APIService name ("v1.admissionregistration.k8s.io" < "v1.apiextensions...").
 * The legacy core group "" (served at /api) comes first; apiregistration.k8s.io has no APIService of its own:
 * the aggregator always lists its own group first in /apis.
 */
const GROUP_PRIORITY: Record<string, number> = {
  '': Number.MAX_SAFE_INTEGER,
  'apiregistration.k8s.io': Number.MAX_SAFE_INTEGER - 1,
  'apps': 17800,
  'events.k8s.io': 17750,
  'authentication.k8s.io': 17700,
  'authorization.k8s.io': 17600,
  'autoscaling': 17500,
  'batch': 17400,
  'certificates.k8s.io': 17300,
  'networking.k8s.io': 17200,
  'policy': 17100,
  'rbac.authorization.k8s.io': 17000,
  'storage.k8s.io': 16800,
  'admissionregistration.k8s.io': 16700,
  'apiextensions.k8s.io': 16700,
  'scheduling.k8s.io': 16600,
  'coordination.k8s.io': 16500,
  'node.k8s.io': 16300,
  'discovery.k8s.io': 16200,
  'flowcontrol.apiserver.k8s.io': 16100,
  'internal.apiserver.k8s.io': 16000,
  'resource.k8s.io': 15900,
  'storagemigration.k8s.io': 15800,
};

/** Beta group versions served without --runtime-config in 1.31 (legacy betas that predate "beta off by default"). */
const BETA_ENABLED_BY_DEFAULT = new Set(['flowcontrol.apiserver.k8s.io/v1beta3']);
/** Beta group versions that need --runtime-config in 1.31 (every new beta since 1.24). */
const BETA_DISABLED_BY_DEFAULT = new Set([
  'admissionregistration.k8s.io/v1beta1',
  'authentication.k8s.io/v1beta1',
  'networking.k8s.io/v1beta1',
  'storage.k8s.io/v1beta1',
]);

/** Short names by "group/resource" (core group: "/resource"), as `kubectl api-resources` shows them. */
const SHORT_NAMES: Record<string, string[]> = {
  '/componentstatuses': ['cs'],
  '/configmaps': ['cm'],
  '/endpoints': ['ep'],
  '/events': ['ev'],
  '/limitranges': ['limits'],
  '/namespaces': ['ns'],
  '/nodes': ['no'],
  '/persistentvolumeclaims': ['pvc'],
  '/persistentvolumes': ['pv'],
  '/pods': ['po'],
  '/replicationcontrollers': ['rc'],
  '/resourcequotas': ['quota'],
  '/serviceaccounts': ['sa'],
  '/services': ['svc'],
  'apiextensions.k8s.io/customresourcedefinitions': ['crd', 'crds'],
  'apps/daemonsets': ['ds'],
  'apps/deployments': ['deploy'],
  'apps/replicasets': ['rs'],
  'apps/statefulsets': ['sts'],
  'autoscaling/horizontalpodautoscalers': ['hpa'],
  'batch/cronjobs': ['cj'],
  'certificates.k8s.io/certificatesigningrequests': ['csr'],
  'events.k8s.io/events': ['ev'],
  'networking.k8s.io/ingresses': ['ing'],
  'networking.k8s.io/networkpolicies': ['netpol'],
  'policy/poddisruptionbudgets': ['pdb'],
  'scheduling.k8s.io/priorityclasses': ['pc'],
  'storage.k8s.io/storageclasses': ['sc'],
  'storage.k8s.io/volumeattributesclasses': ['vac'],
};

/** Categories by "group/resource" (rest.CategoriesProvider of the built-in stores). */
const CATEGORIES: Record<string, string[]> = {
  '/pods': ['all'],
  '/replicationcontrollers': ['all'],
  '/services': ['all'],
  'apps/daemonsets': ['all'],
  'apps/deployments': ['all'],
  'apps/replicasets': ['all'],
  'apps/statefulsets': ['all'],
  'autoscaling/horizontalpodautoscalers': ['all'],
  'batch/cronjobs': ['all'],
  'batch/jobs': ['all'],
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': ['api-extensions'],
  'admissionregistration.k8s.io/validatingwebhookconfigurations': ['api-extensions'],
  'admissionregistration.k8s.io/validatingadmissionpolicies': ['api-extensions'],
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': ['api-extensions'],
  'apiextensions.k8s.io/customresourcedefinitions': ['api-extensions'],
  'apiregistration.k8s.io/apiservices': ['api-extensions'],
};

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

/** meta.k8s.io kinds kube serves that the OpenAPI document does not define (struct json tags of apimachinery). */
const EXTRA_DEFINITIONS: Record<string, SchemaNode> = {
  [META + 'Table']: {
    type: 'object',
    required: ['columnDefinitions', 'rows'],
    properties: {
      apiVersion: { type: 'string' },
      columnDefinitions: { type: 'array', items: { ref: META + 'TableColumnDefinition' } },
      kind: { type: 'string' },
      metadata: { ref: META + 'ListMeta' },
      rows: { type: 'array', items: { ref: META + 'TableRow' } },
    },
    gvk: [
      { group: 'meta.k8s.io', version: 'v1', kind: 'Table' },
      { group: 'meta.k8s.io', version: 'v1beta1', kind: 'Table' },
    ],
  },
  [META + 'TableColumnDefinition']: {
    type: 'object',
    required: ['name', 'type', 'format', 'description', 'priority'],
    properties: {
      description: { type: 'string' },
      format: { type: 'string' },
      name: { type: 'string' },
      priority: { type: 'integer', format: 'int32' },
      type: { type: 'string' },
    },
  },
  [META + 'TableRow']: {
    type: 'object',
    required: ['cells'],
    properties: {
      cells: { type: 'array', items: {} },
      conditions: { type: 'array', items: { ref: META + 'TableRowCondition' } },
      object: { ref: 'io.k8s.apimachinery.pkg.runtime.RawExtension' },
    },
  },
  [META + 'TableRowCondition']: {
    type: 'object',
    required: ['type', 'status'],
    properties: {
      message: { type: 'string' },
      reason: { type: 'string' },
      status: { type: 'string' },
      type: { type: 'string' },
    },
  },
  [META + 'PartialObjectMetadata']: {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { ref: META + 'ObjectMeta' },
    },
    gvk: [
      { group: 'meta.k8s.io', version: 'v1', kind: 'PartialObjectMetadata' },
      { group: 'meta.k8s.io', version: 'v1beta1', kind: 'PartialObjectMetadata' },
    ],
  },
  [META + 'PartialObjectMetadataList']: {
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string' },
      items: { type: 'array', items: { ref: META + 'PartialObjectMetadata' } },
      kind: { type: 'string' },
      metadata: { ref: META + 'ListMeta' },
    },
    gvk: [
      { group: 'meta.k8s.io', version: 'v1', kind: 'PartialObjectMetadataList' },
      { group: 'meta.k8s.io', version: 'v1beta1', kind: 'PartialObjectMetadataList' },
    ],
  },
};

// ---------------------------------------------------------------------------------------------------------
// The OpenAPI v2 document, as far as we read it.
// ---------------------------------------------------------------------------------------------------------

interface Gvk { group: string; version: string; kind: string }
interface OpenApiOperation {
  'x-kubernetes-action'?: string;
  'x-kubernetes-group-version-kind'?: Gvk;
  responses?: Record<string, { schema?: { $ref?: string } }>;
}
type OpenApiPathItem = Record<string, OpenApiOperation | unknown[]>;
type OpenApiSchema = Record<string, unknown>;
interface OpenApiDocument {
  paths: Record<string, OpenApiPathItem>;
  definitions: Record<string, OpenApiSchema>;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/**
 * x-kubernetes-action to discovery verb; connect maps per HTTP method (kube's toDiscoveryKubeVerb). "watch" comes
 * from the watch/watchlist actions only: every list operation carries a ?watch parameter in the document, even
 * componentstatuses', which kube does not let you watch.
 */
const ACTION_VERBS: Record<string, string> = {
  get: 'get',
  list: 'list',
  post: 'create',
  put: 'update',
  patch: 'patch',
  delete: 'delete',
  deletecollection: 'deletecollection',
  watch: 'watch',
  watchlist: 'watch',
};
const CONNECT_METHOD_VERBS: Record<string, string> = {
  get: 'get',
  post: 'create',
  put: 'update',
  patch: 'patch',
  delete: 'delete',
};

interface ParsedPath {
  group: string;
  version: string;
  namespaced: boolean;
  resource: string;
  subresource: string;
}

/** Splits an API path into group, version, scope, resource and subresource; undefined for non-resource paths. */
function parseResourcePath(p: string): ParsedPath | undefined {
  const segs = p.split('/').filter((s) => s !== '');
  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 2) {
    group = '';
    version = segs[1]!;
    rest = segs.slice(2);
  } else if (segs[0] === 'apis' && segs.length >= 3) {
    group = segs[1]!;
    version = segs[2]!;
    rest = segs.slice(3);
  } else {
    return undefined;
  }
  if (rest[0] === 'watch') rest = rest.slice(1);
  let namespaced = false;
  if (rest[0] === 'namespaces' && rest[1] === '{namespace}' && rest.length >= 3) {
    namespaced = true;
    rest = rest.slice(2);
  }
  if (rest.length === 0) return undefined;
  const resource = rest[0]!;
  const subresource = rest.length >= 3 && rest[1] === '{name}' ? rest[2]! : '';
  return { group, version, namespaced, resource, subresource };
}

interface ResourceAccumulator {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
  kind?: string;
  verbs: Set<string>;
  listDefinition?: string;
  subresources: Map<string, { gvk?: Gvk; verbs: Set<string> }>;
}

function definitionName(ref: string): string {
  return ref.replace(/^#\/definitions\//, '');
}

function collectResources(doc: OpenApiDocument): Map<string, ResourceAccumulator> {
  const resources = new Map<string, ResourceAccumulator>();
  for (const p of Object.keys(doc.paths).sort()) {
    const parsed = parseResourcePath(p);
    if (!parsed) continue;
    const item = doc.paths[p]!;
    const key = `${parsed.group}/${parsed.version}/${parsed.resource}`;
    let acc = resources.get(key);
    if (!acc) {
      acc = { group: parsed.group, version: parsed.version, resource: parsed.resource, namespaced: false, verbs: new Set(), subresources: new Map() };
      resources.set(key, acc);
    }
    if (parsed.namespaced) acc.namespaced = true;
    for (const method of HTTP_METHODS) {
      const op = item[method] as OpenApiOperation | undefined;
      if (!op) continue;
      const action = op['x-kubernetes-action'];
      if (!action) continue;
      const verb = action === 'connect' ? CONNECT_METHOD_VERBS[method] : ACTION_VERBS[action];
      const gvk = op['x-kubernetes-group-version-kind'];
      if (parsed.subresource) {
        let sub = acc.subresources.get(parsed.subresource);
        if (!sub) {
          sub = { verbs: new Set() };
          acc.subresources.set(parsed.subresource, sub);
        }
        if (gvk && !sub.gvk) sub.gvk = gvk;
        if (verb) sub.verbs.add(verb);
        continue;
      }
      if (verb) acc.verbs.add(verb);
      if (action === 'list') {
        const listRef = op.responses?.['200']?.schema?.$ref;
        if (listRef) acc.listDefinition = definitionName(listRef);
      }
      if (gvk && !acc.kind) acc.kind = gvk.kind;
    }
  }
  return resources;
}

// ---------------------------------------------------------------------------------------------------------
// Protobuf field numbers from generated.proto.
// ---------------------------------------------------------------------------------------------------------

/** A generated.proto field as written there (proto name, proto type resolved to a definition-style name). */
interface RawProtoField {
  protoName: string;
  number: number;
  type: string;
  repeated: boolean;
  mapKey?: ProtoScalar;
}

interface RawProtoMessage {
  fields: RawProtoField[];
  listWrapper: boolean;
}

const PROTO_SCALARS = new Set<string>(['string', 'int32', 'int64', 'bool', 'double', 'bytes']);

/** Proto package "k8s.io.api.core.v1" names definitions "io.k8s.api.core.v1.*" (and "_" there is "-" here). */
function protoPackagePrefix(pkg: string): string {
  return pkg.replace(/^k8s\.io\./, 'io.k8s.').replace(/_/g, '-');
}

function resolveProtoType(type: string, prefix: string): string {
  if (PROTO_SCALARS.has(type)) return type;
  if (type.startsWith('.')) {
    const dot = type.lastIndexOf('.');
    return `${protoPackagePrefix(type.slice(1, dot))}.${type.slice(dot + 1)}`;
  }
  return `${prefix}.${type}`;
}

/** The messages of one .proto text into `messages`, by definition-style name ("io.k8s.api.core.v1.ConfigMap"). */
function parseProtoText(text: string, messages: Map<string, RawProtoMessage>): void {
  const pkg = /^package\s+([\w.]+)\s*;/m.exec(text)?.[1];
  if (!pkg) return;
  const prefix = protoPackagePrefix(pkg);
  let current: RawProtoMessage | undefined;
  let renames: Record<string, string> = {};
  let nullable = false;
  for (const line of text.split('\n')) {
    if (/^\/\/ \+protobuf\.nullable=true/.test(line)) nullable = true;
    const open = /^message\s+(\w+)\s*\{/.exec(line);
    if (open) {
      const name = `${prefix}.${open[1]}`;
      current = { fields: [], listWrapper: nullable };
      renames = EXTRA_JSON_NAMES[name] ?? {};
      nullable = false;
      messages.set(name, current);
      continue;
    }
    if (/^\}/.test(line)) {
      current = undefined;
      nullable = false;
      continue;
    }
    if (!current) continue;
    const field = /^\s*(optional|repeated|required)?\s*(map<\s*(\w+)\s*,\s*([\w.]+)\s*>|[\w.]+)\s+(\w+)\s*=\s*(\d+)\s*(?:\[[^\]]*\])?\s*;/.exec(line);
    if (!field) continue;
    const f: RawProtoField = { protoName: renames[field[5]!] ?? field[5]!, number: Number(field[6]), type: '', repeated: field[1] === 'repeated' };
    if (field[3]) {
      f.mapKey = field[3] as ProtoScalar;
      f.type = resolveProtoType(field[4]!, prefix);
    } else {
      f.type = resolveProtoType(field[2]!, prefix);
    }
    current.fields.push(f);
  }
}

/**
 * Every message of every generated.proto, and of the groups whose files the reference data lacks
 * (extra-proto-facts.ts), by definition-style name.
 */
function readProtoMessages(protoDir: string): Map<string, RawProtoMessage> {
  const messages = new Map<string, RawProtoMessage>();
  if (!fs.existsSync(protoDir)) return messages;
  const files = (fs.readdirSync(protoDir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.proto'))
    .sort();
  for (const file of files) parseProtoText(fs.readFileSync(path.join(protoDir, file), 'utf8'), messages);
  for (const text of Object.values(EXTRA_PROTO_FILES)) parseProtoText(text, messages);
  return messages;
}

/** Field numbers by definition name and proto field name. */
function protoFieldNumbers(messages: Map<string, RawProtoMessage>): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const [name, m] of messages) out.set(name, new Map(m.fields.map((f) => [f.protoName, f.number])));
  return out;
}

/** The JSON property a proto field stands for: the same name, or the one differing only in case ("aPIGroup"). */
function jsonPropertyName(protoName: string, node: SchemaNode | undefined): string | undefined {
  const props = node?.properties;
  if (!props) return undefined;
  if (Object.hasOwn(props, protoName)) return protoName;
  const lower = protoName.toLowerCase();
  const matches = Object.keys(props).filter((p) => p.toLowerCase() === lower);
  return matches.length === 1 ? matches[0] : undefined;
}

/** Whether every field of a message is a JSON property of `node`, through embedded messages of its own. */
function coveredBy(messages: Map<string, RawProtoMessage>, name: string, node: SchemaNode): boolean {
  const m = messages.get(name);
  if (!m || m.fields.length === 0) return false;
  return m.fields.every((f) => jsonPropertyName(f.protoName, node) !== undefined || (!f.repeated && !f.mapKey && messages.has(f.type) && coveredBy(messages, f.type, node)));
}

/**
 * The protobuf facts of the messages the schemas reach: fields named by their JSON properties, embedded
 * structs (a message-typed field with no property of its own whose fields are all properties of the parent)
 * marked inline.
 */
function buildProtobufFacts(messages: Map<string, RawProtoMessage>, schemas: Record<string, SchemaNode>, all: Record<string, SchemaNode>): Record<string, ProtoMessageFacts> {
  const out: Record<string, ProtoMessageFacts> = {};
  const queue = Object.keys(schemas).filter((n) => messages.has(n));
  // The envelope and the types the codec, the watch stream and aggregated discovery use, reached from no schema.
  for (const extra of ['io.k8s.apimachinery.pkg.runtime.Unknown', 'io.k8s.apimachinery.pkg.runtime.TypeMeta', 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent', 'io.k8s.apimachinery.pkg.apis.meta.v1.Status', 'io.k8s.apimachinery.pkg.apis.meta.v1beta1.PartialObjectMetadataList', 'io.k8s.api.apidiscovery.v2.APIGroupDiscoveryList', 'io.k8s.api.apidiscovery.v2beta1.APIGroupDiscoveryList']) queue.push(extra);
  const seen = new Set<string>(queue);
  while (queue.length > 0) {
    const name = queue.shift()!;
    const raw = messages.get(name);
    if (!raw) throw new Error(`generate-model: no generated.proto message ${name}`);
    const node = all[name];
    const fields: ProtoFieldFacts[] = [];
    for (const f of [...raw.fields].sort((a, b) => a.number - b.number)) {
      const jsonName = jsonPropertyName(f.protoName, node);
      const fact: ProtoFieldFacts = { name: jsonName ?? f.protoName, number: f.number, type: f.type };
      if (f.repeated) fact.repeated = true;
      if (f.mapKey) fact.mapKey = f.mapKey;
      if (jsonName === undefined && node?.properties && messages.has(f.type) && !f.repeated && !f.mapKey) {
        if (coveredBy(messages, f.type, node)) fact.inline = true;
      }
      fields.push(fact);
      if (messages.has(f.type) && !seen.has(f.type)) {
        seen.add(f.type);
        queue.push(f.type);
      }
    }
    const facts: ProtoMessageFacts = { fields };
    if (raw.listWrapper) facts.listWrapper = true;
    out[name] = facts;
  }
  const sorted: Record<string, ProtoMessageFacts> = {};
  for (const name of Object.keys(out).sort()) sorted[name] = out[name]!;
  return sorted;
}

// ---------------------------------------------------------------------------------------------------------
// Schemas.
// ---------------------------------------------------------------------------------------------------------

function convertSchema(s: OpenApiSchema): SchemaNode {
  const n: SchemaNode = {};
  const ref = s['$ref'];
  const allOf = s['allOf'] as OpenApiSchema[] | undefined;
  if (typeof ref === 'string') n.ref = definitionName(ref);
  else if (allOf?.length === 1 && typeof allOf[0]!['$ref'] === 'string') n.ref = definitionName(allOf[0]!['$ref'] as string);
  const intOrString = s['format'] === 'int-or-string' || s['x-kubernetes-int-or-string'] === true;
  if (typeof s['type'] === 'string' && !intOrString) n.type = s['type'] as SchemaNode['type'];
  if (typeof s['format'] === 'string') n.format = s['format'];
  const props = s['properties'] as Record<string, OpenApiSchema> | undefined;
  if (props) {
    n.properties = {};
    for (const name of Object.keys(props).sort()) n.properties[name] = convertSchema(props[name]!);
  }
  const ap = s['additionalProperties'];
  if (typeof ap === 'boolean') n.additionalProperties = ap;
  else if (ap && typeof ap === 'object') n.additionalProperties = convertSchema(ap as OpenApiSchema);
  if (s['items'] && typeof s['items'] === 'object') n.items = convertSchema(s['items'] as OpenApiSchema);
  if (Array.isArray(s['required']) && s['required'].length > 0) n.required = [...(s['required'] as string[])];
  if (Array.isArray(s['enum'])) n.enum = [...(s['enum'] as (string | number | boolean | null)[])];
  if ('default' in s) n.default = s['default'];
  if (s['nullable'] === true) n.nullable = true;
  if (typeof s['x-kubernetes-list-type'] === 'string') n.listType = s['x-kubernetes-list-type'] as SchemaNode['listType'];
  if (Array.isArray(s['x-kubernetes-list-map-keys'])) n.listMapKeys = [...(s['x-kubernetes-list-map-keys'] as string[])];
  if (typeof s['x-kubernetes-map-type'] === 'string') n.mapType = s['x-kubernetes-map-type'] as SchemaNode['mapType'];
  if (typeof s['x-kubernetes-patch-strategy'] === 'string') n.patchStrategy = s['x-kubernetes-patch-strategy'];
  if (typeof s['x-kubernetes-patch-merge-key'] === 'string') n.patchMergeKey = s['x-kubernetes-patch-merge-key'];
  if (intOrString) n.intOrString = true;
  if (s['x-kubernetes-preserve-unknown-fields'] === true) n.preserveUnknownFields = true;
  if (s['x-kubernetes-embedded-resource'] === true) n.embeddedResource = true;
  const unions = s['x-kubernetes-unions'] as { discriminator?: string; 'fields-to-discriminateBy'?: Record<string, string> }[] | undefined;
  if (Array.isArray(unions)) n.unions = unions.map((u) => ({ discriminator: u.discriminator ?? '', fieldsToDiscriminateBy: { ...u['fields-to-discriminateBy'] } }));
  const gvk = s['x-kubernetes-group-version-kind'] as Gvk[] | undefined;
  if (Array.isArray(gvk)) n.gvk = gvk.map((g) => ({ group: g.group, version: g.version, kind: g.kind }));
  return n;
}

/**
 * Sets each property's protobuf field number. Proto field names are the JSON names, except where the Go
 * protobuf tag kept the Go spelling ("aPIGroup", "uID", "Webhooks"): those match case-insensitively. Fields
 * of embedded structs (inline in JSON, one nested message in protobuf) and TypeMeta's get no number.
 */
function addProtobufNumbers(node: SchemaNode, fields: Map<string, number> | undefined): void {
  if (!fields || !node.properties) return;
  const byLowerName = new Map<string, number | null>();
  for (const [name, num] of fields) {
    const lower = name.toLowerCase();
    byLowerName.set(lower, byLowerName.has(lower) ? null : num);
  }
  for (const [name, prop] of Object.entries(node.properties)) {
    const num = fields.get(name) ?? byLowerName.get(name.toLowerCase());
    if (num !== undefined && num !== null) prop.protobuf = num;
  }
}

function forEachRef(node: SchemaNode, visit: (ref: string) => void): void {
  if (node.ref) visit(node.ref);
  if (node.properties) for (const p of Object.values(node.properties)) forEachRef(p, visit);
  if (node.items) forEachRef(node.items, visit);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') forEachRef(node.additionalProperties, visit);
}

// ---------------------------------------------------------------------------------------------------------
// Ordering helpers.
// ---------------------------------------------------------------------------------------------------------

/** kube's CompareKubeAwareVersionStrings order: GA > beta > alpha, higher numbers first, then non-kube strings. */
export { compareKubeAwareVersions };

function isBeta(version: string): boolean {
  return /^v\d+beta\d+$/.test(version);
}

function isGA(version: string): boolean {
  return /^v\d+$/.test(version);
}

function defaultEnabled(group: string, version: string): boolean {
  if (isGA(version)) return true;
  const gv = `${group}/${version}`;
  if (isBeta(version)) {
    if (BETA_ENABLED_BY_DEFAULT.has(gv)) return true;
    if (BETA_DISABLED_BY_DEFAULT.has(gv)) return false;
    throw new Error(`generate-model: beta group version ${gv} has no default-enablement entry`);
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------
// The model.
// ---------------------------------------------------------------------------------------------------------

export function buildModel(referenceDir: string = DEFAULT_REFERENCE_DIR): { model: ApiModel; protobuf: ProtobufFacts } {
  const doc = JSON.parse(fs.readFileSync(path.join(referenceDir, 'openapi-v2.json'), 'utf8')) as OpenApiDocument;
  const protoMessages = readProtoMessages(path.join(referenceDir, 'proto'));
  const protoFields = protoFieldNumbers(protoMessages);

  const definitionByGvk = new Map<string, string>();
  const gvkKey = (g: Gvk) => `${g.group}/${g.version}/${g.kind}`;
  for (const name of Object.keys(doc.definitions).sort()) {
    const gvks = doc.definitions[name]!['x-kubernetes-group-version-kind'] as Gvk[] | undefined;
    for (const g of gvks ?? []) if (!definitionByGvk.has(gvkKey(g))) definitionByGvk.set(gvkKey(g), name);
  }

  const usedTableKeys = new Set<string>();
  const roots = new Set<string>();
  const versionsByGroup = new Map<string, GroupVersionFacts[]>();

  for (const acc of collectResources(doc).values()) {
    if (!acc.kind) throw new Error(`generate-model: no kind for ${acc.group}/${acc.version}/${acc.resource}`);
    const schema = definitionByGvk.get(`${acc.group}/${acc.version}/${acc.kind}`);
    if (!schema) throw new Error(`generate-model: no definition for kind ${acc.group}/${acc.version}/${acc.kind}`);
    roots.add(schema);
    if (acc.listDefinition) roots.add(acc.listDefinition);

    const tableKey = `${acc.group}/${acc.resource}`;
    const facts: ResourceFacts = {
      group: acc.group,
      version: acc.version,
      resource: acc.resource,
      singularName: acc.kind.toLowerCase(),
      kind: acc.kind,
      namespaced: acc.namespaced,
      verbs: [...acc.verbs].sort(),
      schema,
    };
    if (SHORT_NAMES[tableKey]) {
      facts.shortNames = [...SHORT_NAMES[tableKey]];
      usedTableKeys.add(`short:${tableKey}`);
    }
    if (CATEGORIES[tableKey]) {
      facts.categories = [...CATEGORIES[tableKey]];
      usedTableKeys.add(`cat:${tableKey}`);
    }
    const subresources: SubresourceFacts[] = [];
    for (const name of [...acc.subresources.keys()].sort()) {
      const sub = acc.subresources.get(name)!;
      const gvk = sub.gvk ?? { group: acc.group, version: acc.version, kind: acc.kind };
      const s: SubresourceFacts = { name, kind: gvk.kind, verbs: [...sub.verbs].sort() };
      if (gvk.group !== acc.group || gvk.version !== acc.version) {
        s.group = gvk.group;
        s.version = gvk.version;
      }
      const subSchema = definitionByGvk.get(gvkKey(gvk));
      if (subSchema) roots.add(subSchema);
      subresources.push(s);
    }
    if (subresources.length > 0) facts.subresources = subresources;

    let versions = versionsByGroup.get(acc.group);
    if (!versions) {
      versions = [];
      versionsByGroup.set(acc.group, versions);
    }
    let gv = versions.find((v) => v.version === acc.version);
    if (!gv) {
      gv = { group: acc.group, version: acc.version, defaultEnabled: defaultEnabled(acc.group, acc.version), resources: [] };
      versions.push(gv);
    }
    gv.resources.push(facts);
  }

  for (const key of Object.keys(SHORT_NAMES)) if (!usedTableKeys.has(`short:${key}`)) throw new Error(`generate-model: short names for unknown resource ${key}`);
  for (const key of Object.keys(CATEGORIES)) if (!usedTableKeys.has(`cat:${key}`)) throw new Error(`generate-model: categories for unknown resource ${key}`);

  const groupNames = [...versionsByGroup.keys()];
  for (const g of groupNames) if (GROUP_PRIORITY[g] === undefined) throw new Error(`generate-model: group ${g} has no priority`);
  groupNames.sort((a, b) => {
    const pa = GROUP_PRIORITY[a]!;
    const pb = GROUP_PRIORITY[b]!;
    if (pa !== pb) return pb - pa;
    return a < b ? -1 : a > b ? 1 : 0;
  });
  const groups: GroupFacts[] = groupNames.map((name) => {
    const versions = versionsByGroup.get(name)!;
    versions.sort((a, b) => compareKubeAwareVersions(a.version, b.version));
    for (const v of versions) v.resources.sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
    return { name, versions };
  });

  // Schemas: everything the resources reach, plus the meta.k8s.io / runtime / version types.
  const all: Record<string, SchemaNode> = {};
  for (const name of Object.keys(doc.definitions)) {
    const node = convertSchema(doc.definitions[name]!);
    addProtobufNumbers(node, protoFields.get(name));
    all[name] = node;
  }
  for (const [name, node] of Object.entries(EXTRA_DEFINITIONS)) {
    if (all[name]) throw new Error(`generate-model: ${name} is now in the document; drop it from EXTRA_DEFINITIONS`);
    const copy = structuredClone(node);
    addProtobufNumbers(copy, protoFields.get(name));
    all[name] = copy;
  }
  for (const name of Object.keys(all)) {
    if (name.startsWith('io.k8s.apimachinery.')) roots.add(name);
  }
  const schemas: Record<string, SchemaNode> = {};
  const queue = [...roots].sort();
  const seen = new Set<string>(queue);
  while (queue.length > 0) {
    const name = queue.shift()!;
    const node = all[name];
    if (!node) throw new Error(`generate-model: dangling reference to ${name}`);
    schemas[name] = node;
    forEachRef(node, (ref) => {
      if (!seen.has(ref)) {
        seen.add(ref);
        queue.push(ref);
      }
    });
  }
  const sortedSchemas: Record<string, SchemaNode> = {};
  for (const name of Object.keys(schemas).sort()) sortedSchemas[name] = schemas[name]!;

  return { model: { groups, schemas: sortedSchemas }, protobuf: buildProtobufFacts(protoMessages, sortedSchemas, all) };
}

/** Compact, diff-friendly JSON: one line per resource and per schema definition. */
export function serializeModel(model: ApiModel): string {
  const out: string[] = ['{"groups":['];
  model.groups.forEach((g, gi) => {
    out.push(`{"name":${JSON.stringify(g.name)},"versions":[`);
    g.versions.forEach((v, vi) => {
      out.push(`{"group":${JSON.stringify(v.group)},"version":${JSON.stringify(v.version)},"defaultEnabled":${v.defaultEnabled},"resources":[`);
      v.resources.forEach((r, ri) => out.push(JSON.stringify(r) + (ri < v.resources.length - 1 ? ',' : '')));
      out.push(']}' + (vi < g.versions.length - 1 ? ',' : ''));
    });
    out.push(']}' + (gi < model.groups.length - 1 ? ',' : ''));
  });
  out.push('],');
  out.push('"schemas":{');
  const names = Object.keys(model.schemas);
  names.forEach((name, i) => out.push(`${JSON.stringify(name)}:${JSON.stringify(model.schemas[name])}` + (i < names.length - 1 ? ',' : '')));
  out.push('}}');
  return out.join('\n') + '\n';
}

/** The protobuf facts the same way: one line per message. */
export function serializeProtobufFacts(protobuf: ProtobufFacts): string {
  const messages = Object.keys(protobuf);
  return `{\n${messages.map((name) => `${JSON.stringify(name)}:${JSON.stringify(protobuf[name])}`).join(',\n')}\n}\n`;
}

/** The texts of generated/model.json and generated/protobuf.json. */
export function generateModelFiles(referenceDir: string = DEFAULT_REFERENCE_DIR): { model: string; protobuf: string } {
  const built = buildModel(referenceDir);
  return { model: serializeModel(built.model), protobuf: serializeProtobufFacts(built.protobuf) };
}

function main(): void {
  const args = parseScriptArgs({
    command: 'node scripts/generate-model.ts [REFERENCE_DIR]',
    summary: 'Writes generated/model.json and generated/protobuf.json, the facts-only model of the Kubernetes 1.31 API, from the official OpenAPI document and protobuf definitions.',
    positionals: { REFERENCE_DIR: `the directory holding the reference files (default ${DEFAULT_REFERENCE_DIR})` },
  });
  const referenceDir = args.positionals[0] ? path.resolve(args.positionals[0]) : DEFAULT_REFERENCE_DIR;
  const files = generateModelFiles(referenceDir);
  const json = files.model;
  fs.mkdirSync(path.dirname(MODEL_PATH), { recursive: true });
  fs.writeFileSync(MODEL_PATH, json);
  fs.writeFileSync(PROTOBUF_PATH, files.protobuf);
  const model = JSON.parse(json) as ApiModel;
  const resources = model.groups.reduce((n, g) => n + g.versions.reduce((m, v) => m + v.resources.length, 0), 0);
  console.log(`wrote ${path.relative(process.cwd(), MODEL_PATH)}: ${model.groups.length} groups, ${resources} resources, ${Object.keys(model.schemas).length} schemas, ${json.length} bytes; ${path.relative(process.cwd(), PROTOBUF_PATH)}: ${files.protobuf.length} bytes`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) main();
