// A directory made with its missing parents, one plain mkdir per level. Node's recursive mkdir reports a read-only
// file system as ENOENT, and never returns where mkdir fails with ENOENT under a parent that exists (under /proc):
// `--data-dir /proc/x` hung the start-up. Here each level's error is its own, and the call always ends.

import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Makes `path` and its missing parents with `mode`; a directory that already exists (or appears meanwhile) is kept. */
export function makeDirectories(path: string, mode: number): void {
  const missing: string[] = [];
  for (let dir = resolve(path); !existsSync(dir); dir = dirname(dir)) {
    missing.push(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir, { mode });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}
