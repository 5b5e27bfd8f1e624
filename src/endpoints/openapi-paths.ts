// The operations kube-apiserver publishes for each resource (routes, operation ids, x-kubernetes-action and
// x-kubernetes-group-version-kind, parameters, bodies, responses), modelled once and rendered as OpenAPI v2
// path items or v3 path items.

import type { SubresourceFacts } from '../apis/model-types.ts';
import type { ResourceDefinition } from '../registry/types.ts';
import { API_GROUP, API_GROUP_LIST, API_RESOURCE_LIST, API_VERSIONS, DELETE_OPTIONS, PATCH, STATUS, VERSION_INFO, WATCH_EVENT } from './openapi-meta-schemas.ts';
import { refPrefix, type Json, type OpenApiVersion, type SchemaCatalog } from './openapi-schemas.ts';
import { isServedSubresource } from './router.ts';

type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch';
const methodOrder: HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

export interface ParamSpec {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly type: 'string' | 'boolean' | 'integer';
}

export interface ResponseSpec {
  readonly code: string;
  readonly description: string;
  /** A definition name, 'string' for raw bodies, or undefined for no body. */
  readonly schema?: string;
}

export interface OperationSpec {
  readonly method: HttpMethod;
  readonly operationId: string;
  readonly tag: string;
  readonly action?: string;
  readonly gvk?: { group: string; kind: string; version: string };
  readonly consumes: readonly string[];
  readonly produces: readonly string[];
  readonly params: readonly ParamSpec[];
  readonly body?: { readonly schema: string; readonly required: boolean };
  readonly responses: readonly ResponseSpec[];
}

export interface PathSpec {
  readonly path: string;
  /** The document ("api/v1", "apis/apps", "api"...) the path belongs to in OpenAPI v3. */
  readonly document: string;
  readonly params: readonly ParamSpec[];
  readonly operations: readonly OperationSpec[];
}

const STRING_BODY = 'string';

/** Resources whose delete answers with the deleted object rather than a Status (kube's ReturnDeletedObject). */
const deleteReturnsObject = new Set([
  '/persistentvolumeclaims',
  '/persistentvolumes',
  '/pods',
  '/podtemplates',
  '/resourcequotas',
  '/serviceaccounts',
  '/services',
  'storage.k8s.io/csidrivers',
  'storage.k8s.io/csinodes',
  'storage.k8s.io/storageclasses',
  'storage.k8s.io/volumeattachments',
]);

const q = (name: string, type: ParamSpec['type'] = 'string'): ParamSpec => ({ name, in: 'query', type });
const pathParam = (name: string): ParamSpec => ({ name, in: 'path', type: 'string' });

const pretty = q('pretty');
const listParams: ParamSpec[] = [
  q('allowWatchBookmarks', 'boolean'),
  q('continue'),
  q('fieldSelector'),
  q('labelSelector'),
  q('limit', 'integer'),
  q('resourceVersion'),
  q('resourceVersionMatch'),
  q('sendInitialEvents', 'boolean'),
  q('timeoutSeconds', 'integer'),
  q('watch', 'boolean'),
];
const writeParams: ParamSpec[] = [q('dryRun'), q('fieldManager'), q('fieldValidation')];
const patchParams: ParamSpec[] = [...writeParams, q('force', 'boolean')];
const deleteParams: ParamSpec[] = [q('dryRun'), q('gracePeriodSeconds', 'integer'), q('orphanDependents', 'boolean'), q('propagationPolicy')];
const deleteCollectionParams: ParamSpec[] = [
  q('continue'),
  q('dryRun'),
  q('fieldSelector'),
  q('gracePeriodSeconds', 'integer'),
  q('labelSelector'),
  q('limit', 'integer'),
  q('orphanDependents', 'boolean'),
  q('propagationPolicy'),
  q('resourceVersion'),
  q('resourceVersionMatch'),
  q('sendInitialEvents', 'boolean'),
  q('timeoutSeconds', 'integer'),
];

