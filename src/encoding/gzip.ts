// gzip for response bodies. node:zlib is loaded by the first compressed response rather than at start-up.

/** `body` gzipped; level 1 (fast) unless given. */
export function gzip(body: Uint8Array, level = 1): Buffer {
  return process.getBuiltinModule('node:zlib').gzipSync(body, { level });
}
