// What runs with bootstrap tokens (--enable-bootstrap-token-auth): the token cleaner (expired bootstrap-token-*
// Secrets are deleted) and the bootstrap signer (the `cluster-info` ConfigMap in kube-public carries a detached
// HS256 JWS of its kubeconfig per signing token, jws-kubeconfig-<id>). As kubeadm does, cluster-info is created with
// the CA and the server URL, and anonymous users may read it.

import { loadJose } from '../auth/jose.ts';
import { clockDate } from '../apis/clock.ts';
import { isStatusError } from '../apis/errors.ts';
import {
  BOOTSTRAP_NAMESPACE,
  BOOTSTRAP_TOKEN_SECRET_PREFIX,
  BOOTSTRAP_TOKEN_SECRET_TYPE,
  hasExpired,
  secretData,
} from '../auth/bootstrap/tokens.ts';
import { startInformer } from '../registry/informer.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry, ResourceStore } from '../registry/types.ts';

export const CLUSTER_INFO = 'cluster-info';
const PUBLIC_NAMESPACE = 'kube-public';
const KUBECONFIG_KEY = 'kubeconfig';
const JWS_PREFIX = 'jws-kubeconfig-';
const RBAC = 'rbac.authorization.k8s.io';
const CLUSTER_INFO_READER = 'kubeadm:bootstrap-signer-clusterinfo';

export interface BootstrapTokenOptions {
  /** The CA bundle cluster-info carries. */
  readonly caPem: string;
  /** The server URL cluster-info names, once known (the listener's port may be picked at start). */
  readonly server: () => string | undefined;
  readonly now?: () => Date;
}

export interface BootstrapTokenControllers {
  /** Reconcile cluster-info and clean expired tokens now (after the server URL becomes known). */
  sync(): Promise<void>;
  stop(): void;
}

/** kube's ComputeDetachedSignature: a compact HS256 JWS (kid = token id, key = token secret) without its payload. */
export async function detachedSignature(content: string, tokenId: string, tokenSecret: string): Promise<string> {
  const { CompactSign } = await loadJose();
  const jws = await new CompactSign(new TextEncoder().encode(content)).setProtectedHeader({ alg: 'HS256', kid: tokenId }).sign(new TextEncoder().encode(tokenSecret));
  const [header, , signature] = jws.split('.');
  return `${header}..${signature}`;
}

async function clusterInfoKubeconfig(server: string, caPem: string): Promise<string> {
  const { stringify } = await import('yaml');
  return stringify({
    apiVersion: 'v1',
    clusters: [{ cluster: { 'certificate-authority-data': Buffer.from(caPem).toString('base64'), server }, name: '' }],
    contexts: null,
    'current-context': '',
    kind: 'Config',
    preferences: {},
    users: null,
  });
}

function storeOf(registry: Registry, group: string, resource: string): ResourceStore | undefined {
  const def = registry.lookup(group, 'v1', resource);
  return def ? registry.store(def) : undefined;
}

async function createIfMissing(store: ResourceStore | undefined, namespace: string, obj: KubeObject): Promise<void> {
  if (!store) return;
  try {
    await store.create(loopbackContext(namespace), obj);
  } catch (e) {
    if (!(isStatusError(e) && e.reason === 'AlreadyExists')) throw e;
  }
}

