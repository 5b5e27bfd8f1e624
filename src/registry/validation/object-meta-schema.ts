// The shape of metav1.ObjectMeta (and the types it embeds) as schema nodes, for objects whose definition cannot
// resolve it: custom resources (whose schemas say only `metadata: {type: object}`) and their embedded resources.

import type { SchemaNode } from '../../apis/model-types.ts';

export const OBJECT_META_REF = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
export const TIME_REF = 'io.k8s.apimachinery.pkg.apis.meta.v1.Time';

const str: SchemaNode = { type: 'string' };
const stringMap: SchemaNode = { type: 'object', additionalProperties: { type: 'string' } };

export const META_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  [OBJECT_META_REF]: {
    type: 'object',
    properties: {
      annotations: stringMap,
      creationTimestamp: { ref: TIME_REF },
      deletionGracePeriodSeconds: { type: 'integer', format: 'int64' },
      deletionTimestamp: { ref: TIME_REF },
      finalizers: { type: 'array', items: str },
      generateName: str,
      generation: { type: 'integer', format: 'int64' },
      labels: stringMap,
      managedFields: { type: 'array', items: { ref: 'io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry' } },
      name: str,
      namespace: str,
      ownerReferences: { type: 'array', items: { ref: 'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference' } },
      resourceVersion: str,
      selfLink: str,
      uid: str,
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference': {
    type: 'object',
    properties: {
      apiVersion: str,
      blockOwnerDeletion: { type: 'boolean' },
      controller: { type: 'boolean' },
      kind: str,
      name: str,
      uid: str,
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry': {
    type: 'object',
    properties: {
      apiVersion: str,
      fieldsType: str,
      fieldsV1: { ref: 'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1' },
      manager: str,
      operation: str,
      subresource: str,
      time: { ref: TIME_REF },
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': { type: 'object' },
  [TIME_REF]: { type: 'string', format: 'date-time' },
};
