// x-kubernetes-validations of a CRD version's schema: compiled once (at CRD write time, with kube's field paths and
// messages for every problem) and evaluated on each custom resource write, as kube 1.31's apiextensions-apiserver
// does (apiserver/schema/cel/compilation.go and validation.go): `self` typed from the schema, transition rules with
// `oldSelf` run only where an old value correlates, ratcheting of unchanged values, per-expression cost limit and
// per-object cost budget.

import { isDeepStrictEqual } from 'node:util';
import { fieldErrors } from '../../apis/errors.ts';
import { goValidationRule } from './go-crd-values.ts';
import type { FieldError } from '../../apis/errors.ts';
import type { CompiledExpression } from '../../cel/environment.ts';
import { environmentIn } from '../../cel/environment-type.ts';
import { cel } from '../../cel/lazy.ts';
import { PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from '../../cel/cost.ts';
import { maxElements } from '../../cel/estimate.ts';
import { DYN, scalarSchemaType, surelyNotOf, type DeclField, type DeclType } from '../../cel/decl.ts';
import type { JSONSchemaProps, ValidationRule } from './json-schema-props.ts';

export interface CompiledRules {
  /** True when the schema has no rules: validate always returns []. */
  readonly empty: boolean;
  /** Runs every rule against a custom resource (and its old version on update); field paths from the object root. */
  validate(obj: unknown, old: unknown | undefined, options?: { costBudget?: number }): FieldError[];
}

// ---- the CEL view of a schema (k8s.io/apiserver/pkg/cel/common/schemas.go SchemaDeclType) ----

const RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** A property name as CEL sees it (k8s.io/apiserver/pkg/cel/escaping.go Escape); undefined when it cannot be. */
export function escapeFieldName(name: string): string | undefined {
  if (name === '' || /^[0-9]/.test(name)) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  let ok = true;
  const escaped = name.replace(/__|[^a-zA-Z0-9_]/g, (s) => {
    switch (s) {
      case '__':
        return '__underscores__';
      case '.':
        return '__dot__';
      case '-':
        return '__dash__';
      case '/':
        return '__slash__';
      default:
        ok = false;
        return '';
    }
  });
  return ok ? escaped : undefined;
}

const isSchema = (v: unknown): v is JSONSchemaProps => typeof v === 'object' && v !== null && !Array.isArray(v);

const STRING: DeclType = { kind: 'string' };
const METADATA: DeclType = {
  kind: 'object',
  fields: new Map<string, DeclField>([
    ['name', { name: 'name', type: STRING }],
    ['generateName', { name: 'generateName', type: STRING }],
  ]),
};

/** The CEL type of a schema node; `resourceRoot` adds apiVersion, kind and metadata (name, generateName). */
export function schemaDeclType(s: JSONSchemaProps, resourceRoot: boolean): DeclType {
  if (s['x-kubernetes-int-or-string']) return DYN;
  switch (s.type) {
    case 'array': {
      const items = s.items && !Array.isArray(s.items) ? schemaDeclType(s.items, s.items['x-kubernetes-embedded-resource'] === true) : DYN;
      const mapKeys = Array.isArray(s['x-kubernetes-list-map-keys']) ? s['x-kubernetes-list-map-keys'] : undefined;
      return { kind: 'list', elem: items, maxItems: s.maxItems, listType: s['x-kubernetes-list-type'], mapKeys };
    }
    case 'object': {
      if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        const ap = s.additionalProperties;
        return { kind: 'map', value: schemaDeclType(ap, ap['x-kubernetes-embedded-resource'] === true), maxProperties: s.maxProperties };
      }
      // unknown fields preserved by x-kubernetes-preserve-unknown-fields are not visible to rules
      const fields = new Map<string, DeclField>();
      const required = new Set(Array.isArray(s.required) ? s.required : []);
      let minSize = 2;
      for (const [name, prop] of Object.entries(isSchema(s.properties) ? s.properties : {})) {
        if (!isSchema(prop)) continue;
        const type = schemaDeclType(prop, prop['x-kubernetes-embedded-resource'] === true);
        const celName = escapeFieldName(name);
        if (celName !== undefined) fields.set(celName, { name, type });
        if (required.has(name) && prop.default === undefined) minSize += name.length + minSizeOf(type) + 4;
      }
      if (resourceRoot) {
        fields.set('apiVersion', { name: 'apiVersion', type: STRING });
        fields.set('kind', { name: 'kind', type: STRING });
        fields.set('metadata', { name: 'metadata', type: METADATA });
      }
      return { kind: 'object', fields, maxProperties: s.maxProperties, minSize };
    }
    default: {
      const maxLength = s.maxLength !== undefined ? Math.max(0, s.maxLength) * 4 : Array.isArray(s.enum) && s.enum.length > 0 ? s.enum.reduce((m: number, e) => Math.max(m, typeof e === 'string' ? e.length : 0), 0) : undefined;
      return scalarSchemaType(s.type, s.format, { bytes: s.maxLength, string: maxLength }) ?? DYN;
    }
  }
}

