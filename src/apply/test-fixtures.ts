// Resource definitions and helpers for the apply tests: built-in definitions made from the real model, and a
// custom-resource-like definition with an inline schema.

import type { SchemaNode } from '../apis/model-types.ts';
import { resourceFacts, schemaByName } from '../apis/model.ts';
import type { ResourceDefinition } from '../registry/types.ts';

export function builtinDef(group: string, version: string, resource: string): ResourceDefinition {
  const f = resourceFacts(group, version, resource);
  if (!f) throw new Error(`no resource ${group}/${version}/${resource} in the model`);
  return {
    group,
    version,
    resource,
    singularName: f.singularName,
    kind: f.kind,
    listKind: `${f.kind}List`,
    namespaced: f.namespaced,
    verbs: f.verbs,
    shortNames: f.shortNames ?? [],
    categories: f.categories ?? [],
    subresources: f.subresources ?? [],
    storagePrefix: `/registry/${group ? `${group}/` : ''}${resource}`,
    schema: { ref: f.schema },
    resolveRef: (name) => schemaByName(name),
    strategy: {},
    printerColumns: [],
    selectableFields: {},
    custom: false,
  };
}

const WIDGET_SCHEMA: SchemaNode = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        tags: { type: 'array', items: { type: 'string' } },
        aliases: { type: 'array', listType: 'set', items: { type: 'string' } },
        ports: {
          type: 'array',
          listType: 'map',
          listMapKeys: ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        endpoints: {
          type: 'array',
          listType: 'map',
          listMapKeys: ['host', 'protocol'],
          items: {
            type: 'object',
            properties: { host: { type: 'string' }, protocol: { type: 'string', default: 'TCP' }, weight: { type: 'integer' } },
          },
        },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        selector: { type: 'object', additionalProperties: { type: 'string' }, mapType: 'atomic' },
        config: { type: 'object', preserveUnknownFields: true },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string' }, ready: { type: 'integer' } } },
  },
};

/** A namespaced custom resource "widgets.example.com/v1" with a status subresource. */
export function widgetDef(): ResourceDefinition {
  return {
    group: 'example.com',
    version: 'v1',
    resource: 'widgets',
    singularName: 'widget',
    kind: 'Widget',
    listKind: 'WidgetList',
    namespaced: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: [],
    categories: [],
    subresources: [{ name: 'status', kind: 'Widget', verbs: ['get', 'patch', 'update'] }],
    storagePrefix: '/registry/example.com/widgets',
    schema: WIDGET_SCHEMA,
    resolveRef: () => undefined,
    strategy: {},
    printerColumns: [],
    selectableFields: {},
    custom: true,
  };
}

/** A built-in-like definition whose list has only the legacy patch-merge-key markers (no list type). */
export function gadgetDef(): ResourceDefinition {
  return {
    ...widgetDef(),
    group: 'legacy.example.com',
    resource: 'gadgets',
    singularName: 'gadget',
    kind: 'Gadget',
    listKind: 'GadgetList',
    subresources: [],
    schema: {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { ref: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        spec: {
          type: 'object',
          properties: {
            items: {
              type: 'array',
              patchStrategy: 'merge',
              patchMergeKey: 'name',
              items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } } },
            },
            words: { type: 'array', patchStrategy: 'merge', items: { type: 'string' } },
            plain: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    },
    resolveRef: (name) => schemaByName(name),
    custom: false,
  };
}

/** "2024-05-01T10:00:SSZ" */
export function at(second: number): string {
  return `2024-05-01T10:00:${String(second).padStart(2, '0')}Z`;
}

/** One managedFields entry, keys in kube's order. */
export function entry(manager: string, operation: 'Apply' | 'Update', apiVersion: string, time: string | undefined, fieldsV1: Record<string, unknown>, subresource?: string): Record<string, unknown> {
  const e: Record<string, unknown> = { manager, operation, apiVersion };
  if (time !== undefined) e.time = time;
  e.fieldsType = 'FieldsV1';
  e.fieldsV1 = fieldsV1;
  if (subresource) e.subresource = subresource;
  return e;
}
