// `npm start` / `capstan`: the entry point. It only turns on Node's compile cache (which also keeps the
// type-stripped sources, roughly halving start-up time after the first run) before loading everything else.

import { enableCompileCache, flushCompileCache } from 'node:module';

enableCompileCache?.();
const { main } = await import('./run.ts');
// The cache keeps every module's entry (its code cache and stripped source, ~3 MB) in memory until it is flushed,
// which otherwise happens at exit. Flushed now, that memory is reused by the rest of start-up instead of staying
// allocated; modules loaded later get entries of their own, written at exit.
flushCompileCache?.();
await main(process.argv.slice(2));