function minSizeOf(t: DeclType): number {
  return t.kind === 'object' ? (t.minSize ?? 2) : t.kind === 'string' || t.kind === 'list' || t.kind === 'map' ? 2 : t.kind === 'bool' ? 4 : 1;
}

// ---- compiled tree ----

interface CompiledRule {
  readonly rule: ValidationRule;
  readonly expr: CompiledExpression;
  readonly messageExpr: CompiledExpression | undefined;
  readonly usesOldSelf: boolean;
  /** The rule's fieldPath, normalized ("spec.foo", "map[key]"), appended to the node's path on failure. */
  readonly fieldPath: string;
}

interface RuleNode {
  /** The schema type, printed as the bad value of a failed rule ("object", "string", ...). */
  readonly type: string;
  readonly rules: CompiledRule[];
  readonly properties: Map<string, RuleNode>;
  readonly additionalProperties: RuleNode | undefined;
  readonly items: RuleNode | undefined;
  /** Rules of allOf entries, run on the same value. */
  readonly allOf: RuleNode[];
  readonly listType: string | undefined;
  readonly listMapKeys: string[];
  readonly usesOldSelf: boolean;
  /** The CEL type of `self` and `oldSelf` at this node. */
  readonly declType: DeclType;
}

/** field.Path rendering: children with '.', keys and indexes in brackets; the root prints "<nil>". */
const child = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);
const key = (path: string, k: string | number): string => `${path}[${k}]`;
const shown = (path: string): string => (path === '' ? '<nil>' : path);

/** Go's %#v of a ValidationRule, the bad value kube prints for rule compile problems. */
const renderRule = goValidationRule;

function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const f = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${f} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

const SUPPORTED_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const NEWLINES = /[\n\r]+/;

/** A rule's fieldPath resolved against the node's schema (cel.ValidFieldPath); undefined when invalid. */
function normalizeFieldPath(jsonPath: string, schema: JSONSchemaProps): string | undefined {
  const tokens = jsonPath.match(/'(?:[^'\\]|\\.)*'|[.[\]]|[^.[\]']+/g) ?? [];
  let s: JSONSchemaProps | undefined = schema;
  let out = '';
  const step = (name: string): boolean => {
    if (!s) return false;
    if (s.properties) {
      out = child(out, name);
      s = s.properties[name];
      return s !== undefined;
    }
    if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      out = key(out, name);
      s = s.additionalProperties;
      return true;
    }
    return false;
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === '.') {
      const name = tokens[++i];
      if (name === undefined || !step(name)) return undefined;
    } else if (t === '[') {
      const q = tokens[++i];
      if (q === undefined || q.length < 2 || !q.startsWith("'") || !q.endsWith("'")) return undefined;
      const name = q.slice(1, -1).replace(/\\(.)/g, '$1');
      if (!step(name) || tokens[++i] !== ']') return undefined;
    } else return undefined;
  }
  return out;
}

/** The rule's own fields with anything but a string where a string belongs dropped. */
function withStringFields(rule: ValidationRule): ValidationRule {
  const optional = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);
  return { ...rule, rule: optional(rule.rule) ?? '', message: optional(rule.message), messageExpression: optional(rule.messageExpression), fieldPath: optional(rule.fieldPath) };
}

