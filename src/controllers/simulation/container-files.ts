// The files of simulated containers, as far as `kubectl cp` needs them: what a copy into a container extracts
// (`tar xmf - -C <dir>`) is kept for that run of the container (a restart starts from the image again, as a new
// container does) and comes back out of it (`tar cf - <path>`), and `test -d|-e|-f` and `cat` see it. The image's own
// files are not known: its directories are taken to be the usual ones of a Linux image and the container's volume
// mounts. Answers are GNU tar's and coreutils', messages included.

import { posix } from 'node:path';
import type { KubeObject } from '../../registry/types.ts';
import { readTar, TarError, writeTar, type TarEntry, type TarEntryType } from './tar.ts';

interface FileNode {
  readonly type: TarEntryType;
  readonly mode: number;
  readonly mtime: number;
  readonly data: Buffer;
  readonly linkname?: string;
}

export interface FileReply {
  readonly stdout: string | Uint8Array;
  readonly stderr: string;
  readonly exitCode: number;
}

/** Directories every image is taken to have. */
const IMAGE_DIRS = ['/', '/bin', '/dev', '/etc', '/home', '/lib', '/mnt', '/opt', '/proc', '/root', '/run', '/sbin', '/srv', '/sys', '/tmp', '/usr', '/var'];
/** What all runs together may hold; past it the runs written longest ago are forgotten. */
const MAX_BYTES = 64 * 1024 * 1024;
const MAX_RUNS = 1000;

/** Whether the command reads its stdin to its end before it answers: a tar extraction from stdin. */
export function readsStdin(command: readonly string[]): boolean {
  const parsed = parseTar(command);
  return parsed !== undefined && parsed.extract && parsed.file === '-';
}

interface TarCommand {
  readonly extract: boolean;
  readonly file: string;
  readonly dir: string;
  readonly paths: readonly string[];
}

/** `tar cf - P...`, `tar -xmf - -C D` and the like: the forms kubectl cp runs; undefined for anything else. */
function parseTar(command: readonly string[]): TarCommand | undefined {
  if (command[0] !== 'tar' || command.length < 2) return undefined;
  let extract: boolean | undefined;
  let file: string | undefined;
  let dir = '/';
  const paths: string[] = [];
  const args = command.slice(1);
  let bundled = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-C' || a === '--directory') {
      dir = args[++i] ?? '';
      continue;
    }
    if (a.startsWith('--directory=')) {
      dir = a.slice('--directory='.length);
      continue;
    }
    // What `kubectl cp --no-preserve` adds; ownership and permissions are not kept here anyway.
    if (a === '--no-same-permissions' || a === '--no-same-owner') continue;
    if (a.startsWith('--')) return undefined;
    // The first other word is a bundle of letters, with or without its dash; so is any later word with one.
    if (!bundled || /^-[a-zA-Z]+$/.test(a)) {
      bundled = true;
      const letters = a.replace(/^-/, '');
      if (!/^[a-zA-Z]+$/.test(letters)) return undefined;
      for (const c of letters) {
        if (c === 'x') extract = true;
        else if (c === 'c') extract = false;
        else if (c === 'f') file = args[++i];
        else if (!'mvpoz'.includes(c)) return undefined;
      }
      continue;
    }
    paths.push(a);
  }
  if (extract === undefined || file === undefined) return undefined;
  return { extract, file, dir, paths };
}

export interface ContainerFiles {
  /** The answer of a file command in this run of the container (its container ID), or undefined for any other. */
  run(runId: string, pod: KubeObject, container: string, command: readonly string[], stdin: Buffer): FileReply | undefined;
}

