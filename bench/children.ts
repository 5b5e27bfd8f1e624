// What every bench section does with the processes it starts: stop them by PID and wait until they are gone.
import type { ChildProcess } from 'node:child_process';

/** SIGTERM, then resolves once the process has exited (at once if it already has). */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
