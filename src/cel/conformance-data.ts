// Reading the CEL specification's conformance data (@bufbuild/cel-spec, the JSON form of cel.expr.conformance
// SimpleTest) into values and expectations our environment can run: used by the conformance test.

import { celUint } from '@bufbuild/cel';
import type { CelValue } from '@bufbuild/cel';

export interface JsonValue {
  nullValue?: unknown;
  boolValue?: boolean;
  int64Value?: string;
  uint64Value?: string;
  doubleValue?: number | string;
  stringValue?: string;
  bytesValue?: string;
  listValue?: { values?: JsonValue[] };
  mapValue?: { entries?: { key: JsonValue; value: JsonValue }[] };
  typeValue?: string;
  objectValue?: unknown;
  enumValue?: unknown;
}

export interface ConformanceTest {
  name: string;
  expr: string;
  disableMacros?: boolean;
  disableCheck?: boolean;
  container?: string;
  bindings?: Record<string, { value?: JsonValue }>;
  typeEnv?: unknown[];
  value?: JsonValue;
  evalError?: unknown;
  anyEvalErrors?: unknown;
  unknown?: unknown;
  anyUnknowns?: unknown;
}

export interface ConformanceSuite {
  name: string;
  suites?: ConformanceSuite[];
  /** With cel-go's check of the expression: its result type, or its checker's error. */
  tests?: { original: ConformanceTest; type?: string; error?: string }[];
}

/** Thrown for expected values this harness cannot express (protobuf messages, types, enums). */
export class Unsupported extends Error {}

export function toCelValue(v: JsonValue): CelValue {
  if ('nullValue' in v) return null;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.int64Value !== undefined) return BigInt(v.int64Value);
  if (v.uint64Value !== undefined) return celUint(BigInt(v.uint64Value));
  if (v.doubleValue !== undefined) return typeof v.doubleValue === 'number' ? v.doubleValue : Number(v.doubleValue);
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.bytesValue !== undefined) return new Uint8Array(Buffer.from(v.bytesValue, 'base64'));
  if (v.listValue !== undefined) return (v.listValue.values ?? []).map(toCelValue) as never;
  if (v.mapValue !== undefined) return new Map((v.mapValue.entries ?? []).map((e) => [toCelValue(e.key), toCelValue(e.value)])) as never;
  throw new Unsupported(Object.keys(v).join(','));
}

export interface FlatTest {
  name: string;
  test: ConformanceTest;
  /** cel-go's checked result type, when its checker accepts the expression. */
  checkedType?: string;
  /** cel-go's checker error (first line), when it refuses the expression. */
  checkError?: string;
}

/** Every test of a suite tree, named "suite/sub/test". */
export function flatten(suite: ConformanceSuite, prefix = ''): FlatTest[] {
  const name = prefix ? `${prefix}/${suite.name}` : suite.name;
  const out: FlatTest[] = [];
  for (const t of suite.tests ?? []) out.push({ name: `${name}/${t.original.name}`, test: t.original, checkedType: t.type, checkError: t.error?.split('\n')[0] });
  for (const s of suite.suites ?? []) out.push(...flatten(s, name));
  return out;
}
