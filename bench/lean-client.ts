// Child process of bench/load.ts: a lean HTTP/1.1 load client. It reads one JSON job on stdin (the requests already
// serialized as raw HTTP/1.1 text), drives them over N keep-alive TLS connections with one request in flight each,
// and prints one JSON line: wall time, latency percentiles, failed count and its own CPU time.
import tls from 'node:tls';

interface Job {
  host: string;
  port: number;
  ca: string;
  cert?: string;
  key?: string;
  concurrency: number;
  ok: number[];
  requests: string[];
}

const CRLF2 = Buffer.from('\r\n\r\n');

/**
 * Parses responses off one connection's byte stream without keeping bodies (heads are buffered, body bytes only
 * counted, so a large list costs no copying); calls done(status) per complete response.
 */
function responseReader(done: (status: number) => void): (chunk: Buffer) => void {
  let buf: Buffer = Buffer.alloc(0);
  let status = 0;
  let state: 'head' | 'body' | 'chunk-size' | 'chunk-data' = 'head';
  let left = 0; // body or chunk bytes (with the chunk's CRLF) still to skip
  let lastChunk = false;
  return (chunk) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    for (;;) {
      if (state === 'head') {
        const end = buf.indexOf(CRLF2);
        if (end < 0) return;
        const head = buf.toString('latin1', 0, end).toLowerCase();
        buf = buf.subarray(end + 4);
        status = Number(head.slice(9, 12));
        const cl = /\r\ncontent-length:\s*(\d+)/.exec(head);
        if (cl) {
          state = 'body';
          left = Number(cl[1]);
        } else if (/\r\ntransfer-encoding:\s*chunked/.test(head)) state = 'chunk-size';
        else {
          state = 'body';
          left = 0;
        }
      }
      if (state === 'chunk-size') {
        const line = buf.indexOf('\r\n');
        if (line < 0) return;
        const size = parseInt(buf.toString('latin1', 0, line), 16);
        buf = buf.subarray(line + 2);
        lastChunk = size === 0;
        left = size + 2;
        state = 'chunk-data';
      }
      const skip = Math.min(left, buf.length);
      buf = buf.subarray(skip);
      left -= skip;
      if (left > 0) return;
      if (state === 'chunk-data' && !lastChunk) {
        state = 'chunk-size';
        continue;
      }
      state = 'head';
      done(status);
      if (buf.length === 0) return;
    }
  };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function run(job: Job): Promise<void> {
  const ok = new Set(job.ok);
  const payloads = job.requests.map((r) => Buffer.from(r, 'utf8'));
  const latencies = new Float64Array(payloads.length);
  let next = 0;
  let answered = 0;
  let errors = 0;
  // The clock starts once every connection has finished its TLS handshake: the figures are of kept-alive connections,
  // and a handshake (a client certificate checked, for Capstan) would otherwise weigh on short runs only.
  let cpu0 = process.cpuUsage();
  let start = performance.now();
  await new Promise<void>((resolve) => {
    const finish = () => {
      if (answered === payloads.length) resolve();
    };
    const connection = () => {
      if (next >= payloads.length) return;
      const socket = tls.connect({ host: job.host, port: job.port, ca: job.ca, cert: job.cert, key: job.key, ALPNProtocols: ['http/1.1'] });
      socket.setNoDelay(true);
      let current = -1;
      let inFlight = false;
      let sentAt = 0;
      const send = () => {
        if (next >= payloads.length) {
          socket.end();
          return;
        }
        current = next++;
        inFlight = true;
        sentAt = performance.now();
        socket.write(payloads[current]);
      };
      socket.on(
        'data',
        responseReader((status) => {
          inFlight = false;
          latencies[current] = performance.now() - sentAt;
          if (!ok.has(status)) errors++;
          answered++;
          finish();
          send();
        }),
      );
      socket.on('error', () => {});
      // A closed connection fails its request in flight; the rest go to a new connection.
      socket.on('close', () => {
        if (inFlight) {
          inFlight = false;
          errors++;
          answered++;
          finish();
        }
        connection();
      });
      socket.once('secureConnect', () => {
        if (waiting === null) send();
        else {
          waiting.push(send);
          if (waiting.length === opening) {
            const ready = waiting;
            waiting = null;
            cpu0 = process.cpuUsage();
            start = performance.now();
            for (const go of ready) go();
          }
        }
      });
    };
    // The first connections wait for each other; a connection opened later (after a close) starts at once.
    const opening = Math.min(job.concurrency, payloads.length);
    let waiting: (() => void)[] | null = [];
    for (let i = 0; i < opening; i++) connection();
  });
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  latencies.sort();
  process.stdout.write(
    JSON.stringify({ errors, seconds, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), clientCpuMs: (cpu.user + cpu.system) / 1000 }) + '\n',
  );
}

const chunks: Buffer[] = [];
process.stdin.on('data', (c: Buffer) => chunks.push(c));
process.stdin.on('end', () => void run(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Job).then(() => process.exit(0)));
