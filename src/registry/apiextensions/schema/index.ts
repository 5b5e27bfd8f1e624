// PLACEHOLDER until the crd-schema branch lands (its files replace this one).
import type { FieldError } from '../../../apis/errors.ts';
import type { SchemaNode } from '../../../apis/model-types.ts';
import type { JSONSchemaProps } from '../json-schema-props.ts';

export interface CrdSchemaOptions {
  requireStructural: boolean;
}
export function validateCrdSchema(_schema: JSONSchemaProps | undefined, _fieldPath: string, _opts: CrdSchemaOptions): FieldError[] {
  return [];
}
export interface CompiledSchema {
  validate(obj: unknown): FieldError[];
  prune(obj: unknown): string[];
  applyDefaults(obj: unknown): void;
  readonly node: SchemaNode;
}
export function compileSchema(schema: JSONSchemaProps): CompiledSchema {
  return { validate: () => [], prune: () => [], applyDefaults: () => {}, node: schema as SchemaNode };
}
