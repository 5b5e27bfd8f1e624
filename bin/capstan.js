#!/usr/bin/env node
// The `capstan` command. From a checkout it runs the TypeScript sources (Node >= 22.18 strips types by itself;
// 22.13-22.17 need --experimental-strip-types, so it restarts itself with it); installed as a package (under
// node_modules, where Node does not strip types) it runs the compiled dist/. The compile cache, turned on before the
// first module loads, spares most of the loading work on later starts.
//
// The version check comes first and everything else is imported after it, in syntax Node 14 still parses, so an
// older Node says what it needs instead of failing on a module it cannot load.
var required = [22, 13];
var running = process.versions.node.split('.').map(Number);
if (running[0] < required[0] || (running[0] === required[0] && running[1] < required[1])) {
  process.stderr.write('capstan requires Node.js ' + required.join('.') + ' or newer; this is Node.js ' + process.versions.node + '.\n');
  process.exit(1);
}

const { spawn } = await import('node:child_process');
const { enableCompileCache } = await import('node:module');
const { fileURLToPath } = await import('node:url');

const self = fileURLToPath(import.meta.url);
const installed = self.split(/[\\/]/).includes('node_modules');

if (!installed && !process.features.typescript) {
  const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', ...process.execArgv, self, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
} else {
  enableCompileCache?.();
  await import(installed ? '../dist/cli/main.js' : '../src/cli/main.ts');
}
