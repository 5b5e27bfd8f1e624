// What a large list costs against what serializing it costs: one JSON.stringify of the same items in the bench
// process, and a paged walk (limit + continue) against an unpaged list read by the same keep-alive client.

import https from 'node:https';
import type { TlsClientOptions } from './load.ts';

export interface ListCost {
  /** Bytes and items of the unpaged list's body. */
  bytes: number;
  items: number;
  /** Median ms of one JSON.stringify of the parsed list (the same items the server returned). */
  stringifyMs: number;
  /** Median ms of the unpaged list, read whole by this process's client. */
  unpagedMs: number;
  /** Median ms of the whole paged walk, and its number of pages. */
  pagedMs: number;
  pages: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function get(agent: https.Agent, port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path, agent, headers: { accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`GET ${path}: ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function timed(runs: number, f: () => Promise<unknown> | unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await f();
    times.push(performance.now() - t0);
  }
  return median(times);
}

/** Follows continue tokens to the end; `parse` decodes each page (to count items), otherwise only the token is read. */
async function walkPages(agent: https.Agent, port: number, path: string, limit: number, parse: boolean): Promise<{ pages: number; items: number }> {
  let token = '';
  let pages = 0;
  let items = 0;
  do {
    const body = await get(agent, port, `${path}?limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
    if (parse) {
      const list = JSON.parse(body) as { metadata: { continue?: string }; items: unknown[] };
      token = list.metadata.continue ?? '';
      items += list.items.length;
    } else {
      // The list's metadata comes before its items.
      token = /"continue":"([^"]*)"/.exec(body.slice(0, 4096))?.[1] ?? '';
    }
    pages++;
  } while (token);
  return { pages, items };
}

export async function measureListCost(port: number, tls: TlsClientOptions, path: string, limit: number, runs = 5): Promise<ListCost> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: tls.ca, cert: tls.cert, key: tls.key });
  try {
    const text = await get(agent, port, path);
    const list = JSON.parse(text) as { items: unknown[] };
    JSON.stringify(list);
    const stringifyMs = await timed(runs + 2, () => JSON.stringify(list));
    const unpagedMs = await timed(runs, () => get(agent, port, path));
    const walked = await walkPages(agent, port, path, limit, true);
    if (walked.items !== list.items.length) throw new Error(`paged walk saw ${walked.items} items, the list ${list.items.length}`);
    const pagedMs = await timed(runs, () => walkPages(agent, port, path, limit, false));
    return { bytes: Buffer.byteLength(text), items: list.items.length, stringifyMs, unpagedMs, pagedMs, pages: walked.pages };
  } finally {
    agent.destroy();
  }
}