/** Query parameters of the connect and log subresources, from their options kinds. */
const optionsParams: Record<string, ParamSpec[]> = {
  PodAttachOptions: [q('container'), q('stderr', 'boolean'), q('stdin', 'boolean'), q('stdout', 'boolean'), q('tty', 'boolean')],
  PodExecOptions: [q('command'), q('container'), q('stderr', 'boolean'), q('stdin', 'boolean'), q('stdout', 'boolean'), q('tty', 'boolean')],
  PodPortForwardOptions: [q('ports', 'integer')],
  PodProxyOptions: [q('path')],
  NodeProxyOptions: [q('path')],
  ServiceProxyOptions: [q('path')],
};
const logParams: ParamSpec[] = [
  q('container'),
  q('follow', 'boolean'),
  q('insecureSkipTLSVerifyBackend', 'boolean'),
  q('limitBytes', 'integer'),
  q('previous', 'boolean'),
  q('sinceSeconds', 'integer'),
  q('tailLines', 'integer'),
  q('timestamps', 'boolean'),
];

const BUILT_IN_MEDIA = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const WATCH_MEDIA = ['application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];
const BUILT_IN_PATCH = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];
const CUSTOM_MEDIA = ['application/json', 'application/yaml'];
const CUSTOM_PATCH = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

/** kube's ToValidOperationID: letters, '_' and non-leading digits kept; anything else upper-cases the next letter. */
export function toValidOperationId(s: string, capitalizeFirst: boolean): string {
  let out = '';
  let capitalize = capitalizeFirst;
  let i = 0;
  for (const ch of s) {
    const letter = /\p{L}/u.test(ch);
    if (letter || ch === '_' || (i !== 0 && /\p{Nd}/u.test(ch))) {
      out += capitalize ? ch.toUpperCase() : ch;
      capitalize = false;
    } else {
      capitalize = true;
    }
    i++;
  }
  return out;
}

function groupToken(group: string): string {
  const g = group || 'core';
  return g.endsWith('.k8s.io') ? g.slice(0, -'.k8s.io'.length) : g;
}

/** GetOperationIDAndTags: "<verb><Group><Version><Rest>" and the "<group>_<version>" tag. */
function operationId(verb: string, group: string, version: string | undefined, rest: string): string {
  return verb + toValidOperationId(groupToken(group), true) + (version ? toValidOperationId(version, true) : '') + toValidOperationId(rest, true);
}

function tagOf(group: string, version?: string): string {
  const g = toValidOperationId(groupToken(group), false);
  return version ? `${g}_${toValidOperationId(version, false)}` : g;
}

const title = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) : s);

function documentOf(group: string, version?: string): string {
  if (!group) return version ? `api/${version}` : 'api';
  return version ? `apis/${group}/${version}` : `apis/${group}`;
}

function basePath(group: string, version: string): string {
  return group ? `/apis/${group}/${version}` : `/api/${version}`;
}

interface Context {
  readonly def: ResourceDefinition;
  readonly catalog: SchemaCatalog;
  readonly tag: string;
  readonly media: readonly string[];
  readonly patchMedia: readonly string[];
  readonly writeConsumes: readonly string[];
  readonly ns: string;
}

/** An operation of the context's resource; `pretty` is accepted by every operation but connect. */
function op(ctx: Context, spec: Omit<OperationSpec, 'tag' | 'consumes' | 'produces'> & Partial<Pick<OperationSpec, 'consumes' | 'produces'>>): OperationSpec {
  const params = spec.action === 'connect' ? spec.params : [...spec.params, pretty];
  return { tag: ctx.tag, consumes: ctx.writeConsumes, produces: ctx.media, ...spec, params };
}

function ok(schema: string | undefined, ...extra: ('201' | '202')[]): ResponseSpec[] {
  const descriptions = { '201': 'Created', '202': 'Accepted' };
  return [{ code: '200', description: 'OK', schema }, ...extra.map((c) => ({ code: c, description: descriptions[c], schema })), { code: '401', description: 'Unauthorized' }];
}

