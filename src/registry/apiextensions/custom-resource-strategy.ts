// The strategy of custom resources (apiextensions-apiserver pkg/registry/customresource/strategy.go and
// validator.go), one per CRD, shared by its versions: it reads the version of the object it is given and the
// CRD's current compiled schemas, so a CRD update takes effect on the next request. Defaulting, generation and
// status handling, ObjectMeta, schema and scale checks, then the CEL rules.

import { fieldErrors, renderedBadValue, type FieldError, type StatusError } from '../../apis/errors.ts';
import { goValue } from '../../encoding/go-format.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from '../validation/meta.ts';
import { nameIsDNSSubdomain } from '../validation/names.ts';
import { jsonEqual } from '../store-codec.ts';
import type { KubeObject, Strategy } from '../types.ts';
import type { CompiledRules } from './cel-rules.ts';
import type { CrdScale } from './crd-types.ts';
import type { CompiledSchema } from './schema/index.ts';
import { genericStatusStrategy } from '../store-subresources.ts';

/** What the strategy needs of one served version of a CRD. */
export interface VersionRuntime {
  readonly apiVersion: string;
  readonly schema: CompiledSchema | undefined;
  readonly rules: CompiledRules | undefined;
  readonly statusEnabled: boolean;
  readonly scale: CrdScale | undefined;
}

/** Every version of one CRD, as its latest accepted spec says. */
export interface CrdRuntime {
  readonly namespaced: boolean;
  version(apiVersion: string | undefined): VersionRuntime | undefined;
  /** Why a create is refused now (a terminating CRD), if it is. */
  createRefusal(): StatusError | undefined;
}

const MAX_INT32 = 2147483647;

function nested(obj: unknown, path: string): { found: boolean; value: unknown } {
  let v: unknown = obj;
  for (const seg of path.slice(1).split('.')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, seg)) return { found: false, value: undefined };
    v = (v as Record<string, unknown>)[seg];
  }
  return { found: true, value: v };
}

/** customResourceValidator.ValidateScaleSpec / ValidateScaleStatus. */
function scaleErrors(obj: KubeObject, scale: CrdScale | undefined, checkStatus: boolean): FieldError[] {
  if (!scale) return [];
  const errs: FieldError[] = [];
  const replicas = (path: string | undefined) => {
    if (!path) return;
    const field = path.slice(1);
    const { found, value } = nested(obj, path);
    if (!found) return;
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      errs.push(fieldErrors.invalid(field, 0, `.${field} accessor error: ${goValue(value)} is of the type ${goTypeName(value)}, expected int64`));
      return;
    }
    if (value < 0) errs.push(fieldErrors.invalid(field, value, 'should be a non-negative integer'));
    else if (value > MAX_INT32) errs.push(fieldErrors.invalid(field, value, `should be less than or equal to ${MAX_INT32}`));
  };
  replicas(scale.specReplicasPath);
  if (checkStatus) {
    replicas(scale.statusReplicasPath);
    if (scale.labelSelectorPath) {
      const { found, value } = nested(obj, scale.labelSelectorPath);
      if (found && typeof value !== 'string') {
        const field = scale.labelSelectorPath.slice(1);
        errs.push(fieldErrors.invalid(field, 0, `.${field} accessor error: ${goValue(value)} is of the type ${goTypeName(value)}, expected string`));
      }
    }
  }
  return errs;
}

function goTypeName(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  if (v === null) return '<nil>';
  return 'map[string]interface {}';
}

/**
 * kube's hasBlockingErr: an error of these types, in the metadata, the schema or the scale paths, means the object
 * has not the shape its CEL rules were written for; they are not run, and this note says so.
 */
const BLOCKING_TYPES: ReadonlySet<FieldError['type']> = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);
const BLOCKED_RULES: FieldError = {
  type: 'FieldValueInvalid',
  field: '<nil>',
  badValue: renderedBadValue('"null"'),
  detail: 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};

/** The metadata's errors, then the schema's, the scale paths' and the CEL rules', as kube's strategy lists them. */
function schemaAndRuleErrors(v: VersionRuntime, metaErrs: FieldError[], obj: KubeObject, old: KubeObject | undefined, checkStatus: boolean): FieldError[] {
  // On update, values left as they were pass even when now invalid (1.31's CRD validation ratcheting).
  const schemaErrs = (old ? v.schema?.validateUpdate(obj, old) : v.schema?.validate(obj)) ?? [];
  const errs = [...metaErrs, ...schemaErrs, ...scaleErrors(obj, v.scale, checkStatus)];
  if (v.rules && !v.rules.empty) {
    if (errs.some((e) => BLOCKING_TYPES.has(e.type))) errs.push(BLOCKED_RULES);
    else errs.push(...v.rules.validate(obj, old));
  }
  return errs;
}

function withoutKeys(obj: KubeObject, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!keys.includes(k)) out[k] = v;
  return out;
}

export function customResourceStrategy(runtime: () => CrdRuntime): Strategy {
  const versionOf = (obj: KubeObject) => runtime().version(obj.apiVersion);
  const metaRules = () => ({ namespaced: runtime().namespaced, nameFn: nameIsDNSSubdomain });
  return {
    defaults(obj) {
      versionOf(obj)?.schema?.applyDefaults(obj);
    },
    prepareForCreate(obj) {
      const refusal = runtime().createRefusal();
      if (refusal) throw refusal;
      if (versionOf(obj)?.statusEnabled) delete obj.status;
      obj.metadata.generation = 1;
    },
    prepareForUpdate(obj, old) {
      const v = versionOf(obj);
      // The store already restored the stored status when a status subresource exists.
      const ignored = v?.statusEnabled ? ['metadata', 'status', 'apiVersion', 'kind'] : ['metadata', 'apiVersion', 'kind'];
      const generation = old.metadata.generation ?? 0;
      obj.metadata.generation = jsonEqual(withoutKeys(obj, ignored), withoutKeys(old, ignored)) ? generation : generation + 1;
    },
    validate(obj) {
      const v = versionOf(obj);
      const errs = validateObjectMeta(obj.metadata, metaRules());
      if (!v) return errs;
      return schemaAndRuleErrors(v, errs, obj, undefined, !v.statusEnabled);
    },
    validateUpdate(obj, old) {
      const v = versionOf(obj);
      const errs = validateObjectMetaUpdate(obj.metadata, old.metadata);
      if (!v) return errs;
      return schemaAndRuleErrors(v, errs, obj, old, !v.statusEnabled);
    },
    subresources: {
      status: {
        prepareForUpdate: genericStatusStrategy.prepareForUpdate,
        validateUpdate(obj, old) {
          const v = versionOf(obj);
          const errs = validateObjectMetaUpdate(obj.metadata, old.metadata);
          if (!v) return errs;
          return schemaAndRuleErrors(v, errs, obj, old, true);
        },
      },
    },
    allowUnconditionalUpdate: false,
  };
}
