// ValidateDefaults (apiextensions-apiserver pkg/apiserver/schema/defaulting/validation.go): every default must
// be unchanged by pruning and valid against the schema it sits in. Walks properties and items, not
// additionalProperties (defaults are forbidden there) nor value validations.

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { cloneJson } from '../../../apis/json-clone.ts';
import type { JSONSchemaProps } from '../json-schema-props.ts';
import { compileNode } from './compiled-node.ts';
import { validateEmbeddedResources } from './embedded-resources.ts';
import { goSharpV } from './go-sharp-v.ts';
import { isPlainObject, jsonEqual } from './go-values.ts';
import { validateAgainst } from './openapi-validate.ts';
import { pruneValue } from './prune.ts';

const META_FIELDS = new Set(['metadata', 'apiVersion', 'kind']);

function shownValue(v: unknown): unknown {
  return v !== null && typeof v === 'object' ? renderedBadValue(goSharpV(v)) : v;
}

function walk(s: JSONSchemaProps, path: string, insideMeta: boolean, requirePruned: boolean, errs: FieldError[]): void {
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (embedded) insideMeta = false;
  if (s.default !== undefined && s.default !== null) {
    const node = compileNode(s);
    const at = `${path}.default`;
    if (!insideMeta && requirePruned) {
      const pruned = cloneJson(s.default);
      pruneValue(pruned, node);
      if (!jsonEqual(pruned, s.default)) errs.push(fieldErrors.invalid(at, shownValue(s.default), 'must not have unknown fields'));
    }
    const metaErrs = insideMeta || !isPlainObject(s.default) ? [] : embeddedErrors(node, s.default, at, embedded);
    if (metaErrs.length > 0) errs.push(...metaErrs);
    else errs.push(...validateAgainst(node, s.default, at));
  }
  if (s.items && !Array.isArray(s.items)) walk(s.items, `${path}.items`, insideMeta, requirePruned, errs);
  for (const k of Object.keys(s.properties ?? {}).sort()) {
    const sub = (s.properties as Record<string, JSONSchemaProps>)[k];
    walk(sub, `${path}.properties[${k}]`, insideMeta || (embedded && META_FIELDS.has(k)), requirePruned, errs);
  }
}

/** objectmeta.Validate(default path, default, s, isResourceRoot = s is an embedded resource). */
function embeddedErrors(node: ReturnType<typeof compileNode>, value: Record<string, unknown>, at: string, isResourceRoot: boolean): FieldError[] {
  if (isResourceRoot) {
    const wrapper = compileNode({ type: 'object', properties: { x: { ...node.source, 'x-kubernetes-embedded-resource': true } } });
    return validateEmbeddedResources(wrapper, { x: value }, '').map((e) => ({ ...e, field: e.field.replace(/^x/, at) }));
  }
  return validateEmbeddedResources(node, value, at);
}

export function validateDefaults(s: JSONSchemaProps, path: string, requirePrunedDefaults: boolean): FieldError[] {
  const errs: FieldError[] = [];
  // The root counts as an embedded resource: its apiVersion, kind and metadata are TypeMeta and ObjectMeta.
  walk({ ...s, 'x-kubernetes-embedded-resource': true }, path, false, requirePrunedDefaults, errs);
  return errs;
}
