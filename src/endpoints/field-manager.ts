// The field manager of a write: ?fieldManager= when given, else derived from the User-Agent as
// kube-apiserver does (the part before the first '/', printable runes only, at most 128 bytes).

import { isPrint } from '../encoding/go-format.ts';
import { FIELD_MANAGER_MAX_LENGTH, isPrintableAscii } from '../registry/validation/meta.ts';

export function prefixFromUserAgent(userAgent: string): string {
  const head = userAgent.split('/')[0];
  if (isPrintableAscii(head)) return head.slice(0, FIELD_MANAGER_MAX_LENGTH);
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

