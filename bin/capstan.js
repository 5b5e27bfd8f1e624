#!/usr/bin/env node
// The `capstan` command. From a checkout it runs the TypeScript sources (Node >= 22.18 strips types by itself;
// 22.13-22.17 need --experimental-strip-types, so it restarts itself with it); installed as a package (under
// node_modules, where Node does not strip types) it runs the compiled dist/. The compile cache, turned on before the
// first module loads, spares most of the loading work on later starts.
import { spawn } from 'node:child_process';
import { enableCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';

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