/**
 * The checks kube makes of a rule's own fields (rule, message, messageExpression, reason, fieldPath), in its order;
 * they count among the schema's errors, so they are reported whether or not the rules get compiled. Returns the
 * normalized fieldPath ("" when none or invalid).
 */
function ruleFieldProblems(rule: ValidationRule, rulePath: string, s: JSONSchemaProps, errors: FieldError[]): string {
  const text = (rule.rule ?? '').trim();
  const message = (rule.message ?? '').trim();
  if (text === '') errors.push(fieldErrors.required(`${rulePath}.rule`, 'rule is not specified'));
  else if ((rule.message ?? '').length > 0 && message === '') errors.push(fieldErrors.invalid(`${rulePath}.message`, rule.message, 'message must be non-empty if specified'));
  else if (NEWLINES.test(message)) errors.push(fieldErrors.invalid(`${rulePath}.message`, rule.message, 'message must not contain line breaks'));
  else if (NEWLINES.test(text) && message === '') errors.push(fieldErrors.required(`${rulePath}.message`, 'message must be specified if rule contains line breaks'));
  if ((rule.messageExpression ?? '').length > 0 && rule.messageExpression!.trim() === '') {
    errors.push(fieldErrors.required(`${rulePath}.messageExpression`, 'messageExpression must be non-empty if specified'));
  }
  if (rule.reason !== undefined && !SUPPORTED_REASONS.includes(rule.reason)) errors.push(fieldErrors.notSupported(`${rulePath}.reason`, rule.reason, SUPPORTED_REASONS));
  if (rule.fieldPath === undefined || rule.fieldPath.length === 0) return '';
  if (rule.fieldPath.trim() === '') errors.push(fieldErrors.invalid(`${rulePath}.fieldPath`, rule.fieldPath, 'fieldPath must be non-empty if specified'));
  if (NEWLINES.test(rule.fieldPath)) errors.push(fieldErrors.invalid(`${rulePath}.fieldPath`, rule.fieldPath, 'fieldPath must not contain line breaks'));
  const normalized = normalizeFieldPath(rule.fieldPath.trim(), s);
  if (normalized === undefined) errors.push(fieldErrors.invalid(`${rulePath}.fieldPath`, rule.fieldPath, 'fieldPath must be a valid path'));
  return normalized ?? '';
}

/** The schemas kube's ValidateCustomResourceDefinitionOpenAPISchema recurses into from one node, with their paths. */
function subSchemas(s: JSONSchemaProps, path: string): [JSONSchemaProps, string][] {
  const out: [JSONSchemaProps, string][] = [];
  const add = (x: unknown, p: string) => {
    if (isSchema(x)) out.push([x, p]);
  };
  add(s.additionalProperties, `${path}.additionalProperties`);
  for (const k of Object.keys(isSchema(s.properties) ? s.properties : {}).sort()) add(s.properties![k], `${path}.properties[${k}]`);
  add(s.not, `${path}.not`);
  for (const [name, list] of [['allOf', s.allOf], ['oneOf', s.oneOf], ['anyOf', s.anyOf]] as const) if (Array.isArray(list)) list.forEach((x, i) => add(x, `${path}.${name}[${i}]`));
  for (const k of Object.keys(isSchema(s.definitions) ? s.definitions : {}).sort()) add(s.definitions![k], `${path}.definitions[${k}]`);
  if (Array.isArray(s.items)) s.items.forEach((x, i) => add(x, `${path}.items[${i}]`));
  else add(s.items, `${path}.items`);
  for (const k of Object.keys(isSchema(s.dependencies) ? s.dependencies : {}).sort()) add(s.dependencies![k], `${path}.dependencies[${k}]`);
  return out;
}

/** The rule-field problems of every x-kubernetes-validations in the schema, for a schema whose rules are not compiled. */
export function ruleFieldErrors(s: JSONSchemaProps, path: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const [sub, p] of subSchemas(s, path)) errors.push(...ruleFieldErrors(sub, p));
  const validations = Array.isArray(s['x-kubernetes-validations']) ? s['x-kubernetes-validations'] : [];
  validations.forEach((rule, i) => {
    if (isSchema(rule)) ruleFieldProblems(withStringFields(rule as ValidationRule), `${path}.x-kubernetes-validations[${i}]`, s, errors);
  });
  return errors;
}

