// The server's CEL, for every user: CRD validation rules (registry/apiextensions/cel-rules.ts) now; admission
// policies and the authentication/authorization configurations later. How a user compiles and runs an expression:
//
//   const compiled = compileExpression(source, { object: DYN, oldObject: DYN, request: DYN, authorizer: DYN });
//   if (!compiled.ok) -> report compiled.error (cel-go's issue text) at the field holding the expression
//   const r = evaluate(compiled.expression, { object: jsonToCel(obj, DYN), ..., authorizer: authorizerValue(fn, user) }, PER_CALL_LIMIT);
//   r.ok ? r.value : r.error (r.costExceeded when the limit stopped it); r.cost counts against a caller's budget
//
// Declared types (DeclType) give compile-time checks of field names and the cost estimate (compiled.expression.maxCost);
// DYN defers everything to run time. Compiled programs are cached per (expression, declared types).

export { compileExpression, evaluate } from './environment.ts';
export type { CompiledExpression, CompileResult, EvalResult } from './environment.ts';
export { jsonToCel, DYN } from './values.ts';
export type { DeclType, DeclField } from './values.ts';
export { PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from './cost.ts';
export { authorizerValue } from './library/authorizer.ts';
export type { CelAuthorizer, CelAuthorizationAttributes, CelAuthorizationDecision } from './library/authorizer.ts';
export { OptionalValue, NONE } from './library/optionals.ts';
export { isCelList } from '@bufbuild/cel';
export { typeNameOf } from './dispatch.ts';
