// kube-controller-manager's csrsigning controllers: an approved CertificateSigningRequest for one of the
// kubernetes.io signers, not failed and not yet issued, is checked against its signer's rules and either gets a
// certificate signed by the cluster CA in status.certificate, or a Failed condition (SignerValidationFailure) saying
// which rule it broke. Requests for other signers are left to their own controllers.

import { X509Certificate } from 'node:crypto';
import { isStatusError } from '../apis/errors.ts';
import { cloneJson } from '../apis/json-clone.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry, ResourceStore, WatchEvent } from '../registry/types.ts';
import { checkRequestSignature, parseCertificateRequest, type SigningRequest } from '../server/certificate-request.ts';
import type { SigningPolicy } from '../server/certificates.ts';
import type { KeyPairPem } from '../server/pki.ts';

export interface CsrSigningOptions {
  /**
   * The CA each kubernetes.io signer signs with, by signer name; a signer without one signs nothing (kube skips its
   * controller). By default every signer has the cluster CA (see signerCas).
   */
  cas(): Promise<ReadonlyMap<string, KeyPairPem>>;
  /** --cluster-signing-duration: the longest validity, in ms; a shorter spec.expirationSeconds is honoured. */
  readonly durationMs: number;
}

/** kube-controller-manager's default --cluster-signing-duration (8760h). */
export const DEFAULT_SIGNING_DURATION_MS = 365 * 24 * 3600 * 1000;

const MINUTE = 60 * 1000;
/** NotBefore is this far in the past (clock skew); validity this long or more also ends this much earlier. */
const BACKDATE_MS = 5 * MINUTE;
const SHORT_MS = 8 * 60 * MINUTE;
/** The shortest validity given, whatever spec.expirationSeconds asks (twice the backdating). */
const MIN_DURATION_MS = 10 * MINUTE;

type Obj = Record<string, unknown>;
/** A signer's rules for a request and its usages: the error message of the first it breaks. */
type SignerRules = (req: SigningRequest, usages: ReadonlySet<string>) => string | undefined;

const NODE_ORGANIZATION = 'system:nodes';
const NODE_NAME_PREFIX = 'system:node:';

function sameSet(a: ReadonlySet<string>, b: readonly string[]): boolean {
  return a.size === b.length && b.every((x) => a.has(x));
}

/** validAPIServerClientUsages. */
const apiServerClient: SignerRules = (_req, usages) => {
  for (const u of usages) if (u !== 'digital signature' && u !== 'key encipherment' && u !== 'client auth') return `invalid usage for client certificate: ${u}`;
  return usages.has('client auth') ? undefined : 'missing required usage for client certificate: client auth';
};

const isNodeOrganization = (req: SigningRequest): boolean => req.subject.organization.length === 1 && req.subject.organization[0] === NODE_ORGANIZATION;

/** ValidateKubeletClientCSR. */
export const kubeletClientRules: SignerRules = (req, usages) => {
  if (!isNodeOrganization(req)) return 'subject organization is not system:nodes';
  if (req.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!req.subject.commonName.startsWith(NODE_NAME_PREFIX)) return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, ['digital signature', 'key encipherment', 'client auth']) && !sameSet(usages, ['digital signature', 'client auth'])) return 'usages did not match [client auth digital signature key encipherment]';
  return undefined;
};

/** ValidateKubeletServingCSR. */
const kubeletServing: SignerRules = (req, usages) => {
  if (!isNodeOrganization(req)) return 'subject organization is not system:nodes';
  if (req.dnsNames.length === 0 && req.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, ['digital signature', 'key encipherment', 'server auth']) && !sameSet(usages, ['digital signature', 'server auth'])) return 'usages did not match [digital signature key encipherment server auth]';
  if (!req.subject.commonName.startsWith(NODE_NAME_PREFIX)) return 'subject common name does not begin with system:node:';
  return undefined;
};

/**
 * The kubernetes.io signers by the stem of kube-controller-manager's flags (--cluster-signing-<stem>-cert-file and
 * -key-file), and the name kube's flag validation gives each in its errors.
 */
export const SIGNER_FLAGS: readonly { readonly stem: string; readonly label: string; readonly signer: string }[] = [
  { stem: 'kubelet-serving', label: 'cluster-signing-kubelet-serving', signer: 'kubernetes.io/kubelet-serving' },
  { stem: 'kubelet-client', label: 'cluster-signing-kubelet-client', signer: 'kubernetes.io/kube-apiserver-client-kubelet' },
  { stem: 'kube-apiserver-client', label: 'cluster-signing-kube-apiserver', signer: 'kubernetes.io/kube-apiserver-client' },
  { stem: 'legacy-unknown', label: 'cluster-signing-legacy-unknown', signer: 'kubernetes.io/legacy-unknown' },
];

