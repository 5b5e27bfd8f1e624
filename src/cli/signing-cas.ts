// The CAs kube-controller-manager's CSR signers sign with, from the --cluster-signing-* files: checked at start as
// kube checks them (a refused pair stops the start), then, as kube's dynamic certificate content does, read again
// whenever one of the files changes (looked at when a request is signed): a pair that no longer loads is kept as it
// was, with a warning, until the files load again.

import { stat } from 'node:fs/promises';
import { SIGNER_FLAGS, signerCas } from '../controllers/csr-signing.ts';
import type { Logger } from '../server/log.ts';
import type { KeyPairPem } from '../server/pki.ts';
import { ConfigError, readRequired } from './config-error.ts';

export interface SigningFileOptions {
  readonly clusterSigningCertFile?: string;
  readonly clusterSigningKeyFile?: string;
  readonly clusterSigningSignerFiles?: Readonly<Record<string, { readonly certFile?: string; readonly keyFile?: string }>>;
}

interface PairFiles {
  readonly certFile: string;
  readonly keyFile: string;
  /** The flags' stem in messages: --cluster-signing, --cluster-signing-kubelet-serving, ... */
  readonly what: string;
}

/** Both files of a pair or neither (kube's csrSigningFilesValid). */
function signingPairError(certFile: string | undefined, keyFile: string | undefined): string | undefined {
  if (!certFile && keyFile) return 'cannot specify key without cert';
  if (certFile && !keyFile) return 'cannot specify cert without key';
  return undefined;
}

/** The pairs the flags name, checked as kube-controller-manager checks them: the general one, or one per signer. */
function signingFiles(options: SigningFileOptions): { general?: PairFiles; specific: Map<string, PairFiles> } {
  const specificFiles = options.clusterSigningSignerFiles ?? {};
  const errors: string[] = [];
  for (const stem of Object.keys(specificFiles)) {
    if (!SIGNER_FLAGS.some((f) => f.stem === stem)) errors.push(`unknown CSR signer ${JSON.stringify(stem)} (known: ${SIGNER_FLAGS.map((f) => f.stem).join(', ')})`);
  }
  for (const f of SIGNER_FLAGS) {
    const err = signingPairError(specificFiles[f.stem]?.certFile, specificFiles[f.stem]?.keyFile);
    if (err) errors.push(`${JSON.stringify(f.label)}: ${err}`);
  }
  const general = options.clusterSigningCertFile || options.clusterSigningKeyFile;
  const anySpecific = Object.values(specificFiles).some((p) => p.certFile || p.keyFile);
  if (general && anySpecific) errors.push('cannot specify --cluster-signing-{cert,key}-file and other --cluster-signing-*-file flags at the same time');
  const generalError = signingPairError(options.clusterSigningCertFile, options.clusterSigningKeyFile);
  if (generalError) errors.push(`--cluster-signing-{cert,key}-file: ${generalError}`);
  if (errors.length > 0) throw new ConfigError(errors.join(', '));
  const specific = new Map<string, PairFiles>();
  for (const f of SIGNER_FLAGS) {
    const pair = specificFiles[f.stem];
    if (pair?.certFile && pair.keyFile) specific.set(f.signer, { certFile: pair.certFile, keyFile: pair.keyFile, what: `--cluster-signing-${f.stem}` });
  }
  return {
    ...(options.clusterSigningCertFile && options.clusterSigningKeyFile ? { general: { certFile: options.clusterSigningCertFile, keyFile: options.clusterSigningKeyFile, what: '--cluster-signing' } } : {}),
    specific,
  };
}

/** A pair's files read, with the key checked against the certificate. */
async function readPair({ certFile, keyFile, what }: PairFiles): Promise<KeyPairPem> {
  const [certPem, keyPem] = await Promise.all([readRequired(certFile, `${what}-cert-file`), readRequired(keyFile, `${what}-key-file`)]);
  const { X509Certificate, createPrivateKey } = await import('node:crypto');
  let matches: boolean;
  try {
    matches = new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
  } catch (e) {
    throw new ConfigError(`unable to load ${what}-cert-file ${JSON.stringify(certFile)} and ${what}-key-file ${JSON.stringify(keyFile)}: ${(e as Error).message}`);
  }
  if (!matches) throw new ConfigError(`unable to load ${what}-cert-file ${JSON.stringify(certFile)} and ${what}-key-file ${JSON.stringify(keyFile)}: private key does not match public key`);
  return { certPem, keyPem };
}

/** What the files are now (size and modification time of each), to tell a change. */
async function fileStamp(pairs: readonly PairFiles[]): Promise<string> {
  const parts = await Promise.all(
    pairs.flatMap((p) => [p.certFile, p.keyFile]).map((f) =>
      stat(f).then(
        (s) => `${s.size}:${s.mtimeMs}:${s.ino}`,
        () => 'missing',
      ),
    ),
  );
  return parts.join('|');
}

/**
 * The CA of each kubernetes.io signer (see signerCas), as the files say now. Checked and read once here, so that a
 * bad configuration stops the start; the function returned reads them again when they change.
 */
export async function signingCas(options: SigningFileOptions, clusterCa: KeyPairPem, log: Logger): Promise<() => Promise<ReadonlyMap<string, KeyPairPem>>> {
  const files = signingFiles(options);
  const pairs = [...(files.general ? [files.general] : []), ...files.specific.values()];
  const load = async (): Promise<Map<string, KeyPairPem>> => {
    const specific = new Map<string, KeyPairPem>();
    for (const [signer, pair] of files.specific) specific.set(signer, await readPair(pair));
    return signerCas(clusterCa, files.general && (await readPair(files.general)), specific);
  };
  let stamp = await fileStamp(pairs);
  let current = await load();
  if (pairs.length === 0) return async () => current;
  let reading: Promise<void> | undefined;
  return async () => {
    reading ??= (async () => {
      const now = await fileStamp(pairs);
      if (now === stamp) return;
      stamp = now;
      try {
        current = await load();
        log.info('CSR signing certificates reloaded');
      } catch (e) {
        log.warn('CSR signing certificates not reloaded; signing with the ones loaded before', { error: (e as Error).message });
      }
    })().finally(() => (reading = undefined));
    await reading;
    return current;
  };
}
