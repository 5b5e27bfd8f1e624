// Opens the configured storage backend.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Storage } from './types.ts';
import { createMemoryStorage } from './memory/memory-storage.ts';
import { openSqliteStorage } from './sqlite/sqlite-storage.ts';
import { compactionIntervalMs, startCompactor } from './compactor.ts';

export type StorageBackend = 'memory' | 'sqlite' | 'etcd';

export interface OpenStorageOptions {
  backend: StorageBackend;
  /** Data directory (sqlite: <dataDir>/capstan.db). */
  dataDir: string;
  /** How much history (seconds) compaction keeps; 0 disables automatic compaction. */
  historyWindowSeconds?: number;
}

export const SQLITE_FILE_NAME = 'capstan.db';

async function openBackend(options: OpenStorageOptions): Promise<Storage> {
  switch (options.backend) {
    case 'memory':
      return createMemoryStorage();
    case 'sqlite':
      await fs.mkdir(options.dataDir, { recursive: true });
      return openSqliteStorage(path.join(options.dataDir, SQLITE_FILE_NAME));
    case 'etcd':
      throw new Error('storage backend "etcd" is not available in this build');
    default:
      throw new Error(`unknown storage backend "${String(options.backend)}" (want memory, sqlite or etcd)`);
  }
}

export async function openStorage(options: OpenStorageOptions): Promise<Storage> {
  const storage = await openBackend(options);
  const window = options.historyWindowSeconds ?? 0;
  if (!(window > 0)) return storage;
  const stop = startCompactor(storage, { windowSeconds: window, intervalMs: compactionIntervalMs(window) });
  // Backends are plain objects of closures, so a copy with another close() behaves the same.
  return {
    ...storage,
    async close() {
      stop();
      await storage.close();
    },
  };
}
