// Merging an applied configuration into a live object (structured-merge-diff TypedValue.Merge): the right-hand
// side wins at leaves; granular maps merge by key, associative lists by item key (keeping the order of both
// sides as far as they agree); atomic containers are replaced. Items duplicated on the live side are kept
// as they are unless the configuration names their key, which then replaces all of them.

import { serializePathElement, type PathElement } from './path-element.ts';
import { DEDUCED, type ListAtom, type MapAtom, type TypeRef } from './schema.ts';
import { asList, asMap, deduceAtom, handleAtom, listItemPathElement, sameAtom, type Value, type ValueMap } from './typed-values.ts';

/** The merged value; undefined when neither side has one. */
export function mergeTyped(lhs: Value, rhs: Value, type: TypeRef): Value {
  return walk(lhs, rhs, type);
}

interface Walker {
  inLeaf: boolean;
  out: Value;
}

function walk(lhs: Value, rhs: Value, type: TypeRef): Value {
  if (lhs === undefined && rhs === undefined) return undefined;
  const atom = type.atom;
  const al = deduceAtom(atom, lhs);
  const ar = deduceAtom(atom, rhs);

  const doLeaf = (w: Walker) => {
    if (w.inLeaf) return;
    w.inLeaf = true;
    w.out = rhs !== undefined ? rhs : lhs;
  };
  const handler = (w: Walker) => ({
    scalar: () => doLeaf(w),
    list: (t: ListAtom) => {
      const l = asList(lhs);
      const r = asList(rhs);
      if (t.atomic || ((!l || l.length === 0) && (!r || r.length === 0))) {
        doLeaf(w);
        return;
      }
      const out = mergeList(t, l ?? [], r ?? []);
      if (out.length > 0) w.out = out;
    },
    map: (t: MapAtom) => {
      const l = asMap(lhs);
      const r = asMap(rhs);
      const lEmpty = !l || Object.keys(l).length === 0;
      const rEmpty = !r || Object.keys(r).length === 0;
      if (t.atomic || (lEmpty && rEmpty)) {
        doLeaf(w);
        return;
      }
      const out: ValueMap = {};
      const keys = new Set([...Object.keys(l ?? {}), ...Object.keys(r ?? {})]);
      for (const key of keys) {
        const ft = t.fields.get(key)?.type ?? t.elem ?? DEDUCED;
        const v = walk(l?.[key], r?.[key], ft);
        if (v !== undefined) out[key] = v;
      }
      if (Object.keys(out).length > 0) w.out = out;
    },
  });

  const main: Walker = { inLeaf: false, out: undefined };
  // With one side absent the result is the other side, whatever part of the type is handled; handling
  // only that side keeps free-form (deduced) values from being walked twice per level.
  if (rhs === undefined) handleAtom(al, handler(main));
  else if (lhs === undefined || sameAtom(al, ar)) handleAtom(ar, handler(main));
  else {
    handleAtom(al, handler({ inLeaf: false, out: undefined }));
    handleAtom(ar, handler(main));
  }
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
