// Embedded resources (x-kubernetes-embedded-resource): apiVersion and kind required and well-formed, metadata
// validated as ObjectMeta with path-segment names (apiextensions-apiserver pkg/apiserver/schema/objectmeta/
// validation.go). The custom resource's own metadata is the store's job.

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { validateObjectMeta } from '../../validation/meta.ts';
import { isDNS1035Label, nameIsPathSegment } from '../../validation/names.ts';
import type { CompiledNode } from './compiled-node.ts';
import { isPlainObject } from './go-values.ts';

/** schema.ParseGroupVersion's error, or undefined. */
function parseGroupVersionError(gv: string): string | undefined {
  if (gv === '' || gv === '/') return undefined;
  const parts = gv.split('/');
  if (parts.length === 1 || parts.length === 2) return undefined;
  return `unexpected GroupVersion string: ${gv}`;
}

export function embeddedResourceErrors(path: string, x: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const at = (k: string): string => (path === '' ? k : `${path}.${k}`);
  if (!Object.hasOwn(x, 'apiVersion')) errs.push(fieldErrors.required(at('apiVersion'), ''));
  if (!Object.hasOwn(x, 'kind')) errs.push(fieldErrors.required(at('kind'), ''));
  for (const k of Object.keys(x)) {
    const v = x[k];
    if (k === 'apiVersion') {
      if (typeof v !== 'string') errs.push(fieldErrors.invalid(at(k), v, 'must be a string'));
      else if (v === '') errs.push(fieldErrors.required(at(k), ''));
      else {
        const e = parseGroupVersionError(v);
        if (e) errs.push(fieldErrors.invalid(at(k), v, e));
      }
    } else if (k === 'kind') {
      if (typeof v !== 'string') errs.push(fieldErrors.invalid(at(k), v, 'must be a string'));
      else if (v === '') errs.push(fieldErrors.required(at(k), ''));
      else {
        const e = isDNS1035Label(v.toLowerCase());
        if (e.length > 0) errs.push(fieldErrors.invalid(at(k), v, `may have mixed case, but should otherwise match: ${e.join(',')}`));
      }
    } else if (k === 'metadata') {
      if (!isPlainObject(v)) {
        errs.push(fieldErrors.invalid(at(k), v, `expected map, got ${v === null ? 'null' : Array.isArray(v) ? 'slice' : typeof v}`));
        continue;
      }
      const meta = typeof v.name === 'string' && v.name !== '' ? v : { ...v, name: 'fakename' };
      const namespace = typeof v.namespace === 'string' ? v.namespace : '';
      errs.push(...validateObjectMeta(meta, { namespaced: namespace !== '', nameFn: nameIsPathSegment }, at('metadata')));
    }
  }
  return errs;
}

function walk(path: string, n: CompiledNode | undefined, v: unknown, errs: FieldError[]): void {
  if (!n?.hasEmbedded) return;
  if (Array.isArray(v)) {
    v.forEach((x, i) => walk(`${path}[${i}]`, n.items, x, errs));
  } else if (isPlainObject(v)) {
    if (n.embeddedResource) errs.push(...embeddedResourceErrors(path, v));
    for (const k of Object.keys(v)) {
      const p = n.properties?.get(k);
      if (p) walk(path === '' ? k : `${path}.${k}`, p, v[k], errs);
      else if (typeof n.additionalProperties === 'object') walk(`${path}[${k}]`, n.additionalProperties, v[k], errs);
    }
  }
}

/** objectmeta.Validate(nil, obj, schema, false): the embedded resources below the root. */
export function validateEmbeddedResources(root: CompiledNode, obj: Record<string, unknown>, base = ''): FieldError[] {
  const errs: FieldError[] = [];
  if (root.hasEmbedded) {
    for (const k of Object.keys(obj)) {
      const p = root.properties?.get(k);
      if (p) walk(base === '' ? k : `${base}.${k}`, p, obj[k], errs);
    }
  }
  return errs;
}
