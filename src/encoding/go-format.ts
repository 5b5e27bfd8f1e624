// Go's fmt %v rendering of decoded JSON (map[string]interface{} and friends) and strconv.Quote, which kube embeds
// in error messages (the strategic merge patch of an Invalid "patch" field error, strconv and encoding/json errors).

function formatFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  // %v of a float64 is %g with the shortest representation: exponent when < 1e-4 or >= 1e21.
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e21)) {
    const [mantissa, exp] = n.toExponential().split('e');
    const e = Number(exp);
    return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  return String(n);
}

export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return formatFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (typeof v === 'object') {
    const entries = Object.keys(v as object)
      .sort()
      .map((k) => `${k}:${goValue((v as Record<string, unknown>)[k])}`);
    return `map[${entries.join(' ')}]`;
  }
  return String(v);
}

/** Go's unicode.IsPrint for one rune: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export function isPrint(ch: string): boolean {
  const c = ch.charCodeAt(0);
  if (c < 0x80) return c >= 0x20 && c < 0x7f;
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);
}

/** Go's strconv.Quote (%q): C-style escapes for control characters, printable runes kept. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    // printable ASCII but for the two escaped: most of every string, spared the Unicode class test
    if (cp >= 0x20 && cp < 0x7f && cp !== 0x22 && cp !== 0x5c) {
      out += ch;
      continue;
    }
    switch (ch) {
      case '"': out += '\\"'; continue;
      case '\\': out += '\\\\'; continue;
      case '\u0007': out += '\\a'; continue;
      case '\b': out += '\\b'; continue;
      case '\f': out += '\\f'; continue;
      case '\n': out += '\\n'; continue;
      case '\r': out += '\\r'; continue;
      case '\t': out += '\\t'; continue;
      case '\v': out += '\\v'; continue;
    }
    if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (isPrint(ch)) out += ch;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return out + '"';
}

/** Go's strconv.ParseBool: its accepted spellings, or undefined for anything else. */
export function parseGoBool(s: string): boolean | undefined {
  switch (s) {
    case '1': case 't': case 'T': case 'true': case 'TRUE': case 'True':
      return true;
    case '0': case 'f': case 'F': case 'false': case 'FALSE': case 'False':
      return false;
    default:
      return undefined;
  }
}

/**
 * time.Time's String() of an RFC 3339 timestamp, in UTC as kube's containers run: "2024-05-01 10:00:00 +0000 UTC",
 * with the fraction of a second the text holds, trailing zeros dropped ("... 10:00:00.5 +0000 UTC").
 */
export function goTimeString(rfc3339: string | null | undefined): string {
  if (!rfc3339) return '0001-01-01 00:00:00 +0000 UTC';
  const d = new Date(rfc3339);
  if (Number.isNaN(d.getTime())) return rfc3339;
  const iso = d.toISOString();
  const fraction = /T\d\d:\d\d:\d\d\.(\d+)/.exec(rfc3339)?.[1]?.replace(/0+$/, '') ?? '';
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''} +0000 UTC`;
}
