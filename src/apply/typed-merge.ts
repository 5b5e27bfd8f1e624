// Merging an applied configuration into a live object (structured-merge-diff TypedValue.Merge): the right-hand
// side wins at leaves; granular maps merge by key, associative lists by item key (keeping the order of both
// sides as far as they agree); atomic containers are replaced. Items duplicated on the live side are kept
// as they are unless the configuration names their key, which then replaces all of them.

import { serializePathElement, type PathElement } from './path-element.ts';
import { forEachKey, walkLevel, type LevelRules } from './merging-walk.ts';
import type { ListAtom, TypeRef } from './schema.ts';
import { listItemPathElement, type Value, type ValueMap } from './typed-values.ts';

/** The merged value; undefined when neither side has one. */
export function mergeTyped(lhs: Value, rhs: Value, type: TypeRef): Value {
  return walk(lhs, rhs, type);
}

function walk(lhs: Value, rhs: Value, type: TypeRef): Value {
  if (lhs === undefined && rhs === undefined) return undefined;
  const rulesInto = (w: { out: Value }): LevelRules => ({
    leaf: () => {
      w.out = rhs !== undefined ? rhs : lhs;
    },
    list: (t, l, r) => {
      const out = mergeList(t, l ?? [], r ?? []);
      if (out.length > 0) w.out = out;
    },
    map: (t, l, r) => {
      const out: ValueMap = {};
      forEachKey(t, l, r, (key, lv, rv, ft) => {
        const v = walk(lv, rv, ft);
        if (v !== undefined) out[key] = v;
      });
      if (Object.keys(out).length > 0) w.out = out;
    },
  });
  const main = { out: undefined as Value };
  walkLevel(lhs, rhs, type, rulesInto(main), () => rulesInto({ out: undefined }));
  return main.out;
}

interface Indexed {
  pes: PathElement[];
  /** The single item of a key; null for a key that is duplicated. */
  observed: Map<string, Value>;
}

function indexItems(t: ListAtom, list: unknown[], side: 'lhs' | 'rhs'): Indexed {
  const pes: PathElement[] = [];
  const observed = new Map<string, Value>();
  for (let i = 0; i < list.length; i++) {
    const r = listItemPathElement(t, i, list[i]);
    // An item without a usable key (invalid live data) is kept where it is, matched with nothing.
    const pe: PathElement = typeof r === 'string' ? { kind: 'index', index: -1 - i - (side === 'rhs' ? list.length : 0) } : r;
    const key = serializePathElement(pe);
    if (observed.has(key)) observed.set(key, null);
    else observed.set(key, list[i]);
    pes.push(pe);
  }
  return { pes, observed };
}

function mergeList(t: ListAtom, lhs: unknown[], rhs: unknown[]): Value[] {
  const out: Value[] = [];
  const R = indexItems(t, rhs, 'rhs');
  const L = indexItems(t, lhs, 'lhs');
  const keyOf = serializePathElement;

  const sharedOrder = R.pes.filter((pe) => L.observed.has(keyOf(pe))).map(keyOf);
  let sharedIdx = 0;
  let nextShared: string | undefined = sharedOrder[sharedIdx++];
  const mergedRHS = new Set<string>();
  const push = (v: Value) => {
    if (v !== undefined) out.push(v);
  };

  for (let li = 0, ri = 0; li < L.pes.length || ri < R.pes.length; ) {
    if (li < L.pes.length && ri < R.pes.length) {
      const lk = keyOf(L.pes[li]!);
      if (lk === keyOf(R.pes[ri]!)) {
        mergedRHS.add(lk);
        push(walk(L.observed.get(lk), R.observed.get(lk), t.elem));
        li++;
        ri++;
        nextShared = sharedOrder[sharedIdx++];
        continue;
      }
      if (R.observed.has(lk) && nextShared !== undefined && nextShared !== lk) {
        // A shared item, but not the one wanted in this round.
        li++;
        continue;
      }
    }
    if (li < L.pes.length) {
      const lk = keyOf(L.pes[li]!);
      if (!R.observed.has(lk)) {
        push(walk(lhs[li], undefined, t.elem));
        li++;
        continue;
      } else if (mergedRHS.has(lk)) {
        li++;
        continue;
      }
    }
    if (ri < R.pes.length) {
      const rk = keyOf(R.pes[ri]!);
      mergedRHS.add(rk);
      push(walk(L.observed.get(rk), R.observed.get(rk), t.elem));
      ri++;
      if (nextShared !== undefined && nextShared === rk) nextShared = sharedOrder[sharedIdx++];
    }
  }
  return out;
}
