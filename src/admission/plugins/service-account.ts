// The ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount): a pod created without a service account
// runs as `default`; the service account must exist (the default one is looked up again for a while, as the
// controller that makes it may not have yet); unless the pod or its service account opts out, every container and
// init container mounts the projected `kube-api-access-<random>` volume (a bound token, the cluster's CA bundle and
// the namespace) at /var/run/secrets/kubernetes.io/serviceaccount; a pod without imagePullSecrets takes its service
// account's; with the `kubernetes.io/enforce-mountable-secrets` annotation on the service account, the pod (and ephemeral
// containers added later) may use only the secrets it lists. Mirror (static) pods may reference no service account or
// secrets. The library turns the plugin off
// unless it also makes namespaces' default service accounts (as envtest runs kube-apiserver without it).

import { isStatusError } from '../../apis/errors.ts';
import { loopbackContext } from '../../registry/loopback-context.ts';
import { generateName } from '../../registry/names.ts';
import { forbiddenError } from '../../registry/store-errors.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';

type Obj = Record<string, any>;

const DEFAULT_SERVICE_ACCOUNT = 'default';
const TOKEN_VOLUME_PREFIX = 'kube-api-access-';
const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const ENFORCE_MOUNTABLE_SECRETS = 'kubernetes.io/enforce-mountable-secrets';
/** How often the default service account is looked up before a pod is refused, and the wait between (kube: 10, 100-200 ms). */
const DEFAULT_ATTEMPTS = 10;

/** TokenVolumeSource: the bound token (3607 s: kube's warn-only expiry), kube-root-ca.crt's ca.crt and the namespace. */
function tokenVolume(name: string): Obj {
  return {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: 420,
    },
  };
}

/** shouldAutomount: the pod's choice, else the service account's, else true. */
function shouldAutomount(serviceAccount: KubeObject, spec: Obj): boolean {
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  if (typeof serviceAccount.automountServiceAccountToken === 'boolean') return serviceAccount.automountServiceAccountToken;
  return true;
}

/** mountServiceAccountToken: the volume (an existing kube-api-access-* one is kept) and a mount in every container without one at the path. */
function mountToken(spec: Obj): void {
  const volumes: Obj[] = Array.isArray(spec.volumes) ? spec.volumes : [];
  const existing = volumes.find((v) => typeof v?.name === 'string' && v.name.startsWith(TOKEN_VOLUME_PREFIX));
  const volumeName: string = existing?.name ?? generateName(TOKEN_VOLUME_PREFIX);
  let needed = false;
  for (const field of ['initContainers', 'containers'] as const) {
    if (!Array.isArray(spec[field])) continue;
    for (const container of spec[field] as Obj[]) {
      if (!container || typeof container !== 'object') continue;
      const mounts: Obj[] = Array.isArray(container.volumeMounts) ? container.volumeMounts : [];
      if (mounts.some((m) => m?.mountPath === TOKEN_MOUNT_PATH)) continue;
      container.volumeMounts = [...mounts, { name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH }];
      needed = true;
    }
  }
  if (!existing && needed) spec.volumes = [...volumes, tokenVolume(volumeName)];
}

/** enforceMountableSecrets: the service account's annotation, read as Go's strconv.ParseBool. */
function enforcesMountableSecrets(serviceAccount: KubeObject): boolean {
  return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(serviceAccount.metadata.annotations?.[ENFORCE_MOUNTABLE_SECRETS] ?? '');
}

/** The secrets the containers of one kind name in env and envFrom, refused unless the service account lists them. */
function containerSecretRefusal(containers: unknown, what: string, mountable: Set<string>, account: string): string | undefined {
  for (const c of Array.isArray(containers) ? (containers as Obj[]) : []) {
    for (const env of Array.isArray(c?.env) ? (c.env as Obj[]) : []) {
      const name = env?.valueFrom?.secretKeyRef?.name;
      if (env?.valueFrom?.secretKeyRef && !mountable.has(name ?? '')) {
        return `${what} ${c.name ?? ''} with envVar ${env.name ?? ''} referencing secret.secretName="${name ?? ''}" is not allowed because service account ${account} does not reference that secret`;
      }
    }
    for (const from of Array.isArray(c?.envFrom) ? (c.envFrom as Obj[]) : []) {
      if (from?.secretRef && !mountable.has(from.secretRef.name ?? '')) {
        return `${what} ${c.name ?? ''} with envFrom referencing secret.secretName="${from.secretRef.name ?? ''}" is not allowed because service account ${account} does not reference that secret`;
      }
    }
  }
  return undefined;
}

/** limitSecretReferences: with enforce-mountable-secrets, a pod may use only the secrets its service account lists. */
function secretReferenceRefusal(serviceAccount: KubeObject, spec: Obj): string | undefined {
  const account = serviceAccount.metadata.name ?? '';
  const mountable = new Set(((serviceAccount.secrets as Obj[] | undefined) ?? []).map((r) => r?.name ?? ''));
  for (const volume of Array.isArray(spec.volumes) ? (spec.volumes as Obj[]) : []) {
    if (volume?.secret && !mountable.has(volume.secret.secretName ?? '')) {
      return `volume with secret.secretName="${volume.secret.secretName ?? ''}" is not allowed because service account ${account} does not reference that secret`;
    }
  }
  const refusal =
    containerSecretRefusal(spec.initContainers, 'init container', mountable, account) ??
    containerSecretRefusal(spec.containers, 'container', mountable, account) ??
    containerSecretRefusal(spec.ephemeralContainers, 'ephemeral container', mountable, account);
  if (refusal) return refusal;
  const pullSecrets = new Set(((serviceAccount.imagePullSecrets as Obj[] | undefined) ?? []).map((r) => r?.name ?? ''));
  const refs = Array.isArray(spec.imagePullSecrets) ? (spec.imagePullSecrets as Obj[]) : [];
  for (let i = 0; i < refs.length; i++) {
    if (!pullSecrets.has(refs[i]?.name ?? '')) return `imagePullSecrets[${i}].name="${refs[i]?.name ?? ''}" is not allowed because service account ${account} does not reference that imagePullSecret`;
  }
  return undefined;
}

