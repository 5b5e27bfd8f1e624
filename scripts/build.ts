// Builds dist/, what the installed package runs and what `bin/capstan.js` runs from a checkout while it is fresh:
//   node scripts/build.ts            the bundle and the type declarations (npm run build, npm pack)
//   node scripts/build.ts --bundle   the bundle only (npm install's `prepare`: about 3 s, two of them starting it)
//
// The bundle is ES modules split into shared chunks, all in dist/ itself: each module is evaluated once however many
// entries import it, and every module sits at the same depth, so the few that find files beside themselves at run
// time (the API model, the YAML worker, the lazily loaded CEL runtime) find them there. What every start loads is
// kept in a few chunks (startupPrelude): 12 files to resolve, read and compile instead of ~340 sources to resolve,
// read, strip and compile; the functions a start runs are compiled with their chunks, so that the compile cache holds
// them (scripts/eager-startup.ts).
// dist/build-inputs.json lists the sources that went in and when: bin/capstan.js runs the sources instead once any
// of them changed.
import { build, type Plugin } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileStartupEagerly } from './eager-startup.ts';
import { parseScriptArgs } from './script-args.ts';

const root = join(import.meta.dirname, '..');
const dist = join(root, 'dist');

/** Output name (dist/<name>.js) -> source. The names the code looks for at run time: yaml-worker, cel. */
const ENTRIES = {
  capstan: 'src/index.ts',
  testing: 'src/testing/index.ts',
  cli: 'src/cli/main.ts',
  'yaml-worker': 'src/encoding/yaml-worker.ts',
  cel: 'src/cel/index.ts',
};
/** Files the code reads beside itself at run time: source -> path in dist/. */
const ASSETS = { 'src/apis/generated/model.json': 'generated/model.json', 'src/apis/generated/protobuf.json': 'generated/protobuf.json', 'src/apis/go-fields.json': 'go-fields.json' };

const BUILTIN_IMPORT = /^import\s+(?!type\s)(?:([\w$]+)|\*\s+as\s+([\w$]+)|\{([^}]*)\})\s+from\s+'(node:[\w/]+)';?[ \t]*$/gm;

/**
 * A source's imports of Node's built-in modules as reads of `process.getBuiltinModule()`: `import { a, b as c } from
 * 'node:x'` becomes `const { a, b: c } = process.getBuiltinModule('node:x');`, a default or namespace import the module
 * object itself. An ES import of a built-in makes Node build a module facade that reads every export, getters
 * included (`node:fs` then loads its streams, `node:crypto` its Web Crypto), and a small module of the bundle in its
 * place would be a chunk that every chunk using the built-in imports, each import one more resolution at start
 * (those resolutions alone made V8 optimize Node's path normalization with TurboFan during start-up, about 5 MB of
 * the node binary's code paged in). Type-only imports and names are left for esbuild to drop; dynamic imports stay
 * Node's own.
 */
export function inlineBuiltinImports(source: string): string {
  return source.replace(BUILTIN_IMPORT, (_, defaultName: string | undefined, namespaceName: string | undefined, named: string | undefined, id: string) => {
    const module = `process.getBuiltinModule(${JSON.stringify(id)})`;
    const whole = defaultName ?? namespaceName;
    if (whole !== undefined) return `const ${whole} = ${module};`;
    const names = named!
      .split(',')
      .map((spec) => spec.trim())
      .filter((spec) => spec !== '' && !spec.startsWith('type '))
      .map((spec) => spec.replace(/\s+as\s+/, ': '));
    return names.length === 0 ? '' : `const { ${names.join(', ')} } = ${module};`;
  });
}

function builtinsInline(): Plugin {
  return {
    name: 'builtins-inline',
    setup(b) {
      b.onLoad({ filter: /\/src\/.*\.ts$/ }, async (args) => ({ contents: inlineBuiltinImports(await readFile(args.path, 'utf8')), loader: 'ts' }));
    },
  };
}

/** What every start of the server loads: the CLI's run and the storage and API server start.ts always opens. */
const PRELUDE_ROOTS = ['src/cli/run.ts', 'src/storage/open.ts', 'src/endpoints/api-server.ts'];
/** Entries that share no module instances with the others (a worker thread has a module graph of its own). */
const SEPARATE_ENTRIES = new Set(['src/encoding/yaml-worker.ts']);
/** The CLI's entry, which turns the compile cache on before it loads anything else. */
const MAIN = 'src/cli/main.ts';

const esbuildOptions = (outdir: string) =>
  ({
    absWorkingDir: root,
    entryPoints: Object.entries(ENTRIES).map(([out, source]) => ({ in: source, out })),
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    packages: 'external',
    chunkNames: 'chunk-[hash]',
    metafile: true,
    logLevel: 'warning',
  }) as const;

