// What Go's decoders say about malformed scalars that kube-apiserver decodes into typed fields: base64 for
// []byte (encoding/base64 StdEncoding) and RFC 3339 timestamps for metav1.Time / MicroTime (time.Parse).

/** The offset encoding/base64 StdEncoding reports for malformed input, or -1 when the input decodes. */
export function base64ErrorOffset(src: string): number {
  const isAlpha = (c: string) => /^[A-Za-z0-9+/]$/.test(c);
  const isNewline = (c: string | undefined) => c === '\n' || c === '\r';
  let si = 0;
  while (si < src.length) {
    // one quantum of up to 4 characters
    let j = 0;
    for (; j < 4; j++) {
      while (si < src.length && isNewline(src[si])) si++;
      if (si === src.length) {
        if (j === 0) return -1;
        // a partial final quantum with padding required
        return si - j;
      }
      const c = src[si];
      si++;
      if (isAlpha(c)) continue;
      if (c !== '=') return si - 1;
      // padding
      if (j === 0 || j === 1) return si - 1;
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) return src.length;
        if (src[si] !== '=') return si - 1;
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      return si < src.length ? si : -1;
    }
  }
  return -1;
}

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

type Elem = { kind: 'lit'; text: string } | { kind: 'num'; text: string; min: number; max?: number; fixed: boolean; what?: string } | { kind: 'frac'; digits: number } | { kind: 'tz' };

function layoutElems(layout: string): Elem[] {
  const elems: Elem[] = [
    { kind: 'num', text: '2006', min: 4, fixed: true },
    { kind: 'lit', text: '-' },
    { kind: 'num', text: '01', min: 2, max: 12, fixed: true, what: 'month' },
    { kind: 'lit', text: '-' },
    { kind: 'num', text: '02', min: 2, max: 31, fixed: true, what: 'day' },
    { kind: 'lit', text: 'T' },
    { kind: 'num', text: '15', min: 1, max: 23, fixed: false, what: 'hour' },
    { kind: 'lit', text: ':' },
    { kind: 'num', text: '04', min: 2, max: 59, fixed: true, what: 'minute' },
    { kind: 'lit', text: ':' },
    { kind: 'num', text: '05', min: 2, max: 59, fixed: true, what: 'second' },
  ];
  if (layout === RFC3339_MICRO) elems.push({ kind: 'frac', digits: 6 });
  elems.push({ kind: 'tz' });
  return elems;
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

/** time.Parse(layout, value) for the RFC 3339 layouts kube uses: undefined when it parses, else Go's error text. */
export function goTimeParseError(value: string, layout: string = RFC3339): string | undefined {
  const q = (s: string) => JSON.stringify(s);
  const bad = (rest: string, elem: string) => `parsing time ${q(value)} as ${q(layout)}: cannot parse ${q(rest)} as ${q(elem)}`;
  let rest = value;
  let year = 0;
  let month = 0;
  let day = 0;
  for (const e of layoutElems(layout)) {
    switch (e.kind) {
      case 'lit':
        if (!rest.startsWith(e.text)) return bad(rest, e.text);
        rest = rest.slice(e.text.length);
        break;
      case 'num': {
        let digits: string;
        if (e.text === '2006') {
          if (rest.length < 4 || !/^\d{4}/.test(rest)) return bad(rest, e.text);
          digits = rest.slice(0, 4);
        } else if (e.fixed) {
          if (!/^\d\d/.test(rest)) return bad(rest, e.text);
          digits = rest.slice(0, 2);
        } else {
          const m = /^\d\d?/.exec(rest);
          if (!m) return bad(rest, e.text);
          digits = m[0];
        }
        const n = Number(digits);
        if (e.what && e.what !== 'day' && (n > (e.max ?? Infinity) || (e.what === 'month' && n < 1))) {
          return `parsing time ${q(value)}: ${e.what} out of range`;
        }
        if (e.text === '2006') year = n;
        if (e.what === 'month') month = n;
        if (e.what === 'day') day = n;
        rest = rest.slice(digits.length);
        // A fractional second is accepted after the seconds even when the layout has none.
        if (e.what === 'second' && layout === RFC3339 && /^[.,]\d/.test(rest)) rest = rest.replace(/^[.,]\d+/, '');
        break;
      }
      case 'frac': {
        const want = '.' + '0'.repeat(e.digits);
        const m = new RegExp(`^[.,]\\d{${e.digits}}`).exec(rest);
        if (!m || /^\d/.test(rest.slice(m[0].length))) return bad(rest, want);
        rest = rest.slice(m[0].length);
        break;
      }
      case 'tz':
        if (rest.startsWith('Z')) rest = rest.slice(1);
        else if (/^[+-]\d\d:\d\d/.test(rest)) rest = rest.slice(6);
        else return bad(rest, 'Z07:00');
        break;
    }
  }
  if (rest !== '') return `parsing time ${q(value)}: extra text: ${q(rest)}`;
  if (day < 1 || day > daysIn(month, year)) return `parsing time ${q(value)}: day out of range`;
  return undefined;
}

const TIME_FIELDS = /^(\d{4})-(\d\d)-(\d\d)T(\d\d?):(\d\d):(\d\d)(?:[.,](\d+))?(?:Z|([+-])(\d\d):(\d\d))$/;

/**
 * A timestamp time.Parse accepted, as metav1.Time (layout RFC3339) or MicroTime (RFC3339_MICRO) encode it again:
 * in UTC, whole seconds for Time and six digits for MicroTime; the zero time is null. The value itself when it does
 * not have the shape of one (goTimeParseError decides what parses).
 */
export function goTimeJson(value: string, layout: string = RFC3339): string | null {
  const m = TIME_FIELDS.exec(value);
  if (!m) return value;
  const [, year, month, day, hour, minute, second, frac = '', sign, offsetHours, offsetMinutes] = m;
  const offset = sign ? (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) : 0;
  const t = new Date(0);
  t.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  t.setUTCHours(Number(hour), Number(minute) - offset, Number(second), 0);
  const fraction = frac.slice(0, 9).padEnd(9, '0');
  // Time.IsZero: 0001-01-01T00:00:00Z with no nanoseconds.
  if (t.getUTCFullYear() === 1 && t.getUTCMonth() === 0 && t.getUTCDate() === 1 && t.getUTCHours() === 0 && t.getUTCMinutes() === 0 && t.getUTCSeconds() === 0 && /^0*$/.test(fraction)) {
    return null;
  }
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const date = `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
  const clock = `${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`;
  return `${date}T${clock}${layout === RFC3339_MICRO ? `.${fraction.slice(0, 6)}` : ''}Z`;
}
