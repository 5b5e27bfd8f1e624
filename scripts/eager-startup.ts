// The functions a start of the server runs, compiled with their chunk instead of on first call, so that Node's compile
// cache holds their bytecode. V8 compiles a function lazily, when it is first called, unless it is a parenthesized
// function expression; Node's compile cache keeps what V8 compiled of a module before the module ran, so a restart
// compiled every function it called again (about 870 of them, 650 top-level declarations). The build starts the bundle
// it just made twice (a first start and a restart on the same data dir), asks V8 which functions it compiled lazily,
// and in each chunk turns those top-level function declarations into parenthesized function expressions assigned at the
// top of the chunk: `var f = (function f(...) {...});` before any of the chunk's code runs. Moved to the top, each is
// defined before anything could call it, as a hoisted declaration is; the chunks import one another without cycles
// (checked), so no chunk calls another's functions before that chunk has run.

import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transform } from 'esbuild';

/** A top-level function declaration as esbuild prints it: at column 0, its body closed by a `}` at column 0. */
const DECLARATION = /^(?:async )?function\*? ?([\w$]+)\(/;

/** Each chunk's functions (`chunk-X.js` -> names) V8 compiled lazily while `cli.js` in `outdir` started twice. */
export async function recordStartupFunctions(outdir: string, timeoutMs = START_TIMEOUT_MS): Promise<Map<string, Set<string>>> {
  const scratch = await mkdtemp(join(tmpdir(), 'capstan-build-startup-'));
  try {
    const compiled = new Map<string, Set<string>>();
    for (const run of ['first', 'restart']) {
      const log = join(scratch, `${run}.v8.log`);
      await startOnce(outdir, join(scratch, 'data'), log, timeoutMs);
      for (const [file, names] of lazilyCompiled(await readFile(log, 'latin1'), outdir)) {
        const set = compiled.get(file) ?? new Set();
        for (const name of names) set.add(name);
        compiled.set(file, set);
      }
    }
    return compiled;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** How long one start may take to answer before the build gives up on recording (a stuck start leaves the bundle as it is). */
export const START_TIMEOUT_MS = 60_000;
/** How long a start may take to stop after SIGTERM before it is killed. */
const STOP_TIMEOUT_MS = 10_000;

/** One start of the bundle's CLI to its first /readyz answer, under V8's function event log, and its stop. */
async function startOnce(outdir: string, dataDir: string, log: string, timeoutMs: number): Promise<void> {
  const child = spawn(
    process.execPath,
    ['--log-function-events', `--logfile=${log}`, '--no-logfile-per-isolate', join(outdir, 'cli.js'), '--storage-backend=sqlite', `--data-dir=${dataDir}`, '--secure-port=0', '--bind-address=127.0.0.1'],
    // The compile cache off: with V8's log flags it would keep caches no normal start can use.
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' } },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the bundle did not answer /readyz within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    const started = new Promise<boolean>((resolve) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(true);
      });
      void exited.then(() => resolve(false));
    });
    if (!(await Promise.race([started, timeout]))) throw new Error(`the bundle did not start: ${stderr.trim()}`);
    const port = (JSON.parse(stderr.split('\n')[0]!) as { port: number }).port;
    await Promise.race([readyz(port), timeout]);
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(kill);
    }
  }
}

