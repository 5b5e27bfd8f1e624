// Declared types of CEL variables (the CEL view of an OpenAPI schema). Plain data with no CEL runtime behind it,
// so a module that declares variables does not load CEL (src/cel/lazy.ts).

export interface DeclField {
  /** The JSON property name. */
  readonly name: string;
  readonly type: DeclType;
}

/**
 * maxItems / maxProperties / maxLength bound the cost estimate; without them the estimate assumes as many elements
 * as fit in the largest request, given the smallest serialized element (minSize of objects: {} and the required
 * properties). maxLength counts bytes (kube multiplies a schema's maxLength in characters by 4).
 */
export type DeclType =
  | { readonly kind: 'object'; readonly fields: ReadonlyMap<string, DeclField>; readonly maxProperties?: number; readonly minSize?: number }
  | { readonly kind: 'map'; readonly value: DeclType; readonly maxProperties?: number; /** string unless a map literal says otherwise */ readonly key?: DeclType }
  | { readonly kind: 'list'; readonly elem: DeclType; readonly maxItems?: number; readonly listType?: string; readonly mapKeys?: readonly string[] }
  | { readonly kind: 'string'; readonly maxLength?: number }
  | { readonly kind: 'bytes'; readonly maxLength?: number }
  | { readonly kind: 'timestamp'; readonly dateOnly?: boolean }
  | { readonly kind: 'duration' }
  | { readonly kind: 'int' }
  | { readonly kind: 'uint' }
  | { readonly kind: 'double' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'dyn' };

export const DYN: DeclType = { kind: 'dyn' };

/** An object type of the given fields (the checker's view of kube's apiservercel.NewObjectType). */
export function objectType(fields: Readonly<Record<string, DeclType>>): DeclType {
  return { kind: 'object', fields: new Map(Object.entries(fields).map(([name, type]) => [name, { name, type }])) };
}

/**
 * Whether a result type is surely none of the given kinds, as cel-go's checker would type it: a known type of
 * another kind, or a declared dyn (cel-go's output type is then dyn, which is not bool). A type this checker could
 * not infer is given the benefit of the doubt.
 */
export function surelyNotOf(t: DeclType, kinds: readonly DeclType['kind'][]): boolean {
  if (t === DYN) return true;
  return t.kind !== 'dyn' && !kinds.includes(t.kind);
}

/** kube's SchemaDeclType of a scalar schema (strings by their format: bytes, duration, timestamps); else undefined. */
export function scalarSchemaType(type: string | undefined, format: string | undefined, maxLength: { bytes?: number; string?: number } = {}): DeclType | undefined {
  switch (type) {
    case 'integer':
      return { kind: 'int' };
    case 'number':
      return { kind: 'double' };
    case 'boolean':
      return { kind: 'bool' };
    case 'string':
      break;
    default:
      return undefined;
  }
  switch (format) {
    case 'byte':
      return { kind: 'bytes', maxLength: maxLength.bytes };
    case 'duration':
      return { kind: 'duration' };
    case 'date':
      return { kind: 'timestamp', dateOnly: true };
    case 'date-time':
      return { kind: 'timestamp' };
    default:
      return { kind: 'string', maxLength: maxLength.string };
  }
}
