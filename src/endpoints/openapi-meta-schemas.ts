// Schemas of the meta/v1 types the OpenAPI paths name (Status, DeleteOptions, WatchEvent, Patch, discovery
// documents, object and list metadata). The built-in model normally provides them; these stand in when the
// served definitions cannot resolve one (a registry holding only custom resources, for instance).

import type { SchemaNode } from '../apis/model-types.ts';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const OBJECT_META = `${META}.ObjectMeta`;
export const LIST_META = `${META}.ListMeta`;
export const STATUS = `${META}.Status`;
export const DELETE_OPTIONS = `${META}.DeleteOptions`;
export const WATCH_EVENT = `${META}.WatchEvent`;
export const PATCH = `${META}.Patch`;
export const API_RESOURCE_LIST = `${META}.APIResourceList`;
export const API_GROUP = `${META}.APIGroup`;
export const API_GROUP_LIST = `${META}.APIGroupList`;
export const API_VERSIONS = `${META}.APIVersions`;
export const VERSION_INFO = 'io.k8s.apimachinery.pkg.version.Info';

const versionFields = ['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform'];

const str: SchemaNode = { type: 'string' };
const bool: SchemaNode = { type: 'boolean' };
const int32: SchemaNode = { type: 'integer', format: 'int32' };
const int64: SchemaNode = { type: 'integer', format: 'int64' };
const time: SchemaNode = { ref: `${META}.Time` };
const strings: SchemaNode = { type: 'array', items: str, listType: 'atomic' };
const stringMap: SchemaNode = { type: 'object', additionalProperties: str };
const typeMeta = { apiVersion: str, kind: str };
const v1 = (kind: string) => [{ group: '', version: 'v1', kind }];

