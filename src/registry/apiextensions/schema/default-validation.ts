// ValidateDefaults (apiextensions-apiserver pkg/apiserver/schema/defaulting/validation.go): every default must
// be unchanged by pruning and valid against the schema it sits in. Walks properties and items, not
// additionalProperties (defaults are forbidden there) nor value validations. A default inside TypeMeta or
// ObjectMeta of a resource is checked inside a surrounding object (apiVersion "validation/v1", kind
// "Validation"), as the metadata it would produce.

import { fieldErrors, fieldErrorString, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { cloneJson } from '../../../apis/json-clone.ts';
import type { JSONSchemaProps } from '../json-schema-props.ts';
import { compileNode, type CompiledNode } from './compiled-node.ts';
import { embeddedResourceErrors, validateEmbeddedResources } from './embedded-resources.ts';
import { goSharpV, isPlainObject, jsonEqual } from './go-values.ts';
import { validateAgainst } from './openapi-validate.ts';
import { pruneValue } from './prune.ts';

const META_FIELDS = new Set(['metadata', 'apiVersion', 'kind']);

/** A step from the enclosing resource to the current schema node: a property name, or an array item. */
type Step = string | { item: true };

function shownValue(v: unknown): unknown {
  return v !== null && typeof v === 'object' ? renderedBadValue(goSharpV(v)) : v;
}

/** The SurroundingObjectFunc: the default placed at its position inside a resource of kind Validation. */
function surroundingObject(steps: readonly Step[], value: unknown): Record<string, unknown> {
  let inner: unknown = cloneJson(value);
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i];
    inner = typeof step === 'string' ? { [step]: inner } : [inner];
  }
  return { apiVersion: 'validation/v1', kind: 'Validation', ...(inner as Record<string, unknown>) };
}

/** utilerrors.NewAggregate(...).Error(): one message bare, several in brackets. */
function aggregate(errs: FieldError[]): string {
  const texts = [...new Set(errs.map(fieldErrorString))];
  return texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
}

function walk(s: JSONSchemaProps, path: string, steps: Step[], insideMeta: boolean, requirePruned: boolean, errs: FieldError[]): void {
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (embedded) {
    insideMeta = false;
    steps = [];
  }
  if (s.default !== undefined && s.default !== null) {
    const node = compileNode(s);
    const at = `${path}.default`;
    if (insideMeta) {
      const metaErrs = embeddedResourceErrors('', surroundingObject(steps, s.default));
      if (metaErrs.length > 0) errs.push(fieldErrors.invalid(at, shownValue(s.default), `must result in valid metadata: ${aggregate(metaErrs)}`));
      else errs.push(...validateAgainst(node, s.default, at));
    } else {
      if (requirePruned) {
        const pruned = cloneJson(s.default);
        pruneValue(pruned, node);
        if (!jsonEqual(pruned, s.default)) errs.push(fieldErrors.invalid(at, shownValue(s.default), 'must not have unknown fields'));
      }
      const metaErrs = isPlainObject(s.default) ? embeddedErrors(node, s.default, at, embedded) : [];
      if (metaErrs.length > 0) errs.push(...metaErrs);
      else errs.push(...validateAgainst(node, s.default, at));
    }
  }
  if (s.items && !Array.isArray(s.items)) walk(s.items, `${path}.items`, [...steps, { item: true }], insideMeta, requirePruned, errs);
  for (const k of Object.keys(s.properties ?? {}).sort()) {
    const sub = (s.properties as Record<string, JSONSchemaProps>)[k];
    walk(sub, `${path}.properties[${k}]`, [...steps, k], insideMeta || (embedded && META_FIELDS.has(k)), requirePruned, errs);
  }
}

/** objectmeta.Validate(default path, default, s, isResourceRoot = s is an embedded resource). */
function embeddedErrors(node: CompiledNode, value: Record<string, unknown>, at: string, isResourceRoot: boolean): FieldError[] {
  const errs = isResourceRoot ? embeddedResourceErrors(at, value) : [];
  return [...errs, ...validateEmbeddedResources(node, value, at)];
}

export function validateDefaults(s: JSONSchemaProps, path: string, requirePrunedDefaults: boolean): FieldError[] {
  const errs: FieldError[] = [];
  // The root counts as an embedded resource: its apiVersion, kind and metadata are TypeMeta and ObjectMeta.
  walk({ ...s, 'x-kubernetes-embedded-resource': true }, path, [], false, requirePrunedDefaults, errs);
  return errs;
}
