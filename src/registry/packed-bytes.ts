// Buffers for bytes the watch cache keeps (list items), packed side by side in slabs of their own.
//
// Node's shared pool hands out slices of 8 KiB slabs to every small Buffer, kept or not: a create's cached item
// landed between the request's and the response's transient buffers, and kept its whole slab alive, about twice
// the item's size. Here a slab holds only kept bytes, so it stays full. As with Node's pool, one live item keeps
// its slab (at most SLAB_SIZE bytes) alive.

const SLAB_SIZE = 8192;
/** Larger buffers get memory of their own, as Node's pool gives them past half its size. */
const OWN_BUFFER_FROM = SLAB_SIZE >>> 1;

let slab = Buffer.allocUnsafeSlow(SLAB_SIZE);
let used = 0;

/** A buffer of `size` bytes (contents undefined) to be filled and kept. */
export function keptBuffer(size: number): Buffer {
  if (size >= OWN_BUFFER_FROM) return Buffer.allocUnsafeSlow(size);
  if (used + size > SLAB_SIZE) {
    slab = Buffer.allocUnsafeSlow(SLAB_SIZE);
    used = 0;
  }
  const bytes = slab.subarray(used, used + size);
  // Slices start 8-byte aligned, as the pool's do.
  used = (used + size + 7) & ~7;
  return bytes;
}

/** The UTF-8 bytes of s in a kept buffer of their exact size. */
export function keptUtf8(s: string): Buffer {
  const bytes = keptBuffer(Buffer.byteLength(s, 'utf8'));
  bytes.write(s, 0, 'utf8');
  return bytes;
}

/** The concatenation of parts in a kept buffer. */
export function keptConcat(parts: readonly Uint8Array[]): Buffer {
  let size = 0;
  for (const p of parts) size += p.length;
  const bytes = keptBuffer(size);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return bytes;
}