/** The rules and message expressions a CRD held before an update (kube's preexistingExpressions). */
export interface PreexistingExpressions {
  readonly rules: ReadonlySet<string>;
  readonly messageExpressions: ReadonlySet<string>;
}

/**
 * How a CRD write compiles its rules. Without `preexisting` (evaluation, and the server's own reads) every expression
 * is a stored one; a write compiles those its old version did not hold in the environment of new expressions.
 */
export interface RuleCompileOptions {
  readonly preexisting?: PreexistingExpressions;
  /** The version's schema is unchanged by the update: its expressions are not held to the per-expression cost limit. */
  readonly suppressPerExpressionCost?: boolean;
  /**
   * A write's validation: what the schema checks found (see CrdSchemaCheck). Every rule's own fields are checked, and
   * a node's rules compile only where kube compiles them: in a schema that passed its structural checks, outside
   * allOf, anyOf, oneOf and not, and with no schema error at or below the node.
   */
  readonly gate?: { readonly celAllowed: boolean; readonly nodeErrors: readonly FieldError[] };
}

/** Compile-time problems with kube's field paths and messages, and the compiled rules of the schema. */
export function compileValidationRules(schema: JSONSchemaProps, fieldPath: string, options: RuleCompileOptions = {}): { errors: FieldError[]; rules: CompiledRules } {
  const problems: FieldError[] = [];
  const celErrors: FieldError[] = [];
  const costs: { path: string; cost: number }[] = [];
  const ctx: CompileContext = { problems, celErrors, costs, options, inCombinator: false };
  const root = isSchema(schema) ? compileNode(schema, schema, schemaDeclType(schema, true), fieldPath, 1, undefined, ctx) : undefined;
  // as kube's OpenAPISchemaErrorList: the schema errors (a rule's own fields) before the CEL errors
  const errors = [...problems, ...celErrors];
  const total = costs.reduce((s, c) => s + c.cost, 0);
  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    // kube names the most expensive expressions (those above 1% of the limit, at most 4) as contributors
    const contributors = costs.filter((c) => c.cost > STATIC_ESTIMATED_CRD_COST_LIMIT / 100).sort((a, b) => b.cost - a.cost).slice(0, 4);
    for (const c of contributors) errors.push(fieldErrors.forbidden(c.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    errors.push(fieldErrors.forbidden(fieldPath, `x-kubernetes-validations ${costErrorMessage('estimated rule cost total for entire OpenAPIv3 schema', total, STATIC_ESTIMATED_CRD_COST_LIMIT)}`));
  }
  return { errors, rules: root ? rulesOf(root) : EMPTY };
}

interface CompileContext {
  /** Problems of the rules' own fields (schema errors to kube). */
  readonly problems: FieldError[];
  readonly celErrors: FieldError[];
  readonly costs: { path: string; cost: number }[];
  readonly options: RuleCompileOptions;
  /** Below allOf: kube checks the rules' fields there but compiles none at write time (no CEL context). */
  readonly inCombinator: boolean;
}

/** The sub-schemas compileNode walks into, by their path below the node. */
const COMPILED_BELOW = /^\.(?:additionalProperties|items|properties\[[^\]]*\]|allOf\[\d+\])$/;

/** An error at the node of `path` or below it. */
const atOrBelow = (errors: readonly FieldError[], path: string): boolean =>
  errors.some((e) => e.field === path || e.field.startsWith(`${path}.`) || e.field.startsWith(`${path}[`));

/** Every rule and message expression in a schema, at any depth (kube's findPreexistingExpressions). */
export function preexistingExpressions(schemas: readonly (JSONSchemaProps | undefined)[]): PreexistingExpressions {
  const rules = new Set<string>();
  const messageExpressions = new Set<string>();
  const walk = (s: unknown): void => {
    if (Array.isArray(s)) return s.forEach(walk);
    if (!isSchema(s)) return;
    for (const v of Array.isArray(s['x-kubernetes-validations']) ? s['x-kubernetes-validations'] : []) {
      if (!isSchema(v)) continue;
      if (typeof v.rule === 'string') rules.add(v.rule);
      if (typeof v.messageExpression === 'string' && v.messageExpression !== '') messageExpressions.add(v.messageExpression);
    }
    for (const key of ['items', 'additionalProperties', 'not'] as const) walk(s[key]);
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) walk(s[key]);
    for (const map of [s.properties, s.patternProperties, s.definitions, s.dependencies]) if (isSchema(map)) Object.values(map).forEach(walk);
  };
  schemas.forEach(walk);
  return { rules, messageExpressions };
}


