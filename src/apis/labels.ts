// Label selectors (k8s.io/apimachinery/pkg/labels): the string grammar of ?labelSelector=, its errors worded as
// kube's parser words them, matching, and the label key/value syntax checks the parser and metadata validation share.

export type LabelOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted and de-duplicated, as kube's parser keeps them. */
  readonly values: readonly string[];
}

export interface LabelSelector {
  /** Requirements sorted by key (kube sorts them for a deterministic form). */
  readonly requirements: readonly LabelRequirement[];
  /** True when the selector selects everything. */
  readonly empty: boolean;
}

export class LabelSelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabelSelectorError';
  }
}

// ---- syntax checks (k8s.io/apimachinery/pkg/util/validation) ----

const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);
const qualifiedNameMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFmt = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';
const labelValueRe = new RegExp(`^${labelValueFmt}$`);
const labelValueMsg = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123LabelMsg = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);
const dns1123SubdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/** validation.RegexError: the message, examples and the regex, worded exactly as kube does. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let s = `${msg} (e.g. `;
  examples.forEach((e, i) => {
    if (i > 0) s += ' or ';
    s += `'${e}', `;
  });
  return `${s}regex used for validation is '${fmt}')`;
}

export function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!dns1123LabelRe.test(value)) {
    // A valid subdomain that is not a valid label (length was checked above) can only have dots.
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(dns1123SubdomainMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** validation.IsQualifiedName: [prefix/]name, the syntax of label keys, annotation keys and finalizers. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${regexError(qualifiedNameMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!labelValueRe.test(value)) errs.push(regexError(labelValueMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

// ---- lexer ----

type Token =
  | 'error'
  | 'end'
  | ')'
  | ','
  | '!'
  | '=='
  | '='
  | '>'
  | 'identifier'
  | 'in'
  | '<'
  | '!='
  | 'notin'
  | '(';

interface Item {
  tok: Token;
  lit: string;
}

const literalTokens: Record<string, Token> = {
  ')': ')',
  ',': ',',
  '!': '!',
  '==': '==',
  '=': '=',
  '>': '>',
  in: 'in',
  '<': '<',
  '!=': '!=',
  notin: 'notin',
  '(': '(',
};

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function isSpecial(ch: string): boolean {
  return ch === '=' || ch === '!' || ch === '(' || ch === ')' || ch === ',' || ch === '>' || ch === '<';
}

function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos])) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'end', lit: '' });
      return items;
    }
    if (isSpecial(s[pos])) {
      // Longest run of special characters that still forms a known operator.
      let buffer = '';
      let last: Item | undefined;
      while (pos < s.length && isSpecial(s[pos])) {
        buffer += s[pos];
        const t = Object.hasOwn(literalTokens, buffer) ? literalTokens[buffer] : undefined;
        if (t) {
          last = { tok: t, lit: buffer };
          pos++;
        } else if (last) {
          break;
        } else {
          pos++;
        }
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` });
      continue;
    }
    let buffer = '';
    while (pos < s.length && !isSpecial(s[pos]) && !isWhitespace(s[pos])) buffer += s[pos++];
    const t = Object.hasOwn(literalTokens, buffer) ? literalTokens[buffer] : undefined;
    items.push(t ? { tok: t, lit: buffer } : { tok: 'identifier', lit: buffer });
  }
}

// ---- parser ----

/** In a values position the keywords in/notin are plain identifiers. */
function asValue(tok: Token): Token {
  return tok === 'in' || tok === 'notin' ? 'identifier' : tok;
}

const binaryOperators = 'in, notin, =, ==, !=, gt, lt';

function invalidKeyMessage(key: string, msgs: string[]): string {
  // field.Invalid with a nil path, as labels.Parse reports it.
  return `<nil>: Invalid value: ${JSON.stringify(key)}: ${msgs.join('; ')}`;
}

