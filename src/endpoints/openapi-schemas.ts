// Schemas for the OpenAPI documents: SchemaNode (the model's compact form) translated back to OpenAPI v2 or v3
// JSON, the schemas of custom resources shaped as apiextensions publishes them, and the catalog that resolves a
// definition name across all served definitions.

import type { SchemaNode } from '../apis/model-types.ts';
import type { ResourceDefinition } from '../registry/types.ts';
import { fallbackMetaSchema, OBJECT_META, LIST_META } from './openapi-meta-schemas.ts';

export type OpenApiVersion = 'v2' | 'v3';

export type Json = Record<string, unknown>;

export function refPrefix(target: OpenApiVersion): string {
  return target === 'v2' ? '#/definitions/' : '#/components/schemas/';
}

/** kube's friendly definition name for a group/version/kind: the group's DNS labels reversed (com.example.stable.v1.CronTab). */
export function friendlyName(group: string, version: string, kind: string): string {
  const reversedGroup = group.includes('.') ? group.split('.').reverse().join('.') : group;
  return [reversedGroup, version, kind].filter((p) => p !== '').join('.');
}

/** Package names of groups whose Go package is not named after the group's first label. */
const groupPackages: Record<string, string> = {
  '': 'io.k8s.api.core',
  'apiextensions.k8s.io': 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions',
  'apiregistration.k8s.io': 'io.k8s.kube-aggregator.pkg.apis.apiregistration',
  'internal.apiserver.k8s.io': 'io.k8s.api.apiserverinternal',
};

/** The model's definition name of a built-in kind, e.g. io.k8s.api.autoscaling.v1.Scale. */
export function builtInKindName(group: string, version: string, kind: string): string {
  return `${groupPackages[group] ?? `io.k8s.api.${group.split('.')[0]}`}.${version}.${kind}`;
}

function hasGvk(node: SchemaNode | undefined, group: string, version: string, kind: string): boolean {
  return !!node?.gvk?.some((g) => g.group === group && g.version === version && g.kind === kind);
}

/**
 * The definition name of a definition's kind: for built-ins the model's name (the schema's ref, or the name the
 * model files the kind under when the schema is inline), for CRDs the friendly name.
 */
export function kindDefinitionName(def: ResourceDefinition): string {
  if (!def.custom) {
    if (def.schema.ref) return def.schema.ref;
    const name = builtInKindName(def.group, def.version, def.kind);
    if (hasGvk(def.resolveRef(name), def.group, def.version, def.kind)) return name;
  }
  return friendlyName(def.group, def.version, def.kind);
}

/** The definition name of a definition's list kind (the kind's name with the list kind's last segment). */
export function listDefinitionName(def: ResourceDefinition): string {
  const kindName = kindDefinitionName(def);
  const dot = kindName.lastIndexOf('.');
  return `${kindName.slice(0, dot + 1)}${def.listKind}`;
}

const extensionNames: [keyof SchemaNode, string][] = [
  ['listType', 'x-kubernetes-list-type'],
  ['listMapKeys', 'x-kubernetes-list-map-keys'],
  ['mapType', 'x-kubernetes-map-type'],
  ['patchStrategy', 'x-kubernetes-patch-strategy'],
  ['patchMergeKey', 'x-kubernetes-patch-merge-key'],
  ['intOrString', 'x-kubernetes-int-or-string'],
  ['preserveUnknownFields', 'x-kubernetes-preserve-unknown-fields'],
  ['embeddedResource', 'x-kubernetes-embedded-resource'],
];

const validationKeys = [
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
] as const;

/** CRD schemas keep their own descriptions; built-in ones have none. */
function descriptionOf(node: SchemaNode): string | undefined {
  return node.description || undefined;
}

function gvkExtension(node: SchemaNode): Json[] | undefined {
  return node.gvk?.map((g) => ({ group: g.group, kind: g.kind, version: g.version }));
}

