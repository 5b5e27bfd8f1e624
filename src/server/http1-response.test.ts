import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Http1Response } from './http1-response.ts';

/** The status, raw head fields (but Date) and body a server answers with, its responses of the given class. */
async function answer(responseClass: typeof ServerResponse, write: (res: ServerResponse) => void): Promise<{ status: number; fields: string[]; body: string }> {
  const server = createServer({ ServerResponse: responseClass }, (_req, res) => write(res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      request({ port, host: '127.0.0.1' }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          const fields = res.rawHeaders.flatMap((v, i, all) => (i % 2 === 0 && v !== 'Date' ? [`${v}: ${all[i + 1]}`] : []));
          resolve({ status: res.statusCode!, fields, body });
        });
      })
        .on('error', reject)
        .end();
    });
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

const scripts: Record<string, (res: ServerResponse) => void> = {
  'setHeader, replaced in another spelling, removed, then writeHead(code, object) and end': (res) => {
    res.setHeader('Audit-Id', 'a1');
    res.setHeader('cache-control', 'x');
    res.setHeader('Cache-Control', 'no-cache, private');
    res.setHeader('X-Gone', 'y');
    res.removeHeader('x-gone');
    res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': 2 });
    res.end('{}');
  },
  'list values, appendHeader, writeHead(code, reason, flat list) replacing a field': (res) => {
    res.setHeader('Warning', ['299 - "a"', '299 - "b"']);
    res.appendHeader('Warning', '299 - "c"');
    res.setHeader('Content-Type', 'text/plain');
    res.writeHead(404, 'Nope', ['content-type', 'application/json', 'X-Two', '1', 'X-Two', '2']);
    res.end('gone');
  },
  'implicit head: statusCode and end() without writeHead': (res) => {
    res.statusCode = 202;
    res.setHeader('Content-Type', 'text/plain');
    res.end('later');
  },
  'a streamed body: flushHeaders, then writes': (res) => {
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Transfer-Encoding', 'chunked');
    res.flushHeaders();
    res.write('{"a":');
    res.end('1}');
  },
};

for (const [name, script] of Object.entries(scripts)) {
  test(`Http1Response writes what Node's ServerResponse writes: ${name}`, async () => {
    assert.deepEqual(await answer(Http1Response, script), await answer(ServerResponse, script));
  });
}

test("Http1Response answers header reads as Node's ServerResponse does, before and after the head is written", async () => {
  const reads = (res: ServerResponse): unknown[] => [res.getHeader('content-length'), res.getHeader('CACHE-CONTROL'), res.hasHeader('audit-id'), res.getHeaderNames(), { ...res.getHeaders() }];
  const seen = async (responseClass: typeof ServerResponse) => {
    let before: unknown[] = [];
    let after: unknown[] = [];
    let late: unknown;
    await answer(responseClass, (res) => {
      res.setHeader('Audit-Id', 'a1');
      res.setHeader('Cache-Control', 'no-cache, private');
      res.setHeader('Content-Length', 2);
      before = reads(res);
      res.writeHead(200);
      after = reads(res);
      try {
        res.setHeader('X-Late', '1');
      } catch (e) {
        late = (e as { code?: string }).code;
      }
      res.end('{}');
    });
    return { before, after, late };
  };
  const ours = await seen(Http1Response);
  assert.deepEqual(ours, await seen(ServerResponse));
  assert.equal(ours.late, 'ERR_HTTP_HEADERS_SENT');
  assert.deepEqual(ours.after.slice(0, 3), [2, 'no-cache, private', true]);
});
