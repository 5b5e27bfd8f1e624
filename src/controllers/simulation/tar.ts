// The tar archives `kubectl cp` moves through `kubectl exec`: read as GNU tar reads what Go's archive/tar writes
// (ustar headers, a prefix for long paths, PAX records and GNU long names for longer ones), written as ustar with a
// PAX record for a path too long for its fields.

export type TarEntryType = 'file' | 'dir' | 'symlink';

export interface TarEntry {
  /** The member's path as the archive names it (no trailing slash). */
  readonly name: string;
  readonly type: TarEntryType;
  readonly mode: number;
  /** Seconds since the epoch. */
  readonly mtime: number;
  readonly data: Buffer;
  readonly linkname?: string;
}

export class TarError extends Error {}

const BLOCK = 512;

function text(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const nul = field.indexOf(0);
  return field.subarray(0, nul < 0 ? field.length : nul).toString('utf8');
}

/** An octal number field, or a base-256 one (the high bit of its first byte set) as GNU and Go write large values. */
function number(block: Buffer, start: number, length: number): number {
  const field = block.subarray(start, start + length);
  if ((field[0]! & 0x80) !== 0) {
    let n = field[0]! & 0x7f;
    for (let i = 1; i < field.length; i++) n = n * 256 + field[i]!;
    return n;
  }
  const digits = field.toString('latin1').replace(/\0.*$/s, '').trim();
  if (digits === '') return 0;
  if (!/^[0-7]+$/.test(digits)) throw new TarError('This does not look like a tar archive');
  return parseInt(digits, 8);
}

function checksumOf(block: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  return sum;
}

/** PAX records: "<length> <key>=<value>\n" each. */
function paxRecords(data: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space < 0) break;
    const length = Number(data.subarray(at, space).toString('latin1'));
    if (!Number.isInteger(length) || length <= 0 || at + length > data.length) throw new TarError('This does not look like a tar archive');
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) records.set(record.slice(0, eq), record.slice(eq + 1));
    at += length;
  }
  return records;
}

/** The members of an archive, in order. Throws TarError for bytes that are not one. */
export function readTar(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let at = 0;
  let longName: string | undefined;
  let longLink: string | undefined;
  let pax = new Map<string, string>();
  while (at + BLOCK <= archive.length) {
    const header = archive.subarray(at, at + BLOCK);
    at += BLOCK;
    if (header.every((b) => b === 0)) break;
    if (number(header, 148, 8) !== checksumOf(header)) throw new TarError('This does not look like a tar archive');
    const size = number(header, 124, 12);
    const data = archive.subarray(at, at + size);
    if (data.length < size) throw new TarError('Unexpected EOF in archive');
    at += Math.ceil(size / BLOCK) * BLOCK;
    const flag = String.fromCharCode(header[156]!);
    if (flag === 'x') {
      pax = paxRecords(data);
      continue;
    }
    if (flag === 'g') continue;
    if (flag === 'L' || flag === 'K') {
      const value = data.toString('utf8').replace(/\0+$/, '');
      if (flag === 'L') longName = value;
      else longLink = value;
      continue;
    }
    const prefix = text(header, 345, 155);
    const ustar = text(header, 257, 6).startsWith('ustar');
    const name = pax.get('path') ?? longName ?? (ustar && prefix ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100));
    const linkname = pax.get('linkpath') ?? longLink ?? text(header, 157, 100);
    const mtime = pax.has('mtime') ? Math.floor(Number(pax.get('mtime'))) : number(header, 136, 12);
    pax = new Map();
    longName = undefined;
    longLink = undefined;
    const type: TarEntryType | undefined = flag === '5' ? 'dir' : flag === '2' ? 'symlink' : flag === '0' || flag === '\0' || flag === '7' ? 'file' : undefined;
    if (!type) continue;
    entries.push({ name: name.replace(/\/+$/, ''), type, mode: number(header, 100, 8) & 0o7777, mtime, data: type === 'file' ? Buffer.from(data) : Buffer.alloc(0), linkname: type === 'symlink' ? linkname : undefined });
  }
  return entries;
}

function writeString(block: Buffer, start: number, length: number, value: string): void {
  block.write(value, start, length, 'utf8');
}

function writeOctal(block: Buffer, start: number, length: number, value: number): void {
  writeString(block, start, length, value.toString(8).padStart(length - 1, '0') + '\0');
}

function headerBlock(name: string, entry: TarEntry, size: number, flag: string): Buffer {
  const block = Buffer.alloc(BLOCK);
  let prefix = '';
  let short = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', name.length - 1);
    if (cut > 0 && Buffer.byteLength(name.slice(0, cut)) <= 155 && Buffer.byteLength(name.slice(cut + 1)) <= 100) {
      prefix = name.slice(0, cut);
      short = name.slice(cut + 1);
    } else short = name.slice(0, 100);
  }
  writeString(block, 0, 100, short);
  writeOctal(block, 100, 8, entry.mode);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, entry.mtime);
  block[156] = flag.charCodeAt(0);
  if (entry.linkname) writeString(block, 157, 100, entry.linkname);
  writeString(block, 257, 6, 'ustar\0');
  writeString(block, 263, 2, '00');
  writeString(block, 265, 32, 'root');
  writeString(block, 297, 32, 'root');
  writeString(block, 345, 155, prefix);
  writeString(block, 148, 8, checksumOf(block).toString(8).padStart(6, '0') + '\0 ');
  return block;
}

function padded(data: Buffer): Buffer[] {
  const rest = data.length % BLOCK;
  return rest === 0 ? [data] : [data, Buffer.alloc(BLOCK - rest)];
}

/** An archive of the entries (directories named with their trailing slash), ended by two zero blocks. */
export function writeTar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const name = e.type === 'dir' ? `${e.name}/` : e.name;
    const fits = Buffer.byteLength(name) <= 100 || (name.lastIndexOf('/') > 0 && Buffer.byteLength(name.slice(0, name.lastIndexOf('/'))) <= 155 && Buffer.byteLength(name.slice(name.lastIndexOf('/') + 1)) <= 100);
    if (!fits) {
      const record = (key: string, value: string): string => {
        const body = ` ${key}=${value}\n`;
        let length = Buffer.byteLength(body);
        while (String(length).length + Buffer.byteLength(body) !== length) length = String(length).length + Buffer.byteLength(body);
        return `${length}${body}`;
      };
      const pax = Buffer.from(record('path', name), 'utf8');
      parts.push(headerBlock('PaxHeaders/' + name.slice(-80), e, pax.length, 'x'), ...padded(pax));
    }
    const data = e.type === 'file' ? e.data : Buffer.alloc(0);
    parts.push(headerBlock(name, e, data.length, e.type === 'dir' ? '5' : e.type === 'symlink' ? '2' : '0'), ...padded(data));
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}
