// The CEL specification's conformance data (@bufbuild/cel-spec) run through the server's environment: checking,
// cost-metered evaluation and all. Suites that apply to Kubernetes' use of CEL run; the others are skipped below
// with the reason, as are the few tests needing syntax @bufbuild/cel 0.6.1 does not parse.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tests } from '@bufbuild/cel-spec/testdata/conformance.js';
import type { CelValue } from '@bufbuild/cel';
import { flatten, toCelValue, Unsupported } from './conformance-data.ts';
import type { ConformanceSuite, ConformanceTest } from './conformance-data.ts';
import { compileExpression, evaluate } from './environment.ts';
import { celEquals, DYN } from './values.ts';
import type { DeclType } from './values.ts';

/** Suites run. Skipped: bindings_ext, block_ext, encoders_ext, math_ext, macros2 (extensions kube 1.31 does not
 * enable for CRD rules: cel.bind, cel.block, base64, math.*, two-variable comprehensions); proto2, proto2_ext,
 * proto3, enums, wrappers, type_deductions, unknowns (protobuf test messages and partial evaluation, which JSON-typed
 * Kubernetes values never meet). */
const SUITES = ['basic', 'comparisons', 'conversions', 'dynamic', 'fields', 'fp_math', 'integer_math', 'lists', 'logic', 'macros', 'namespace', 'optionals', 'parse', 'plumbing', 'string', 'string_ext', 'timestamps'];

/** Single tests skipped, with the reason. */
const SKIPPED: [RegExp, string][] = [
  [/^fields\/quoted_map_fields\//, 'backtick-quoted field names: not in the @bufbuild/cel 0.6.1 grammar'],
  [/optMap|optFlatMap/, 'optMap/optFlatMap macros: not in the @bufbuild/cel 0.6.1 grammar'],
  [/^optionals\/optionals\/(optional_chaining_1[2-6]|map_optional_entry_has)$/, 'optional entries in list/map literals ([?x], {?k: v}): not in the grammar'],
  [/^optionals\/optionals\/(has_map_optindex|map_optional_select_has|type)$/, 'optional values are not a distinct runtime type here'],
  [/^fields\/qualified_identifier_resolution\/map_value_repeat_key_heterogeneous$/, 'maps with keys of several numeric types'],
];

function skipReason(name: string, t: ConformanceTest): string | undefined {
  if (t.container) return 'containers are not used by Kubernetes';
  if (t.disableMacros) return 'macros are always enabled';
  if (/TestAllTypes|NestedTestAllTypes|google\.protobuf\.(Any|Struct|Value|ListValue|[A-Z][a-z]+Value)\b/.test(t.expr)) return 'protobuf test messages';
  return SKIPPED.find(([re]) => re.test(name))?.[1];
}

const root = tests as unknown as ConformanceSuite;

for (const suite of root.suites ?? []) {
  if (!SUITES.includes(suite.name)) continue;
  test(`conformance: ${suite.name}`, () => {
    let ran = 0;
    const failures: string[] = [];
    for (const { name, test: t, checkError } of flatten(suite)) {
      if (skipReason(name, t)) continue;
      const vars: Record<string, DeclType> = {};
      const values: Record<string, unknown> = {};
      let expected: CelValue | undefined;
      try {
        for (const [k, b] of Object.entries(t.bindings ?? {})) {
          vars[k] = DYN;
          values[k] = b.value ? toCelValue(b.value) : null;
        }
        for (const d of (t.typeEnv ?? []) as { name: string }[]) vars[d.name] = DYN;
        expected = t.value ? toCelValue(t.value) : undefined;
      } catch (e) {
        if (e instanceof Unsupported) continue;
        throw e;
      }
      const wantsError = t.evalError !== undefined || t.anyEvalErrors !== undefined;
      if (!wantsError && expected === undefined) continue;
      const compiled = compileExpression(t.expr, vars, { homogeneousLiterals: false });
      if (!compiled.ok) {
        // a checked environment reports at compile time what an unchecked evaluation reports at run time
        if (t.disableCheck && compiled.error.includes('undeclared reference')) continue;
        // an expression the test evaluates unchecked, which cel-go's checker refuses as this one does
        if (t.disableCheck && compiled.error.split('\n')[0] === checkError) continue;
        if (!wantsError) failures.push(`${name}: ${t.expr}: ${compiled.error}`);
        ran++;
        continue;
      }
      ran++;
      const r = evaluate(compiled.expression, values, Number.POSITIVE_INFINITY);
      if (wantsError) {
        if (r.ok) failures.push(`${name}: ${t.expr}: expected an error, got ${String(r.value)}`);
      } else if (!r.ok) failures.push(`${name}: ${t.expr}: ${r.error}`);
      else {
        const nan = typeof expected === 'number' && Number.isNaN(expected) && typeof r.value === 'number' && Number.isNaN(r.value);
        if (!nan && !celEquals(r.value, expected as CelValue)) failures.push(`${name}: ${t.expr}: got ${String(r.value)}`);
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(ran > 0);
  });
}

/** Checker errors judged against cel-go's: the overload, logical operand and has() errors it gives. */
const CHECK_ERRORS = /found no matching overload|expected type '|invalid argument to has\(\) macro/;

test('the checker refuses what cel-go refuses, with its words and column, and nothing cel-go accepts', () => {
  const refusedWrongly: string[] = [];
  const different: string[] = [];
  let same = 0;
  for (const { name, test: t, checkedType, checkError } of flatten(root)) {
    if (t.container || t.typeEnv || t.disableMacros) continue;
    const compiled = compileExpression(t.expr, {}, { homogeneousLiterals: false });
    const ours = compiled.ok ? undefined : compiled.error.split('\n')[0];
    if (checkedType !== undefined && ours !== undefined && CHECK_ERRORS.test(ours)) refusedWrongly.push(`${name}: ${t.expr}: ${ours}`);
    if (checkError !== undefined && CHECK_ERRORS.test(checkError) && ours !== undefined && CHECK_ERRORS.test(ours)) {
      if (ours === checkError) same++;
      else different.push(`${name}: ${t.expr}: ${ours}, cel-go: ${checkError}`);
    }
  }
  assert.deepEqual(refusedWrongly, []);
  assert.deepEqual(different, []);
  // every one of cel-go's 56 such errors
  assert.equal(same, 56);
});
