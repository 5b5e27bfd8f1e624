// PLACEHOLDER until the cel branch lands (its file replaces this one).
import type { FieldError } from '../../apis/errors.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

export interface CompiledRules {
  readonly empty: boolean;
  validate(obj: unknown, old: unknown | undefined, options?: { costBudget?: number }): FieldError[];
}
export function compileValidationRules(_schema: JSONSchemaProps, _fieldPath: string): { errors: FieldError[]; rules: CompiledRules } {
  return { errors: [], rules: { empty: true, validate: () => [] } };
}
