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
  | { readonly kind: 'map'; readonly value: DeclType; readonly maxProperties?: number }
  | { readonly kind: 'list'; readonly elem: DeclType; readonly maxItems?: number; readonly listType?: string; readonly mapKeys?: readonly string[] }
  | { readonly kind: 'string'; readonly maxLength?: number }
  | { readonly kind: 'bytes'; readonly maxLength?: number }
  | { readonly kind: 'timestamp'; readonly dateOnly?: boolean }
  | { readonly kind: 'duration' }
  | { readonly kind: 'int' }
  | { readonly kind: 'double' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'dyn' };

export const DYN: DeclType = { kind: 'dyn' };
