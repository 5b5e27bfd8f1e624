// The CRD schema library: write-time checks of a version's openAPIV3Schema, and the compiled form custom
// resource requests use (validation, pruning, defaulting, the SchemaNode view).

export { compileSchema, type CompiledSchema } from './compile.ts';
export type { CompiledNode } from './compiled-node.ts';
export { checkCrdSchema, validateCrdSchema, type CrdSchemaCheck, type CrdSchemaOptions } from './crd-schema-validation.ts';
export { ratchetsFromOld, STRICT_RATCHETS, hasDefaults, hasKubernetesExtensions, type SchemaRatchets } from './update-ratchets.ts';
