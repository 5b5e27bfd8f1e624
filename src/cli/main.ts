// `npm start` / `capstan`: the entry point. It only turns on Node's compile cache (which also keeps the
// type-stripped sources, roughly halving start-up time after the first run) before loading everything else.

import { enableCompileCache } from 'node:module';

enableCompileCache?.();
const { main } = await import('./run.ts');
await main(process.argv.slice(2));
