import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { dialError, httpProbe } from './http-probe.ts';

describe('httpProbe', () => {
  const hosts: string[] = [];
  // /loop redirects to itself; /other-port to the same host on port 9000; /slow never answers.
  const server = http.createServer((req, res) => {
    hosts.push(String(req.headers.host));
    if (req.url === '/loop') res.writeHead(302, { location: '/loop' }).end();
    else if (req.url === '/other-port') res.writeHead(307, { location: 'http://10.0.0.9:9000/ok' }).end();
    else if (req.url === '/not-modified') res.writeHead(304).end();
    else if (req.url === '/slow') return;
    else res.writeHead(200).end(`at ${req.url}`);
  });
  let port = 0;
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const target = () => ({ host: '127.0.0.1', port });
  const url = (path: string) => new URL(`http://10.0.0.9:8080${path}`);

  it('stops after 10 redirects, as Go does', async () => {
    hosts.length = 0;
    assert.deepEqual(await httpProbe(url('/loop'), target(), { Host: 'app.local' }, 1000), { ok: false, output: 'Get "http://10.0.0.9:8080/loop": stopped after 10 redirects' });
    assert.equal(hosts.length, 10);
    // The Host given is kept while the redirects stay on the first URL's host and port.
    assert.deepEqual([...new Set(hosts)], ['app.local']);
  });

  it("follows a redirect to another port of the host where it is served, and fails as a refused dial where it is not", async () => {
    hosts.length = 0;
    assert.deepEqual(await httpProbe(url('/other-port'), target(), {}, 1000, (p) => (p === 9000 ? target() : undefined)), { ok: true, output: 'at /ok' });
    assert.equal(hosts[1], '10.0.0.9:9000');
    assert.deepEqual(await httpProbe(url('/other-port'), target(), {}, 1000, () => undefined), { ok: false, output: 'Get "http://10.0.0.9:9000/ok": dial tcp 10.0.0.9:9000: connect: connection refused' });
  });

  it('passes a 3xx it does not follow with a warning, and times out as Go\'s client does', async () => {
    assert.deepEqual(await httpProbe(url('/not-modified'), target(), {}, 1000), { ok: true, warning: true, output: 'Probe terminated redirects, Response body: ' });
    assert.deepEqual(await httpProbe(url('/slow'), target(), {}, 200), { ok: false, output: 'Get "http://10.0.0.9:8080/slow": context deadline exceeded (Client.Timeout exceeded while awaiting headers)' });
  });
});

describe('dialError', () => {
  it("words a dial's failures as Go's net package does, IPv6 hosts in brackets", () => {
    assert.equal(dialError('::1', 80, { code: 'ECONNREFUSED' } as NodeJS.ErrnoException), 'dial tcp [::1]:80: connect: connection refused');
    assert.equal(dialError('10.0.0.1', 5432, 'timeout'), 'dial tcp 10.0.0.1:5432: i/o timeout');
  });
});
