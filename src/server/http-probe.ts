// kube's HTTP prober (pkg/probe/http), which the kubelet's httpGet probes and componentstatuses' health checks both
// use: one GET within a timeout, a redirect to the same host followed (10 at most), and the answer as the prober
// reads it: 200-299 passes with the body (its first 10 KiB), another 3xx passes with a warning, anything else fails
// with the status code; a request that fails gives Go's client's error text.

import http from 'node:http';
import https from 'node:https';

export interface HttpProbeOutcome {
  readonly ok: boolean;
  /** Passed with a warning: a redirect the prober does not follow ("Probe terminated redirects"). */
  readonly warning?: boolean;
  readonly output: string;
}

/** Where a request goes: the URL names the host the prober means (a pod IP), the target where it is served. */
export interface ProbeTarget {
  readonly host: string;
  readonly port: number;
}

/** The prober reads at most this much of an answer's body (maxRespBodyLength). */
const MAX_BODY = 10 * 1024;
/** Go's http.Client stops after 10 redirects. */
const MAX_REDIRECTS = 10;

/** net.JoinHostPort. */
export const joinHostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** What Go's net.Dial says of a failed dial to host:port. */
export function dialError(host: string, port: number, err: NodeJS.ErrnoException | 'timeout'): string {
  const addr = joinHostPort(host, port);
  if (err === 'timeout') return `dial tcp ${addr}: i/o timeout`;
  if (err.code === 'ECONNREFUSED') return `dial tcp ${addr}: connect: connection refused`;
  if (err.code === 'ECONNRESET') return `read tcp ${addr}: read: connection reset by peer`;
  return `dial tcp ${addr}: ${err.message}`;
}

const portOf = (url: URL): number => Number(url.port || (url.protocol === 'https:' ? 443 : 80));
const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

type Answer = { code: number; location?: string; body: string } | { error: string };

/** One GET: its status, Location and the body's first 10 KiB, or the error Go's client would give. */
function getOnce(target: ProbeTarget, url: URL, headers: Readonly<Record<string, string>>, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer: Answer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const options = { host: target.host, port: target.port, path: `${url.pathname}${url.search}`, method: 'GET', headers, agent: false as const };
    const req = url.protocol === 'https:' ? https.request({ ...options, rejectUnauthorized: false }) : http.request(options);
    const timer = setTimeout(() => {
      req.destroy();
      settle({ error: `Get "${url.href}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)` });
    }, Math.max(0, timeoutMs));
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size < MAX_BODY) chunks.push(c);
        size += c.length;
      });
      res.once('end', () => settle({ code: res.statusCode ?? 0, location: res.headers.location, body: Buffer.concat(chunks).subarray(0, MAX_BODY).toString('utf8') }));
      res.once('error', () => settle({ error: `Get "${url.href}": unexpected EOF` }));
    });
    req.once('error', (err: NodeJS.ErrnoException) => settle({ error: `Get "${url.href}": ${dialError(hostOf(url), portOf(url), err)}` }));
    req.end();
  });
}

/**
 * Probes `url` at `target` (certificates unchecked). `targetOf` says where another port of the same host is served,
 * for a redirect to it (undefined: nothing listens there). A Host header given stays while the redirects keep to the
 * first URL's host and port, as Go keeps it.
 */
export async function httpProbe(url: URL, target: ProbeTarget, headers: Readonly<Record<string, string>>, timeoutMs: number, targetOf?: (port: number) => ProbeTarget | undefined): Promise<HttpProbeOutcome> {
  const deadline = performance.now() + timeoutMs;
  const sent = { ...headers };
  let current: ProbeTarget | undefined = target;
  for (let redirects = 0; ; redirects++) {
    const answer: Answer = current ? await getOnce(current, url, sent, deadline - performance.now()) : { error: `Get "${url.href}": ${dialError(hostOf(url), portOf(url), { code: 'ECONNREFUSED' } as NodeJS.ErrnoException)}` };
    if ('error' in answer) return { ok: false, output: answer.error };
    const { code, location, body } = answer;
    if ([301, 302, 303, 307, 308].includes(code) && location !== undefined) {
      const next = new URL(location, url);
      if (next.hostname !== url.hostname) return { ok: true, warning: true, output: `Probe terminated redirects, Response body: ${body}` };
      if (redirects + 1 >= MAX_REDIRECTS) return { ok: false, output: `Get "${next.href}": stopped after ${MAX_REDIRECTS} redirects` };
      current = portOf(next) === portOf(url) ? current : targetOf?.(portOf(next));
      if (next.host !== url.host) sent.Host = next.host;
      url = next;
      continue;
    }
    if (code >= 300 && code < 400) return { ok: true, warning: true, output: `Probe terminated redirects, Response body: ${body}` };
    if (code >= 200 && code < 300) return { ok: true, output: body };
    return { ok: false, output: `HTTP probe failed with statuscode: ${code}` };
  }
}
