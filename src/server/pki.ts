// The cluster's certificates: a CA, a serving certificate for the loopback names, and an admin client
// certificate (CN capstan-admin, O system:masters), ECDSA P-256. Generated on first start into <dataDir>/pki
// (certificates.ts, loaded only then), reused afterwards with nothing but Node's own X509Certificate to check
// them, and renewed when missing, expiring, no longer signed by the CA, or lacking a needed name.

import { X509Certificate as NodeX509, createPrivateKey } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { makeDirectories } from './make-directories.ts';
import { join } from 'node:path';
import type { CertificateRequest, DistinguishedName } from './certificates.ts';

export const ADMIN_USER = 'capstan-admin';
export const ADMIN_GROUP = 'system:masters';

const DAY = 24 * 60 * 60 * 1000;
const CA_LIFETIME = 10 * 365 * DAY;
const LEAF_LIFETIME = 365 * DAY;
/** Leaves closer than this to expiry are renewed at start-up. */
const RENEW_BEFORE = 7 * DAY;

export interface KeyPairPem {
  readonly certPem: string;
  readonly keyPem: string;
}

export interface ClusterPki {
  readonly ca: KeyPairPem;
  readonly serving: KeyPairPem;
  readonly admin: KeyPairPem;
  /** Names in the serving certificate. */
  readonly servingNames: readonly string[];
}

/** The names the serving certificate must cover for a bind address. */
export function servingNamesFor(bindAddress: string): string[] {
  const names = ['localhost', '127.0.0.1', '::1'];
  const unspecified = bindAddress === '' || bindAddress === '0.0.0.0' || bindAddress === '::';
  if (!unspecified && !names.some((n) => normalizeIp(n) === normalizeIp(bindAddress))) names.push(bindAddress);
  return names;
}

function normalizeIp(ip: string): string {
  // Names here are host names or IP literals, and only IPv6 has colons (node:net's isIP would compile its IPv6
  // pattern, ~5 ms of every start-up, for "localhost").
  if (!ip.includes(':')) return ip;
  // Expand to the form Node prints in subjectAltName (no zero compression).
  const [head, tail] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined ? (tail ? tail.split(':') : []) : [];
  const fill = tail !== undefined ? new Array(8 - h.length - t.length).fill('0') : [];
  return [...h, ...fill, ...t].map((p) => parseInt(p, 16).toString(16)).join(':');
}

async function readPair(dir: string, base: string): Promise<KeyPairPem | undefined> {
  try {
    const [certPem, keyPem] = await Promise.all([readFile(join(dir, `${base}.crt`), 'utf8'), readFile(join(dir, `${base}.key`), 'utf8')]);
    return { certPem, keyPem };
  } catch {
    return undefined;
  }
}

async function writeAtomic(path: string, data: string, mode: number): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, data, { mode });
  await rename(tmp, path);
}

async function writePair(dir: string, base: string, pair: KeyPairPem): Promise<void> {
  await writeAtomic(join(dir, `${base}.key`), pair.keyPem, 0o600);
  await writeAtomic(join(dir, `${base}.crt`), pair.certPem, 0o644);
}

function parse(pair: KeyPairPem | undefined): NodeX509 | undefined {
  if (!pair) return undefined;
  try {
    createPrivateKey(pair.keyPem);
    return new NodeX509(pair.certPem);
  } catch {
    return undefined;
  }
}

