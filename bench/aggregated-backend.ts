// Child process for `--only=aggregation`: a bare extension API server (HTTPS, its own CA) serving the group
// bench.example.com/v1: its resource list and a fixed 1 KiB Thing at any name, with nothing else in the way (no
// authentication, no storage). Prints one JSON line {port, caBundle}; stops on SIGTERM.
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { issueCertificate } from '../src/server/certificates.ts';

const now = Date.now();
const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) };
const ca = await issueCertificate({ subject: { commonName: 'bench-backend-ca' }, isCa: true, ...validity });
const serving = await issueCertificate({ subject: { commonName: 'bench-backend' }, isCa: false, usage: 'server', altNames: ['bench-api.bench.svc', '127.0.0.1'], ...validity }, ca);
const resources = Buffer.from(
  JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'bench.example.com/v1', resources: [{ name: 'things', singularName: 'thing', namespaced: true, kind: 'Thing', verbs: ['get', 'list'] }] }),
);
const thing = Buffer.from(JSON.stringify({ apiVersion: 'bench.example.com/v1', kind: 'Thing', metadata: { name: 'thing', namespace: 'bench', resourceVersion: '1' }, spec: { payload: 'x'.repeat(900) } }));
const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
  const body = req.url === '/apis/bench.example.com/v1' ? resources : thing;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 90_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port, caBundle: Buffer.from(ca.certPem).toString('base64'), caPem: ca.certPem }) + '\n');
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
