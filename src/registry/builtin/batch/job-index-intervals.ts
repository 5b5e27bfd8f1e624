// The interval lists of an Indexed Job ("1,3-5,7"), as kube's validation parses them: successPolicy's
// succeededIndexes and the status' completedIndexes and failedIndexes. Every index is below completions and the
// intervals strictly increase.

import { goQuote } from '../../../encoding/go-format.ts';

const MAX_GO_INT = 2n ** 63n - 1n;

/** strconv.Atoi: an optional sign and decimal digits within Go's int. */
function goAtoi(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n > MAX_GO_INT || n < -MAX_GO_INT - 1n ? undefined : Number(n);
}

function indexAt(text: string, completions: number): number {
  const n = goAtoi(text);
  if (n === undefined) throw new Error(`cannot convert string to integer for index: ${goQuote(text)}`);
  if (n >= completions) throw new Error(`too large index: ${goQuote(text)}`);
  return n;
}

/** One "x" or "x-y" interval; throws kube's parse error. */
export function parseIndexInterval(interval: string, completions: number): [number, number] {
  const limits = interval.split('-');
  if (limits.length > 2) throw new Error(`the fragment ${goQuote(interval)} violates the requirement that an index interval can have at most two parts separated by '-'`);
  const x = indexAt(limits[0]!, completions);
  if (limits.length === 1) return [x, x];
  const y = indexAt(limits[1]!, completions);
  if (x >= y) throw new Error(`non-increasing order, previous: ${x}, current: ${y}`);
  return [x, y];
}

/** validateIndexesFormat: how many indexes the list holds, or kube's parse error. */
export function indexesFormat(text: string, completions: number): { total: number } | { error: string } {
  if (text === '') return { total: 0 };
  let last: number | undefined;
  let total = 0;
  for (const interval of text.split(',')) {
    let x: number;
    let y: number;
    try {
      [x, y] = parseIndexInterval(interval, completions);
    } catch (e) {
      return { error: (e as Error).message };
    }
    if (last !== undefined && last >= x) return { error: `non-increasing order, previous: ${last}, current: ${x}` };
    total += y - x + 1;
    last = y;
  }
  return { total };
}

function tryInterval(interval: string, completions: number): [number, number] | undefined {
  try {
    return parseIndexInterval(interval, completions);
  } catch {
    return undefined;
  }
}

/**
 * validateFailedIndexesNotOverlapCompleted: the first index in both lists. Intervals that do not parse are passed
 * over (the format check reports them).
 */
export function overlappingIndex(completed: string, failed: string, completions: number): number | undefined {
  if (completed === '' || failed === '') return undefined;
  const c = completed.split(',');
  const f = failed.split(',');
  let ci = 0;
  let fi = 0;
  let cur = tryInterval(c[0]!, completions);
  let fail = tryInterval(f[0]!, completions);
  while (ci < c.length && fi < f.length) {
    if (!cur) {
      ci++;
      if (ci < c.length) cur = tryInterval(c[ci]!, completions);
    } else if (!fail) {
      fi++;
      if (fi < f.length) fail = tryInterval(f[fi]!, completions);
    } else {
      if (cur[0] <= fail[1] && fail[0] <= cur[1]) return Math.max(cur[0], fail[0]);
      if (cur[0] <= fail[0]) {
        ci++;
        if (ci < c.length) cur = tryInterval(c[ci]!, completions);
      } else {
        fi++;
        if (fi < f.length) fail = tryInterval(f[fi]!, completions);
      }
    }
  }
  return undefined;
}
