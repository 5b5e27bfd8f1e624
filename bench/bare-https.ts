// Child process for the benchmarks: the raw limit of Node's HTTPS stack on this machine. The same listener kind as
// Capstan's (HTTP/2 with HTTP/1.1 fallback, same certificates), answering every request with a fixed 1 KiB JSON body.
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { join } from 'node:path';

// Capstan's own serving certificate, from the data dir of the Capstan started for the same run.
const pki = join(process.argv[2] ?? '.', 'pki');
const cert = readFileSync(join(pki, 'apiserver.crt'));
const key = readFileSync(join(pki, 'apiserver.key'));
const body = Buffer.from(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'fixed' }, data: { k: 'x'.repeat(960) } }).slice(0, 1024));
const server = http2.createSecureServer({ cert, key, allowHTTP1: true, noDelay: true }, (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }) + '\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
