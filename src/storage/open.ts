// Opens the configured storage backend.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Storage } from './types.ts';
import { createMemoryStorage } from './memory/memory-storage.ts';
import { compactionIntervalMs, startCompactor } from './compactor.ts';
import { REGISTRY_ROOT } from './keys.ts';

export type StorageBackend = 'memory' | 'sqlite' | 'etcd';

export interface OpenStorageOptions {
  backend: StorageBackend;
  /** Data directory (sqlite: <dataDir>/capstan.db). */
  dataDir: string;
  /** How much history (seconds) compaction keeps; 0 disables automatic compaction. */
  historyWindowSeconds?: number;
  /** The etcd backend's connection and compaction (kube-apiserver's --etcd-* flags). */
  etcd?: EtcdOpenOptions;
}

export interface EtcdOpenOptions {
  servers: string[];
  /** --etcd-prefix (default /registry). */
  prefix?: string;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** --etcd-compaction-interval in ms (default 5 min); 0 disables compaction by this instance. */
  compactionIntervalMs?: number;
  /** Compaction failures (default: a process warning). */
  onCompactionError?: (err: unknown) => void;
  /** --storage-media-type: how objects are written (default application/json); reads accept both. */
  mediaType?: 'application/json' | 'application/vnd.kubernetes.protobuf';
}

export const SQLITE_FILE_NAME = 'capstan.db';

async function openBackend(options: OpenStorageOptions): Promise<Storage> {
  switch (options.backend) {
    case 'memory':
      return createMemoryStorage();
    case 'sqlite':
      return openSqlite(options.dataDir);
    case 'etcd':
      return openEtcd(options.etcd);
    default:
      throw new Error(`unknown storage backend "${String(options.backend)}" (want memory, sqlite or etcd)`);
  }
}

async function openSqlite(dataDir: string): Promise<Storage> {
  await fs.mkdir(dataDir, { recursive: true });
  const { openSqliteStorage } = await import('./sqlite/sqlite-storage.ts');
  return openSqliteStorage(path.join(dataDir, SQLITE_FILE_NAME));
}

async function openEtcd(etcd: EtcdOpenOptions | undefined): Promise<Storage> {
  if (etcd === undefined || etcd.servers.length === 0) throw new Error('--etcd-servers must be specified');
  const { openEtcdStorage } = await import('./etcd/etcd-storage.ts');
  const { startEtcdCompactor } = await import('./etcd/etcd-compactor.ts');
  const { storageValueCodec } = await import('../encoding/protobuf/storage-values.ts');
  const storage = await openEtcdStorage({
    servers: etcd.servers,
    caFile: etcd.caFile,
    certFile: etcd.certFile,
    keyFile: etcd.keyFile,
    localPrefix: REGISTRY_ROOT,
    remotePrefix: etcd.prefix ?? REGISTRY_ROOT,
    codec: storageValueCodec(etcd.mediaType),
  });
  const interval = etcd.compactionIntervalMs ?? 5 * 60_000;
  if (!(interval > 0)) return storage;
  const onError = etcd.onCompactionError ?? ((err: unknown) => process.emitWarning(`etcd compaction failed: ${err instanceof Error ? err.message : String(err)}`));
  const stop = startEtcdCompactor(storage, interval, onError);
  return {
    ...storage,
    async close() {
      stop();
      await storage.close();
    },
  };
}

export async function openStorage(options: OpenStorageOptions): Promise<Storage> {
  const storage = await openBackend(options);
  // etcd keeps its history itself and is compacted as kube compacts it (see etcd/etcd-compactor.ts).
  if (options.backend === 'etcd') return storage;
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