function gvkOf(def: ResourceDefinition, sub?: SubresourceFacts): { group: string; kind: string; version: string } {
  if (!sub) return { group: def.group, kind: def.kind, version: def.version };
  const scale = sub.kind === 'Scale' && sub.group === undefined;
  return { group: sub.group ?? (scale ? 'autoscaling' : def.group), kind: sub.kind, version: sub.version ?? (scale ? 'v1' : def.version) };
}

function kindSchema(ctx: Context, sub?: SubresourceFacts): string | undefined {
  const gvk = gvkOf(ctx.def, sub);
  return ctx.catalog.kindName(gvk.group, gvk.version, gvk.kind);
}

function listSchema(ctx: Context): string | undefined {
  return ctx.catalog.kindName(ctx.def.group, ctx.def.version, ctx.def.listKind);
}

function has(verbs: readonly string[], verb: string): boolean {
  return verbs.includes(verb);
}

function byName(a: ParamSpec, b: ParamSpec): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The item operations (read, replace, delete, patch, create) of a resource or of a non-connect subresource. */
function itemOperations(ctx: Context, verbs: readonly string[], sub?: SubresourceFacts): OperationSpec[] {
  const { def } = ctx;
  const rest = `${ctx.ns}${def.kind}${title(sub?.name ?? '')}`;
  const schema = kindSchema(ctx, sub);
  // apiextensions tags every route of a custom resource, scale included, with the resource's own kind.
  const gvk = def.custom ? gvkOf(def) : gvkOf(def, sub);
  const ops: OperationSpec[] = [];
  if (has(verbs, 'get')) ops.push(op(ctx, { method: 'get', operationId: operationId('read', def.group, def.version, rest), action: 'get', gvk, params: [], responses: ok(schema) }));
  if (has(verbs, 'update') && schema) {
    ops.push(op(ctx, { method: 'put', operationId: operationId('replace', def.group, def.version, rest), action: 'put', gvk, params: writeParams, body: { schema, required: true }, responses: ok(schema, '201') }));
  }
  if (sub && has(verbs, 'create') && schema) {
    ops.push(op(ctx, { method: 'post', operationId: operationId('create', def.group, def.version, rest), action: 'post', gvk, params: writeParams, body: { schema, required: true }, responses: ok(schema, '201', '202') }));
  }
  if (has(verbs, 'delete')) {
    const deleted = !sub && deleteReturnsObject.has(`${def.group}/${def.resource}`) ? schema : STATUS;
    ops.push(op(ctx, { method: 'delete', operationId: operationId('delete', def.group, def.version, rest), action: 'delete', gvk, params: deleteParams, body: { schema: DELETE_OPTIONS, required: false }, responses: ok(deleted, '202') }));
  }
  if (has(verbs, 'patch')) {
    ops.push(op(ctx, { method: 'patch', operationId: operationId('patch', def.group, def.version, rest), action: 'patch', gvk, consumes: ctx.patchMedia, params: patchParams, body: { schema: PATCH, required: true }, responses: ok(schema, '201') }));
  }
  return ops;
}

const connectMethods: [string, HttpMethod][] = [
  ['get', 'get'],
  ['update', 'put'],
  ['create', 'post'],
  ['delete', 'delete'],
  ['patch', 'patch'],
];

/** attach, exec, portforward and proxy: connect operations taking their options as query parameters. */
function connectPaths(ctx: Context, item: string, itemParams: ParamSpec[], sub: SubresourceFacts): PathSpec[] {
  const { def } = ctx;
  const gvk = gvkOf(def, sub);
  const methods = connectMethods.filter(([verb]) => has(sub.verbs, verb)).map(([, m]) => m);
  // Proxies also answer HEAD and OPTIONS.
  if (sub.name === 'proxy') methods.push('options', 'head');
  const options = optionsParams[sub.kind] ?? [];
  const operations = (suffix: string) =>
    methods.map((m) =>
      op(ctx, {
        method: m,
        operationId: operationId('connect', def.group, def.version, `${title(m)}${ctx.ns}${def.kind}${title(sub.name)}${suffix}`),
        action: 'connect',
        gvk,
        consumes: ['*/*'],
        produces: ['*/*'],
        params: options,
        responses: ok(STRING_BODY),
      }),
    );
  const paths: PathSpec[] = [{ path: `${item}/${sub.name}`, document: documentOf(def.group, def.version), params: itemParams, operations: operations('') }];
  if (sub.name === 'proxy') {
    paths.push({ path: `${item}/${sub.name}/{path}`, document: documentOf(def.group, def.version), params: [...itemParams, pathParam('path')], operations: operations('WithPath') });
  }
  return paths;
}

