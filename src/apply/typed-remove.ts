// Removing fields, map entries and list items named by a field set from a value (structured-merge-diff
// TypedValue.RemoveItems). Like the original, a container left empty by the removal becomes null.

import type { FieldSet } from './field-set.ts';
import { fieldElement } from './path-element.ts';
import { DEDUCED, type TypeRef } from './schema.ts';
import { deduceAtom, handleAtom, isValueMap, listItemPathElement, type Value, type ValueMap } from './typed-values.ts';

export function removeItems(v: Value, toRemove: FieldSet, type: TypeRef): Value {
  if (toRemove.isEmpty()) return v;
  return walk(v, toRemove, type);
}

function walk(v: Value, toRemove: FieldSet, type: TypeRef): Value {
  let out: Value = null;
  handleAtom(deduceAtom(type.atom, v), {
    scalar() {
      out = v === undefined ? null : v;
    },
    list(t) {
      if (!Array.isArray(v) || v.length === 0 || t.atomic) return;
      const items: Value[] = [];
      for (let i = 0; i < v.length; i++) {
        let item: Value = v[i];
        const pe = listItemPathElement(t, i, item);
        if (typeof pe !== 'string') {
          if (toRemove.has([pe])) continue;
          const sub = toRemove.withPrefix(pe);
          if (!sub.isEmpty()) item = walk(item, sub, t.elem);
        }
        items.push(item);
      }
      if (items.length > 0) out = items;
    },
    map(t) {
      if (!isValueMap(v) || Object.keys(v).length === 0 || t.atomic) return;
      const m: ValueMap = {};
      for (const [key, val] of Object.entries(v)) {
        if (val === undefined) continue;
        const pe = fieldElement(key);
        if (toRemove.has([pe])) continue;
        const sub = toRemove.withPrefix(pe);
        m[key] = sub.isEmpty() ? val : walk(val, sub, t.fields.get(key)?.type ?? t.elem ?? DEDUCED);
      }
      if (Object.keys(m).length > 0) out = m;
    },
  });
  return out;
}
