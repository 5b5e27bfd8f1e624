// The test controls in the filter chain: logical-cluster routing (/clusters/<name>/...), faults around the API
// call, the recording of every request, and the HTTP door to the controls (/capstan/v1/...).

import { notFoundPath } from '../apis/errors.ts';
import type { RequestHooks, RequestNote } from '../server/handler.ts';
import { writeStatus } from '../server/respond.ts';
import type { HttpRequest, HttpResponse } from '../server/types.ts';
import type { ControlsInternals, TestControls } from './controls.ts';
import { continueExpiredStatus, droppedResponseStatus, type FaultPlan } from './faults.ts';
import { serveControl, CONTROL_PREFIX } from './http-door.ts';
import { MAX_BODY_BYTES, recordOf } from './recorder.ts';

const CLUSTER_PREFIX = '/clusters/';

type Writable = {
  writeHead: (...a: unknown[]) => unknown;
  write: (...a: unknown[]) => boolean;
  end: (...a: unknown[]) => unknown;
  setHeader: (...a: unknown[]) => unknown;
  flushHeaders?: () => void;
  socket?: { destroy(): void } | null;
  stream?: { destroy(): void; close?(code?: number): void };
  writableEnded: boolean;
  headersSent: boolean;
};

function asWritable(res: HttpResponse): Writable {
  return res as unknown as Writable;
}

/** Tees at most MAX_BODY_BYTES of a stream's chunks into `into`. */
function collector(into: Buffer[]): (chunk: unknown) => void {
  let size = 0;
  return (chunk) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function' || size >= MAX_BODY_BYTES) return;
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
    size += b.length;
    into.push(b);
  };
}

/** Records the request and response bodies into the note (the request's as the API reads it, passively). */
function captureBodies(req: HttpRequest, res: HttpResponse, note: RequestNote): void {
  const reqChunks: Buffer[] = [];
  const keepReq = collector(reqChunks);
  const emitter = req as unknown as { emit: (event: string | symbol, ...args: unknown[]) => boolean };
  const emit = emitter.emit.bind(req);
  emitter.emit = (event, ...args) => {
    if (event === 'data') keepReq(args[0]);
    else if (event === 'end') note.requestBody = Buffer.concat(reqChunks);
    return emit(event, ...args);
  };
  const resChunks: Buffer[] = [];
  const keepRes = collector(resChunks);
  const w = asWritable(res);
  const write = w.write.bind(res);
  const end = w.end.bind(res);
  w.write = (chunk: unknown, ...rest: unknown[]) => {
    keepRes(chunk);
    return write(chunk, ...rest);
  };
  w.end = (chunk?: unknown, ...rest: unknown[]) => {
    keepRes(chunk);
    note.responseBody = Buffer.concat(resChunks);
    return end(chunk, ...rest);
  };
}

/** Runs next() with the response swallowed (the write happens, its answer never leaves); restores the response. */
async function withResponseDropped(res: HttpResponse, next: () => Promise<void>): Promise<void> {
  const w = asWritable(res) as unknown as Record<string, unknown>;
  const names = ['writeHead', 'write', 'end', 'setHeader', 'flushHeaders'];
  for (const n of names) w[n] = (...a: unknown[]) => (n === 'write' ? true : (a.find((x) => typeof x === 'function') as (() => void) | undefined)?.(), res);
  try {
    await next();
  } finally {
    for (const n of names) delete w[n];
  }
}

function cut(res: HttpResponse): void {
  const w = asWritable(res);
  if (w.stream) w.stream.destroy();
  else w.socket?.destroy();
}

/** Ends a watch the way the fault asks, once its headers are out and `afterMs` has passed. */
function armWatchClose(res: HttpResponse, how: 'end' | 'error' | 'cut', afterMs: number): void {
  const w = asWritable(res);
  const writeHead = w.writeHead.bind(res);
  w.writeHead = (...a: unknown[]) => {
    delete (w as unknown as Record<string, unknown>).writeHead;
    const r = writeHead(...a);
    const timer = setTimeout(() => {
      if (w.writableEnded) return;
      if (how === 'cut') return cut(res);
      if (how === 'error') {
        // The event an etcd watch ends with when its revision is compacted (interpretWatchError).
        const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'The resourceVersion for the provided watch is too old.', reason: 'Expired', code: 410 };
        w.write(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
      }
      w.end();
    }, afterMs);
    res.once('close', () => clearTimeout(timer));
    return r;
  };
}

async function applyFault(plan: FaultPlan, res: HttpResponse, note: RequestNote, next: () => Promise<void>): Promise<void> {
  if (plan.delayMs > 0) await new Promise((r) => setTimeout(r, plan.delayMs));
  const t = plan.terminal;
  if (!t) return next();
  note.fault = t.id;
  switch (t.action.type) {
    case 'error': {
      const status = t.status!;
      const retry = status.details?.retryAfterSeconds;
      writeStatus(res, status, retry !== undefined && (status.code === 429 || status.code === 503 || status.code === 504) ? { 'Retry-After': String(retry) } : undefined);
      return;
    }
    case 'expire-continue':
      writeStatus(res, continueExpiredStatus());
      return;
    case 'drop-response':
      await withResponseDropped(res, next);
      if (!asWritable(res).writableEnded) writeStatus(res, droppedResponseStatus());
      return;
    case 'close-watch':
      armWatchClose(res, t.action.how, t.afterMs);
      return next();
  }
}

export interface HookOptions {
  /** Serve /capstan/v1/... (the HTTP door); the library methods work either way. */
  readonly httpDoor: boolean;
}

export function testControlHooks(controls: TestControls, internals: ControlsInternals, options: HookOptions): RequestHooks {
  const { faults, recorder } = internals;
  return {
    route(path) {
      if (!path.startsWith(CLUSTER_PREFIX)) return undefined;
      const slash = path.indexOf('/', CLUSTER_PREFIX.length);
      const name = path.slice(CLUSTER_PREFIX.length, slash < 0 ? undefined : slash);
      const api = internals.clusterApi(name);
      if (!api) throw notFoundPath();
      return { cluster: name, path: slash < 0 ? '/' : path.slice(slash), api };
    },
    serve: options.httpDoor
      ? (req, res, path, query, user) => (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`) ? serveControl(controls, req, res, path, query, user) : Promise.resolve(false))
      : undefined,
    async around(req, res, query, note, next) {
      if (recorder.enabled && recorder.bodies) captureBodies(req, res, note);
      const plan = faults.plan({ info: note.info!, user: note.user!, hasContinue: (query.get('continue') ?? '') !== '' });
      if (!plan) return next();
      return applyFault(plan, res, note, next);
    },
    finished(req, res, note, durationMs) {
      if (!recorder.enabled) return;
      const url = req.url ?? '/';
      // The controls' own calls are not part of what a test observes.
      if (url.startsWith(CONTROL_PREFIX)) return;
      const q = url.indexOf('?');
      const ua = req.headers['user-agent'];
      recorder.add(
        recordOf({
          auditId: note.auditId,
          cluster: note.cluster,
          receivedMs: note.receivedMs,
          durationMs,
          info: note.info,
          method: req.method ?? 'GET',
          path: note.info?.path ?? (q < 0 ? url : url.slice(0, q)),
          query: q < 0 ? '' : url.slice(q + 1),
          user: note.user,
          code: res.statusCode,
          userAgent: typeof ua === 'string' ? ua : '',
          sourceIP: req.socket?.remoteAddress ?? '',
          fault: note.fault,
          requestBody: note.requestBody,
          responseBody: note.responseBody,
        }),
      );
    },
  };
}