/** GET /readyz as an anonymous client, what a restart's first answer runs. */
function readyz(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The names of the functions V8's log says were compiled on first call (`parse-function`), by chunk of `outdir`. */
export function lazilyCompiled(log: string, outdir: string): Map<string, Set<string>> {
  const prefix = `file://${outdir.endsWith('/') ? outdir : `${outdir}/`}`;
  const scripts = new Map<string, string>();
  const names = new Map<string, Set<string>>();
  for (const line of log.split('\n')) {
    const fields = line.split(',');
    if (fields[0] === 'script-details' && fields[2]?.startsWith(prefix)) scripts.set(fields[1]!, fields[2].slice(prefix.length));
    else if (fields[0] === 'function' && fields[1] === 'parse-function') {
      const file = scripts.get(fields[2]!);
      const name = fields[7];
      if (file === undefined || !name || !/^[\w$]+$/.test(name)) continue;
      const set = names.get(file) ?? new Set();
      set.add(name);
      names.set(file, set);
    }
  }
  return names;
}

/**
 * A chunk with the top-level function declarations named in `eager` made parenthesized function expressions,
 * assigned at its top (after its imports). A declaration whose text does not parse alone as a function is left as
 * it is. The names moved are returned with the text.
 */
export async function compileEagerly(text: string, eager: ReadonlySet<string>): Promise<{ text: string; moved: string[] }> {
  const lines = text.split('\n');
  const kept: string[] = [];
  const hoisted: string[] = [];
  const moved: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const name = DECLARATION.exec(lines[i]!)?.[1];
    if (name === undefined || !eager.has(name)) {
      kept.push(lines[i]!);
      continue;
    }
    let end = i;
    if (lines[i]!.endsWith('{')) while (end < lines.length && lines[end] !== '}') end++;
    const declaration = lines.slice(i, end + 1).join('\n');
    if (end === lines.length || !(await isFunctionExpression(declaration))) {
      kept.push(lines[i]!);
      continue;
    }
    hoisted.push(`var ${name} = (${declaration});`);
    moved.push(name);
    i = end;
  }
  if (hoisted.length === 0) return { text, moved };
  const at = importsEnd(kept);
  return { text: [...kept.slice(0, at), ...hoisted, ...kept.slice(at)].join('\n'), moved };
}

/** Whether `source` is exactly one function: as an expression in parentheses, it parses. */
async function isFunctionExpression(source: string): Promise<boolean> {
  try {
    await transform(`(${source});`, { loader: 'js', format: 'esm', logLevel: 'silent' });
    return true;
  } catch {
    return false;
  }
}

/** The index of the first line after a chunk's leading import statements (and the blank lines among them). */
function importsEnd(lines: readonly string[]): number {
  let at = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('import ')) {
      let end = i;
      while (end < lines.length && !lines[end]!.trimEnd().endsWith(';')) end++;
      at = end + 1;
      i = end;
    } else if (line.trim() !== '') break;
  }
  return at;
}

/** Which chunks of `outdir` import one another in a cycle (static imports): those are left as they are. */
export async function chunksInCycles(outdir: string, files: readonly string[]): Promise<Set<string>> {
  const imports = new Map<string, string[]>();
  for (const file of files) {
    const text = await readFile(join(outdir, file), 'utf8');
    imports.set(file, [...text.matchAll(/^(?:import|export)\b[^;]*?"\.\/([\w.-]+\.js)";/gm)].map((m) => m[1]!));
  }
  const inCycle = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, path: string[]): void => {
    state.set(file, 'open');
    for (const next of imports.get(file) ?? []) {
      if (state.get(next) === 'open') for (const f of path.slice(path.indexOf(next))) inCycle.add(f);
      else if (!state.has(next)) visit(next, [...path, next]);
    }
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file, [file]);
  return inCycle;
}

/**
 * Records what a start compiles and rewrites the chunks of `outdir` to compile it with them. A start that fails
 * leaves the bundle as esbuild made it (it works the same, a restart only compiles more) and says why.
 */
export async function compileStartupEagerly(outdir: string, warn: (message: string) => void, timeoutMs = START_TIMEOUT_MS): Promise<number> {
  let startup: Map<string, Set<string>>;
  try {
    startup = await recordStartupFunctions(outdir, timeoutMs);
  } catch (e) {
    warn(`start-up functions not recorded, the bundle is left as it is: ${(e as Error).message}`);
    return 0;
  }
  const files = (await readdir(outdir)).filter((f) => f.endsWith('.js'));
  const cyclic = await chunksInCycles(outdir, files);
  let count = 0;
  for (const [file, names] of startup) {
    if (cyclic.has(file)) continue;
    const path = join(outdir, file);
    const { text, moved } = await compileEagerly(await readFile(path, 'utf8'), names);
    if (moved.length === 0) continue;
    await writeFile(path, text);
    count += moved.length;
  }
  return count;
}
