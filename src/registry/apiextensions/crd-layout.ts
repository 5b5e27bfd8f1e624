// Where each per-version setting of a v1 CRD lives once kube converts it to its internal form: a schema,
// subresources, printer columns or selectable fields that are identical in every version move to the top level
// (spec.validation, spec.subresources, spec.additionalPrinterColumns, spec.selectableFields), which is why kube
// reports errors of a single-version CRD's schema under "spec.validation.openAPIV3Schema". Validation uses it for
// its field paths; everything else reads the per-version helpers below.

import { jsonEqual } from '../store-codec.ts';
import type { CrdColumn, CrdSelectableField, CrdSpec, CrdSubresources, CrdVersion } from './crd-types.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

export interface HoistedField<T> {
  /** Set when every version carries the same value (kube moves it to the top level). */
  readonly top: T | undefined;
  /** True when `top` holds the value of every version. */
  readonly hoisted: boolean;
}

function hoist<T>(versions: readonly CrdVersion[], pick: (v: CrdVersion) => T | undefined): HoistedField<T> {
  if (versions.length === 0) return { top: undefined, hoisted: false };
  const first = pick(versions[0]);
  const identical = versions.every((v) => jsonEqual(pick(v) ?? null, first ?? null));
  return identical ? { top: first, hoisted: true } : { top: undefined, hoisted: false };
}

export interface CrdLayout {
  readonly schema: HoistedField<JSONSchemaProps>;
  readonly subresources: HoistedField<CrdSubresources>;
  readonly columns: HoistedField<CrdColumn[]>;
  readonly selectableFields: HoistedField<CrdSelectableField[]>;
}

const nonEmpty = <T>(list: T[] | undefined): T[] | undefined => (list && list.length > 0 ? list : undefined);

export function crdLayout(spec: CrdSpec): CrdLayout {
  const versions = spec.versions ?? [];
  const schema = hoist(versions, (v) => v.schema ?? undefined);
  const selectableFields = hoist(versions, (v) => nonEmpty(v.selectableFields));
  return {
    schema: { top: schema.top?.openAPIV3Schema ?? undefined, hoisted: schema.hoisted },
    subresources: hoist(versions, (v) => v.subresources ?? undefined),
    columns: hoist(versions, (v) => nonEmpty(v.additionalPrinterColumns)),
    // selectable fields move up only together with the schema (kube's v1 conversion)
    selectableFields: schema.hoisted ? selectableFields : { top: undefined, hoisted: false },
  };
}

export function versionSchema(version: CrdVersion): JSONSchemaProps | undefined {
  return version.schema?.openAPIV3Schema ?? undefined;
}

export function hasStatusSubresource(version: CrdVersion): boolean {
  return version.subresources?.status !== undefined && version.subresources?.status !== null;
}

export function scaleSubresource(version: CrdVersion) {
  return version.subresources?.scale ?? undefined;
}
