// kube-controller-manager's csrapproving controller: a pending request for a kubelet client certificate
// (kubernetes.io/kube-apiserver-client-kubelet, by the kubelet signer's rules) is approved when its requester may
// create certificatesigningrequests/selfnodeclient (a node renewing its own certificate) or .../nodeclient (a
// bootstrapping node, e.g. a bootstrap token user, as kubeadm binds them), asked as a SubjectAccessReview would ask.
// Other requests wait for someone to approve or deny them.

import type { Authorizer } from '../auth/authz/types.ts';
import type { UserInfo } from '../auth/user.ts';
import type { KubeObject, Registry } from '../registry/types.ts';
import type { SigningRequest } from '../server/certificate-request.ts';
import { csrStore, currentCsr, hasTrueCondition, isIssued, kubeletClientRules, signingRequestOf, writeCsr, type CsrHandler } from './csr-signing.ts';

type Obj = Record<string, unknown>;

const KUBELET_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';

interface Recognizer {
  recognize(spec: Obj, request: SigningRequest): boolean;
  readonly subresource: string;
  readonly message: string;
}

const isNodeClient = (spec: Obj, request: SigningRequest): boolean =>
  spec.signerName === KUBELET_CLIENT_SIGNER && kubeletClientRules(request, new Set(Array.isArray(spec.usages) ? (spec.usages as string[]) : [])) === undefined;

const RECOGNIZERS: readonly Recognizer[] = [
  {
    recognize: (spec, request) => spec.username === request.subject.commonName && isNodeClient(spec, request),
    subresource: 'selfnodeclient',
    message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
  },
  { recognize: isNodeClient, subresource: 'nodeclient', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' },
];

/** Neither approved nor denied, nor issued. */
function isPending(csr: KubeObject): boolean {
  const conditions = (csr.status as Obj | undefined)?.conditions;
  const decided = Array.isArray(conditions) && (conditions as Obj[]).some((c) => c.type === 'Approved' || c.type === 'Denied');
  return !decided && !isIssued(csr);
}

/** The requester the CSR records (spec.username, uid, groups, extra). */
function requesterOf(spec: Obj): UserInfo {
  const user: { name: string; uid?: string; groups: string[]; extra?: Record<string, string[]> } = {
    name: typeof spec.username === 'string' ? spec.username : '',
    groups: Array.isArray(spec.groups) ? (spec.groups as string[]) : [],
  };
  if (typeof spec.uid === 'string' && spec.uid !== '') user.uid = spec.uid;
  if (spec.extra && typeof spec.extra === 'object') user.extra = spec.extra as Record<string, string[]>;
  return user;
}

/** client-go's default controller rate limiter: 5 ms doubling per failure, up to 1000 s. */
const retryDelayMs = (failures: number): number => Math.min(1_000_000, 5 * 2 ** failures);

export function csrApprover(registry: Registry, authorizer: Authorizer): CsrHandler {
  /** Requests recognized but not (yet) allowed: tried again as kube's queue would, since a binding may come. */
  const failures = new Map<string, number>();
  async function sync(name: string, requeue: (name: string, delayMs: number) => void): Promise<void> {
    const store = csrStore(registry);
    const csr = store && (await currentCsr(store, name));
    if (!store || !csr || !isPending(csr)) return void failures.delete(name);
    const request = signingRequestOf(csr);
    if (!request) return;
    const spec = csr.spec as Obj;
    let tried = false;
    for (const r of RECOGNIZERS) {
      if (!r.recognize(spec, request)) continue;
      tried = true;
      const decision = await authorizer.authorize({
        user: requesterOf(spec),
        verb: 'create',
        isResourceRequest: true,
        path: '',
        namespace: '',
        apiGroup: 'certificates.k8s.io',
        apiVersion: '*',
        resource: 'certificatesigningrequests',
        subresource: r.subresource,
        name: '',
      });
      if (decision.decision !== 'allow') continue;
      failures.delete(name);
      const condition = { type: 'Approved', status: 'True', reason: 'AutoApproved', message: r.message };
      return writeCsr(store, name, 'approval', isPending, (status) => {
        status.conditions = [...(Array.isArray(status.conditions) ? status.conditions : []), condition];
      });
    }
    if (!tried) return;
    const n = failures.get(name) ?? 0;
    failures.set(name, n + 1);
    requeue(name, retryDelayMs(n));
  }

  return {
    wants(ev) {
      const csr = ev.object as KubeObject;
      if (ev.type === 'DELETED') failures.delete(csr.metadata.name ?? '');
      return ev.type !== 'DELETED' && isPending(csr) && !hasTrueCondition(csr, 'Failed');
    },
    sync,
  };
}