function isConnect(sub: SubresourceFacts): boolean {
  return sub.kind.endsWith('Options');
}

/** Every path kube-apiserver publishes for one served definition. */
export function definitionPaths(def: ResourceDefinition, catalog: SchemaCatalog): PathSpec[] {
  const ctx: Context = {
    def,
    catalog,
    tag: tagOf(def.group, def.version),
    media: def.custom ? CUSTOM_MEDIA : BUILT_IN_MEDIA,
    patchMedia: def.custom ? CUSTOM_PATCH : BUILT_IN_PATCH,
    writeConsumes: def.custom ? CUSTOM_MEDIA : ['*/*'],
    ns: def.namespaced ? 'Namespaced' : '',
  };
  const document = documentOf(def.group, def.version);
  const base = basePath(def.group, def.version);
  const scope = def.namespaced ? `${base}/namespaces/{namespace}` : base;
  const collection = `${scope}/${def.resource}`;
  const item = `${collection}/{name}`;
  const scopeParams = def.namespaced ? [pathParam('namespace')] : [];
  const itemParams = [pathParam('name'), ...scopeParams];
  const verbs = def.verbs;
  const gvk = gvkOf(def);
  const kind = kindSchema(ctx);
  const list = listSchema(ctx);
  const listMedia = def.custom ? ctx.media : [...ctx.media, ...WATCH_MEDIA];
  const paths: PathSpec[] = [];

  const collectionOps: OperationSpec[] = [];
  if (has(verbs, 'list')) {
    collectionOps.push(op(ctx, { method: 'get', operationId: operationId('list', def.group, def.version, `${ctx.ns}${def.kind}`), action: 'list', gvk, produces: listMedia, params: listParams, responses: ok(list) }));
  }
  if (has(verbs, 'create') && kind) {
    collectionOps.push(op(ctx, { method: 'post', operationId: operationId('create', def.group, def.version, `${ctx.ns}${def.kind}`), action: 'post', gvk, params: writeParams, body: { schema: kind, required: true }, responses: ok(kind, '201', '202') }));
  }
  if (has(verbs, 'deletecollection')) {
    collectionOps.push(op(ctx, { method: 'delete', operationId: operationId('delete', def.group, def.version, `Collection${ctx.ns}${def.kind}`), action: 'deletecollection', gvk, params: deleteCollectionParams, body: { schema: DELETE_OPTIONS, required: false }, responses: ok(STATUS) }));
  }
  if (collectionOps.length) paths.push({ path: collection, document, params: scopeParams, operations: collectionOps });

  if (def.namespaced && has(verbs, 'list')) {
    paths.push({
      path: `${base}/${def.resource}`,
      document,
      params: [],
      operations: [op(ctx, { method: 'get', operationId: operationId('list', def.group, def.version, `${def.kind}ForAllNamespaces`), action: 'list', gvk, produces: listMedia, params: listParams, responses: ok(list) })],
    });
  }

  const itemOps = itemOperations(ctx, verbs);
  if (itemOps.length) paths.push({ path: item, document, params: itemParams, operations: itemOps });

  // Watch paths (deprecated in kube, still published for built-in resources; apiextensions publishes none).
  if (has(verbs, 'watch') && !def.custom) {
    const watchBase = `${base}/watch`;
    const watchScope = def.namespaced ? `${watchBase}/namespaces/{namespace}` : watchBase;
    const watchOp = (rest: string, action: string) =>
      op(ctx, { method: 'get', operationId: operationId('watch', def.group, def.version, rest), action, gvk, produces: listMedia, params: listParams, responses: ok(WATCH_EVENT) });
    paths.push({ path: `${watchScope}/${def.resource}`, document, params: scopeParams, operations: [watchOp(`${ctx.ns}${def.kind}List`, 'watchlist')] });
    paths.push({ path: `${watchScope}/${def.resource}/{name}`, document, params: itemParams, operations: [watchOp(`${ctx.ns}${def.kind}`, 'watch')] });
    if (def.namespaced) {
      paths.push({ path: `${watchBase}/${def.resource}`, document, params: [], operations: [watchOp(`${def.kind}ListForAllNamespaces`, 'watchlist')] });
    }
  }

  for (const sub of def.subresources.filter((x) => isServedSubresource(def, x.name))) {
    if (isConnect(sub)) {
      paths.push(...connectPaths(ctx, item, itemParams, sub));
    } else if (sub.name === 'log') {
      const readLog = op(ctx, {
        method: 'get',
        operationId: operationId('read', def.group, def.version, `${ctx.ns}${def.kind}Log`),
        action: 'get',
        gvk: gvkOf(def, sub),
        produces: ['text/plain', ...BUILT_IN_MEDIA],
        params: logParams,
        responses: ok(STRING_BODY),
      });
      paths.push({ path: `${item}/log`, document, params: itemParams, operations: [readLog] });
    } else {
      const ops = itemOperations(ctx, sub.verbs, sub);
      if (ops.length) paths.push({ path: `${item}/${sub.name}`, document, params: itemParams, operations: ops });
    }
  }
  return paths;
}

