// /healthz, /livez and /readyz, with kube's output: "ok", or with ?verbose one "[+]name ok" line per check
// and "<endpoint> check passed"; a failing check prints "[-]name failed: reason withheld" and answers 500.
// ?exclude=name (repeatable) skips a check. /<endpoint>/<check> runs one check and shows its error.

import type { HealthCheck, HttpResponse } from './types.ts';
import { writeText } from './respond.ts';
import type { Logger } from './log.ts';

/** How long one check may take before it counts as failed. */
const CHECK_TIMEOUT_MS = 5000;

export interface HealthEndpoints {
  /** Serves the request when its path is a health path; returns false otherwise. */
  serve(path: string, query: URLSearchParams, res: HttpResponse): Promise<boolean>;
}

export function namedCheck(name: string, check: () => void | Promise<void>): HealthCheck {
  return { name, check: async () => check() };
}

async function run(check: HealthCheck): Promise<Error | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check.check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`check timed out after ${CHECK_TIMEOUT_MS}ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  } finally {
    clearTimeout(timer);
  }
}

function quoted(names: readonly string[]): string {
  return names.map((n) => JSON.stringify(n)).join(',');
}

export function createHealthEndpoints(endpoints: Readonly<Record<string, () => readonly HealthCheck[]>>, log: Logger): HealthEndpoints {
  async function serveRoot(name: string, checks: readonly HealthCheck[], query: URLSearchParams, res: HttpResponse): Promise<void> {
    const excluded = new Set(query.getAll('exclude'));
    const results = await Promise.all(checks.map((c) => (excluded.has(c.name) ? Promise.resolve(undefined) : run(c))));
    let out = '';
    const failed: string[] = [];
    checks.forEach((c, i) => {
      if (excluded.has(c.name)) {
        excluded.delete(c.name);
        out += `[+]${c.name} excluded: ok\n`;
      } else if (results[i]) {
        out += `[-]${c.name} failed: reason withheld\n`;
        failed.push(c.name);
        log.v(2, 'health check failed', { endpoint: name, check: c.name, error: results[i]!.message });
      } else {
        out += `[+]${c.name} ok\n`;
      }
    });
    if (excluded.size > 0) out += `warn: some health checks cannot be excluded: no matches for ${quoted([...excluded].sort())}\n`;
    if (failed.length > 0) {
      writeText(res, 500, `${out}${name} check failed\n`);
      return;
    }
    writeText(res, 200, query.has('verbose') ? `${out}${name} check passed\n` : 'ok');
  }

  return {
    async serve(path, query, res) {
      const slash = path.indexOf('/', 1);
      const root = slash < 0 ? path.slice(1) : path.slice(1, slash);
      const list = Object.hasOwn(endpoints, root) ? endpoints[root] : undefined;
      if (!list) return false;
      const checks = list();
      if (slash < 0) {
        await serveRoot(root, checks, query, res);
        return true;
      }
      const checkName = path.slice(slash + 1);
      const check = checks.find((c) => c.name === checkName);
      if (!check) return false;
      const err = await run(check);
      if (err) writeText(res, 500, `internal server error: ${err.message}\n`);
      else writeText(res, 200, 'ok');
      return true;
    },
  };
}
