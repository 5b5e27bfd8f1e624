// The ResourceDefinitions one established CRD serves: one per served version, named from status.acceptedNames
// (as kube serves them), with the version's schema, printer columns, selectable fields and subresources, and the
// CRD's shared strategy. Objects are stored in the storage version; conversion strategy None rewrites apiVersion.

import type { SchemaNode, SubresourceFacts } from '../../apis/model-types.ts';
import { compareKubeAwareVersions } from '../../apis/versions.ts';
import { resourcePrefix } from '../../storage/keys.ts';
import type { KubeObject, PrinterColumn, ResourceDefinition, Strategy } from '../types.ts';
import { customResourceColumns } from './printer-columns.ts';
import { hasStatusSubresource, scaleSubresource, versionSchema } from './crd-layout.ts';
import type { CrdSpec, CrdVersion, CustomResourceDefinition } from './crd-types.ts';
import { selectableFieldExtractor } from './selectable-fields.ts';

/** The discovery verbs of every custom resource, in apiextensions' order. */
const CUSTOM_RESOURCE_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

/** defaultDeprecationWarning: the newest served, not deprecated, higher version is recommended. */
export function deprecationWarningOf(spec: CrdSpec, version: CrdVersion): string | undefined {
  if (!version.deprecated) return undefined;
  if (version.deprecationWarning !== undefined) return version.deprecationWarning;
  const name = version.name ?? '';
  const kind = spec.names?.kind ?? '';
  const msg = `${spec.group}/${name} ${kind} is deprecated`;
  const newer = (spec.versions ?? [])
    .filter((v) => v.served && !v.deprecated && compareKubeAwareVersions(v.name ?? '', name) < 0)
    .map((v) => v.name ?? '')
    .sort(compareKubeAwareVersions);
  return newer.length ? `${msg}; use ${spec.group}/${newer[0]} ${kind}` : msg;
}

export interface CustomResourceParts {
  readonly strategy: Strategy;
  /** The conversion webhook's converter (conversion strategy Webhook). */
  readonly convertAsync?: (objects: readonly KubeObject[], apiVersion: string) => Promise<KubeObject[]>;
  /** The schema node of a version (the compiled structural schema), or undefined without a schema. */
  schemaNode(version: string): SchemaNode | undefined;
  /** Defaults for objects read from storage; absent when no version's schema has a default. */
  readonly readDefaults?: (obj: KubeObject) => void;
}

function subresourcesOf(version: CrdVersion, kind: string): SubresourceFacts[] {
  const subs: SubresourceFacts[] = [];
  if (hasStatusSubresource(version)) subs.push({ name: 'status', kind, verbs: SUBRESOURCE_VERBS });
  if (scaleSubresource(version)) subs.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: SUBRESOURCE_VERBS });
  return subs;
}

function rewriteApiVersion(obj: KubeObject, apiVersion: string): KubeObject {
  return { ...obj, apiVersion };
}

/** Definitions for every served version of an established CRD (its accepted names must be set). */
export function customResourceDefinitions(crd: CustomResourceDefinition, parts: CustomResourceParts): ResourceDefinition[] {
  const spec = crd.spec;
  const names = crd.status?.acceptedNames ?? {};
  const group = spec.group ?? '';
  const plural = names.plural ?? '';
  const kind = names.kind ?? '';
  const storage = (spec.versions ?? []).find((v) => v.storage);
  const storageVersion = storage ? `${group}/${storage.name}` : undefined;
  const defs: ResourceDefinition[] = [];
  for (const v of spec.versions ?? []) {
    if (!v.served || !v.name) continue;
    const columns: PrinterColumn[] = customResourceColumns(v.additionalPrinterColumns ?? []);
    const selectable: Record<string, (obj: KubeObject) => string | undefined> = {};
    for (const f of v.selectableFields ?? []) if (f.jsonPath) selectable[f.jsonPath.slice(1)] = selectableFieldExtractor(f.jsonPath);
    const scale = scaleSubresource(v);
    const schemaNode = parts.schemaNode(v.name) ?? { type: 'object', preserveUnknownFields: true };
    defs.push({
      group,
      version: v.name,
      resource: plural,
      singularName: names.singular ?? '',
      kind,
      listKind: names.listKind ?? `${kind}List`,
      namespaced: spec.scope === 'Namespaced',
      verbs: CUSTOM_RESOURCE_VERBS,
      shortNames: names.shortNames ?? [],
      categories: names.categories ?? [],
      subresources: subresourcesOf(v, kind),
      storagePrefix: resourcePrefix(group, plural),
      ...(storageVersion ? { storageVersion, convert: rewriteApiVersion } : {}),
      ...(storageVersion && parts.convertAsync ? { convertAsync: parts.convertAsync } : {}),
      ...(parts.readDefaults ? { readDefaults: parts.readDefaults } : {}),
      schema: schemaNode,
      resolveRef: () => undefined,
      strategy: parts.strategy,
      printerColumns: columns,
      selectableFields: selectable,
      custom: true,
      ...(scale?.specReplicasPath && scale.statusReplicasPath
        ? { scale: { specReplicasPath: scale.specReplicasPath, statusReplicasPath: scale.statusReplicasPath, ...(scale.labelSelectorPath ? { labelSelectorPath: scale.labelSelectorPath } : {}) } }
        : {}),
      ...(v.deprecated ? { deprecationWarning: deprecationWarningOf(spec, v) } : {}),
    });
  }
  return defs;
}

export { versionSchema };