const DISCOVERY_MEDIA = BUILT_IN_MEDIA;

function discoveryOperation(operationIdValue: string, tag: string, schema: string): OperationSpec {
  return { method: 'get', operationId: operationIdValue, tag, consumes: DISCOVERY_MEDIA, produces: DISCOVERY_MEDIA, params: [], responses: ok(schema) };
}

/** The discovery paths of the built-in groups (/api/, /api/v1/, /apis/, /apis/<g>/, /apis/<g>/<v>/) and /version/. */
export function discoveryPaths(defs: readonly ResourceDefinition[]): PathSpec[] {
  const paths: PathSpec[] = [];
  const groups = new Map<string, Set<string>>();
  for (const def of defs) {
    if (def.custom) continue;
    let versions = groups.get(def.group);
    if (!versions) groups.set(def.group, (versions = new Set()));
    versions.add(def.version);
  }
  if (groups.has('')) {
    paths.push({ path: '/api/', document: 'api', params: [], operations: [discoveryOperation('getCoreAPIVersions', 'core', API_VERSIONS)] });
  }
  paths.push({
    path: '/version/',
    document: 'version',
    params: [],
    operations: [{ method: 'get', operationId: 'getCodeVersion', tag: 'version', consumes: ['application/json'], produces: ['application/json'], params: [], responses: ok(VERSION_INFO) }],
  });
  if ([...groups.keys()].some((g) => g !== '')) {
    paths.push({ path: '/apis/', document: 'apis', params: [], operations: [discoveryOperation('getAPIVersions', 'apis', API_GROUP_LIST)] });
  }
  for (const [group, versions] of groups) {
    if (group) {
      paths.push({ path: `/apis/${group}/`, document: documentOf(group), params: [], operations: [discoveryOperation(operationId('get', group, undefined, 'APIGroup'), tagOf(group), API_GROUP)] });
    }
    for (const version of versions) {
      paths.push({
        path: `${basePath(group, version)}/`,
        document: documentOf(group, version),
        params: [],
        operations: [discoveryOperation(operationId('get', group, version, 'APIResources'), tagOf(group, version), API_RESOURCE_LIST)],
      });
    }
  }
  return paths;
}

/** Definition names the operations of `paths` reference. */
export function referencedSchemas(paths: readonly PathSpec[]): Set<string> {
  const names = new Set<string>();
  for (const p of paths) {
    for (const o of p.operations) {
      if (o.body) names.add(o.body.schema);
      for (const r of o.responses) if (r.schema && r.schema !== STRING_BODY) names.add(r.schema);
    }
  }
  return names;
}