/**
 * Which CA each signer signs with (kube-controller-manager's getXSignerFiles): a signer's own pair when any signer has
 * one (the others then sign nothing), else the --cluster-signing-{cert,key}-file pair, else the cluster CA.
 */
export function signerCas(clusterCa: KeyPairPem, general: KeyPairPem | undefined, specific: ReadonlyMap<string, KeyPairPem>): Map<string, KeyPairPem> {
  if (specific.size > 0) return new Map(specific);
  return new Map(SIGNER_FLAGS.map((f) => [f.signer, general ?? clusterCa]));
}

const SIGNERS: Readonly<Record<string, SignerRules>> = {
  'kubernetes.io/kube-apiserver-client': apiServerClient,
  'kubernetes.io/kube-apiserver-client-kubelet': kubeletClientRules,
  'kubernetes.io/kubelet-serving': kubeletServing,
  // No rules, for backward compatibility (v1 refuses to create requests for it).
  'kubernetes.io/legacy-unknown': () => undefined,
};

/** The certificates API's usages as X.509 key usage bits. */
const KEY_USAGE_BITS: Readonly<Record<string, number>> = {
  signing: 0,
  'digital signature': 0,
  'content commitment': 1,
  'key encipherment': 2,
  'data encipherment': 3,
  'key agreement': 4,
  'cert sign': 5,
  'crl sign': 6,
  'encipher only': 7,
  'decipher only': 8,
};

/** The certificates API's usages as extended key usage OIDs, in the order Go's ExtKeyUsage values sort them. */
const EXT_KEY_USAGE_OIDS: readonly (readonly [string, string])[] = [
  ['any', '2.5.29.37.0'],
  ['server auth', '1.3.6.1.5.5.7.3.1'],
  ['client auth', '1.3.6.1.5.5.7.3.2'],
  ['code signing', '1.3.6.1.5.5.7.3.3'],
  ['email protection', '1.3.6.1.5.5.7.3.4'],
  ['s/mime', '1.3.6.1.5.5.7.3.4'],
  ['ipsec end system', '1.3.6.1.5.5.7.3.5'],
  ['ipsec tunnel', '1.3.6.1.5.5.7.3.6'],
  ['ipsec user', '1.3.6.1.5.5.7.3.7'],
  ['timestamping', '1.3.6.1.5.5.7.3.8'],
  ['ocsp signing', '1.3.6.1.5.5.7.3.9'],
  ['microsoft sgc', '1.3.6.1.4.1.311.10.3.3'],
  ['netscape sgc', '2.16.840.1.113730.4.1'],
];

/** signer.duration: the configured validity, or the requested one when shorter (but at least 10 minutes). */
export function signingDuration(expirationSeconds: unknown, maxMs: number): number {
  if (typeof expirationSeconds !== 'number') return maxMs;
  return Math.min(maxMs, Math.max(MIN_DURATION_MS, expirationSeconds * 1000));
}

/** PermissiveSigningPolicy: backdated, usages as asked, never past the CA's own expiry. */
export function signingPolicy(usages: readonly string[], ttlMs: number, caNotAfter: number, now: number): SigningPolicy {
  const bits = new Set<number>();
  for (const u of usages) if (u in KEY_USAGE_BITS) bits.add(KEY_USAGE_BITS[u]!);
  const extKeyUsage = [...new Set(EXT_KEY_USAGE_OIDS.filter(([name]) => usages.includes(name)).map(([, oid]) => oid))];
  const notAfter = Math.min(now + (ttlMs < SHORT_MS ? ttlMs : ttlMs - BACKDATE_MS), caNotAfter);
  return { notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(notAfter), keyUsage: [...bits].sort((a, b) => a - b), extKeyUsage };
}

const conditions = (csr: KubeObject): Obj[] => {
  const list = (csr.status as Obj | undefined)?.conditions;
  return Array.isArray(list) ? (list as Obj[]) : [];
};
export const hasTrueCondition = (csr: KubeObject, type: string): boolean => conditions(csr).some((c) => c.type === type && c.status === 'True');
export const isIssued = (csr: KubeObject): boolean => typeof (csr.status as Obj | undefined)?.certificate === 'string' && (csr.status as Obj).certificate !== '';

