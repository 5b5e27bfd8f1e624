// The field manager of a write: ?fieldManager= when given, else derived from the User-Agent as
// kube-apiserver does (the part before the first '/', printable runes only, at most 128 bytes).

import type { OptionError } from './options.ts';
import { goQuote } from '../encoding/go-format.ts';

export const FIELD_MANAGER_MAX_LENGTH = 128;

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
function isPrint(ch: string): boolean {
  return ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);
}

export function prefixFromUserAgent(userAgent: string): string {
  const head = userAgent.split('/')[0];
  let out = '';
  let bytes = 0;
  for (const ch of head) {
    if (!isPrint(ch)) continue;
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += size;
  }
  return out;
}

export function managerOrUserAgent(fieldManager: string, userAgent: string | undefined): string {
  return fieldManager !== '' ? fieldManager : prefixFromUserAgent(userAgent ?? '');
}

/** ValidateFieldManager: at most 128 bytes, printable runes only. */
export function validateFieldManager(fieldManager: string, field: string): OptionError[] {
  const errs: OptionError[] = [];
  if (Buffer.byteLength(fieldManager, 'utf8') > FIELD_MANAGER_MAX_LENGTH) {
    errs.push({ reason: 'FieldValueTooLong', field, body: `Too long: may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes` });
  }
  let position = 0;
  for (const ch of fieldManager) {
    if (!isPrint(ch)) {
      const cp = ch.codePointAt(0) ?? 0;
      const hex = cp.toString(16).toUpperCase().padStart(4, '0');
      errs.push({ reason: 'FieldValueInvalid', field, body: `Invalid value: ${goQuote(fieldManager)}: invalid character U+${hex} (at position ${position})` });
    }
    position += Buffer.byteLength(ch, 'utf8');
  }
  return errs;
}
