// Field selectors (k8s.io/apimachinery/pkg/fields): the ?fieldSelector= grammar (=, ==, != terms joined by ','
// with backslash escapes), kube's parse error wording, and matching against a set of field values.

export type FieldOperator = '=' | '==' | '!=';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  readonly value: string;
}

export interface FieldSelector {
  /** Terms in the order kube keeps them (sorted by their raw text). */
  readonly requirements: readonly FieldRequirement[];
  readonly empty: boolean;
}

export class FieldSelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldSelectorError';
  }
}

/** Split on commas that are not escaped by a backslash. */
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const termOperators: FieldOperator[] = ['!=', '==', '='];

function splitTerm(term: string): { lhs: string; op: FieldOperator; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** fields.UnescapeValue: \\ \, \= are the only escapes; bare , and = are errors. */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === '\\' || c === ',' || c === '=') out += c;
      else throw new FieldSelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') {
      // Go prints the rune with %v: its code point in decimal.
      throw new FieldSelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else out += c;
  }
  if (inSlash) throw new FieldSelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** fields.EscapeValue: the inverse of unescapeFieldValue. */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

const everything: FieldSelector = { requirements: [], empty: true };

/** Parse as fields.ParseSelector does; throws FieldSelectorError with kube's message. */
export function parseFieldSelector(selector: string): FieldSelector {
  // Go sorts the raw terms by bytes; the terms are compared as UTF-16 here, equal for the ASCII that field paths use.
  const parts = splitTerms(selector).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t) throw new FieldSelectorError(`invalid selector: '${selector}'; can't understand '${part}'`);
    reqs.push({ field: t.lhs, operator: t.op, value: unescapeFieldValue(t.rhs) });
  }
  return reqs.length === 0 ? everything : { requirements: reqs, empty: false };
}

/** Field values of one object; a missing field reads as "" (fields.Set.Get). */
export type FieldGetter = (field: string) => string | undefined;

export function fieldsMatch(selector: FieldSelector, get: FieldGetter): boolean {
  for (const r of selector.requirements) {
    const v = get(r.field) ?? '';
    if (r.operator === '!=' ? v === r.value : v !== r.value) return false;
  }
  return true;
}

/** The value a selector pins a field to with = or == (for narrowing a list to one name or namespace). */
export function requiresExactMatch(selector: FieldSelector, field: string): string | undefined {
  for (const r of selector.requirements) if (r.field === field && r.operator !== '!=') return r.value;
  return undefined;
}

/**
 * Check every field against the supported set, as the apiserver's field label conversion does.
 * Throws FieldSelectorError("field label not supported: x") for the first unsupported one.
 */
export function checkSupportedFields(selector: FieldSelector, supported: (field: string) => boolean): void {
  for (const r of selector.requirements) {
    if (!supported(r.field)) throw new FieldSelectorError(`field label not supported: ${r.field}`);
  }
}

export function fieldSelectorString(selector: FieldSelector): string {
  return selector.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
}
