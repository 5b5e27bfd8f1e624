import assert from 'node:assert/strict';
import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { endIfStarted, endWithBody, responseEnded, writeWithBatch } from './write-batching.ts';

/** A loopback HTTP/1.1 server whose handler is given; returns its port and a closer. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

async function get(port: number): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/`);
  return { status: res.status, body: await res.text() };
}

test('HTTP/1.1: the end is held until the turn\'s I/O callbacks have run, then the whole body leaves', async () => {
  const seen: string[] = [];
  const server = await serve((_req, res) => {
    res.setHeader('Content-Length', 5);
    res.writeHead(200);
    endWithBody(res, 'hello');
    seen.push(`sync ended=${res.writableEnded} held=${responseEnded(res)}`);
    queueMicrotask(() => seen.push(`microtask ended=${res.writableEnded}`));
    setImmediate(() => seen.push(`next immediate ended=${res.writableEnded}`));
  });
  try {
    assert.deepEqual(await get(server.port), { status: 200, body: 'hello' });
    assert.deepEqual(seen, ['sync ended=false held=true', 'microtask ended=false', 'next immediate ended=true']);
  } finally {
    await server.close();
  }
});

test('answers held in one turn all leave; a second answer to a held response changes nothing', async () => {
  const server = await serve((_req, res) => {
    res.setHeader('Content-Length', 5);
    res.writeHead(200);
    endWithBody(res, 'first');
    // What a failing handler's error path does: the head is out, so it must neither write nor end early.
    assert.equal(endIfStarted(res), true);
    assert.equal(res.writableEnded, false, 'the held end is kept, not replaced by a bodiless one');
  });
  try {
    const answers = await Promise.all([get(server.port), get(server.port), get(server.port)]);
    assert.deepEqual(answers, Array(3).fill({ status: 200, body: 'first' }));
  } finally {
    await server.close();
  }
});

test('a held writer runs with the batch, after the turn\'s I/O callbacks: no head before, and no second answer meanwhile', async () => {
  const seen: string[] = [];
  const server = await serve((_req, res) => {
    writeWithBatch(res, () => {
      seen.push(`writer headersSent=${res.headersSent}`);
      res.setHeader('Content-Length', 6);
      res.writeHead(201);
      // What it writes inside the batch ends at once.
      endWithBody(res, 'writer');
      seen.push(`writer ended=${res.writableEnded}`);
    });
    seen.push(`sync headersSent=${res.headersSent} held=${responseEnded(res)}`);
    // An error path meanwhile leaves the held answer alone.
    assert.equal(endIfStarted(res), true);
    assert.equal(res.headersSent, false);
  });
  try {
    assert.deepEqual(await get(server.port), { status: 201, body: 'writer' });
    assert.deepEqual(seen, ['sync headersSent=false held=true', 'writer headersSent=false', 'writer ended=true']);
  } finally {
    await server.close();
  }
});

test('a response not started is left to its writer', async () => {
  const server = await serve((_req, res) => {
    assert.equal(endIfStarted(res), false);
    assert.equal(responseEnded(res), false);
    res.end('free');
  });
  try {
    assert.deepEqual(await get(server.port), { status: 200, body: 'free' });
  } finally {
    await server.close();
  }
});

test('HTTP/2 responses end at once: the session already sends at the end of the turn', async () => {
  const server = http2.createServer((_req, res) => {
    res.writeHead(200);
    endWithBody(res, 'h2');
    assert.equal(res.writableEnded, true);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  try {
    const stream = client.request({ ':path': '/' });
    let body = '';
    stream.setEncoding('utf8');
    stream.on('data', (c: string) => (body += c));
    await once(stream, 'end');
    assert.equal(body, 'h2');
  } finally {
    client.close();
    await new Promise((r) => server.close(r));
  }
});