/** The model's form of intstr.IntOrString (format int-or-string, no type), as opposed to a CRD's int-or-string field. */
function isBuiltInIntOrString(node: SchemaNode): boolean {
  return node.format === 'int-or-string' && !node.type && !node.ref && !node.properties;
}

/**
 * One schema node as OpenAPI JSON. Every ref met is added to `refs`. v2 drops what kube prunes from its v2
 * document (defaults, nullable); v3 wraps a ref that has sibling keywords in allOf, as OpenAPI 3.0 requires.
 */
export function toOpenApiSchema(node: SchemaNode, target: OpenApiVersion, refs: Set<string>): Json {
  if (isBuiltInIntOrString(node)) {
    // intstr.IntOrString: a string in v2, one of integer and string in v3 (its OpenAPIV3OneOfTypes).
    return target === 'v2' ? { type: 'string', format: 'int-or-string' } : { oneOf: [{ type: 'integer' }, { type: 'string' }], format: 'int-or-string' };
  }
  const out: Json = {};
  const description = descriptionOf(node);
  if (description) out.description = description;
  if (node.type) out.type = node.type;
  if (node.format) out.format = node.format;
  if (node.items) out.items = toOpenApiSchema(node.items, target, refs);
  if (node.properties) {
    const props: Json = {};
    for (const [name, child] of Object.entries(node.properties)) props[name] = toOpenApiSchema(child, target, refs);
    out.properties = props;
  }
  if (node.additionalProperties !== undefined) {
    out.additionalProperties =
      typeof node.additionalProperties === 'boolean' ? node.additionalProperties : toOpenApiSchema(node.additionalProperties, target, refs);
  }
  if (node.required?.length) out.required = [...node.required];
  if (node.enum) out.enum = [...node.enum];
  if (target === 'v3') {
    if (node.default !== undefined) out.default = node.default;
    if (node.nullable) out.nullable = true;
  }
  for (const key of validationKeys) {
    if (node[key] !== undefined) out[key] = node[key];
  }
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = node[key];
    if (list) out[key] = list.map((n) => toOpenApiSchema(n, target, refs));
  }
  if (node.not) out.not = toOpenApiSchema(node.not, target, refs);
  for (const [key, name] of extensionNames) {
    const value = node[key];
    if (value !== undefined && value !== false) out[name] = Array.isArray(value) ? [...value] : value;
  }
  const gvk = gvkExtension(node);
  if (gvk) out['x-kubernetes-group-version-kind'] = gvk;
  if (node.unions) out['x-kubernetes-unions'] = node.unions.map((u) => ({ discriminator: u.discriminator, 'fields-to-discriminateBy': { ...u.fieldsToDiscriminateBy } }));
  if (node['x-kubernetes-validations']?.length) out['x-kubernetes-validations'] = node['x-kubernetes-validations'].map((v) => ({ ...v }));

  if (!node.ref) return out;
  refs.add(node.ref);
  const ref = { $ref: refPrefix(target) + node.ref };
  if (Object.keys(out).length === 0) return ref;
  if (target === 'v2') return { ...ref, ...out };
  const { allOf, ...rest } = out;
  return { ...rest, allOf: [ref, ...((allOf as Json[] | undefined) ?? [])] };
}

// ---- custom resources: the schema apiextensions publishes for a CRD version -------------------------------

function isIntOrStringPattern(list: readonly SchemaNode[] | undefined): boolean {
  return list?.length === 2 && list[0].type === 'integer' && list[1].type === 'string';
}

/** structural.Unfold: x-kubernetes-int-or-string gets its anyOf [integer, string] spelled out (v3). */
function unfold(node: SchemaNode): SchemaNode {
  const out: SchemaNode = { ...node };
  if (node.properties) out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, unfold(v)]));
  if (node.items) out.items = unfold(node.items);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') out.additionalProperties = unfold(node.additionalProperties);
  if (node.intOrString && !isIntOrStringPattern(node.anyOf) && !isIntOrStringPattern(node.allOf?.[0]?.anyOf)) {
    const pattern: SchemaNode[] = [{ type: 'integer' }, { type: 'string' }];
    if (!node.anyOf) out.anyOf = pattern;
    else out.allOf = [{ anyOf: pattern }, ...(node.allOf ?? [])];
  }
  return out;
}