/**
 * The modules every start loads (PRELUDE_ROOTS and what they import, lazily loaded modules left out), and the modules
 * loaded by an import() or as an entry, which esbuild starts chunks at: from a first pass over the sources.
 */
async function startupGraph(outdir: string): Promise<{ prelude: string[]; splitPoints: Set<string> }> {
  const probe = await build({ ...esbuildOptions(outdir), write: false, plugins: [builtinsInline()] });
  const inputs = probe.metafile.inputs;
  const prelude = new Set<string>();
  const todo = [...PRELUDE_ROOTS];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (prelude.has(file) || !inputs[file]) continue;
    prelude.add(file);
    for (const i of inputs[file].imports) if (i.kind === 'import-statement' && !i.external) todo.push(i.path);
  }
  const splitPoints = new Set(Object.values(ENTRIES).filter((e) => !SEPARATE_ENTRIES.has(e)));
  for (const input of Object.values(inputs)) for (const i of input.imports) if (i.kind === 'dynamic-import' && !i.external && i.path.startsWith('src/')) splitPoints.add(i.path);
  return { prelude: [...prelude].sort(), splitPoints };
}

/**
 * esbuild puts each module in a chunk by the set of entries and import() targets it is reached from, which splits the
 * modules every start loads into dozens of small chunks, each import of one by another one more resolution at start.
 * Every entry and import() target is made to import the start-up modules (a virtual module importing them all), so
 * they are reached from much the same set and share a few chunks; one that is a start-up module itself, and the CLI's
 * entry, import nothing more. A restart then resolves 27 imports of 12 files instead of 173 of 49: few enough that
 * Node's path normalization, which the module loader runs twice per import, is not optimized by TurboFan during
 * start-up at any install path (TurboFan's code is about 5 MB of the node binary, paged in for good).
 */
function startupPrelude(graph: { prelude: string[]; splitPoints: Set<string> }): Plugin {
  const members = new Set(graph.prelude);
  return {
    name: 'startup-prelude',
    setup(b) {
      b.onResolve({ filter: /^capstan:startup$/ }, () => ({ path: 'startup', namespace: 'capstan-prelude' }));
      b.onLoad({ filter: /.*/, namespace: 'capstan-prelude' }, () => ({
        contents: graph.prelude.map((file) => `import ${JSON.stringify(join(root, file))};`).join('\n'),
        loader: 'js',
        resolveDir: root,
      }));
      b.onLoad({ filter: /\/src\/.*\.ts$/ }, async (args) => {
        const file = relative(root, args.path);
        const source = inlineBuiltinImports(await readFile(args.path, 'utf8'));
        const inject = graph.splitPoints.has(file) && file !== MAIN && !members.has(file);
        return { contents: inject ? `import 'capstan:startup';\n${source}` : source, loader: 'ts' };
      });
    },
  };
}

/**
 * Bundles the sources into `outdir` with the files they read beside them; the sources it took. The previous bundle's
 * files go first (the type declarations in types/ stay).
 */
export async function bundle(outdir: string): Promise<string[]> {
  const builtAt = Date.now();
  mkdirSync(outdir, { recursive: true });
  for (const entry of readdirSync(outdir)) if (entry !== 'types') rmSync(join(outdir, entry), { recursive: true, force: true });
  const graph = await startupGraph(outdir);
  const result = await build({ ...esbuildOptions(outdir), plugins: [startupPrelude(graph)] });
  for (const [source, target] of Object.entries(ASSETS)) {
    mkdirSync(dirname(join(outdir, target)), { recursive: true });
    copyFileSync(join(root, source), join(outdir, target));
  }
  const inputs = [...Object.keys(result.metafile.inputs), ...Object.keys(ASSETS)].filter((file) => file.startsWith('src/')).sort();
  writeFileSync(join(outdir, 'build-inputs.json'), `${JSON.stringify({ builtAt, inputs })}\n`);
  // The chunks' package scope, found beside them instead of one directory up: about 4 ms less of every start.
  writeFileSync(join(outdir, 'package.json'), '{ "type": "module" }\n');
  await compileStartupEagerly(outdir, (message) => process.stderr.write(`scripts/build.ts: ${message}\n`));
  return inputs;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = parseScriptArgs({
    command: 'node scripts/build.ts [--bundle]',
    summary: 'Builds dist/: the bundle that bin/capstan.js runs and, unless --bundle, the type declarations of the library API.',
    flags: { '--bundle': 'build the bundle only (what `npm install` runs), without the type declarations' },
  });
  const bundleOnly = args.flags.has('--bundle');
  const inputs = await bundle(dist);
  if (!bundleOnly) {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  }
  process.stdout.write(`dist/: ${inputs.length} sources bundled${bundleOnly ? '' : ', type declarations in dist/types/'}\n`);
}
