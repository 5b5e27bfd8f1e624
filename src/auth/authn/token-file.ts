// Static token file authentication (--token-auth-file): CSV lines "token,user,uid[,\"group1,group2\"]".
// Tokens are compared by SHA-256 digest in constant time; a bearer token that matches nothing is an error,
// so it never falls through to anonymous.

import { timingSafeEqual } from 'node:crypto';
import { requestBearerToken, requestTokenDigest, tokenDigest } from './token-key.ts';
import { readFile } from 'node:fs/promises';
import type { UserInfo } from '../user.ts';
import { parseCsv } from './csv.ts';
import type { AuthnResult, Authenticator } from './types.ts';
import { NO_OPINION, authenticated, failed } from './types.ts';

export interface TokenEntry {
  readonly digest: Buffer;
  readonly user: UserInfo;
}

export interface TokenFile {
  readonly entries: readonly TokenEntry[];
  /** Non-fatal findings (empty or duplicate tokens), by record number; never the token itself. */
  readonly warnings: readonly string[];
}


/** Parses token file text; throws an Error (naming the file, never a token) when malformed. */
export function parseTokenFile(text: string, path: string): TokenFile {
  let records: string[][];
  try {
    records = parseCsv(text);
  } catch (e) {
    throw new Error(`token file '${path}': ${(e as Error).message}`);
  }
  const entries: TokenEntry[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  let recordNum = 0;
  for (const record of records) {
    if (record.length < 3) {
      throw new Error(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    }
    recordNum++;
    const [token, name, uid] = record;
    if (token === '') {
      warnings.push(`empty token has been found in token file '${path}', record number '${recordNum}'`);
      continue;
    }
    const d = tokenDigest(token);
    const key = d.toString('hex');
    if (seen.has(key)) warnings.push(`duplicate token has been found in token file '${path}', record number '${recordNum}'`);
    seen.add(key);
    const user: UserInfo = { name, uid, groups: record.length >= 4 ? record[3].split(',') : [] };
    entries.push({ digest: d, user });
  }
  return { entries, warnings };
}

export async function loadTokenFile(path: string): Promise<TokenFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new Error(`failed to read token file '${path}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseTokenFile(text, path);
}

export function tokenFileAuthenticator(file: TokenFile): Authenticator {
  const entries = file.entries;
  // One read-only answer per entry, given again with each of its requests: what is memoized per answer downstream
  // (the authenticated group added, flow control's user key) is found again rather than made anew.
  const answers = entries.map((e) => authenticated({ name: e.user.name, uid: e.user.uid, groups: [...e.user.groups] }));
  return {
    authenticate(req) {
      if (requestBearerToken(req) === undefined) return NO_OPINION;
      const d = requestTokenDigest(req);
      let match: AuthnResult | undefined;
      // Compare against every entry so the time taken does not depend on where (or whether) the token matches;
      // the last of duplicate tokens wins, as in kube.
      for (let i = 0; i < entries.length; i++) if (timingSafeEqual(entries[i]!.digest, d)) match = answers[i];
      return match ?? failed('invalid bearer token');
    },
  };
}
