// Test-runner helpers (the package's `capstan/testing`): one server per test file, and per test either a reset to
// the post-start state or a logical cluster of its own. Thin wrappers: each runner's hooks register the same four
// steps, so node:test, Vitest and Jest behave alike.

import { startCapstan, type Capstan, type CapstanOptions } from '../cli/start.ts';
import { silentLogger } from '../server/log.ts';

/** How tests of one file are kept apart. */
export type Isolation = 'reset' | 'cluster' | 'none';

export interface UseCapstanOptions extends CapstanOptions {
  /**
   * 'reset' (default): after each test the store goes back to the post-start state. 'cluster': each test gets a
   * logical cluster of its own (its own objects, resourceVersions and CRDs), deleted after it. 'none': shared.
   */
  isolation?: Isolation;
}

/** What a test reads: the file's server and, per test, where to point its clients. */
export interface CapstanFixture {
  /** The file's server (throws before the file's setup ran). */
  readonly server: Capstan;
  /** The kubeconfig (YAML) of the current test: its logical cluster's, or the server's. */
  readonly kubeconfig: string;
  /** The current test's API URL (a logical cluster's URL under /clusters/<name>, or the server's). */
  readonly url: string;
  /** The current test's logical cluster name ('' without cluster isolation). */
  readonly cluster: string;
}

/** The four hook registrars every runner has (Jest's and Vitest's names; node:test's before/after map onto them). */
export interface RunnerHooks {
  beforeAll(fn: () => Promise<void>, timeout?: number): void;
  afterAll(fn: () => Promise<void>, timeout?: number): void;
  beforeEach(fn: () => Promise<void>, timeout?: number): void;
  afterEach(fn: () => Promise<void>, timeout?: number): void;
}

const HOOK_TIMEOUT_MS = 30_000;

/** Registers the file's server and the per-test isolation with a runner's hooks; returns the fixture tests read. */
export function useCapstan(hooks: RunnerHooks, options: UseCapstanOptions = {}): CapstanFixture {
  const { isolation = 'reset', ...capstanOptions } = options;
  if (isolation !== 'reset' && isolation !== 'cluster' && isolation !== 'none') throw new Error(`isolation must be 'reset', 'cluster' or 'none', not ${JSON.stringify(isolation)}`);
  let server: Capstan | undefined;
  let cluster: { name: string; url: string; kubeconfig: string } | undefined;
  let seq = 0;
  const need = (): Capstan => {
    if (!server) throw new Error('the Capstan server is not started yet: read the fixture inside tests or hooks, not at module level');
    return server;
  };

  hooks.beforeAll(async () => {
    server = await startCapstan({ logger: silentLogger, ...capstanOptions });
  }, HOOK_TIMEOUT_MS);
  hooks.afterAll(async () => {
    await server?.close();
    server = undefined;
  }, HOOK_TIMEOUT_MS);
  hooks.beforeEach(async () => {
    if (isolation === 'cluster') cluster = await need().createCluster(`test-${++seq}`);
  }, HOOK_TIMEOUT_MS);
  hooks.afterEach(async () => {
    if (!server) return;
    server.faults.clear();
    if (isolation === 'reset') await server.reset();
    if (cluster) {
      await server.deleteCluster(cluster.name);
      cluster = undefined;
    }
  }, HOOK_TIMEOUT_MS);

  return {
    get server() {
      return need();
    },
    get kubeconfig() {
      return cluster?.kubeconfig ?? need().kubeconfig;
    },
    get url() {
      return cluster?.url ?? need().url;
    },
    get cluster() {
      return cluster?.name ?? '';
    },
  };
}

/** node:test: `const capstan = capstanForNodeTest()` at the top of a test file (or inside a describe). */
export async function capstanForNodeTest(options: UseCapstanOptions = {}): Promise<CapstanFixture> {
  const { before, after, beforeEach, afterEach } = await import('node:test');
  return useCapstan(
    {
      beforeAll: (fn, timeout) => before(fn, { timeout }),
      afterAll: (fn, timeout) => after(fn, { timeout }),
      beforeEach: (fn, timeout) => beforeEach(fn, { timeout }),
      afterEach: (fn, timeout) => afterEach(fn, { timeout }),
    },
    options,
  );
}

function globalHooks(runner: string): RunnerHooks {
  const g = globalThis as unknown as Partial<RunnerHooks>;
  if (typeof g.beforeAll !== 'function' || typeof g.afterAll !== 'function' || typeof g.beforeEach !== 'function' || typeof g.afterEach !== 'function') {
    throw new Error(`${runner}: no global beforeAll/afterAll/beforeEach/afterEach; pass them in (import { beforeAll, afterAll, beforeEach, afterEach } from '${runner === 'capstanForVitest' ? 'vitest' : '@jest/globals'}')`);
  }
  return g as RunnerHooks;
}

/** Vitest: pass the hooks imported from 'vitest' (or rely on `globals: true`). */
export function capstanForVitest(options: UseCapstanOptions = {}, hooks?: RunnerHooks): CapstanFixture {
  return useCapstan(hooks ?? globalHooks('capstanForVitest'), options);
}

/** Jest: its global hooks (or the ones imported from '@jest/globals'). */
export function capstanForJest(options: UseCapstanOptions = {}, hooks?: RunnerHooks): CapstanFixture {
  return useCapstan(hooks ?? globalHooks('capstanForJest'), options);
}