function keyMatches(cert: NodeX509, keyPem: string): boolean {
  try {
    return cert.checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}

/** The leaves are signed with ECDSA P-256 and SHA-256, so a CA with any other key is replaced. */
function isP256(cert: NodeX509): boolean {
  return cert.publicKey.asymmetricKeyType === 'ec' && cert.publicKey.asymmetricKeyDetails?.namedCurve === 'prime256v1';
}

function usableCa(pair: KeyPairPem | undefined, now: number): boolean {
  const cert = parse(pair);
  return !!cert && !!pair && cert.ca && isP256(cert) && Date.parse(cert.validTo) > now + RENEW_BEFORE && keyMatches(cert, pair.keyPem);
}

function usableLeaf(pair: KeyPairPem | undefined, ca: NodeX509, now: number, check: (cert: NodeX509) => boolean): boolean {
  const cert = parse(pair);
  if (!cert || !pair) return false;
  if (Date.parse(cert.validTo) < now + RENEW_BEFORE) return false;
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return false;
  return keyMatches(cert, pair.keyPem) && check(cert);
}

function sanEntries(cert: NodeX509): Set<string> {
  const out = new Set<string>();
  for (const part of (cert.subjectAltName ?? '').split(', ')) {
    if (part.startsWith('DNS:')) out.add(part.slice(4));
    else if (part.startsWith('IP Address:')) out.add(normalizeIp(part.slice(11)));
  }
  return out;
}

async function issue(req: CertificateRequest, ca?: KeyPairPem): Promise<KeyPairPem> {
  const { issueCertificate } = await import('./certificates.ts');
  return issueCertificate(req, ca);
}

function generateCa(now: number): Promise<KeyPairPem> {
  return issue({ subject: { commonName: `capstan-ca@${Math.floor(now / 1000)}` }, notBefore: new Date(now - 5 * 60 * 1000), notAfter: new Date(now + CA_LIFETIME), isCa: true });
}

function generateLeaf(ca: KeyPairPem, now: number, subject: DistinguishedName, usage: 'server' | 'client', altNames: readonly string[] = []): Promise<KeyPairPem> {
  return issue({ subject, notBefore: new Date(now - 5 * 60 * 1000), notAfter: new Date(now + LEAF_LIFETIME), isCa: false, usage, altNames }, ca);
}

export interface EnsurePkiOptions {
  readonly dataDir: string;
  readonly bindAddress: string;
  /** Skip the serving certificate (the caller brings its own with --tls-cert-file). */
  readonly skipServing?: boolean;
  readonly now?: number;
}

export interface EnsurePkiResult {
  readonly pki: ClusterPki;
  /** What was (re)generated, for the start-up log. */
  readonly generated: readonly string[];
}

export async function ensurePki(options: EnsurePkiOptions): Promise<EnsurePkiResult> {
  const now = options.now ?? Date.now();
  const dir = join(options.dataDir, 'pki');
  makeDirectories(dir, 0o700);
  const generated: string[] = [];
  const [caPair, servingPair, adminPair] = await Promise.all([readPair(dir, 'ca'), readPair(dir, 'apiserver'), readPair(dir, 'admin')]);

  let ca = caPair;
  if (!ca || !usableCa(ca, now)) {
    ca = await generateCa(now);
    await writePair(dir, 'ca', ca);
    generated.push('ca');
  }
  const caCert = new NodeX509(ca.certPem);

  const servingNames = servingNamesFor(options.bindAddress);
  let serving = servingPair;
  const coversNames = (cert: NodeX509): boolean => {
    const have = sanEntries(cert);
    return servingNames.every((n) => have.has(normalizeIp(n)));
  };
  if (!options.skipServing && (!serving || !usableLeaf(serving, caCert, now, coversNames))) {
    serving = await generateLeaf(ca, now, { commonName: 'capstan-apiserver' }, 'server', servingNames);
    await writePair(dir, 'apiserver', serving);
    generated.push('serving certificate');
  }

  let admin = adminPair;
  const isAdmin = (cert: NodeX509): boolean => cert.subject.split('\n').sort().join('\n') === [`CN=${ADMIN_USER}`, `O=${ADMIN_GROUP}`].sort().join('\n');
  if (!admin || !usableLeaf(admin, caCert, now, isAdmin)) {
    admin = await generateLeaf(ca, now, { commonName: ADMIN_USER, organizations: [ADMIN_GROUP] }, 'client');
    await writePair(dir, 'admin', admin);
    generated.push('admin client certificate');
  }
  return { pki: { ca, serving: serving ?? { certPem: '', keyPem: '' }, admin, servingNames }, generated };
}

/** The common name of the aggregator's client certificate (kubeadm's front-proxy-client). */
export const PROXY_CLIENT_NAME = 'front-proxy-client';

/**
 * The aggregator's client certificate (--proxy-client-cert-file's default): CN front-proxy-client, signed by the
 * cluster CA, made in <dataDir>/pki on first use and renewed like the other leaves. Extension API servers accept it
 * through the extension-apiserver-authentication ConfigMap's requestheader-* keys.
 */
export async function ensureProxyClientPair(dataDir: string, ca: KeyPairPem, now = Date.now()): Promise<KeyPairPem> {
  const dir = join(dataDir, 'pki');
  const caCert = new NodeX509(ca.certPem);
  const existing = await readPair(dir, PROXY_CLIENT_NAME);
  const isProxyClient = (cert: NodeX509): boolean => cert.subject === `CN=${PROXY_CLIENT_NAME}`;
  if (existing && usableLeaf(existing, caCert, now, isProxyClient)) return existing;
  const pair = await generateLeaf(ca, now, { commonName: PROXY_CLIENT_NAME }, 'client');
  makeDirectories(dir, 0o700);
  await writePair(dir, PROXY_CLIENT_NAME, pair);
  return pair;
}

/** Splits a PEM bundle into its certificates (for --client-ca-file and kubeconfig trust). */
export function splitPemCertificates(bundle: string): string[] {
  return bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)?.map((c) => c + '\n') ?? [];
}
