// The command line proper: parse flags, start the server, print how to reach it, stop cleanly on SIGINT/SIGTERM.

import { FlagError, formatFlagUsage } from './flags.ts';
import { ENVTEST_FLAGS, parseEnvtestCommandLine, wantsEnvtest } from './envtest.ts';
import { FLAGS, parseCommandLine } from './options.ts';
import type { CliCommand } from './options.ts';
import { ConfigError, startCapstan } from './start.ts';
import { createLogger } from '../server/log.ts';

const USAGE = `Capstan: a Kubernetes API server (kube-apiserver v1.31 work-alike).

Usage:
  capstan [flags]

Flags:
`;

const ENVTEST_USAGE = `Capstan in envtest mode: controller-runtime's envtest can run it as its kube-apiserver binary.
Memory storage, a temporary data dir and the test controls (/capstan/v1/) unless flags say otherwise.

Usage:
  capstan --envtest [flags]

Flags:
`;

function fail(message: string, code: number): never {
  process.stderr.write(`Error: ${message}\n`);
  if (code === 2) process.stderr.write(`Run 'capstan --help' for usage.\n`);
  process.exit(code);
}

export async function main(argv: readonly string[]): Promise<void> {
  let command: CliCommand;
  const envtest = wantsEnvtest(argv);
  try {
    command = envtest ? parseEnvtestCommandLine(argv) : parseCommandLine(argv);
  } catch (e) {
    if (e instanceof FlagError) fail(e.message, 2);
    throw e;
  }
  if (command.kind === 'help') {
    // envtest reads this help to discover flags; with --envtest it lists what that mode accepts.
    process.stdout.write((envtest ? ENVTEST_USAGE + formatFlagUsage(ENVTEST_FLAGS) : USAGE + formatFlagUsage(FLAGS)) + '\n');
    return;
  }
  if (command.kind === 'version') {
    process.stdout.write('Capstan (Kubernetes v1.31.0)\n');
    return;
  }

  const log = command.options.logger ?? createLogger({ verbosity: command.verbosity });
  let server;
  try {
    server = await startCapstan({ ...command.options, logger: log, releaseMemoryAfterStart: true });
  } catch (e) {
    fail((e as Error).message, e instanceof ConfigError ? 2 : 1);
  }
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      process.stderr.write(`Error: ${signal} received again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    log.info('Capstan stopping', { signal });
    server.close().then(
      () => {
        log.info('Capstan stopped', { signal });
        process.exit(0);
      },
      (e: unknown) => fail(`shutdown: ${(e as Error).message}`, 1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // A background task's failure (a controller pass, a write it makes) is logged; the server goes on serving, as
  // kube-apiserver's requests and its other controllers go on when one controller's sync fails. The library
  // leaves this to its host process.
  process.on('unhandledRejection', (reason) => {
    log.error('unhandled rejection in a background task', { error: reason instanceof Error ? (reason.stack ?? reason.message) : String(reason) });
  });
  // Started by a script runner (npm start) whose shell may not pass a signal on: when the parent goes away, the
  // server stops rather than live on as an orphan holding the port.
  if (process.env.npm_lifecycle_event) {
    const parent = process.ppid;
    const watchParent = setInterval(() => {
      if (process.ppid !== parent) stop('parent process exited');
    }, 1000);
    watchParent.unref();
  }
  // Printed once the signal handlers are in place: whoever waits for this line may stop the server at once.
  process.stdout.write(`kubectl --kubeconfig ${shellWord(server.kubeconfigPath)} get ns\n`);
}

/** A path as one shell word: as it is when nothing in it is special to a shell, else single-quoted. */
export function shellWord(path: string): string {
  return /^[\w./:@%+=,-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}

