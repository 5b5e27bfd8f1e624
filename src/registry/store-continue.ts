// List continue tokens, byte-compatible with kube's (k8s.io/apiserver/pkg/storage/continue.go):
// base64url (no padding) of {"v":"meta.k8s.io/v1","rv":N,"start":"<key after the list prefix>\u0000"}.

import { posix } from 'node:path';
import { scanJsonBytes } from '../encoding/json-syntax.ts';
import { jsonKind } from '../encoding/json-value.ts';

export interface ContinuePosition {
  /** Full storage key to resume from (inclusive). */
  readonly startKey: string;
  /** Revision of the consistent snapshot; -1: continue at the newest revision (after compaction). */
  readonly revision: number;
}

export class ContinueTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContinueTokenError';
  }
}

/** Token for resuming a list under `keyPrefix` (ending in '/') just after `lastKey`. */
export function encodeContinue(lastKey: string, keyPrefix: string, revision: number): string {
  return encodeContinueAt(`${lastKey}\u0000`, keyPrefix, revision);
}

/** Token whose start is exactly `startKey`. */
export function encodeContinueAt(startKey: string, keyPrefix: string, revision: number): string {
  if (!startKey.startsWith(keyPrefix) || startKey === keyPrefix) {
    throw new ContinueTokenError('unable to encode next field: the key and key prefix do not match');
  }
  const json = JSON.stringify({ v: 'meta.k8s.io/v1', rv: revision, start: startKey.slice(keyPrefix.length) });
  return Buffer.from(json, 'utf8').toString('base64url');
}

const BASE64URL = /^[A-Za-z0-9_-]$/;

/** Go's base64.RawURLEncoding.DecodeString: undefined, or its CorruptInputError offset. */
function base64Error(token: string): number | undefined {
  let inQuantum = 0;
  for (let i = 0; i < token.length; i++) {
    const c = token[i];
    // Go skips line breaks inside base64 input.
    if (c === '\n' || c === '\r') continue;
    if (!BASE64URL.test(c)) return i;
    inQuantum = (inQuantum + 1) % 4;
  }
  return inQuantum === 1 ? token.length - 1 : undefined;
}

export function decodeContinue(token: string, keyPrefix: string): ContinuePosition {
  const bad = base64Error(token);
  if (bad !== undefined) throw new ContinueTokenError(`continue key is not valid: illegal base64 data at input byte ${bad}`);
  const raw = Buffer.from(token.replace(/[\r\n]/g, ''), 'base64url');
  const text = raw.toString('utf8');
  let data: unknown;
  try {
    // Scanned as Go scans it, byte by byte: garbage decodes to bytes that are not UTF-8.
    scanJsonBytes(raw);
    data = JSON.parse(text);
  } catch (e) {
    throw new ContinueTokenError(`continue key is not valid: ${(e as Error).message}`);
  }
  const kind = jsonKind(data);
  if (kind !== 'object' && kind !== 'null') {
    throw new ContinueTokenError(`continue key is not valid: json: cannot unmarshal ${kind} into Go value of type storage.continueToken`);
  }
  if (data !== null) {
    const fieldType = { v: ['string', 'string'], rv: ['number', 'int64'], start: ['string', 'string'] } as const;
    for (const [field, [want, goType]] of Object.entries(fieldType)) {
      const v = (data as Record<string, unknown>)[field];
      if (v === undefined || v === null) continue;
      const got = Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v;
      if (got !== want || (field === 'rv' && !Number.isInteger(v))) {
        const what = got === 'number' ? `number ${String(v)}` : got;
        throw new ContinueTokenError(`continue key is not valid: json: cannot unmarshal ${what} into Go struct field continueToken.${field} of type ${goType}`);
      }
    }
  }
  const c = (data ?? {}) as { v?: unknown; rv?: unknown; start?: unknown };
  if (c.v !== 'meta.k8s.io/v1') {
    throw new ContinueTokenError(`continue key is not valid: server does not recognize this encoded version ${JSON.stringify(typeof c.v === 'string' ? c.v : '')}`);
  }
  const rv = typeof c.rv === 'number' && Number.isSafeInteger(c.rv) ? c.rv : 0;
  if (rv === 0) throw new ContinueTokenError('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  const start = typeof c.start === 'string' ? c.start : '';
  if (start.length === 0) throw new ContinueTokenError('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  // A start key that walks out of the prefix ("../x") is refused, as kube refuses it (path.Clean must not change it).
  const key = start.startsWith('/') ? start : `/${start}`;
  if (cleanPath(key) !== key) throw new ContinueTokenError(`continue key is not valid: ${start}`);
  return { startKey: keyPrefix + key.slice(1), revision: rv };
}

/** Go's path.Clean for a rooted path (posix.normalize plus trailing-slash removal). */
function cleanPath(p: string): string {
  let c = posix.normalize(p);
  if (c.length > 1 && c.endsWith('/')) c = c.slice(0, -1);
  return c;
}