/**
 * The rules of one schema node and below. `v` holds the rules (the node itself, or one of its allOf entries, whose
 * rules apply to the same value); `n` is the node that gives the value its structure and CEL type.
 */
function compileNode(
  v: JSONSchemaProps,
  n: JSONSchemaProps,
  declType: DeclType,
  path: string,
  cardinality: number,
  uncorrelatable: string | undefined,
  ctx: CompileContext,
): RuleNode | undefined {
  const properties = new Map<string, RuleNode>();
  if (isSchema(v.properties) && isSchema(n.properties)) {
    for (const [name, prop] of Object.entries(v.properties)) {
      const nodeProp = n.properties[name];
      if (!isSchema(prop) || !isSchema(nodeProp)) continue;
      // the child's type is the parent's field type; a name CEL cannot spell has none, so it gets its own
      const escaped = escapeFieldName(name);
      const field = declType.kind === 'object' && escaped !== undefined ? declType.fields.get(escaped) : undefined;
      const propType = field && field.name === name ? field.type : schemaDeclType(nodeProp, nodeProp['x-kubernetes-embedded-resource'] === true);
      const sub = compileNode(prop, nodeProp, propType, `${path}.properties[${name}]`, cardinality, uncorrelatable, ctx);
      if (sub) properties.set(name, sub);
    }
  }
  let additionalProperties: RuleNode | undefined;
  if (isSchema(v.additionalProperties) && isSchema(n.additionalProperties)) {
    const ap = n.additionalProperties;
    const apType = declType.kind === 'map' ? declType.value : schemaDeclType(ap, ap['x-kubernetes-embedded-resource'] === true);
    additionalProperties = compileNode(v.additionalProperties, ap, apType, `${path}.additionalProperties`, cardinality * maxElements(declType), uncorrelatable, ctx);
  }
  let items: RuleNode | undefined;
  if (isSchema(v.items) && isSchema(n.items)) {
    const it = n.items;
    // only list-type=map items correlate with old items, so below any other list oldSelf cannot be used
    const within = uncorrelatable ?? (n['x-kubernetes-list-type'] === 'map' ? undefined : path);
    const itemType = declType.kind === 'list' ? declType.elem : schemaDeclType(it, it['x-kubernetes-embedded-resource'] === true);
    items = compileNode(v.items, it, itemType, `${path}.items`, cardinality * maxElements(declType), within, ctx);
  }
  const allOf: RuleNode[] = [];
  if (Array.isArray(v.allOf)) {
    v.allOf.forEach((entry, i) => {
      if (!isSchema(entry)) return;
      const sub = compileNode(entry, n, declType, `${path}.allOf[${i}]`, cardinality, uncorrelatable, { ...ctx, inCombinator: true });
      if (sub) allOf.push(sub);
    });
  }
  // at a write, the rules' own fields are checked in the schemas no rule of which is compiled (anyOf, oneOf, not, ...)
  if (ctx.options.gate) {
    for (const [sub, p] of subSchemas(v, path)) if (!COMPILED_BELOW.test(p.slice(path.length))) ctx.problems.push(...ruleFieldErrors(sub, p));
  }
  // the node's own rules after those below it, in kube's order; at a write, all of them or none (see `gate`)
  const validations = (Array.isArray(v['x-kubernetes-validations']) ? v['x-kubernetes-validations'] : []).map((rule, i) => ({ rule, path: `${path}.x-kubernetes-validations[${i}]` }));
  const checked = validations.filter((r) => isSchema(r.rule)).map((r) => {
    const rule = withStringFields(r.rule as ValidationRule);
    const before = ctx.problems.length;
    const fieldPath = ruleFieldProblems(rule, r.path, n, ctx.problems);
    return { rule, path: r.path, fieldPath, ok: ctx.problems.length === before };
  });
  const gate = ctx.options.gate;
  const compiles = gate === undefined || (gate.celAllowed && !ctx.inCombinator && !atOrBelow(gate.nodeErrors, path) && !atOrBelow(ctx.problems, path));
  const rules: CompiledRule[] = [];
  for (const r of checked) {
    if (!compiles || !r.ok) continue;
    const compiled = compileRule(r.rule, r.path, r.fieldPath, declType, cardinality, uncorrelatable, ctx);
    if (compiled) rules.push(compiled);
  }
  if (rules.length === 0 && properties.size === 0 && !additionalProperties && !items && allOf.length === 0) return undefined;
  return {
    type: typeof n.type === 'string' ? n.type : '',
    rules,
    properties,
    additionalProperties,
    items,
    allOf,
    listType: n['x-kubernetes-list-type'],
    listMapKeys: Array.isArray(n['x-kubernetes-list-map-keys']) ? n['x-kubernetes-list-map-keys'] : [],
    usesOldSelf: rules.some((r) => r.usesOldSelf),
    declType,
  };
}

