// Constructors for the StorageErrors every backend raises, so their messages read the same everywhere.
import { StorageError } from './types.ts';
import type { KeyValue } from './types.ts';

export function keyExists(key: string, current: KeyValue | undefined): StorageError {
  return new StorageError('KeyExists', key, `key ${key} already exists`, current, current?.modRevision ?? 0);
}

export function keyNotFound(key: string): StorageError {
  return new StorageError('NotFound', key, `key ${key} not found`);
}

export function revisionConflict(key: string, expected: number, current: KeyValue): StorageError {
  return new StorageError(
    'Conflict',
    key,
    `key ${key} was modified: expected revision ${expected}, current revision ${current.modRevision}`,
    current,
    current.modRevision,
  );
}

/** `revision` is the compacted revision (the error's `revision` field). */
export function compactedError(key: string, requested: number, compacted: number): StorageError {
  return new StorageError('Compacted', key, `revision ${requested} has been compacted (compacted revision: ${compacted})`, undefined, compacted);
}

export function futureRevision(key: string, requested: number, current: number): StorageError {
  return new StorageError('FutureRevision', key, `revision ${requested} is newer than the current revision ${current}`, undefined, current);
}

export function unavailable(message: string): StorageError {
  return new StorageError('Unavailable', '', message);
}

/** Checks a read revision against the store's window; returns the revision to read at. */
export function readRevision(key: string, requested: number | undefined, current: number, compacted: number): number {
  if (requested === undefined || requested === 0) return current;
  if (!Number.isSafeInteger(requested) || requested < 0) {
    throw new StorageError('FutureRevision', key, `invalid revision ${requested}`, undefined, current);
  }
  if (requested < compacted) throw compactedError(key, requested, compacted);
  if (requested > current) throw futureRevision(key, requested, current);
  return requested;
}