const schemas: Record<string, SchemaNode> = {
  [VERSION_INFO]: {
    type: 'object',
    properties: Object.fromEntries(versionFields.map((f) => [f, { type: 'string' }])),
    required: versionFields,
  },
  [`${META}.Time`]: { type: 'string', format: 'date-time' },
  [`${META}.MicroTime`]: { type: 'string', format: 'date-time' },
  [`${META}.FieldsV1`]: { type: 'object' },
  'io.k8s.apimachinery.pkg.runtime.RawExtension': { type: 'object' },
  [PATCH]: { type: 'object' },
  [LIST_META]: {
    type: 'object',
    properties: { continue: str, remainingItemCount: int64, resourceVersion: str, selfLink: str },
  },
  [`${META}.OwnerReference`]: {
    type: 'object',
    properties: { apiVersion: str, blockOwnerDeletion: bool, controller: bool, kind: str, name: str, uid: str },
    required: ['apiVersion', 'kind', 'name', 'uid'],
    mapType: 'atomic',
  },
  [`${META}.ManagedFieldsEntry`]: {
    type: 'object',
    properties: {
      apiVersion: str,
      fieldsType: str,
      fieldsV1: { ref: `${META}.FieldsV1` },
      manager: str,
      operation: str,
      subresource: str,
      time,
    },
  },
  [OBJECT_META]: {
    type: 'object',
    properties: {
      annotations: stringMap,
      creationTimestamp: time,
      deletionGracePeriodSeconds: int64,
      deletionTimestamp: time,
      finalizers: { type: 'array', items: str, listType: 'set', patchStrategy: 'merge' },
      generateName: str,
      generation: int64,
      labels: stringMap,
      managedFields: { type: 'array', items: { ref: `${META}.ManagedFieldsEntry` }, listType: 'atomic' },
      name: str,
      namespace: str,
      ownerReferences: {
        type: 'array',
        items: { ref: `${META}.OwnerReference` },
        listType: 'map',
        listMapKeys: ['uid'],
        patchStrategy: 'merge',
        patchMergeKey: 'uid',
      },
      resourceVersion: str,
      selfLink: str,
      uid: str,
    },
  },
  [`${META}.StatusCause`]: { type: 'object', properties: { field: str, message: str, reason: str } },
  [`${META}.StatusDetails`]: {
    type: 'object',
    properties: {
      causes: { type: 'array', items: { ref: `${META}.StatusCause` }, listType: 'atomic' },
      group: str,
      kind: str,
      name: str,
      retryAfterSeconds: int32,
      uid: str,
    },
  },
  [STATUS]: {
    type: 'object',
    properties: {
      ...typeMeta,
      code: int32,
      details: { ref: `${META}.StatusDetails`, listType: 'atomic' },
      message: str,
      metadata: { ref: LIST_META },
      reason: str,
      status: str,
    },
    gvk: v1('Status'),
  },
  [`${META}.Preconditions`]: { type: 'object', properties: { resourceVersion: str, uid: str } },
  [DELETE_OPTIONS]: {
    type: 'object',
    properties: {
      ...typeMeta,
      dryRun: strings,
      gracePeriodSeconds: int64,
      orphanDependents: bool,
      preconditions: { ref: `${META}.Preconditions` },
      propagationPolicy: str,
    },
    gvk: v1('DeleteOptions'),
  },
  [WATCH_EVENT]: {
    type: 'object',
    properties: { object: { ref: 'io.k8s.apimachinery.pkg.runtime.RawExtension' }, type: str },
    required: ['type', 'object'],
    gvk: v1('WatchEvent'),
  },
  [`${META}.APIResource`]: {
    type: 'object',
    properties: {
      categories: strings,
      group: str,
      kind: str,
      name: str,
      namespaced: bool,
      shortNames: strings,
      singularName: str,
      storageVersionHash: str,
      verbs: { type: 'array', items: str },
      version: str,
    },
    required: ['name', 'singularName', 'namespaced', 'kind', 'verbs'],
  },
  [API_RESOURCE_LIST]: {
    type: 'object',
    properties: { ...typeMeta, groupVersion: str, resources: { type: 'array', items: { ref: `${META}.APIResource` }, listType: 'atomic' } },
    required: ['groupVersion', 'resources'],
    gvk: v1('APIResourceList'),
  },
  [`${META}.GroupVersionForDiscovery`]: {
    type: 'object',
    properties: { groupVersion: str, version: str },
    required: ['groupVersion', 'version'],
  },
  [`${META}.ServerAddressByClientCIDR`]: {
    type: 'object',
    properties: { clientCIDR: str, serverAddress: str },
    required: ['clientCIDR', 'serverAddress'],
  },
  [API_GROUP]: {
    type: 'object',
    properties: {
      ...typeMeta,
      name: str,
      preferredVersion: { ref: `${META}.GroupVersionForDiscovery` },
      serverAddressByClientCIDRs: { type: 'array', items: { ref: `${META}.ServerAddressByClientCIDR` }, listType: 'atomic' },
      versions: { type: 'array', items: { ref: `${META}.GroupVersionForDiscovery` }, listType: 'atomic' },
    },
    required: ['name', 'versions'],
    gvk: v1('APIGroup'),
  },
  [API_GROUP_LIST]: {
    type: 'object',
    properties: { ...typeMeta, groups: { type: 'array', items: { ref: API_GROUP }, listType: 'atomic' } },
    required: ['groups'],
    gvk: v1('APIGroupList'),
  },
  [API_VERSIONS]: {
    type: 'object',
    properties: {
      ...typeMeta,
      serverAddressByClientCIDRs: { type: 'array', items: { ref: `${META}.ServerAddressByClientCIDR` }, listType: 'atomic' },
      versions: strings,
    },
    required: ['versions', 'serverAddressByClientCIDRs'],
    gvk: v1('APIVersions'),
  },
};

export function fallbackMetaSchema(name: string): SchemaNode | undefined {
  return Object.hasOwn(schemas, name) ? schemas[name] : undefined;
}
