// A ValidatingAdmissionPolicy's status.typeChecking (kube's validating/typechecking.go): the validations and their
// messageExpressions compiled once per kind the policy matches, with object and oldObject typed by that kind's
// schema (and params by the paramKind's), so that a field the kind does not have, or a call its types do not take,
// is reported as a warning. Kinds come from matchConstraints' rules without wildcards (subresources skipped), at most
// ten, sorted by group, version and kind. Warnings never change what the policy does.

import { followRefs, schemaByName } from '../../apis/model.ts';
import type { SchemaNode } from '../../apis/model-types.ts';
import { DYN, scalarSchemaType, type DeclField, type DeclType } from '../../cel/decl.ts';
import { cel } from '../../cel/lazy.ts';
import type { Registry, ResourceDefinition } from '../../registry/types.ts';
import { composeVariables } from './compile.ts';

type Obj = Record<string, unknown>;
const MAX_TYPES_TO_CHECK = 10;
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

/** kube's SchemaDeclType: the CEL type of a schema, or undefined for one without a type (its field is left out). */
function schemaType(node: SchemaNode, resolve: (ref: string) => SchemaNode | undefined, root: boolean, seen: ReadonlySet<string>): DeclType | undefined {
  const { node: n, name } = followRefs(node, (ref) => resolve(ref) ?? schemaByName(ref));
  // a type that contains itself (JSONSchemaProps) is dyn below its first level
  if (name !== undefined && seen.has(name)) return DYN;
  const inner = name === undefined ? seen : new Set([...seen, name]);
  if (n.intOrString || n.format === 'int-or-string') return DYN;
  switch (n.type) {
    case 'array':
      return { kind: 'list', elem: (n.items && schemaType(n.items, resolve, !!n.items.embeddedResource, inner)) ?? DYN };
    case 'object': {
      if (n.additionalProperties && typeof n.additionalProperties === 'object') {
        return { kind: 'map', value: schemaType(n.additionalProperties, resolve, !!n.additionalProperties.embeddedResource, inner) ?? DYN };
      }
      const fields = new Map<string, DeclField>();
      for (const [field, prop] of Object.entries(n.properties ?? {})) {
        const type = schemaType(prop, resolve, !!prop.embeddedResource, inner);
        if (type) fields.set(field, { name: field, type });
      }
      if (root) {
        for (const field of ['apiVersion', 'kind']) if (!fields.has(field)) fields.set(field, { name: field, type: { kind: 'string' } });
        if (!fields.has('metadata')) fields.set('metadata', { name: 'metadata', type: schemaType({ ref: OBJECT_META }, resolve, false, inner) ?? DYN });
      }
      return { kind: 'object', fields };
    }
    default:
      return scalarSchemaType(n.type, n.format) ?? (n.preserveUnknownFields ? DYN : undefined);
  }
}

const declTypes = new WeakMap<ResourceDefinition, DeclType>();
function declTypeOf(def: ResourceDefinition): DeclType {
  let t = declTypes.get(def);
  if (!t) declTypes.set(def, (t = schemaType(def.schema, (ref) => def.resolveRef(ref), true, new Set()) ?? DYN));
  return t;
}

/** The kinds a policy's rules name without wildcards, as group/version/kind, sorted (kube's typesToCheck). */
function kindsToCheck(spec: Obj, registry: Registry): ResourceDefinition[] {
  const constraints = (spec.matchConstraints ?? {}) as Obj;
  const rules = Array.isArray(constraints.resourceRules) ? (constraints.resourceRules as Obj[]) : [];
  const found = new Map<string, ResourceDefinition>();
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  for (const rule of rules) {
    const groups = strings(rule?.apiGroups);
    const versions = strings(rule?.apiVersions);
    if (groups.some((g) => g.includes('*')) || versions.some((v) => v.includes('*'))) continue;
    const resources = strings(rule?.resources).filter((r) => !/[*/]/.test(r));
    for (const group of [...groups].sort()) {
      for (const version of [...versions].sort()) {
        for (const resource of [...resources].sort()) {
          const def = registry.lookup(group, version, resource);
          if (!def) continue;
          found.set(`${def.group}/${def.version}/${def.kind}`, def);
          if (found.size === MAX_TYPES_TO_CHECK) return sortKinds(found);
        }
      }
    }
  }
  return sortKinds(found);
}

const sortKinds = (found: Map<string, ResourceDefinition>): ResourceDefinition[] =>
  [...found.values()].sort((a, b) => a.group.localeCompare(b.group) || a.version.localeCompare(b.version) || a.kind.localeCompare(b.kind));

/** The paramKind's type, when a served kind of that apiVersion has it. */
function paramsType(spec: Obj, registry: Registry): DeclType | undefined {
  const pk = spec.paramKind as Obj | undefined;
  if (!pk || typeof pk.apiVersion !== 'string' || typeof pk.kind !== 'string') return undefined;
  const slash = pk.apiVersion.indexOf('/');
  const [group, version] = slash < 0 ? ['', pk.apiVersion] : [pk.apiVersion.slice(0, slash), pk.apiVersion.slice(slash + 1)];
  const def = registry.all().find((d) => d.group === group && d.version === version && d.kind === pk.kind);
  return def ? declTypeOf(def) : undefined;
}

/** status.typeChecking of a policy: a warning per expression that does not compile against a kind it matches. */
export function typeCheckingOf(policy: object & { spec?: unknown }, registry: Registry): { expressionWarnings?: ExpressionWarning[] } {
  const spec = (policy.spec ?? {}) as Obj;
  const kinds = kindsToCheck(spec, registry);
  if (kinds.length === 0) return {};
  const params = spec.paramKind ? (paramsType(spec, registry) ?? true) : false;
  const checked = kinds.map((def) => ({ gvk: `${def.group}/${def.version}, Kind=${def.kind}`, declarations: composeVariables(spec, { params, object: declTypeOf(def) }).declarations }));
  const check = (expression: string): string => {
    let out = '';
    for (const { gvk, declarations } of checked) {
      const r = cel().compileExpression(expression, declarations);
      if (!r.ok) out += `${out ? '\n' : ''}${gvk}: ${r.error}\n`;
    }
    return out;
  };
  const warnings: ExpressionWarning[] = [];
  const validations = Array.isArray(spec.validations) ? (spec.validations as Obj[]) : [];
  validations.forEach((v, i) => {
    for (const field of ['expression', 'messageExpression'] as const) {
      const expression = v?.[field];
      if (typeof expression !== 'string' || expression === '') continue;
      const warning = check(expression);
      if (warning) warnings.push({ fieldRef: `spec.validations[${i}].${field}`, warning });
    }
  });
  return warnings.length > 0 ? { expressionWarnings: warnings } : {};
}
