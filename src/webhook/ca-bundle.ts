// webhook.ValidateCABundle of kube 1.31 (k8s.io/apiserver/pkg/util/webhook): a caBundle is valid when client-go's
// transport.TLSConfigFor takes it as CA data, i.e. x509.CertPool.AppendCertsFromPEM finds at least one certificate
// in it. When none is found, client-go walks the PEM again to say why, and that walk's first complaint is the message.

import { X509Certificate } from 'node:crypto';
import { fieldErrors, renderedBadValue, type FieldError } from '../apis/errors.ts';
import { children, element } from '../server/der.ts';

interface RawPemBlock {
  readonly type: string;
  readonly headers: boolean;
  readonly der: Buffer;
}

/** Go's %#v of a []byte. */
export const goBytes = (b: Buffer | undefined): unknown => renderedBadValue(b ? `[]byte{${[...b].map((x) => `0x${x.toString(16)}`).join(', ')}}` : '[]byte(nil)');

// pem.Decode: garbage before a BEGIN line is skipped, the END line is consumed with its line ending
const BLOCK = /-----BEGIN ([^\r\n]*?)-----\r?\n([\s\S]*?)-----END \1-----[ \t]*(?:\r?\n|$)/g;

/** The blocks pem.Decode returns one after another; null where it finds none in the bytes still left. */
function pemWalk(text: string): (RawPemBlock | null)[] {
  const out: (RawPemBlock | null)[] = [];
  for (let pos = 0; pos < text.length; ) {
    BLOCK.lastIndex = pos;
    const m = BLOCK.exec(text);
    if (!m) {
      out.push(null);
      break;
    }
    const lines = m[2]!.split(/\r?\n/).filter((l) => l !== '');
    out.push({ type: m[1]!, headers: lines.some((l) => l.includes(':')), der: Buffer.from(lines.filter((l) => !l.includes(':')).join(''), 'base64') });
    pos = BLOCK.lastIndex;
  }
  return out;
}

/** x509.ParseCertificate's complaint about a DER certificate (its outer structure), or undefined when it parses. */
function certificateError(der: Buffer): string | undefined {
  try {
    new X509Certificate(der);
    return undefined;
  } catch {
    // fall through to say where the structure breaks
  }
  try {
    const cert = element(der);
    if (cert.tag !== 0x30) return 'x509: malformed certificate';
    if (cert.raw.length !== der.length) return 'x509: trailing data';
    const tbs = children(cert.contents)[0];
    if (!tbs || tbs.tag !== 0x30) return 'x509: malformed tbs certificate';
  } catch {
    return 'x509: malformed certificate';
  }
  return 'x509: malformed certificate';
}

const isCertificateBlock = (b: RawPemBlock | null): b is RawPemBlock => b !== null && b.type === 'CERTIFICATE' && !b.headers;

/** What transport.TLSConfigFor says of the CA data, or undefined when it is accepted (empty data included). */
export function caBundleProblem(data: Buffer): string | undefined {
  if (data.length === 0) return undefined;
  const blocks = pemWalk(data.toString('latin1'));
  if (blocks.some((b) => isCertificateBlock(b) && certificateError(b.der) === undefined)) return undefined;
  return `unable to load root certificates: ${whyNoCertificate(blocks)}`;
}

/** createErrorParsingCAData: the first block that is not PEM, or the first certificate that does not parse. */
function whyNoCertificate(blocks: readonly (RawPemBlock | null)[]): string {
  for (const b of blocks) {
    if (b === null) return 'unable to parse bytes as PEM block';
    if (!isCertificateBlock(b)) continue;
    const err = certificateError(b.der);
    if (err) return `failed to parse certificate: ${err}`;
  }
  return 'no valid certificate authority data seen';
}

/** ValidateCABundle on a base64 []byte field: an Invalid error with the bytes as Go prints them. */
export function validateCABundle(path: string, caBundle: string | undefined): FieldError[] {
  const bytes = Buffer.from(caBundle ?? '', 'base64');
  const problem = caBundleProblem(bytes);
  return problem === undefined ? [] : [fieldErrors.invalid(path, goBytes(bytes), problem)];
}
