// Go's %#v of decoded JSON values, as field.Duplicate prints list-map keys ("map[string]interface {}{\"name\":\"a\"}").

import { goFloat, isGoInt } from './go-values.ts';

export function goSharpV(v: unknown, nested = false): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'boolean':
      return String(v);
    case 'number':
      if (isGoInt(v)) return nested ? `${v}` : String(v);
      return goFloat(v);
    default:
      if (Array.isArray(v)) return `[]interface {}{${v.map((x) => goSharpV(x, true)).join(', ')}}`;
      return `map[string]interface {}{${Object.keys(v)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${goSharpV((v as Record<string, unknown>)[k], true)}`)
        .join(', ')}}`;
  }
}