/** ToStructuralOpenAPIV2: what kubectl's v2 reader cannot cope with is removed. */
function structuralV2(node: SchemaNode): SchemaNode {
  const out: SchemaNode = { ...node };
  delete out.allOf;
  delete out.anyOf;
  delete out.oneOf;
  delete out.not;
  delete out.default;
  if (node.nullable) {
    delete out.type;
    delete out.items;
    delete out.properties;
    delete out.nullable;
  }
  if (node.preserveUnknownFields) {
    delete out.items;
    delete out.properties;
  }
  if (!out.items && out.type === 'array') delete out.type;
  if (node.preserveUnknownFields && out.type === 'object') delete out.type;
  if (out.properties && out.required) {
    const nullable = new Set(Object.entries(out.properties).filter(([, p]) => p.nullable).map(([k]) => k));
    const required = out.required.filter((r) => !nullable.has(r));
    if (required.length) out.required = required;
    else delete out.required;
  }
  if (typeof out.additionalProperties === 'object' && out.additionalProperties.nullable) delete out.required;
  if (out.properties) out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, structuralV2(v)]));
  if (out.items) out.items = structuralV2(out.items);
  if (out.additionalProperties && typeof out.additionalProperties === 'object') out.additionalProperties = structuralV2(out.additionalProperties);
  return out;
}

const typeMetaProperties = (): Record<string, SchemaNode> => ({ apiVersion: { type: 'string' }, kind: { type: 'string' } });

/** Embedded resources get apiVersion, kind and metadata, apiVersion and kind required (addEmbeddedProperties). */
function addEmbeddedProperties(node: SchemaNode, target: OpenApiVersion): SchemaNode {
  const out: SchemaNode = { ...node };
  if (node.properties) out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, addEmbeddedProperties(v, target)]));
  if (node.items) out.items = addEmbeddedProperties(node.items, target);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') {
    out.additionalProperties = addEmbeddedProperties(node.additionalProperties, target);
  }
  if (node.preserveUnknownFields && target === 'v2') return out;
  if (node.embeddedResource) {
    out.properties = { ...out.properties, ...typeMetaProperties(), metadata: { ref: OBJECT_META } };
    const required = [...(out.required ?? [])];
    for (const r of ['kind', 'apiVersion']) if (!required.includes(r)) required.push(r);
    out.required = required;
  }
  return out;
}

/** The kind schema apiextensions builds for a CRD version (buildKubeNative). */
export function customKindSchema(def: ResourceDefinition, target: OpenApiVersion): SchemaNode {
  const gvk = [{ group: def.group, version: def.version, kind: def.kind }];
  const root = def.schema;
  const empty = !root || (Object.keys(root).length === 0);
  if (empty || (target === 'v2' && root.preserveUnknownFields)) return { type: 'object', gvk };
  let schema = target === 'v2' ? structuralV2(root) : unfold(root);
  schema = addEmbeddedProperties(schema, target);
  const properties = { ...schema.properties, metadata: { ref: OBJECT_META }, ...typeMetaProperties() };
  return { ...schema, properties, gvk };
}

/** A custom kind's schema, or an open object when its schema cannot be published (one bad CRD spoils no document). */
function publishable(build: () => SchemaNode, def: ResourceDefinition): SchemaNode {
  try {
    return build();
  } catch {
    return { type: 'object', gvk: [{ group: def.group, version: def.version, kind: def.kind }] };
  }
}

/** The list kind schema apiextensions builds for a CRD version (buildListSchema). */
export function customListSchema(def: ResourceDefinition): SchemaNode {
  return {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      items: { type: 'array', items: { ref: kindDefinitionName(def) } },
      kind: { type: 'string' },
      metadata: { ref: LIST_META },
    },
    required: ['items'],
    gvk: [{ group: def.group, version: def.version, kind: def.listKind }],
  };
}

