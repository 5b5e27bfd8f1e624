// /healthz, /livez and /readyz, with kube's output: "ok", or with ?verbose one "[+]name ok" line per check
// and "<endpoint> check passed"; a failing check prints "[-]name failed: reason withheld" and answers 500.
// ?exclude=name (repeatable) skips a check. /<endpoint>/<check> runs one check and shows its error. Every check an
// endpoint runs is recorded for /metrics/slis, as k8s.io/component-base/metrics/prometheus/slis records it.

import type { HealthCheck, HttpResponse } from './types.ts';
import { writeText } from './respond.ts';
import type { Logger } from './log.ts';

/** How long one check may take before it counts as failed. */
const CHECK_TIMEOUT_MS = 5000;

export interface HealthEndpoints {
  /** Serves the request when its path is a health path; returns false otherwise. */
  serve(path: string, query: URLSearchParams, res: HttpResponse): Promise<boolean>;
  /** /metrics/slis: the last result of each check an endpoint ran, and their counts (Prometheus text format). */
  slis(): string;
}

export function namedCheck(name: string, check: () => void | Promise<void>): HealthCheck {
  return { name, check };
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

/** A check's error, or undefined when it passes. Checks that answer at once (most) take no timer. */
async function run(check: HealthCheck): Promise<Error | undefined> {
  let pending: void | Promise<void>;
  try {
    pending = check.check();
  } catch (e) {
    return asError(e);
  }
  if (!(pending instanceof Promise)) return undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      pending,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`check timed out after ${CHECK_TIMEOUT_MS}ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return undefined;
  } catch (e) {
    return asError(e);
  } finally {
    clearTimeout(timer);
  }
}

function quoted(names: readonly string[]): string {
  return names.map((n) => JSON.stringify(n)).join(',');
}

/** The component SLI series of health checks, by check and endpoint ("healthz", "livez", "readyz"). */
function createSliRecorder() {
  const last = new Map<string, { name: string; type: string; ok: boolean }>();
  const totals = new Map<string, { name: string; type: string; status: 'success' | 'error'; n: number }>();
  const label = (v: string) => JSON.stringify(v);
  return {
    observe(name: string, type: string, ok: boolean): void {
      last.set(`${name}\0${type}`, { name, type, ok });
      const status = ok ? 'success' : 'error';
      const key = `${name}\0${type}\0${status}`;
      const t = totals.get(key);
      if (t) t.n++;
      else totals.set(key, { name, type, status, n: 1 });
    },
    /** The exposition as Go's Prometheus client writes it: series sorted by their label values. */
    render(): string {
      const byKey = <T>(m: Map<string, T>): T[] => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
      let out = '# HELP kubernetes_healthcheck [STABLE] This metric records the result of a single healthcheck.\n# TYPE kubernetes_healthcheck gauge\n';
      for (const s of byKey(last)) out += `kubernetes_healthcheck{name=${label(s.name)},type=${label(s.type)}} ${s.ok ? 1 : 0}\n`;
      out += '# HELP kubernetes_healthchecks_total [STABLE] This metric records the results of all healthcheck.\n# TYPE kubernetes_healthchecks_total counter\n';
      for (const t of byKey(totals)) out += `kubernetes_healthchecks_total{name=${label(t.name)},status=${label(t.status)},type=${label(t.type)}} ${t.n}\n`;
      return out;
    },
  };
}

export function createHealthEndpoints(endpoints: Readonly<Record<string, () => readonly HealthCheck[]>>, log: Logger): HealthEndpoints {
  const slis = createSliRecorder();
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
        slis.observe(c.name, name, false);
        out += `[-]${c.name} failed: reason withheld\n`;
        failed.push(c.name);
        log.v(2, 'health check failed', { endpoint: name, check: c.name, error: results[i]!.message });
      } else {
        slis.observe(c.name, name, true);
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
    slis: () => slis.render(),
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
