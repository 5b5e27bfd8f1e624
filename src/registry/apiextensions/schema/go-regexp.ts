// Go (RE2) patterns of `pattern` run as JavaScript regular expressions: compiled once per schema node. RE2
// syntax JavaScript lacks is rewritten (leading (?i) and friends, (?P<name>, \A, \z, POSIX classes); what RE2
// rejects gets Go's "error parsing regexp" wording for the common cases.

export type CompiledPattern = { re: RegExp; error?: undefined } | { re?: undefined; error: string };

const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

function goError(code: string, expr: string): CompiledPattern {
  return { error: `error parsing regexp: ${code}: \`${expr}\`` };
}

/** Parenthesis and bracket balance as RE2 reports it, checked before translating. */
function structuralError(p: string): CompiledPattern | undefined {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      if (!inClass && /[1-9]/.test(p[i + 1] ?? '')) return goError('invalid escape sequence', p.slice(i, i + 2));
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']' && p[i - 1] !== '[' && !(p[i - 1] === '^' && p[i - 2] === '[')) inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      if (p.startsWith('[:', i) && /^\[:[a-z]+:\]/.test(p.slice(i))) inClass = false;
    } else if (c === '(') {
      // lookarounds are not RE2
      const look = /^\(\?(?:=|!|<=|<!)/.exec(p.slice(i));
      if (look) return goError('invalid or unsupported Perl syntax', look[0].slice(0, 3));
      depth++;
    }
    else if (c === ')') {
      if (depth === 0) return goError('unexpected )', p);
      depth--;
    } else if ((c === '*' || c === '+' || (c === '?' && p[i - 1] !== '(')) && (i === 0 || p[i - 1] === '(' || p[i - 1] === '|')) {
      return goError('missing argument to repetition operator', c);
    } else if ((c === '*' || c === '+') && i > 0 && (p[i - 1] === '*' || p[i - 1] === '+') && p[i - 2] !== '\\') {
      return goError('invalid nested repetition operator', p.slice(i - 1, i + 1));
    }
  }
  if (inClass) return goError('missing closing ]', p.slice(p.lastIndexOf('[')));
  if (depth > 0) return goError('missing closing )', p);
  return undefined;
}

export function compileGoRegexp(pattern: string): CompiledPattern {
  const bad = structuralError(pattern);
  if (bad) return bad;
  let src = pattern;
  let flags = 'u';
  const lead = /^\(\?([imsU]+)\)/.exec(src);
  if (lead) {
    if (lead[1].includes('i')) flags += 'i';
    if (lead[1].includes('m')) flags += 'm';
    if (lead[1].includes('s')) flags += 's';
    src = src.slice(lead[0].length);
  }
  src = src
    .replace(/\\([pP])([A-Z])/g, '\\$1{$2}')
    .replace(/\[\[:\^([a-z]+):\]\]/g, (m, name: string) => (POSIX[name] ? `[^${POSIX[name]}]` : m))
    .replace(/\(\?P</g, '(?<')
    .replace(/\[:(\^?)([a-z]+):\]/g, (m, neg: string, name: string) => (POSIX[name] && !neg ? POSIX[name] : m))
    .replace(/(^|[^\\])\\A/g, '$1^')
    .replace(/(^|[^\\])\\z/g, '$1$(?![\\s\\S])');
  try {
    return { re: new RegExp(src, flags) };
  } catch {
    try {
      // RE2 allows escapes such as \- or \/ outside classes that the u flag rejects.
      return { re: new RegExp(src, flags.replace('u', '')) };
    } catch {
      return goError('invalid or unsupported Perl syntax', pattern);
    }
  }
}
