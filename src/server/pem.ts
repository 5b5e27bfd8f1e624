// PEM (RFC 7468) as Go's encoding/pem reads and writes it: blocks of base64 DER between BEGIN and END lines.

export interface PemBlock {
  readonly type: string;
  /** Whether the block has "Name: value" header lines. */
  readonly headers: boolean;
  /** The base64 body, lines joined. */
  readonly body: string;
}

/** The PEM blocks of a text, in order. */
export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  const re = /-----BEGIN ([^-]+)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const lines = m[2]!.split(/\r?\n/).filter((l) => l !== '');
    out.push({ type: m[1]!, headers: lines.some((l) => l.includes(':')), body: lines.filter((l) => !l.includes(':')).join('') });
  }
  return out;
}

/** One block, its base64 in lines of 64 characters (pem.EncodeToMemory). */
export function pemEncode(type: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.join('\n')}\n-----END ${type}-----\n`;
}