// ---- rendering ---------------------------------------------------------------------------------------------

function schemaRef(name: string, target: OpenApiVersion): Json {
  return name === STRING_BODY ? { type: 'string' } : { $ref: refPrefix(target) + name };
}

function renderParam(p: ParamSpec, target: OpenApiVersion): Json {
  const required = p.in === 'path' ? { required: true } : {};
  if (target === 'v2') return { name: p.name, in: p.in, ...required, type: p.type, uniqueItems: true };
  return { name: p.name, in: p.in, ...required, schema: { type: p.type, uniqueItems: true } };
}

function renderResponses(o: OperationSpec, target: OpenApiVersion): Json {
  const out: Json = {};
  for (const r of o.responses) {
    if (!r.schema) {
      out[r.code] = { description: r.description };
    } else if (target === 'v2') {
      out[r.code] = { description: r.description, schema: schemaRef(r.schema, target) };
    } else {
      const content: Json = {};
      for (const mt of o.produces) content[mt] = { schema: schemaRef(r.schema, target) };
      out[r.code] = { description: r.description, content };
    }
  }
  return out;
}

function renderOperation(o: OperationSpec, target: OpenApiVersion): Json {
  const extensions: Json = {};
  if (o.action) extensions['x-kubernetes-action'] = o.action;
  if (o.gvk) extensions['x-kubernetes-group-version-kind'] = { ...o.gvk };
  const params = o.params.map((p) => renderParam(p, target));
  if (target === 'v2') {
    const body = o.body ? [{ name: 'body', in: 'body', ...(o.body.required ? { required: true } : {}), schema: schemaRef(o.body.schema, target) }] : [];
    const parameters = [...body, ...params];
    return {
      consumes: [...o.consumes],
      produces: [...o.produces],
      schemes: ['https'],
      tags: [o.tag],
      operationId: o.operationId,
      ...(parameters.length ? { parameters } : {}),
      responses: renderResponses(o, target),
      ...extensions,
    };
  }
  const out: Json = { tags: [o.tag], operationId: o.operationId };
  if (params.length) out.parameters = params;
  if (o.body) {
    const content: Json = {};
    for (const mt of o.consumes) content[mt] = { schema: schemaRef(o.body.schema, target) };
    out.requestBody = o.body.required ? { content, required: true } : { content };
  }
  out.responses = renderResponses(o, target);
  return { ...out, ...extensions };
}

const paramKey = (p: ParamSpec) => `${p.in}:${p.name}:${p.type}`;

function byNameThenIn(a: ParamSpec, b: ParamSpec): number {
  return byName(a, b) || (a.in < b.in ? -1 : a.in > b.in ? 1 : 0);
}

/**
 * The "paths" object of a document, paths in name order. As kube-openapi does, parameters every operation of a
 * path shares move up to the path item.
 */
export function renderPaths(paths: readonly PathSpec[], target: OpenApiVersion): Json {
  const sorted = [...paths].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const out: Json = {};
  for (const p of sorted) {
    const ops = [...p.operations].sort((a, b) => methodOrder.indexOf(a.method) - methodOrder.indexOf(b.method));
    const common = new Map<string, ParamSpec>(ops.length ? ops[0].params.map((x) => [paramKey(x), x]) : []);
    for (const o of ops.slice(1)) {
      const keys = new Set(o.params.map(paramKey));
      for (const key of [...common.keys()]) if (!keys.has(key)) common.delete(key);
    }
    const item: Json = {};
    for (const o of ops) {
      const own = o.params.filter((x) => !common.has(paramKey(x))).sort(byNameThenIn);
      item[o.method] = renderOperation({ ...o, params: own }, target);
    }
    const shared = [...p.params, ...common.values()].sort(byNameThenIn);
    if (shared.length) item.parameters = shared.map((x) => renderParam(x, target));
    out[p.path] = item;
  }
  return out;
}