export function startBootstrapTokenControllers(registry: Registry, options: BootstrapTokenOptions): BootstrapTokenControllers | undefined {
  const secrets = storeOf(registry, '', 'secrets');
  const configMaps = storeOf(registry, '', 'configmaps');
  if (!secrets || !configMaps) return undefined;
  const now = options.now ?? clockDate;
  const informer = startInformer(secrets);
  let timer: NodeJS.Timeout | undefined;
  let work: Promise<void> = Promise.resolve();
  let stopped = false;

  const tokenSecrets = (): KubeObject[] =>
    [...informer.items()].filter((s) => s.metadata.namespace === BOOTSTRAP_NAMESPACE && s.type === BOOTSTRAP_TOKEN_SECRET_TYPE && (s.metadata.name ?? '').startsWith(BOOTSTRAP_TOKEN_SECRET_PREFIX));

  async function clean(): Promise<void> {
    let next = Infinity;
    for (const s of tokenSecrets()) {
      if (hasExpired(s, now())) {
        try {
          await secrets!.delete(loopbackContext(BOOTSTRAP_NAMESPACE), s.metadata.name!, { preconditions: { uid: s.metadata.uid } });
        } catch (e) {
          if (!(isStatusError(e) && (e.code === 404 || e.code === 409))) throw e;
        }
      } else {
        const t = Date.parse(secretData(s, 'expiration'));
        if (!Number.isNaN(t)) next = Math.min(next, t);
      }
    }
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (next !== Infinity && !stopped) {
      timer = setTimeout(schedule, Math.min(Math.max(next - now().getTime(), 0) + 10, 2 ** 31 - 1));
      timer.unref?.();
    }
  }

  async function sign(): Promise<void> {
    const server = options.server();
    if (!server) return;
    const ctx = loopbackContext(PUBLIC_NAMESPACE);
    let current: KubeObject | undefined;
    try {
      current = await configMaps!.get(ctx, CLUSTER_INFO);
    } catch (e) {
      if (!(isStatusError(e) && e.code === 404)) throw e;
    }
    const kubeconfig = (current?.data as Record<string, string> | undefined)?.[KUBECONFIG_KEY] ?? (await clusterInfoKubeconfig(server, options.caPem));
    const desired: Record<string, string> = { [KUBECONFIG_KEY]: kubeconfig };
    for (const s of tokenSecrets()) {
      if (hasExpired(s, now()) || secretData(s, 'usage-bootstrap-signing') !== 'true') continue;
      const id = secretData(s, 'token-id');
      const secret = secretData(s, 'token-secret');
      if (id === '' || secret === '') continue;
      desired[JWS_PREFIX + id] = await detachedSignature(kubeconfig, id, secret);
    }
    if (!current) {
      await createIfMissing(configMaps, PUBLIC_NAMESPACE, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CLUSTER_INFO, namespace: PUBLIC_NAMESPACE }, data: desired });
      return;
    }
    const data = { ...(current.data as Record<string, string> | undefined) };
    const keep = Object.fromEntries(Object.entries(data).filter(([k]) => !k.startsWith(JWS_PREFIX)));
    const next = { ...keep, ...desired };
    if (JSON.stringify(Object.entries(next).sort()) === JSON.stringify(Object.entries(data).sort())) return;
    await configMaps!.update(ctx, CLUSTER_INFO, (live) => (live ? { ...live, data: next } : live!));
  }

  function schedule(): void {
    if (stopped) return;
    work = work.then(async () => {
      if (stopped) return;
      for (const step of [clean, sign]) {
        try {
          await step();
        } catch (e) {
          process.emitWarning(`bootstrap token controllers: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    });
  }

  informer.onEvent((_type, obj) => {
    if (obj.metadata.namespace === BOOTSTRAP_NAMESPACE && obj.type === BOOTSTRAP_TOKEN_SECRET_TYPE) schedule();
  });
  // Anonymous users read cluster-info (what kubeadm grants, so `kubeadm join`-style discovery works).
  const roles = storeOf(registry, RBAC, 'roles');
  const bindings = storeOf(registry, RBAC, 'rolebindings');
  const readerRole = (async () => {
    await createIfMissing(roles, PUBLIC_NAMESPACE, {
      apiVersion: `${RBAC}/v1`,
      kind: 'Role',
      metadata: { name: CLUSTER_INFO_READER, namespace: PUBLIC_NAMESPACE },
      rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [CLUSTER_INFO], verbs: ['get'] }],
    });
    await createIfMissing(bindings, PUBLIC_NAMESPACE, {
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: { name: CLUSTER_INFO_READER, namespace: PUBLIC_NAMESPACE },
      roleRef: { apiGroup: RBAC, kind: 'Role', name: CLUSTER_INFO_READER },
      subjects: [{ apiGroup: RBAC, kind: 'User', name: 'system:anonymous' }],
    });
  })().catch((e: unknown) => process.emitWarning(`cluster-info reader role: ${e instanceof Error ? e.message : String(e)}`));
  schedule();

  return {
    async sync() {
      await readerRole;
      await informer.synced();
      schedule();
      await work;
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      informer.stop();
    },
  };
}
