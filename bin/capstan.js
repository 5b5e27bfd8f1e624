#!/usr/bin/env node
// The `capstan` command. Node >= 22.18 / 23.6 runs the TypeScript sources directly (type stripping); the
// compile cache, turned on before the first TypeScript file loads, spares most of that work on later starts.
import { enableCompileCache } from 'node:module';

enableCompileCache?.();
await import('../src/cli/main.ts');