// ---- the catalog: every schema a document may reference ----------------------------------------------------

export interface SchemaCatalog {
  readonly target: OpenApiVersion;
  /** The schema of a definition name, or undefined when nothing defines it. */
  resolve(name: string): SchemaNode | undefined;
  /** The definition name of a kind, when a schema for it is known. */
  kindName(group: string, version: string, kind: string): string | undefined;
  /** A definition translated for the target with the names it references; memoized (documents share them). */
  translate(name: string): { readonly schema: Json; readonly refs: readonly string[] };
}

/**
 * Resolves definition names for one document version: the synthesized schemas of custom resources (and of
 * list kinds the model lacks) first, then the definitions' own resolveRef, then Capstan's meta fallbacks.
 */
export function schemaCatalog(defs: readonly ResourceDefinition[], target: OpenApiVersion): SchemaCatalog {
  const synthesized = new Map<string, SchemaNode>();
  const kindNames = new Map<string, string>();
  const resolvers: ((ref: string) => SchemaNode | undefined)[] = [];
  for (const def of defs) {
    if (!def.custom && !resolvers.includes(def.resolveRef)) resolvers.push(def.resolveRef);
  }
  for (const def of defs) if (def.custom && !resolvers.includes(def.resolveRef)) resolvers.push(def.resolveRef);

  const resolved = new Map<string, SchemaNode | undefined>();
  const lookup = (name: string): SchemaNode | undefined => {
    if (synthesized.has(name)) return synthesized.get(name);
    if (resolved.has(name)) return resolved.get(name);
    let node: SchemaNode | undefined;
    for (const resolve of resolvers) {
      node = resolve(name);
      if (node) break;
    }
    node ??= fallbackMetaSchema(name);
    resolved.set(name, node);
    return node;
  };

  for (const def of defs) {
    const name = kindDefinitionName(def);
    kindNames.set(`${def.group}/${def.version}/${def.kind}`, name);
    // Custom kinds are shaped as apiextensions publishes them; a built-in schema the model does not know by
    // name is published under the friendly name.
    if (def.custom) synthesized.set(name, publishable(() => customKindSchema(def, target), def));
    else if (!def.schema.ref && !lookup(name)) synthesized.set(name, { ...def.schema, gvk: def.schema.gvk ?? [{ group: def.group, version: def.version, kind: def.kind }] });
    const listName = listDefinitionName(def);
    kindNames.set(`${def.group}/${def.version}/${def.listKind}`, listName);
    if (def.custom || !lookup(listName)) synthesized.set(listName, customListSchema(def));
  }

  const translations = new Map<string, { schema: Json; refs: string[] }>();
  return {
    target,
    resolve: lookup,
    translate(name) {
      let t = translations.get(name);
      if (!t) {
        const node = lookup(name);
        const refs = new Set<string>();
        let schema: Json;
        try {
          // A name nothing defines still gets an (open) schema so that every $ref in a document resolves.
          schema = node ? toOpenApiSchema(node, target, refs) : { type: 'object' };
        } catch {
          refs.clear();
          schema = { type: 'object' };
        }
        t = { schema, refs: [...refs] };
        translations.set(name, t);
      }
      return t;
    },
    kindName(group, version, kind) {
      const known = kindNames.get(`${group}/${version}/${kind}`);
      if (known) return known;
      const guess = builtInKindName(group, version, kind);
      return hasGvk(lookup(guess), group, version, kind) ? guess : undefined;
    },
  };
}

/** Every definition reachable from `roots`, in name order, translated for the catalog's target. */
export function schemaClosure(catalog: SchemaCatalog, roots: Iterable<string>): Map<string, Json> {
  const translated = new Map<string, Json>();
  const pending = [...roots];
  while (pending.length) {
    const name = pending.pop()!;
    if (translated.has(name)) continue;
    const { schema, refs } = catalog.translate(name);
    translated.set(name, schema);
    for (const ref of refs) if (!translated.has(ref)) pending.push(ref);
  }
  return new Map([...translated].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
