// --audit-log-path: events as JSON lines, to a file ("-": stdout). With any of --audit-log-maxage/maxbackup/
// maxsize set, the file rotates as kube's (lumberjack's) does: past maxsize MB (100 when 0) the file is renamed
// to <name>-<UTC time>.<ext> and a new one begun; backups beyond maxbackup, or older than maxage days, are removed.
// Lines are buffered and written once per event-loop turn, so a busy server makes one write per batch.

import { closeSync, fstatSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { makeDirectories } from '../make-directories.ts';
import { basename, dirname, extname, join } from 'node:path';
import { auditEventJson } from './event-json.ts';
import type { AuditBackend, AuditEvent } from './types.ts';

export interface LogBackendOptions {
  readonly path: string;
  readonly maxAgeDays?: number;
  readonly maxBackups?: number;
  readonly maxSizeMB?: number;
}

const MEGABYTE = 1024 * 1024;
const LUMBERJACK_DEFAULT_MAX_SIZE_MB = 100;

/** lumberjack's backup name: name-2006-01-02T15-04-05.000.ext (UTC). */
export function backupName(path: string, at: Date): string {
  const ext = extname(path);
  const stem = basename(path, ext);
  const stamp = at.toISOString().slice(0, 23).replace(/:/g, '-');
  return join(dirname(path), `${stem}-${stamp}${ext}`);
}

export function createLogBackend(options: LogBackendOptions): AuditBackend {
  const toStdout = options.path === '-';
  const rotating = !toStdout && !!(options.maxAgeDays || options.maxBackups || options.maxSizeMB);
  const maxBytes = (options.maxSizeMB || LUMBERJACK_DEFAULT_MAX_SIZE_MB) * MEGABYTE;
  let fd: number | undefined;
  let size = 0;
  let pending: string[] = [];
  let scheduled = false;

  const open = (): void => {
    makeDirectories(dirname(options.path), 0o700);
    fd = openSync(options.path, 'a', 0o600);
    size = fstatSync(fd).size;
  };
  if (!toStdout) open();

  const prune = (): void => {
    const ext = extname(options.path);
    const stem = basename(options.path, ext);
    const dir = dirname(options.path);
    const backups = readdirSync(dir)
      .filter((f) => f.startsWith(`${stem}-`) && f.endsWith(ext) && f !== basename(options.path))
      .sort()
      .reverse();
    const cutoff = options.maxAgeDays ? Date.now() - options.maxAgeDays * 86_400_000 : undefined;
    backups.forEach((f, i) => {
      const full = join(dir, f);
      const tooMany = !!options.maxBackups && i >= options.maxBackups;
      const tooOld = cutoff !== undefined && statSync(full).mtimeMs < cutoff;
      if (tooMany || tooOld) unlinkSync(full);
    });
  };

  const rotate = (): void => {
    if (fd !== undefined) closeSync(fd);
    renameSync(options.path, backupName(options.path, new Date()));
    open();
    prune();
  };

  const flush = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join('\n') + '\n';
    pending = [];
    if (toStdout) {
      process.stdout.write(text);
      return;
    }
    if (fd === undefined) return;
    const length = rotating ? Buffer.byteLength(text) : 0;
    if (rotating && size > 0 && size + length > maxBytes) rotate();
    writeSync(fd, text);
    size += length;
  };

  return {
    processEvents(events) {
      for (const e of events) pending.push(auditEventJson(e));
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    async shutdown() {
      flush();
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/** Reads a log file's events (tests, tools). */
export function parseAuditLog(text: string): AuditEvent[] {
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as AuditEvent);
}