class Parser {
  private readonly items: Item[];
  private pos = 0;
  constructor(items: Item[]) {
    this.items = items;
  }
  lookahead(values: boolean): Item {
    const it = this.items[this.pos];
    return values ? { tok: asValue(it.tok), lit: it.lit } : it;
  }
  consume(values: boolean): Item {
    const it = this.lookahead(values);
    this.pos++;
    return it;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      if (tok === 'identifier' || tok === '!') {
        let r: LabelRequirement;
        try {
          r = this.requirement();
        } catch (e) {
          throw new LabelSelectorError(`unable to parse requirement: ${(e as Error).message}`);
        }
        reqs.push(r);
        const next = this.consume(true);
        if (next.tok === 'end') return reqs;
        if (next.tok === ',') {
          const after = this.lookahead(true);
          if (after.tok !== 'identifier' && after.tok !== '!') {
            throw new LabelSelectorError(`found '${after.lit}', expected: identifier after ','`);
          }
          continue;
        }
        throw new LabelSelectorError(`found '${next.lit}', expected: ',' or 'end of string'`);
      }
      if (tok === 'end') return reqs;
      throw new LabelSelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
    }
  }

  private requirement(): LabelRequirement {
    let negated = false;
    let { tok, lit } = this.consume(true);
    if (tok === '!') {
      negated = true;
      ({ tok, lit } = this.consume(true));
    }
    if (tok !== 'identifier') throw new Error(`found '${lit}', expected: identifier`);
    const key = lit;
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length) throw new Error(invalidKeyMessage(key, keyErrs));
    // `!key` is complete by itself: whatever follows is the caller's to judge (kube: "found '=', expected: ','...").
    if (negated) return newRequirement(key, '!', []);
    const ahead = this.lookahead(true).tok;
    if (ahead === 'end' || ahead === ',') return newRequirement(key, 'exists', []);
    const op = this.operator();
    const values = op === 'in' || op === 'notin' ? this.valueSet() : this.exactValue();
    return newRequirement(key, op, [...new Set(values)].sort());
  }

  private operator(): LabelOperator {
    const { tok, lit } = this.consume(false);
    switch (tok) {
      case 'in':
        return 'in';
      case '=':
        return '=';
      case '==':
        return '==';
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      case 'notin':
        return 'notin';
      case '!=':
        return '!=';
      default:
        throw new Error(`found '${lit}', expected: ${binaryOperators}`);
    }
  }

  private valueSet(): string[] {
    const open = this.consume(true);
    if (open.tok !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(true);
    if (tok === 'identifier' || tok === ',') {
      const s = this.identifierList();
      if (this.consume(true).tok !== ')') throw new Error(`found '${lit}', expected: ')'`);
      return s;
    }
    if (tok === ')') {
      this.consume(true);
      return [''];
    }
    throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
  }

  private identifierList(): string[] {
    const s: string[] = [];
    for (;;) {
      const { tok, lit } = this.consume(true);
      if (tok === 'identifier') {
        s.push(lit);
        const next = this.lookahead(true);
        if (next.tok === ',') continue;
        if (next.tok === ')') return s;
        throw new Error(`found '${next.lit}', expected: ',' or ')'`);
      } else if (tok === ',') {
        if (s.length === 0) s.push('');
        const next = this.lookahead(true).tok;
        if (next === ')') {
          s.push('');
          return s;
        }
        if (next === ',') {
          this.consume(true);
          s.push('');
        }
      } else {
        throw new Error(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private exactValue(): string[] {
    const ahead = this.lookahead(true).tok;
    if (ahead === 'end' || ahead === ',') return [''];
    const { tok, lit } = this.consume(true);
    if (tok === 'identifier') return [lit];
    throw new Error(`found '${lit}', expected: identifier`);
  }
}

/** labels.NewRequirement's checks on values (the key was checked by the parser). */
function newRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const errs: string[] = [];
  const list = `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
  if ((operator === 'in' || operator === 'notin') && values.length === 0) {
    errs.push(`values: Invalid value: ${list}: for 'in', 'notin' operators, values set can't be empty`);
  }
  if (operator === 'gt' || operator === 'lt') {
    values.forEach((v, i) => {
      if (!/^[+-]?\d+$/.test(v) || !fitsInt64(v)) errs.push(`values[${i}]: Invalid value: ${JSON.stringify(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
    });
  }
  values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length) errs.push(`values[${i}][${key}]: Invalid value: ${JSON.stringify(v)}: ${msgs.join('; ')}`);
  });
  if (errs.length === 1) throw new Error(errs[0]);
  if (errs.length > 1) throw new Error(`[${errs.join(', ')}]`);
  return { key, operator, values };
}

function fitsInt64(v: string): boolean {
  try {
    const n = BigInt(v);
    return n >= -(2n ** 63n) && n < 2n ** 63n;
  } catch {
    return false;
  }
}

const everything: LabelSelector = { requirements: [], empty: true };

/** Parse a label selector string as labels.Parse does; throws LabelSelectorError with kube's message. */
export function parseLabelSelector(selector: string): LabelSelector {
  const reqs = new Parser(lex(selector)).parse();
  if (reqs.length === 0) return everything;
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { requirements: reqs, empty: false };
}

export function requirementMatches(r: LabelRequirement, labels: Readonly<Record<string, string>> | undefined): boolean {
  const has = labels !== undefined && Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key] : '';
  switch (r.operator) {
    case '=':
    case '==':
    case 'in':
      return has && r.values.includes(value);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^[+-]?\d+$/.test(value) || !fitsInt64(value) || r.values.length !== 1) return false;
      const lv = BigInt(value);
      const rv = BigInt(r.values[0]);
      return r.operator === 'gt' ? lv > rv : lv < rv;
    }
  }
}

export function labelsMatch(selector: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  for (const r of selector.requirements) if (!requirementMatches(r, labels)) return false;
  return true;
}

/** The canonical string form of a selector (Selector.String()). */
export function labelSelectorString(selector: LabelSelector): string {
  return selector.requirements
    .map((r) => {
      switch (r.operator) {
        case 'exists':
          return r.key;
        case '!':
          return `!${r.key}`;
        case 'in':
        case 'notin':
          return `${r.key} ${r.operator} (${r.values.join(',')})`;
        case 'gt':
          return `${r.key}>${r.values[0]}`;
        case 'lt':
          return `${r.key}<${r.values[0]}`;
        default:
          return `${r.key}${r.operator}${r.values[0]}`;
      }
    })
    .join(',');
}

/** The selector string of a metav1.LabelSelector (matchLabels + matchExpressions), as a Scale's status.selector shows it. */
export function formatLabelSelector(sel: unknown): string {
  if (!sel || typeof sel !== 'object') return '';
  const s = sel as { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of Object.entries(s.matchLabels ?? {})) reqs.push({ key: k, operator: '=', values: [v] });
  for (const e of s.matchExpressions ?? []) {
    const values = [...new Set(e.values ?? [])].sort();
    switch (e.operator) {
      case 'In':
        reqs.push({ key: e.key, operator: 'in', values });
        break;
      case 'NotIn':
        reqs.push({ key: e.key, operator: 'notin', values });
        break;
      case 'Exists':
        reqs.push({ key: e.key, operator: 'exists', values: [] });
        break;
      case 'DoesNotExist':
        reqs.push({ key: e.key, operator: '!', values: [] });
        break;
    }
  }
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return labelSelectorString({ requirements: reqs, empty: reqs.length === 0 });
}
