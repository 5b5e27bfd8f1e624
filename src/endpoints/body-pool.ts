// List response bodies, JSON or protobuf, are assembled in reused buffers. A fresh buffer of many megabytes per
// response costs a page fault per 4 KiB to fill (about 11 µs each on a virtual machine), and as external memory it
// makes V8 run a full garbage collection every few such responses: together more than writing the body takes. A
// body of a page of 100 items, about 100 KiB, was fresh memory as often as not, depending on where the allocator's
// heap ended (8-10 page faults a response in a run of protobuf lists).

/** Smaller bodies are allocated as usual (single objects). */
const MIN_POOLED_BYTES = 32 << 10;
/** Free buffers kept at most, in bytes. */
const MAX_FREE_BYTES = 64 << 20;
/** Free buffers are dropped after this long without a large body. */
const IDLE_DROP_MS = 5_000;

let free: Buffer[] = [];
let freeBytes = 0;
let lastUse = 0;
let dropTimer: NodeJS.Timeout | undefined;

/** Sizes are rounded up to one eighth of their power of two, so bodies of similar size share buffers. */
function capacityFor(size: number): number {
  const step = 2 ** Math.max(0, Math.floor(Math.log2(size)) - 3);
  return Math.ceil(size / step) * step;
}

function dropWhenIdle(): void {
  if (dropTimer) return;
  dropTimer = setTimeout(() => {
    dropTimer = undefined;
    if (performance.now() - lastUse < IDLE_DROP_MS) {
      dropWhenIdle();
      return;
    }
    free = [];
    freeBytes = 0;
  }, IDLE_DROP_MS);
  dropTimer.unref();
}

function release(buffer: Buffer): void {
  if (freeBytes + buffer.length > MAX_FREE_BYTES) return;
  free.push(buffer);
  freeBytes += buffer.length;
  dropWhenIdle();
}

/** Something that says when it no longer reads the body: a response's 'close' (sent, or the client went away). */
export interface BodyHolder {
  once(event: 'close', listener: () => void): unknown;
}

/**
 * A buffer of exactly `size` bytes for a body that `holder` sends; large ones come from (and go back to) the pool
 * once the holder closes. The caller fills all of it.
 */
export function bodyBuffer(size: number, holder: BodyHolder): Buffer {
  if (size < MIN_POOLED_BYTES) return Buffer.allocUnsafe(size);
  lastUse = performance.now();
  let best = -1;
  for (let i = 0; i < free.length; i++) {
    if (free[i].length >= size && (best < 0 || free[i].length < free[best].length)) best = i;
  }
  let buffer: Buffer;
  if (best >= 0) {
    buffer = free[best];
    free[best] = free[free.length - 1];
    free.pop();
    freeBytes -= buffer.length;
  } else {
    buffer = Buffer.allocUnsafeSlow(capacityFor(size));
  }
  holder.once('close', () => release(buffer));
  return buffer.subarray(0, size);
}

/** Free pooled bytes (tests). */
export function pooledBytes(): number {
  return freeBytes;
}
