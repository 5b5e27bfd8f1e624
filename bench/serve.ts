// Child process for the benchmarks: starts Capstan with the given backend in a temp data dir and prints
// one JSON line {port, dataDir, caCert, clientCert, clientKey}; stops on SIGTERM. The test controls (and their
// recording) stay off, as on the command line; bench/testing.ts measures what they cost.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCapstan } from '../src/index.ts';

const backend = process.argv[2] === 'sqlite' ? 'sqlite' : 'memory';
const dataDir = await mkdtemp(join(tmpdir(), 'capstan-bench-'));
const capstan = await startCapstan({ storageBackend: backend, dataDir, port: 0, bindAddress: '127.0.0.1', historyWindowSeconds: 300, enableTestControls: false });
process.stdout.write(JSON.stringify({ port: capstan.port, dataDir, caCert: capstan.caCert, clientCert: capstan.clientCert, clientKey: capstan.clientKey }) + '\n');
process.on('SIGTERM', async () => {
  await capstan.close();
  await rm(dataDir, { recursive: true, force: true });
  process.exit(0);
});
