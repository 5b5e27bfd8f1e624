// selectableFields of a CRD version: the JSON paths kube accepts (a simple dotted path to a string, boolean or
// integer field of the schema) and the field selector extractors they become.

import type { KubeObject } from '../types.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

export type CheckedFieldPath = { root: string; type: string | undefined; normalized: string } | { error: string };

function pathSegments(jsonPath: string): string[] | undefined {
  if (!jsonPath.startsWith('.')) return undefined;
  const segs = jsonPath.slice(1).split('.');
  return segs.every((s) => s !== '' && !s.includes('[')) ? segs : undefined;
}

/** cel.ValidFieldPath without array notation: every segment a property (or map key) the schema knows. */
export function validateSelectableFieldPath(jsonPath: string, schema: JSONSchemaProps): CheckedFieldPath {
  const segs = pathSegments(jsonPath);
  if (!segs) return { error: 'is an invalid path: expected a simple json path starting with .' };
  let node: JSONSchemaProps | undefined = schema;
  for (const seg of segs) {
    const props: Record<string, JSONSchemaProps> | undefined = node?.properties;
    const additional: JSONSchemaProps | boolean | undefined = node?.additionalProperties;
    if (props && Object.hasOwn(props, seg)) node = props[seg];
    else if (additional && typeof additional === 'object') node = additional;
    else return { error: `is an invalid path: does not refer to a valid field` };
  }
  return { root: segs[0], type: node?.type, normalized: segs.join('.') };
}

/** The field selector extractor of one selectable field: the value as a field selector compares it. */
export function selectableFieldExtractor(jsonPath: string): (obj: KubeObject) => string | undefined {
  const segs = pathSegments(jsonPath) ?? [];
  return (obj) => {
    let v: unknown = obj;
    for (const s of segs) {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return '';
      v = (v as Record<string, unknown>)[s];
    }
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    return '';
  };
}
