// Validation of a value against a compiled schema as kube-openapi's SchemaValidator does it (the validators run
// in its order: type, allOf/anyOf/oneOf/not, string, format, number, array, enum, object), with its messages
// ("spec.replicas in body must be of type integer: \"string\"") turned into field errors the way
// apiextensions-apiserver's kubeOpenAPIResultToFieldErrors does (pkg/apiserver/validation/validation.go).

import { renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import type { CompiledNode } from './compiled-node.ts';
import { goFloat, goSharpV, isFloatAJSONInteger, isGoInt, isPlainObject, jsonEqual, runeCount } from './go-values.ts';

/** No old value correlates with the new one (create, or an item of a list that is not a list-type map). */
export const NO_OLD: unique symbol = Symbol('no old value');
type Old = unknown;

/** Where errors land: `base` is the field path kube passes (undefined: nil, as for a custom resource). */
interface Ctx {
  readonly base: string | undefined;
  readonly errs: FieldError[];
  /** kube-openapi's MatchCount: how many checks ran, which picks the best failing anyOf/oneOf branch. */
  count: number;
}

/** strconv.Quote for the texts kube-openapi quotes with %q. */
function quote(s: string): string {
  return JSON.stringify(s);
}

/** A numeric bad value printed as Go prints the int64 or float64 it decoded. */
function numberValue(n: number): unknown {
  return isGoInt(n) ? n : renderedBadValue(goFloat(n));
}

/** field.Error's rendering of a decoded value: %v for numbers, %#v for maps and slices. */
function badValue(v: unknown): unknown {
  if (typeof v === 'number') return numberValue(v);
  return v !== null && typeof v === 'object' ? renderedBadValue(goSharpV(v)) : v;
}

/** The field of an openapierrors.Validation: fldPath.Child(name without its leading dot), or fldPath itself. */
function fieldOf(ctx: Ctx, name: string): string {
  if (name === '' || name === '.') return ctx.base ?? '<nil>';
  const n = name.startsWith('.') ? name.slice(1) : name;
  return ctx.base === undefined ? n : `${ctx.base}.${n}`;
}

function invalid(ctx: Ctx, name: string, value: unknown, message: string): void {
  ctx.errs.push({ type: 'FieldValueInvalid', field: fieldOf(ctx, name), badValue: value === undefined || value === null ? '' : badValue(value), detail: message });
}

function invalidType(ctx: Ctx, name: string, typeName: string, value: string): void {
  // errors.InvalidType with a string value: typeFailWithData
  ctx.errs.push({ type: 'FieldValueTypeInvalid', field: fieldOf(ctx, name), badValue: value, detail: `${name} in body must be of type ${typeName}: ${quote(value)}` });
}

/** A composite error (anyOf/oneOf/allOf/not): not a Validation, so it lands on fldPath with an empty value. */
function composite(ctx: Ctx, message: string): void {
  ctx.errs.push({ type: 'FieldValueInvalid', field: ctx.base ?? '<nil>', badValue: '', detail: message });
}

function schemaInfo(v: unknown): [string, string] {
  switch (typeof v) {
    case 'string':
      return ['string', ''];
    case 'boolean':
      return ['boolean', ''];
    case 'number':
      return isGoInt(v) ? ['integer', 'int64'] : ['number', 'float64'];
    default:
      return Array.isArray(v) ? ['array', ''] : ['object', ''];
  }
}

function validateType(n: CompiledNode, v: unknown, path: string, ctx: Ctx): void {
  const [schType, format] = schemaInfo(v);
  const isFloatInt = schType === 'number' && isFloatAJSONInteger(v as number) && n.types.includes('integer');
  const isIntFloat = schType === 'integer' && n.types.includes('number');
  const stringOrSlice = typeof v === 'string' || Array.isArray(v);
  if (!stringOrSlice && n.format !== '' && !(n.types.includes(schType) || format === n.format || isFloatInt || isIntFloat)) {
    invalidType(ctx, path, n.format, format);
    return;
  }
  if (!(n.types.includes('number') || n.types.includes('integer')) && n.format !== '' && stringOrSlice) return;
  if (!(n.types.includes(schType) || isFloatInt || isIntFloat)) invalidType(ctx, path, n.typeLabel, schType);
}

function validateString(n: CompiledNode, s: string, path: string, ctx: Ctx): void {
  if (n.maxLength !== undefined || n.minLength !== undefined) {
    const len = runeCount(s);
    if (n.maxLength !== undefined && len > n.maxLength) {
      // TooLongFailCode -> field.TooLongMaxLength
      ctx.errs.push({ type: 'FieldValueTooLong', field: fieldOf(ctx, path), badValue: s, detail: `may not be longer than ${n.maxLength}` });
      return;
    }
    if (n.minLength !== undefined && len < n.minLength) {
      invalid(ctx, path, s, `${path} in body should be at least ${n.minLength} chars long`);
      return;
    }
  }
  if (n.patternRe) {
    if (n.patternRe.re === undefined) {
      invalid(ctx, path, s, `${path} in body should match '${n.pattern}, but pattern is invalid: ${n.patternRe.error}'`);
    } else if (!n.patternRe.re.test(s)) {
      invalid(ctx, path, s, `${path} in body should match '${n.pattern}'`);
    }
  }
}

function validateNumber(n: CompiledNode, x: number, path: string, ctx: Ctx): void {
  const int = isGoInt(x);
  if (n.multipleOf !== undefined) {
    const factor = n.multipleOf;
    if (int && Math.trunc(factor) !== 0) {
      const f = Math.trunc(factor);
      if (f < 0) invalid(ctx, path, f, `factor MultipleOf declared for ${path} must be positive: ${f}`);
      else if (x % f !== 0) invalid(ctx, path, x, `${path} in body should be a multiple of ${f}`);
    } else if (factor < 0) {
      invalid(ctx, path, factor, `factor MultipleOf declared for ${path} must be positive: ${goFloat(factor)}`);
    } else {
      const mult = factor < 1 ? (1 / factor) * x : x / factor;
      if (!isFloatAJSONInteger(mult)) invalid(ctx, path, x, `${path} in body should be a multiple of ${goFloat(factor)}`);
    }
  }
  if (n.minimum !== undefined) {
    const min = int ? Math.trunc(n.minimum) : n.minimum;
    if (n.exclusiveMinimum ? x <= min : x < min) {
      const text = int ? String(min) : goFloat(min);
      invalid(ctx, path, x, `${path} in body should be greater than ${n.exclusiveMinimum ? '' : 'or equal to '}${text}`);
    }
  }
  if (n.maximum !== undefined) {
    const max = int ? Math.trunc(n.maximum) : n.maximum;
    if (n.exclusiveMaximum ? x >= max : x > max) {
      const text = int ? String(max) : goFloat(max);
      invalid(ctx, path, x, `${path} in body should be less than ${n.exclusiveMaximum ? '' : 'or equal to '}${text}`);
    }
  }
}

/**
 * The old value a new array item correlates with (apiserver cel/common CorrelatedObject.Index): the item with
 * the same key values in a list-type=map; items of other lists do not correlate.
 */
function correlatedItem(n: CompiledNode, items: unknown[], i: number, old: Old): Old {
  if (n.listType !== 'map' || !Array.isArray(old)) return NO_OLD;
  const item = items[i];
  if (!isPlainObject(item)) return NO_OLD;
  const keys = n.listMapKeys ?? [];
  for (const o of old) if (isPlainObject(o) && keys.every((k) => jsonEqual(o[k], item[k]))) return o;
  return NO_OLD;
}

/**
 * CorrelatedObject.CachedDeepEqual: list-type=map items compare by key (order does not matter), other lists
 * as a whole, object fields through their schema (a field without one makes the objects unequal).
 */
function ratchetEqual(n: CompiledNode | undefined, v: unknown, old: unknown): boolean {
  if (v === null || old === null) return v === old;
  if (Array.isArray(v) || Array.isArray(old)) {
    if (!Array.isArray(v) || !Array.isArray(old) || v.length !== old.length) return false;
    if (n?.listType !== 'map') return jsonEqual(v, old);
    for (let i = 0; i < v.length; i++) {
      const o = correlatedItem(n, v, i, old);
      if (o === NO_OLD || !ratchetEqual(n.items, v[i], o)) return false;
    }
    return true;
  }
  if (isPlainObject(v) || isPlainObject(old)) {
    if (!isPlainObject(v) || !isPlainObject(old)) return false;
    const keys = Object.keys(v);
    if (keys.length !== Object.keys(old).length) return false;
    for (const k of keys) {
      if (!Object.hasOwn(old, k)) return false;
      const sub = n?.properties?.get(k) ?? (typeof n?.additionalProperties === 'object' ? n.additionalProperties : undefined);
      if (!sub || !ratchetEqual(sub, v[k], old[k])) return false;
    }
    return true;
  }
  return v === old;
}

function validateArray(n: CompiledNode, a: unknown[], path: string, ctx: Ctx, old: Old): void {
  if (n.items) for (let i = 0; i < a.length; i++) validateValue(n.items, a[i], `${path}[${i}]`, ctx, old === NO_OLD ? NO_OLD : correlatedItem(n, a, i, old));
  if (n.minItems !== undefined && a.length < n.minItems) invalid(ctx, path, a.length, `${path} in body should have at least ${n.minItems} items`);
  if (n.maxItems !== undefined && a.length > n.maxItems) {
    // MaxItemsFailCode -> field.TooMany
    ctx.errs.push({ type: 'FieldValueTooMany', field: fieldOf(ctx, path), badValue: a.length, detail: `must have at most ${n.maxItems} items` });
  }
  if (n.uniqueItems) {
    outer: for (let i = 1; i < a.length; i++) {
      for (let j = 0; j < i; j++) {
        if (jsonEqual(a[i], a[j])) {
          invalid(ctx, path, undefined, `${path} in body shouldn't contain duplicates`);
          break outer;
        }
      }
    }
  }
}

/**
 * The enum check: equal after Go's reflect conversion to the enum value's type (a float64 converts to int64 by
 * truncation, an int64 to a one-rune string).
 */
function enumMatches(values: readonly unknown[], v: unknown): boolean {
  if (v === null || v === undefined) return false;
  for (const e of values) {
    if (jsonEqual(v, e)) return true;
    if (typeof v !== 'number' || !Number.isFinite(v)) continue;
    if (typeof e === 'number' && isGoInt(e) && !isGoInt(v) && Math.trunc(v) === e) return true;
    if (typeof e === 'string' && isGoInt(v) && v >= 0 && v <= 0x10ffff && e === String.fromCodePoint(v)) return true;
  }
  return false;
}

function validateEnum(n: CompiledNode, v: unknown, path: string, ctx: Ctx): void {
  if (!n.enum || enumMatches(n.enum, v)) return;
  // EnumFailCode -> field.NotSupported; non-string values listed as JSON
  const supported = n.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
  ctx.errs.push({
    type: 'FieldValueNotSupported',
    field: fieldOf(ctx, path),
    badValue: v === null || v === undefined ? renderedBadValue('"null"') : badValue(v),
    detail: `supported values: ${supported.map(quote).join(', ')}`,
  });
}

function oldField(old: Old, k: string): Old {
  return isPlainObject(old) && Object.hasOwn(old, k) ? old[k] : NO_OLD;
}

function validateObject(n: CompiledNode, o: Record<string, unknown>, path: string, ctx: Ctx, old: Old): void {
  const keys = Object.keys(o);
  if (n.minProperties !== undefined && keys.length < n.minProperties) {
    invalid(ctx, path, keys.length, `${path} in body should have at least ${n.minProperties} properties`);
    return;
  }
  if (n.maxProperties !== undefined && keys.length > n.maxProperties) {
    // TooManyPropertiesCode -> field.TooMany
    ctx.errs.push({ type: 'FieldValueTooMany', field: fieldOf(ctx, path), badValue: keys.length, detail: `must have at most ${n.maxProperties} items` });
    return;
  }
  const ap = n.additionalProperties;
  if (ap === false) {
    for (const k of keys) if (!n.properties?.has(k)) invalid(ctx, path, k, `${path}.${k} in body is a forbidden property`);
  } else if (typeof ap === 'object') {
    for (const k of keys) if (!n.properties?.has(k)) validateValue(ap, o[k], `${path}.${k}`, ctx, oldField(old, k));
  }
  if (n.properties) {
    for (const [k, p] of n.properties) {
      if (!Object.hasOwn(o, k)) continue;
      // apiVersion and kind at the root are never ratcheted (old and new are converted to the same version)
      const correlated = path === '' && (k === 'apiVersion' || k === 'kind') ? NO_OLD : oldField(old, k);
      validateValue(p, o[k], path === '' ? k : `${path}.${k}`, ctx, correlated);
    }
  }
  if (n.required) {
    for (const k of n.required) {
      if (!Object.hasOwn(o, k)) ctx.errs.push({ type: 'FieldValueRequired', field: fieldOf(ctx, `${path}.${k}`), detail: '' });
    }
  }
}

/** Runs `n` on `v` into a fresh error list; returns the errors and the checks counted. */
function branch(n: CompiledNode, v: unknown, path: string, ctx: Ctx): { errs: FieldError[]; count: number } {
  const sub: Ctx = { base: ctx.base, errs: [], count: 0 };
  validateValue(n, v, path, sub, NO_OLD);
  return { errs: sub.errs, count: sub.count };
}

function validateComposition(n: CompiledNode, v: unknown, path: string, ctx: Ctx): void {
  if (n.anyOf) {
    let best: { errs: FieldError[]; count: number } | undefined;
    let success: { errs: FieldError[]; count: number } | undefined;
    for (const alt of n.anyOf) {
      const r = branch(alt, v, path, ctx);
      if (r.errs.length === 0) {
        success = r;
        best = undefined;
        break;
      }
      if (!best || r.count > best.count) best = r;
    }
    if (!success) composite(ctx, `${quote(path)} must validate at least one schema (anyOf)`);
    const kept = best ?? success;
    if (kept) {
      ctx.errs.push(...kept.errs);
      ctx.count += kept.count;
    }
  }
  if (n.oneOf) {
    let best: { errs: FieldError[]; count: number } | undefined;
    let first: { errs: FieldError[]; count: number } | undefined;
    let validated = 0;
    for (const alt of n.oneOf) {
      const r = branch(alt, v, path, ctx);
      if (r.errs.length === 0) {
        validated++;
        best = undefined;
        first ??= r;
        continue;
      }
      if (validated === 0 && (!best || r.count > best.count)) best = r;
    }
    if (validated !== 1) {
      composite(ctx, `${quote(path)} must validate one and only one schema (oneOf). ${validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`}`);
      if (best) {
        ctx.errs.push(...best.errs);
        ctx.count += best.count;
      }
    } else if (first) {
      ctx.count += first.count;
    }
  }
  if (n.allOf) {
    let validated = 0;
    for (const alt of n.allOf) {
      const r = branch(alt, v, path, ctx);
      if (r.errs.length === 0) validated++;
      ctx.errs.push(...r.errs);
      ctx.count += r.count;
    }
    if (validated !== n.allOf.length) composite(ctx, `${quote(path)} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}`);
  }
  if (n.not) {
    const r = branch(n.not, v, path, ctx);
    if (r.errs.length === 0) composite(ctx, `${quote(path)} must not validate the schema (not)`);
  }
}

/**
 * One SchemaValidator.Validate: `path` is kube-openapi's Path ("" at the root, "spec.items[0].name" below).
 * With an old value (an update), errors of a value equal to its old value are dropped: CRD validation
 * ratcheting (feature CRDValidationRatcheting, on by default in 1.31; kube-openapi validate/ratcheting.go).
 */
export function validateValue(n: CompiledNode, v: unknown, path: string, ctx: Ctx, old: Old = NO_OLD): void {
  const before = ctx.errs.length;
  checkValue(n, v, path, ctx, old);
  if (old !== NO_OLD && ctx.errs.length > before && ratchetEqual(n, v, old)) ctx.errs.length = before;
}

function checkValue(n: CompiledNode, v: unknown, path: string, ctx: Ctx, old: Old): void {
  if (v === null || v === undefined) {
    ctx.count += 2;
    if (n.types.length > 0 && !n.nullable) invalidType(ctx, path, n.typeLabel, 'null');
    validateEnum(n, v, path, ctx);
    return;
  }
  if (n.types.length > 0 || n.format !== '') {
    ctx.count++;
    validateType(n, v, path, ctx);
  }
  if (n.anyOf || n.oneOf || n.allOf || n.not) validateComposition(n, v, path, ctx);
  ctx.count++;
  switch (typeof v) {
    case 'string':
      ctx.count++;
      validateString(n, v, path, ctx);
      if (n.formatCheck) {
        ctx.count++;
        if (!n.formatCheck(v)) invalidType(ctx, path, n.format, v);
      }
      break;
    case 'number':
      ctx.count++;
      validateNumber(n, v, path, ctx);
      break;
    case 'object':
      ctx.count++;
      if (Array.isArray(v)) validateArray(n, v, path, ctx, old);
      break;
  }
  ctx.count++;
  validateEnum(n, v, path, ctx);
  if (isPlainObject(v)) {
    ctx.count++;
    validateObject(n, v, path, ctx, old);
  }
  ctx.count++;
}

/** kube-openapi validation of `value` at the root of `n`; `base` is the field path (undefined: nil). */
export function validateAgainst(n: CompiledNode, value: unknown, base?: string, old: Old = NO_OLD): FieldError[] {
  const ctx: Ctx = { base, errs: [], count: 0 };
  validateValue(n, value, '', ctx, old);
  return ctx.errs;
}