/** The volume sources a mirror pod may not use (they name secrets or service account tokens). */
function mirrorPodRefusal(spec: Obj): string | undefined {
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '') return 'a mirror pod may not reference service accounts';
  for (const volume of Array.isArray(spec.volumes) ? (spec.volumes as Obj[]) : []) {
    if (volume?.secret) return 'a mirror pod may not reference secrets';
    for (const source of Array.isArray(volume?.projected?.sources) ? (volume.projected.sources as Obj[]) : []) {
      if (source?.secret) return 'a mirror pod may not reference secrets';
      if (source?.serviceAccountToken) return 'a mirror pod may not use ServiceAccountToken volume projections';
    }
  }
  return undefined;
}

export function serviceAccountPlugin(registry: Registry): AdmissionPlugin {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** getServiceAccount: undefined when it does not exist (the default one after kube's retries). */
  async function lookUp(namespace: string, name: string): Promise<KubeObject | undefined> {
    const def = registry.lookup('', 'v1', 'serviceaccounts');
    if (!def) return undefined;
    const store = registry.store(def);
    const attempts = name === DEFAULT_SERVICE_ACCOUNT ? DEFAULT_ATTEMPTS : 1;
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await sleep(100 + Math.floor(Math.random() * 100));
      try {
        return await store.get(loopbackContext(namespace), name);
      } catch (e) {
        if (!(isStatusError(e) && e.code === 404)) throw e;
      }
    }
    return undefined;
  }

  const isPodCreate = (a: AdmissionAttributes) => a.resource.group === '' && a.resource.resource === 'pods' && a.subResource === '' && a.operation === 'CREATE' && !!a.object;
  const podName = (a: AdmissionAttributes) => a.object!.metadata.name || a.object!.metadata.generateName || a.name;

  const isEphemeralContainersUpdate = (a: AdmissionAttributes) => a.resource.group === '' && a.resource.resource === 'pods' && a.subResource === 'ephemeralcontainers' && a.operation === 'UPDATE' && !!a.object;

  /** limitEphemeralContainerSecretReferences: the new ephemeral containers' secrets, for a service account that enforces them. */
  async function limitEphemeralContainers(a: AdmissionAttributes): Promise<void> {
    const spec = (a.object!.spec ?? {}) as Obj;
    const name = typeof spec.serviceAccountName === 'string' ? spec.serviceAccountName : '';
    if (name === '') return;
    const serviceAccount = await lookUp(a.namespace, name);
    if (!serviceAccount || !enforcesMountableSecrets(serviceAccount)) return;
    const mountable = new Set(((serviceAccount.secrets as Obj[] | undefined) ?? []).map((r) => r?.name ?? ''));
    const refusal = containerSecretRefusal(spec.ephemeralContainers, 'ephemeral container', mountable, name);
    if (refusal) throw forbiddenError({ group: '', resource: 'pods' }, a.name, refusal);
  }

  async function existing(a: AdmissionAttributes, name: string): Promise<KubeObject> {
    const serviceAccount = await lookUp(a.namespace, name);
    if (!serviceAccount) throw forbiddenError({ group: '', resource: 'pods' }, podName(a), `error looking up service account ${a.namespace}/${name}: serviceaccount "${name}" not found`);
    return serviceAccount;
  }

  return {
    name: 'ServiceAccount',
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    async admit(a) {
      if (!isPodCreate(a)) return;
      const pod = a.object!;
      if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return;
      const spec = (pod.spec ??= {}) as Obj;
      if (typeof spec.serviceAccountName !== 'string' || spec.serviceAccountName === '') spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT;
      const serviceAccount = await existing(a, spec.serviceAccountName);
      if (shouldAutomount(serviceAccount, spec)) mountToken(spec);
      const pullSecrets = Array.isArray(serviceAccount.imagePullSecrets) ? (serviceAccount.imagePullSecrets as Obj[]) : [];
      if ((!Array.isArray(spec.imagePullSecrets) || spec.imagePullSecrets.length === 0) && pullSecrets.length > 0) {
        spec.imagePullSecrets = pullSecrets.map((s) => ({ name: s?.name ?? '' }));
      }
    },
    async validate(a) {
      if (isEphemeralContainersUpdate(a)) return limitEphemeralContainers(a);
      if (!isPodCreate(a)) return;
      const pod = a.object!;
      const spec = (pod.spec ?? {}) as Obj;
      if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) {
        const refusal = mirrorPodRefusal(spec);
        if (refusal) throw forbiddenError({ group: '', resource: 'pods' }, podName(a), refusal);
        return;
      }
      if (typeof spec.serviceAccountName !== 'string' || spec.serviceAccountName === '') {
        throw forbiddenError({ group: '', resource: 'pods' }, podName(a), `no service account specified for pod ${a.namespace}/${pod.metadata.name ?? ''}`);
      }
      const serviceAccount = await existing(a, spec.serviceAccountName);
      const refusal = enforcesMountableSecrets(serviceAccount) ? secretReferenceRefusal(serviceAccount, spec) : undefined;
      if (refusal) throw forbiddenError({ group: '', resource: 'pods' }, podName(a), refusal);
    },
  };
}
