// Service account token keys: the signing key (--service-account-signing-key-file, else one generated in the data
// directory) and the verification keys (--service-account-key-file, repeatable; without it the TLS private key, as
// kube-apiserver falls back to it), published as a JWK set with kube's key ids.

import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, X509Certificate, type KeyObject } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JWK } from 'jose';
import { loadJose } from '../jose.ts';

export const GENERATED_KEY_FILE = 'sa.key';

/** What jose's importPKCS8 gives. */
type SigningCryptoKey = Awaited<ReturnType<Awaited<ReturnType<typeof loadJose>>['importPKCS8']>>;

export interface SigningKey {
  readonly alg: string;
  readonly kid: string;
  /** The key for jose's SignJWT (imported on first use). */
  key(): Promise<SigningCryptoKey>;
}

export interface ServiceAccountKeys {
  readonly signing: SigningKey;
  /** Public keys, with kid, alg and use, as /openid/v1/jwks serves them. */
  readonly jwks: readonly JWK[];
}

/** The JWS algorithm kube uses for a key: RS256 for RSA, ES256/384/512 by curve. */
function algorithmOf(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1' || curve === 'P-256') return 'ES256';
    if (curve === 'secp384r1' || curve === 'P-384') return 'ES384';
    if (curve === 'secp521r1' || curve === 'P-521') return 'ES512';
  }
  throw new Error(`unsupported service account key type ${key.asymmetricKeyType ?? 'unknown'}`);
}

/** kube's keyIDFromPublicKey: unpadded base64url of the SHA-256 of the public key's PKIX DER. */
export function keyId(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ format: 'der', type: 'spki' })).digest('base64url');
}

function publicJwk(publicKey: KeyObject): JWK {
  return { ...(publicKey.export({ format: 'jwk' }) as JWK), use: 'sig', kid: keyId(publicKey), alg: algorithmOf(publicKey) };
}

/**
 * Every PEM key in a file: private keys give their public half, certificates their public key (keyutil's
 * parseRSAPublicKey / parseECPublicKey fall back to x509.ParseCertificate; envtest passes a CA certificate).
 */
function publicKeysIn(pem: string, path: string): KeyObject[] {
  const blocks = pem.match(/-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g) ?? [];
  const keys: KeyObject[] = [];
  for (const block of blocks) {
    if (block.includes('CERTIFICATE')) {
      // Other non-key blocks are tolerated, as keyutil does.
      if (/-----BEGIN CERTIFICATE-----/.test(block)) keys.push(new X509Certificate(block).publicKey);
      continue;
    }
    keys.push(block.includes('PRIVATE') ? createPublicKey(createPrivateKey(block)) : createPublicKey(block));
  }
  if (keys.length === 0) throw new Error(`no public or private key found in ${JSON.stringify(path)}`);
  return keys;
}

async function readKeyFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new Error(`unable to read service account key file ${JSON.stringify(path)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** The data dir's generated ECDSA P-256 key, created (0600) when missing. */
async function generatedKeyPem(dataDir: string): Promise<string> {
  const path = join(dataDir, GENERATED_KEY_FILE);
  try {
    return await readFile(path, 'utf8');
  } catch {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    await writeFile(path, pem, { mode: 0o600 });
    await chmod(path, 0o600);
    return pem;
  }
}

export interface KeyOptions {
  readonly signingKeyFile?: string;
  readonly keyFiles?: readonly string[];
  /** --tls-private-key-file: the verification key when no --service-account-key-file is given. */
  readonly tlsPrivateKeyFile?: string;
  readonly dataDir: string;
}

export async function loadServiceAccountKeys(options: KeyOptions): Promise<ServiceAccountKeys> {
  const signingPem = options.signingKeyFile ? await readKeyFile(options.signingKeyFile) : await generatedKeyPem(options.dataDir);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(signingPem);
  } catch {
    throw new Error(`failed to parse service account signing key${options.signingKeyFile ? ` ${JSON.stringify(options.signingKeyFile)}` : ''}: not a PEM private key`);
  }
  const publicKey = createPublicKey(privateKey);
  const alg = algorithmOf(privateKey);
  const pkcs8 = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  let imported: Promise<SigningCryptoKey> | undefined;
  const key = () => (imported ??= loadJose().then((jose) => jose.importPKCS8(pkcs8, alg)));
  const verifyFiles = options.keyFiles && options.keyFiles.length > 0 ? options.keyFiles : options.tlsPrivateKeyFile ? [options.tlsPrivateKeyFile] : [];
  const publicKeys = [publicKey];
  for (const file of verifyFiles) {
    try {
      publicKeys.push(...publicKeysIn(await readKeyFile(file), file));
    } catch (e) {
      throw new Error(`failed to parse service account key file: ${(e as Error).message}`);
    }
  }
  const jwks: JWK[] = [];
  const seen = new Set<string>();
  for (const k of publicKeys) {
    const jwk = publicJwk(k);
    if (seen.has(jwk.kid!)) continue;
    seen.add(jwk.kid!);
    jwks.push(jwk);
  }
  return { signing: { alg, kid: keyId(publicKey), key }, jwks };
}