/** The CertificateSigningRequests store (looked up on each use: it may not be served yet). */
export function csrStore(registry: Registry): ResourceStore | undefined {
  const def = registry.lookup('certificates.k8s.io', 'v1', 'certificatesigningrequests');
  return def ? registry.store(def) : undefined;
}

/** The request of a CSR as stored (base64 PEM), parsed; undefined when it cannot be (its spec never changes). */
export function signingRequestOf(csr: KubeObject): SigningRequest | undefined {
  try {
    return parseCertificateRequest(Buffer.from(String((csr.spec as Obj | undefined)?.request ?? ''), 'base64').toString('latin1'));
  } catch {
    return undefined;
  }
}

/** The CSR as the watch cache has it now; undefined once it is gone. */
export async function currentCsr(store: ResourceStore, name: string): Promise<KubeObject | undefined> {
  try {
    return await store.get(loopbackContext(), name, { resourceVersion: '0' });
  } catch (e) {
    if (isStatusError(e) && e.code === 404) return undefined;
    throw e;
  }
}

/** Writes a change to the CSR as it is now (through a subresource), if `still` holds for it; gone is fine. */
export async function writeCsr(store: ResourceStore, name: string, subresource: string, still: (csr: KubeObject) => boolean, change: (status: Obj) => void): Promise<void> {
  try {
    await store.update(
      loopbackContext(),
      name,
      (current) => {
        if (!current || !still(current)) return current!;
        const next = cloneJson(current);
        const status = (next.status ?? {}) as Obj;
        change(status);
        next.status = status;
        return next;
      },
      { subresource },
    );
  } catch (e) {
    if (!(isStatusError(e) && e.code === 404)) throw e;
  }
}

/** Whether the signers here have something to do with a request: approved, neither failed nor issued, for them. */
function awaitsSigning(csr: KubeObject): boolean {
  const signer = (csr.spec as Obj | undefined)?.signerName;
  return typeof signer === 'string' && signer in SIGNERS && hasTrueCondition(csr, 'Approved') && !hasTrueCondition(csr, 'Failed') && !isIssued(csr);
}

/** One of the controllers that follow CSRs (csr-controllers.ts): which events concern it, and its work on one name. */
export interface CsrHandler {
  wants(event: WatchEvent): boolean;
  /** Processes one name; `requeue` asks for it again later. A thrown error retries it after a second. */
  sync(name: string, requeue: (name: string, delayMs: number) => void): Promise<void>;
}

export function csrSigner(registry: Registry, options: CsrSigningOptions): CsrHandler {
  const caNotAfter = new Map<string, number>();

  async function sync(name: string): Promise<void> {
    const store = csrStore(registry);
    const csr = store && (await currentCsr(store, name));
    if (!store || !csr || !awaitsSigning(csr)) return;
    const ca = (await options.cas()).get(String((csr.spec as Obj).signerName));
    if (!ca) return;
    // An unreadable request never changes (spec is immutable): kube retries it in vain.
    const request = signingRequestOf(csr);
    if (!request) return;
    const spec = csr.spec as Obj;
    const usages = Array.isArray(spec.usages) ? (spec.usages as string[]) : [];
    const broken = SIGNERS[spec.signerName as string]!(request, new Set(usages));
    if (broken !== undefined) {
      // Its times are stamped by the status write, as for any condition written without them.
      const condition = { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: broken };
      return writeCsr(store, name, 'status', awaitsSigning, (status) => {
        status.conditions = [...(Array.isArray(status.conditions) ? status.conditions : []), condition];
      });
    }
    try {
      checkRequestSignature(request);
    } catch {
      // As kube's: a request its own key did not sign gets no certificate (and no condition).
      return;
    }
    const { signCertificateRequest } = await import('../server/certificates.ts');
    let notAfter = caNotAfter.get(ca.certPem);
    if (notAfter === undefined) caNotAfter.set(ca.certPem, (notAfter = Date.parse(new X509Certificate(ca.certPem).validTo)));
    const now = Date.now();
    // The CA has expired: nothing can be signed until it is renewed.
    if (!(now < notAfter)) return;
    const pem = signCertificateRequest(request, signingPolicy(usages, signingDuration(spec.expirationSeconds, options.durationMs), notAfter, now), ca);
    await writeCsr(store, name, 'status', awaitsSigning, (status) => {
      status.certificate = Buffer.from(pem, 'latin1').toString('base64');
    });
  }

  return { wants: (ev) => ev.type !== 'DELETED' && awaitsSigning(ev.object as KubeObject), sync };
}
