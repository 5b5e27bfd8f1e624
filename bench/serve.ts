// Child process for the benchmarks: starts Capstan with the given backend in a temp data dir (and the
// startCapstan options given as JSON in the second argument, if any) and prints one JSON line
// {port, dataDir, caCert, clientCert, clientKey}; stops on SIGTERM. The test controls (and their
// recording) stay off unless the options turn them on, as on the command line; bench/testing.ts measures them.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCapstan } from '../src/index.ts';

const backend = process.argv[2] === 'sqlite' ? 'sqlite' : 'memory';
const dataDir = await mkdtemp(join(tmpdir(), 'capstan-bench-'));
const extra = process.argv[3] ? (JSON.parse(process.argv[3]) as Record<string, unknown>) : {};
const capstan = await startCapstan({ storageBackend: backend, dataDir, port: 0, bindAddress: '127.0.0.1', historyWindowSeconds: 300, enableTestControls: false, ...extra });
process.stdout.write(JSON.stringify({ port: capstan.port, dataDir, caCert: capstan.caCert, clientCert: capstan.clientCert, clientKey: capstan.clientKey }) + '\n');
process.on('SIGTERM', async () => {
  await capstan.close();
  await rm(dataDir, { recursive: true, force: true });
  process.exit(0);
});
