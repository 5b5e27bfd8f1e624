#!/usr/bin/env node
// The `capstan` command. It runs the bundle in dist/ (scripts/build.ts): always when installed as a package, and
// from a checkout while the bundle is fresh (`npm install` builds it; none of the sources that went in has changed
// since). Otherwise, from a checkout, it runs the TypeScript sources (Node >= 22.18 strips types by itself;
// 22.13-22.17 need --experimental-strip-types, so it restarts itself with it). The compile cache, turned on before
// the first module loads, spares most of the loading work on later starts.
//
// The version check comes first and everything else is imported after it, in syntax Node 14 still parses, so an
// older Node says what it needs instead of failing on a module it cannot load.
var required = [22, 13];
var running = process.versions.node.split('.').map(Number);
if (running[0] < required[0] || (running[0] === required[0] && running[1] < required[1])) {
  process.stderr.write('capstan requires Node.js ' + required.join('.') + ' or newer; this is Node.js ' + process.versions.node + '.\n');
  process.exit(1);
}

// glibc keeps memory freed after a burst (per-thread arenas, a trim threshold that grows with large frees), so the
// server's RSS would stay near its peak after load. The allocator is told to hand it back: the process re-executes
// itself once (same pid) with these settings, unless the caller chose its own. glibc reads them only when the process
// starts, and the re-execution costs a second Node start-up (about 30 ms), so `npm start` sets them itself. Blocks
// from 32 KiB up are mapped on their own and unmapped when freed: a long-lived small allocation near the heap's top
// would otherwise hold every freed block below it (glibc returns those only to a program that calls malloc_trim).
var allocator = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_MMAP_THRESHOLD_: '32768' };
if (process.platform === 'linux' && typeof process.execve === 'function' && process.env.MALLOC_ARENA_MAX === undefined) {
  process.execve(process.execPath, [process.execPath].concat(process.execArgv, process.argv.slice(1)), Object.assign({}, allocator, process.env, { MALLOC_ARENA_MAX: allocator.MALLOC_ARENA_MAX }));
}

// Built-ins are taken as the bundle takes them (scripts/build.ts): an import would build module facades that read
// every export, and node:fs's would load its streams (about 10 ms).
const { readFileSync, statSync } = process.getBuiltinModule('node:fs');
const { enableCompileCache } = process.getBuiltinModule('node:module');
const { fileURLToPath } = process.getBuiltinModule('node:url');

const self = fileURLToPath(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));
const installed = self.split(/[\\/]/).includes('node_modules');

// V8's optimizing compilers stay off until the bundle's server serves. A start runs most of its code once, and the
// few functions it makes hot (module resolution, the freshness check below, reading the stored objects) would have
// Maglev compile them on another thread: that touches about 2 MB of the compiler's own code in the node binary, and
// the compiled code stays in the heap of a server that may never call those functions again. A changed V8 flag also
// makes V8 refuse the code cache of Node's built-in modules, so the built-ins a start loads are loaded first, under
// Node's flags. A user's own tiering flags are left alone, and so is a start from the sources, which loads more
// built-ins. Only from Node 24: Node 22's V8 has Maglev off by default, and turning TurboFan off and on again there
// leaves V8's flags other than they were (the built-ins loaded afterwards lose their code cache).
const ownTiering = /maglev|turbofan|sparkplug|jitless|(^|\s)--(no-)?opt(\s|$)/.test([...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '));
const v8 = ownTiering || running[0] < 24 || !['x64', 'arm64'].includes(process.arch) ? undefined : process.getBuiltinModule('node:v8');
function optimizing(on) {
  v8?.setFlagsFromString(on ? '--maglev' : '--no-maglev');
  v8?.setFlagsFromString(on ? '--turbofan' : '--no-turbofan');
}
if (v8) {
  for (const id of ['https', 'http2', 'crypto', 'fs/promises', 'stream/promises', 'perf_hooks', 'os', 'dns', 'cluster', 'sqlite']) process.getBuiltinModule(`node:${id}`);
  optimizing(false);
}

/** Whether dist/ holds a bundle of the sources as they are now (a stat of each source it lists: ~2 ms). */
function bundleIsFresh() {
  try {
    const built = JSON.parse(readFileSync(root + 'dist/build-inputs.json', 'utf8'));
    for (const file of built.inputs) if (statSync(root + file).mtimeMs > built.builtAt) return false;
    return built.inputs.length > 0;
  } catch {
    return false;
  }
}

const bundled = installed || bundleIsFresh();
if (!bundled) optimizing(true);
if (!bundled && !process.features.typescript) {
  const { spawn } = process.getBuiltinModule('node:child_process');
  const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', ...process.execArgv, self, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
} else {
  enableCompileCache?.();
  // The import settles once the server serves (or the command, such as --help, is done).
  await import(bundled ? '../dist/cli.js' : '../src/cli/main.ts');
  optimizing(true);
}
