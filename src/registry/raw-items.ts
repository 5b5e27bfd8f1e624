// A list's items as response bytes, kept as the separate pieces they came as (one per cached object, or one for a
// whole storage read) and copied once, straight into the response body, joined by commas.

export interface RawItems {
  /** Each piece is one item or several already joined; pieces are written with a comma between them. */
  readonly pieces: readonly Uint8Array[];
  /** Bytes of the joined items (pieces plus the commas between them). */
  readonly length: number;
}

export function rawItems(pieces: readonly Uint8Array[]): RawItems {
  let length = pieces.length > 0 ? pieces.length - 1 : 0;
  for (let i = 0; i < pieces.length; i++) length += pieces[i].length;
  return { pieces, length };
}

const COMMA = 0x2c;

/** Copies the joined items into out at offset; returns the offset after them. */
export function copyItems(items: RawItems, out: Uint8Array, offset: number): number {
  const { pieces } = items;
  let at = offset;
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0) out[at++] = COMMA;
    const piece = pieces[i];
    out.set(piece, at);
    at += piece.length;
  }
  return at;
}
