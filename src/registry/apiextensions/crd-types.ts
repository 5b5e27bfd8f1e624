// The apiextensions.k8s.io/v1 CustomResourceDefinition as stored and served (the fields Capstan reads).

import type { KubeObject } from '../types.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

export interface CrdNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CrdScale {
  specReplicasPath?: string;
  statusReplicasPath?: string;
  labelSelectorPath?: string;
}

export interface CrdSubresources {
  status?: Record<string, never> | null;
  scale?: CrdScale | null;
}

export interface CrdColumn {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

export interface CrdSelectableField {
  jsonPath?: string;
}

export interface CrdVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps } | null;
  subresources?: CrdSubresources | null;
  additionalPrinterColumns?: CrdColumn[];
  selectableFields?: CrdSelectableField[];
}

export interface CrdServiceReference {
  namespace?: string;
  name?: string;
  path?: string;
  port?: number;
}

export interface CrdWebhookClientConfig {
  url?: string;
  service?: CrdServiceReference;
  caBundle?: string;
}

export interface CrdConversion {
  strategy?: string;
  webhook?: { clientConfig?: CrdWebhookClientConfig; conversionReviewVersions?: string[] } | null;
}

export interface CrdSpec {
  group?: string;
  names?: CrdNames;
  scope?: string;
  versions?: CrdVersion[];
  conversion?: CrdConversion | null;
  preserveUnknownFields?: boolean;
}

export interface CrdCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CrdStatus {
  /** null on a new CRD, as kube's (the v1 field has no omitempty) until the controllers set conditions. */
  conditions?: CrdCondition[] | null;
  acceptedNames?: CrdNames;
  storedVersions?: string[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec: CrdSpec;
  status?: CrdStatus;
}

export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export function crdCondition(crd: CustomResourceDefinition, type: string): CrdCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

export function crdConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return crdCondition(crd, type)?.status === 'True';
}
