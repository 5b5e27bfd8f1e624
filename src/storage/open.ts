// Opens the configured storage backend.
import type { Storage } from './types.ts';

export type StorageBackend = 'memory' | 'sqlite' | 'etcd';

export interface OpenStorageOptions {
  backend: StorageBackend;
  /** Data directory (sqlite: <dataDir>/capstan.db). */
  dataDir: string;
  /** How much history (seconds) compaction keeps; 0 disables automatic compaction. */
  historyWindowSeconds?: number;
}

export declare function openStorage(options: OpenStorageOptions): Promise<Storage>;
