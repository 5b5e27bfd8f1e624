// Keeping the load generator and the servers it measures on separate cores, where the machine has enough of them: the
// lean client runs on the last CPU, servers (Capstan, the bare HTTPS server, backends) on the others. `taskset`
// (util-linux) sets the affinity and exec()s the command, so the child's PID is the server's own. On fewer than 4
// CPUs nothing is pinned: with 2, each side gets one core, and a server's own GC and I/O threads then take its main
// thread's core (2026-11-30, 2 cores, `--only=http` alternating: get 57-59% of the bare server pinned against 63-66%
// unpinned, create on sqlite 13.5% of plain inserts against 24.7%, with the bare server itself slower pinned).
// BENCH_PIN=1 pins anyway, BENCH_PIN=0 never; pinningNote says what was done.

import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { availableParallelism } from 'node:os';

export type Role = 'client' | 'server';

function detect(): { client: string; server: string } | string {
  if (process.env.BENCH_PIN === '0') return 'not pinned (BENCH_PIN=0)';
  if (process.platform !== 'linux') return 'not pinned (not Linux)';
  const cpus = availableParallelism();
  if (cpus < 2) return 'not pinned (one CPU)';
  if (cpus < 4 && process.env.BENCH_PIN !== '1') return `not pinned (${cpus} CPUs: pinning takes a server's threads onto one core; BENCH_PIN=1 pins anyway)`;
  if (spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status !== 0) return 'not pinned (no taskset)';
  const last = cpus - 1;
  return { client: String(last), server: last === 1 ? '0' : `0-${last - 1}` };
}

const pinning = detect();

/** How the benchmark's processes are placed, for the report. */
export const pinningNote =
  typeof pinning === 'string' ? pinning : `load generator pinned to CPU ${pinning.client}, servers to CPU ${pinning.server} (taskset)`;

/** Spawns `node args...` on the CPUs of its role. */
export function spawnNode(role: Role, args: readonly string[], options: SpawnOptions): ChildProcess {
  if (typeof pinning === 'string') return spawn(process.execPath, args, options);
  return spawn('taskset', ['-c', pinning[role], process.execPath, ...args], options);
}
