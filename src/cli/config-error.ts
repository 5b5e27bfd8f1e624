// A configuration problem (a bad flag value, an unknown gate or mode, a file that cannot be read): startCapstan
// throws it, and the command line exits 2 on it.

import { readFile } from 'node:fs/promises';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** A file the configuration names: its text, or a ConfigError naming what it was for. */
export async function readRequired(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`unable to read ${what} ${JSON.stringify(path)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}