export function createContainerFiles(): ContainerFiles {
  const runs = new Map<string, Map<string, FileNode>>();
  const sizes = new Map<string, number>();

  const filesOf = (runId: string): Map<string, FileNode> => runs.get(runId) ?? new Map<string, FileNode>();

  function mountsOf(pod: KubeObject, container: string): string[] {
    const spec = pod.spec as { containers?: Array<{ name?: string; volumeMounts?: Array<{ mountPath?: string }> }> } | undefined;
    const c = spec?.containers?.find((x) => x.name === container);
    return (c?.volumeMounts ?? []).map((m) => posix.normalize(String(m.mountPath ?? '')).replace(/(.)\/$/, '$1')).filter((p) => p.startsWith('/'));
  }

  /** What is at an absolute path: a kept node, a directory the image or a mount has, or one holding kept files. */
  function lookup(files: Map<string, FileNode>, mounts: readonly string[], path: string): TarEntryType | undefined {
    const node = files.get(path);
    if (node) return node.type;
    if (IMAGE_DIRS.includes(path) || mounts.some((m) => m === path || m.startsWith(`${path}/`))) return 'dir';
    const below = `${path === '/' ? '' : path}/`;
    for (const p of files.keys()) if (p.startsWith(below)) return 'dir';
    return undefined;
  }

  /** Keeps a run's files (the latest written last), forgetting the runs written longest ago past the limits. */
  function record(runId: string, files: Map<string, FileNode>): void {
    let size = 0;
    for (const f of files.values()) size += f.data.length;
    runs.delete(runId);
    runs.set(runId, files);
    sizes.delete(runId);
    sizes.set(runId, size);
    let total = 0;
    for (const s of sizes.values()) total += s;
    for (const [id, s] of sizes) {
      if ((total <= MAX_BYTES && sizes.size <= MAX_RUNS) || id === runId) break;
      runs.delete(id);
      sizes.delete(id);
      total -= s;
    }
  }

  function extract(runId: string, files: Map<string, FileNode>, mounts: readonly string[], tar: TarCommand, stdin: Buffer): FileReply {
    const dir = posix.resolve('/', tar.dir);
    if (lookup(files, mounts, dir) !== 'dir') {
      return { stdout: '', stderr: `tar: ${tar.dir}: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now\n`, exitCode: 2 };
    }
    let entries: TarEntry[];
    try {
      entries = readTar(stdin);
    } catch (e) {
      if (!(e instanceof TarError)) throw e;
      return { stdout: '', stderr: `tar: ${e.message}\ntar: Exiting with failure status due to previous errors\n`, exitCode: 2 };
    }
    for (const e of entries) {
      const path = posix.resolve(dir, e.name);
      // A copy replaces what it names (a directory with all below it).
      for (const p of [...files.keys()]) if (p === path || p.startsWith(`${path}/`)) files.delete(p);
      files.set(path, { type: e.type, mode: e.mode, mtime: e.mtime, data: e.data, linkname: e.linkname });
    }
    record(runId, files);
    return { stdout: '', stderr: '', exitCode: 0 };
  }

  function create(files: Map<string, FileNode>, mounts: readonly string[], tar: TarCommand): FileReply {
    const entries: TarEntry[] = [];
    let stderr = '';
    let failed = false;
    if (tar.paths.some((p) => p.startsWith('/'))) stderr += "tar: Removing leading `/' from member names\n";
    for (const given of tar.paths) {
      const path = posix.resolve('/', given);
      const type = lookup(files, mounts, path);
      if (!type) {
        stderr += `tar: ${given}: Cannot stat: No such file or directory\n`;
        failed = true;
        continue;
      }
      const name = given.replace(/^\/+/, '').replace(/\/+$/, '') || '.';
      const node = files.get(path);
      entries.push({ name, type, mode: node?.mode ?? 0o755, mtime: node?.mtime ?? 0, data: node?.data ?? Buffer.alloc(0), linkname: node?.linkname });
      if (type !== 'dir') continue;
      const below = `${path === '/' ? '' : path}/`;
      const inside = [...files.keys()].filter((p) => p.startsWith(below)).sort();
      const dirs = new Set<string>();
      for (const p of inside) {
        // Directories the kept files imply come before them, as a walk of the tree lists them.
        for (let d = posix.dirname(p); d.startsWith(below) && !files.has(d) && !dirs.has(d); d = posix.dirname(d)) dirs.add(d);
      }
      for (const p of [...new Set([...inside, ...dirs])].sort()) {
        const n = files.get(p);
        entries.push({ name: `${name === '.' ? '' : `${name}/`}${p.slice(below.length)}`, type: n?.type ?? 'dir', mode: n?.mode ?? 0o755, mtime: n?.mtime ?? 0, data: n?.data ?? Buffer.alloc(0), linkname: n?.linkname });
      }
    }
    if (failed) stderr += 'tar: Exiting with failure status due to previous errors\n';
    return { stdout: writeTar(entries), stderr, exitCode: failed ? 2 : 0 };
  }

  return {
    run(runId, pod, container, command, stdin) {
      const files = filesOf(runId);
      const mounts = mountsOf(pod, container);
      if (command[0] === 'test' && command.length === 3 && ['-d', '-e', '-f'].includes(command[1]!)) {
        const type = lookup(files, mounts, posix.resolve('/', command[2]!));
        const yes = command[1] === '-e' ? type !== undefined : command[1] === '-d' ? type === 'dir' : type === 'file';
        return { stdout: '', stderr: '', exitCode: yes ? 0 : 1 };
      }
      if (command[0] === 'cat' && command.length === 2) {
        const node = files.get(posix.resolve('/', command[1]!));
        return node?.type === 'file' ? { stdout: node.data, stderr: '', exitCode: 0 } : undefined;
      }
      const tar = parseTar(command);
      if (!tar) return undefined;
      if (tar.extract) return tar.file === '-' ? extract(runId, files, mounts, tar, stdin) : undefined;
      return tar.file === '-' ? create(files, mounts, tar) : undefined;
    },
  };
}