/** One rule whose own fields passed their checks (`fieldPath` normalized), compiled with kube's messages. */
function compileRule(
  rule: ValidationRule,
  rulePath: string,
  fieldPath: string,
  declType: DeclType,
  cardinality: number,
  uncorrelatable: string | undefined,
  { celErrors: errors, costs, options }: CompileContext,
): CompiledRule | undefined {
  const text = (rule.rule ?? '').trim();
  if (text === '') return undefined;

  const vars = { self: declType, oldSelf: declType };
  const compiled = cel().compileExpression(text, vars, { environment: environmentIn(options.preexisting?.rules, rule.rule) });
  let expr: CompiledExpression | undefined;
  if (!compiled.ok) errors.push(fieldErrors.invalid(`${rulePath}.rule`, renderRule(rule), `compilation failed: ${compiled.error}`));
  // a result the checker could not infer passes; a declared dyn (int-or-string) is not a bool, as in cel-go
  else if (surelyNotOf(compiled.expression.info.resultType, ['bool'])) {
    errors.push(fieldErrors.invalid(`${rulePath}.rule`, renderRule(rule), 'cel expression must evaluate to a bool'));
  } else expr = compiled.expression;

  const ruleCost = expr ? expr.maxCost * cardinality : 0;
  if (!options.suppressPerExpressionCost && ruleCost > STATIC_ESTIMATED_COST_LIMIT) errors.push(fieldErrors.forbidden(`${rulePath}.rule`, costErrorMessage('estimated rule cost', ruleCost, STATIC_ESTIMATED_COST_LIMIT)));
  if (expr) costs.push({ path: `${rulePath}.rule`, cost: ruleCost });

  let messageExpr: CompiledExpression | undefined;
  const messageSource = (rule.messageExpression ?? '').trim();
  if (messageSource !== '') {
    const m = cel().compileExpression(messageSource, vars, { environment: environmentIn(options.preexisting?.messageExpressions, rule.messageExpression) });
    if (!m.ok) errors.push(fieldErrors.invalid(`${rulePath}.messageExpression`, renderRule(rule), `messageExpression compilation failed: ${m.error}`));
    else if (surelyNotOf(m.expression.info.resultType, ['string'])) {
      errors.push(fieldErrors.invalid(`${rulePath}.messageExpression`, renderRule(rule), 'messageExpression must evaluate to a string'));
    } else {
      messageExpr = m.expression;
      const messageCost = messageExpr.maxCost * cardinality;
      if (!options.suppressPerExpressionCost && messageCost > STATIC_ESTIMATED_COST_LIMIT) {
        errors.push(fieldErrors.forbidden(`${rulePath}.messageExpression`, costErrorMessage('estimated messageExpression cost', messageCost, STATIC_ESTIMATED_COST_LIMIT)));
      }
      costs.push({ path: `${rulePath}.messageExpression`, cost: messageCost });
    }
  }

  const usesOldSelf = expr?.info.usedVariables.has('oldSelf') ?? false;
  if (expr && usesOldSelf && uncorrelatable !== undefined) {
    errors.push(fieldErrors.invalid(`${rulePath}.rule`, rule.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`));
  } else if (expr && !usesOldSelf && rule.optionalOldSelf !== undefined) {
    errors.push(fieldErrors.invalid(`${rulePath}.optionalOldSelf`, rule.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
  }
  if (!expr) return undefined;
  return { rule, expr, messageExpr, usesOldSelf, fieldPath };
}

// ---- evaluation ----

const EMPTY: CompiledRules = { empty: true, validate: () => [] };

interface Budget {
  remaining: number;
}

/** Correlation of a node with its old value, for ratcheting: errors of an unchanged value are dropped. */
interface Correlation {
  readonly value: unknown;
  readonly old: unknown;
  unchanged?: boolean;
}

function unchanged(c: Correlation | undefined): boolean {
  if (!c) return false;
  if (c.unchanged === undefined) c.unchanged = isDeepStrictEqual(c.value, c.old);
  return c.unchanged;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function rulesOf(root: RuleNode): CompiledRules {
  return {
    empty: false,
    validate(obj, old, options) {
      const budget: Budget = { remaining: options?.costBudget ?? RUNTIME_CEL_COST_BUDGET };
      const errors: FieldError[] = [];
      const corr = old === undefined ? undefined : { value: obj, old };
      try {
        validateNode(root, '', obj, old, corr, corr, budget, errors);
      } catch (e) {
        // a defect here must fail the request with a field error, never take the server down
        errors.push({ type: 'InternalError', field: '<nil>', detail: `unexpected error evaluating validation rules: ${(e as Error).message}` });
      }
      return errors;
    },
  };
}

/** False when the budget ran out (no further rules run). */
function validateNode(
  node: RuleNode,
  path: string,
  value: unknown,
  old: unknown,
  corr: Correlation | undefined,
  parentCorr: Correlation | undefined,
  budget: Budget,
  errors: FieldError[],
): boolean {
  if (value === null || value === undefined) return true;
  if (old === null) old = undefined;
  if (node.rules.length > 0 && !runRules(node, path, value, old, corr ?? parentCorr, budget, errors)) return false;
  // allOf rules ratchet only with the nearest correlated ancestor, as kube's
  for (const sub of node.allOf) if (!validateNode(sub, path, value, old, undefined, parentCorr, budget, errors)) return false;
  const nearest = corr ?? parentCorr;
  if (Array.isArray(value)) {
    if (!node.items) return true;
    const oldItems = Array.isArray(old) ? old : undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const oldItem = oldItems ? correlatedItem(node, item, oldItems) : undefined;
      const c = oldItem === undefined ? undefined : { value: item, old: oldItem };
      if (!validateNode(node.items, key(path, i), item, node.listType === 'map' ? oldItem : undefined, c, nearest, budget, errors)) return false;
    }
    return true;
  }
  if (!isObject(value)) return true;
  const oldObj = isObject(old) ? old : undefined;
  if (node.additionalProperties) {
    for (const k of Object.keys(value)) {
      const o = oldObj?.[k];
      const c = o === undefined ? undefined : { value: value[k], old: o };
      if (!validateNode(node.additionalProperties, key(path, k), value[k], o, c, nearest, budget, errors)) return false;
    }
  }
  for (const [k, sub] of node.properties) {
    if (!Object.hasOwn(value, k)) continue;
    const o = oldObj?.[k];
    // apiVersion and kind are not correlated at the root: both versions carry the requested ones
    const c = o === undefined || (path === '' && (k === 'apiVersion' || k === 'kind')) ? undefined : { value: value[k], old: o };
    if (!validateNode(sub, child(path, k), value[k], o, c, nearest, budget, errors)) return false;
  }
  return true;
}

/** The old item a new item of a list corresponds to: by map keys (list-type=map), by value (set). */
function correlatedItem(node: RuleNode, item: unknown, oldItems: unknown[]): unknown {
  if (node.listType === 'map' && isObject(item)) {
    return oldItems.find((o) => isObject(o) && node.listMapKeys.every((k) => isDeepStrictEqual(o[k], item[k])));
  }
  if (node.listType === 'set') return oldItems.find((o) => isDeepStrictEqual(o, item));
  return undefined;
}

function ruleText(rule: ValidationRule): string {
  return (rule.message ?? '').trim() || (rule.rule ?? '').trim();
}

function runRules(node: RuleNode, path: string, value: unknown, old: unknown, corr: Correlation | undefined, budget: Budget, errors: FieldError[]): boolean {
  if (budget.remaining <= 0) {
    errors.push(fieldErrors.invalid(shown(path), node.type, 'validation failed due to running out of cost budget, no further validation rules will be run'));
    budget.remaining = -1;
    return false;
  }
  // a node exists only where rules compiled, so CEL is loaded by now
  const { jsonToCel, evaluate, OptionalValue, NONE } = cel();
  // the activation is built once per node, lazily: each value converts only the fields a rule reads
  let self: unknown;
  let oldSelf: unknown;
  for (const r of node.rules) {
    if (r.usesOldSelf && old === undefined && r.rule.optionalOldSelf !== true) continue;
    self ??= jsonToCel(value, node.declType);
    const vars: Record<string, unknown> = { self };
    if (r.usesOldSelf) {
      if (old !== undefined) oldSelf ??= jsonToCel(old, node.declType);
      vars.oldSelf = r.rule.optionalOldSelf === true ? (old === undefined ? NONE : new OptionalValue(oldSelf as never)) : oldSelf;
    }
    const result = evaluate(r.expr, vars, Math.min(PER_CALL_LIMIT, Number.MAX_SAFE_INTEGER));
    if (result.cost > budget.remaining) {
      errors.push(fieldErrors.invalid(shown(path), node.type, 'validation failed due to running out of cost budget, no further validation rules will be run'));
      budget.remaining = -1;
      return false;
    }
    budget.remaining -= result.cost;
    if (!result.ok) {
      if (result.costExceeded) {
        errors.push(fieldErrors.invalid(shown(path), node.type, `'${result.error}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(r.rule)}`));
        budget.remaining = -1;
        return false;
      }
      if (result.error.startsWith('no such overload')) {
        errors.push(fieldErrors.invalid(shown(path), node.type, `'${result.error}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(r.rule)}`));
      } else errors.push(fieldErrors.invalid(shown(path), node.type, `${result.error} evaluating rule: ${ruleText(r.rule)}`));
      continue;
    }
    if (result.value === true) continue;
    const errPath = r.fieldPath ? child(path, r.fieldPath) : path;
    let detail: string | undefined;
    if (r.messageExpr) {
      // the message sees the rule's activation (oldSelf as a plain value, when there is one)
      const m = evaluate(r.messageExpr, oldSelf === undefined ? { self } : { self, oldSelf }, PER_CALL_LIMIT);
      if (m.cost > budget.remaining) {
        errors.push(fieldErrors.invalid(shown(errPath), node.type, 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run'));
        budget.remaining = -1;
        return false;
      }
      budget.remaining -= m.cost;
      if (!m.ok && m.costExceeded) {
        errors.push(fieldErrors.invalid(shown(errPath), node.type, `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(r.rule.messageExpression?.trim() ?? '')}`));
        budget.remaining = -1;
        return false;
      }
      // a failing, non-string, empty, multi-line or too long message falls back to the rule's message
      if (m.ok && typeof m.value === 'string') {
        const text = m.value.trim();
        if (text !== '' && text.length <= 5 * 1024 && !/\n/.test(text)) detail = text;
      }
    }
    detail ??= (r.rule.message ?? '').trim() || `failed rule: ${ruleText(r.rule)}`;
    // ratcheting (CRDValidationRatcheting, beta and on in 1.31): an unchanged value keeps passing
    if (!r.usesOldSelf && unchanged(corr)) continue;
    errors.push(errorForReason(shown(errPath), node.type, detail, r.rule.reason));
  }
  return true;
}

/** fieldErrorForReason of validation.go. */
function errorForReason(path: string, type: string, detail: string, reason: ValidationRule['reason']): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return fieldErrors.forbidden(path, detail);
    case 'FieldValueRequired':
      return fieldErrors.required(path, detail);
    case 'FieldValueDuplicate':
      return fieldErrors.duplicate(path, type);
    default:
      return fieldErrors.invalid(path, type, detail);
  }
}
