// Start-up code runs once, yet loading ~350 modules (Node's resolver and URL code) and the bootstrap reconciliation
// make a few functions hot enough for Maglev and TurboFan. The first function each of them compiles pulls that
// compiler's code into memory (about 7 MB of the node binary's pages), where it stays while the server idles. So V8's
// optimizing tiers are held off until start-up is over; from then on code tiers up as usual.

import { setFlagsFromString } from 'node:v8';

// Whoever chose V8's tiers on the command line or in NODE_OPTIONS keeps their choice.
const TIERING_FLAG = /--(no-)?(maglev|turbofan|opt|jitless|lite-mode)\b/;

/** Turns the optimizing compilers off; returns the function that turns them back on. */
export function holdOptimizingCompilers(): () => void {
  const chosen = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) => TIERING_FLAG.test(arg));
  if (chosen) return () => {};
  setFlagsFromString('--no-maglev');
  setFlagsFromString('--no-turbofan');
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    setFlagsFromString('--maglev');
    setFlagsFromString('--turbofan');
  };
}
