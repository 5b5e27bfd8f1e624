// Prefix arithmetic shared by the backends. Keys are opaque strings; a prefix matches keys that start with it.

/**
 * The smallest string greater than every string that starts with prefix, by UTF-16 code units;
 * undefined when there is none (empty prefix, or only U+FFFF units).
 */
export function prefixEnd(prefix: string): string | undefined {
  let end = prefix.length;
  while (end > 0 && prefix.charCodeAt(end - 1) === 0xffff) end--;
  if (end === 0) return undefined;
  return prefix.slice(0, end - 1) + String.fromCharCode(prefix.charCodeAt(end - 1) + 1);
}

/**
 * An upper bound for prefix matching in byte (UTF-8) order, as SQLite compares TEXT: every valid string that
 * starts with prefix sorts below prefix + U+10FFFF (only strings continuing with U+10FFFF itself are missed).
 */
export function prefixEndUtf8(prefix: string): string {
  return prefix + '\u{10FFFF}';
}

/** Where a range read starts: startKey when it lies after the prefix, else the prefix itself. */
export function rangeStart(prefix: string, startKey: string | undefined): string {
  return startKey !== undefined && startKey > prefix ? startKey : prefix;
}
