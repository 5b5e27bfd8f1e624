// Builds dist/, what the installed package runs and what `bin/capstan.js` runs from a checkout while it is fresh:
//   node scripts/build.ts            the bundle and the type declarations (npm run build, npm pack)
//   node scripts/build.ts --bundle   the bundle only (npm install's `prepare`: it takes well under a second)
//
// The bundle is ES modules split into shared chunks, all in dist/ itself: each module is evaluated once however many
// entries import it, and every module sits at the same depth, so the few that find files beside themselves at run
// time (the API model, the YAML worker, the lazily loaded CEL runtime) find them there. One file to read and compile
// instead of ~340 to resolve, read, strip and compile: a restart takes ~100 ms less and ~5 MB less memory.
// dist/build-inputs.json lists the sources that went in and when: bin/capstan.js runs the sources instead once any
// of them changed.
import { build, type Plugin } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

/**
 * The names the sources import from each of Node's built-in modules (`import { a, b as c } from 'node:x'`), so that
 * the bundle reads just those. Type-only imports are left out; tests are not bundled.
 */
function builtinNamedImports(): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const IMPORT = /import\s+(type\s+)?(?:[\w$]+\s*,\s*)?\{([^}]*)\}\s*from\s*'(node:[\w/]+)'/g;
  for (const file of readdirSync(join(root, 'src'), { recursive: true }) as string[]) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
    for (const [, typeOnly, specifiers, id] of readFileSync(join(root, 'src', file), 'utf8').matchAll(IMPORT)) {
      if (typeOnly) continue;
      const names = found.get(id!) ?? new Set<string>();
      for (const spec of specifiers!.split(',').map((x) => x.trim())) {
        if (spec !== '' && !spec.startsWith('type ')) names.add(spec.split(/\s+as\s+/)[0]!);
      }
      found.set(id!, names);
    }
  }
  return found;
}

/**
 * Node's built-in modules taken with `process.getBuiltinModule()` instead of `import`. An ES import of a built-in
 * makes Node build a module facade that reads every export, getters included: `node:fs` then loads its streams and
 * `node:crypto` its Web Crypto, none of which Capstan uses at start. The 18 built-ins Capstan imports cost about
 * 62 ms imported and 37 ms taken this way (this machine, 2026-11-29). Each becomes a small module that exports the
 * module object as its default and the names the sources import from it: a name they reach otherwise (a namespace
 * import's member) fails the build instead of reading undefined. Dynamic imports are left to Node.
 */
function builtinsWithoutFacades(): Plugin {
  const imported = builtinNamedImports();
  return {
    name: 'builtins-without-facades',
    setup(b) {
      // A dynamic import (`await import('node:http')`) names no exports esbuild could check: it stays Node's own.
      b.onResolve({ filter: /^node:/ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : { path: args.path, namespace: 'node-builtin' }));
      b.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => {
        const names = [...(imported.get(args.path) ?? [])];
        const lines = [`const m = process.getBuiltinModule(${JSON.stringify(args.path)});`, 'export default m;', ...names.map((name) => `export const ${name} = m.${name};`)];
        return { contents: lines.join('\n'), loader: 'js' };
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
  const result = await build({
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
    plugins: [builtinsWithoutFacades()],
  });
  // A namespace import's member that a built-in does not export as data would be undefined at run time.
  const undefinedImports = result.warnings.filter((w) => w.id === 'import-is-undefined');
  if (undefinedImports.length > 0) throw new Error(`bundle: ${undefinedImports.map((w) => w.text).join('; ')}`);
  for (const [source, target] of Object.entries(ASSETS)) {
    mkdirSync(dirname(join(outdir, target)), { recursive: true });
    copyFileSync(join(root, source), join(outdir, target));
  }
  const inputs = [...Object.keys(result.metafile.inputs), ...Object.keys(ASSETS)].filter((file) => file.startsWith('src/')).sort();
  writeFileSync(join(outdir, 'build-inputs.json'), `${JSON.stringify({ builtAt, inputs })}\n`);
  // The chunks' package scope, found beside them instead of one directory up: about 4 ms less of every start.
  writeFileSync(join(outdir, 'package.json'), '{ "type": "module" }\n');
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
