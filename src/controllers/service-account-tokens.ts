// kube-controller-manager's tokens controller for legacy tokens: a Secret of type
// kubernetes.io/service-account-token annotated kubernetes.io/service-account.name gets a token of that service
// account (signed with the service account key), ca.crt and namespace, and the service account's uid annotation.

import { isStatusError } from '../apis/errors.ts';
import { startInformer } from '../registry/informer.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry } from '../registry/types.ts';

export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
const NAME_ANNOTATION = 'kubernetes.io/service-account.name';
const UID_ANNOTATION = 'kubernetes.io/service-account.uid';

export interface ServiceAccountTokenOptions {
  readonly caPem: string;
  issueLegacy(namespace: string, serviceAccount: { name: string; uid: string }, secretName: string): Promise<string>;
}

export interface ServiceAccountTokensController {
  stop(): void;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

export function startServiceAccountTokens(registry: Registry, options: ServiceAccountTokenOptions): ServiceAccountTokensController | undefined {
  const secretsDef = registry.lookup('', 'v1', 'secrets');
  const saDef = registry.lookup('', 'v1', 'serviceaccounts');
  if (!secretsDef || !saDef) return undefined;
  const secrets = registry.store(secretsDef);
  const serviceAccounts = registry.store(saDef);
  const informer = startInformer(secrets);
  let work: Promise<void> = Promise.resolve();
  let stopped = false;

  async function populate(secret: KubeObject): Promise<void> {
    const namespace = secret.metadata.namespace ?? '';
    const name = secret.metadata.name ?? '';
    const saName = secret.metadata.annotations?.[NAME_ANNOTATION] ?? '';
    if (!saName) return;
    let sa: KubeObject;
    try {
      sa = await serviceAccounts.get(loopbackContext(namespace), saName);
    } catch (e) {
      if (isStatusError(e) && e.code === 404) return;
      throw e;
    }
    const uid = sa.metadata.uid ?? '';
    const wantedUid = secret.metadata.annotations?.[UID_ANNOTATION];
    if (wantedUid && wantedUid !== uid) return; // made for another service account of that name
    const data = (secret.data ?? {}) as Record<string, string>;
    if (data.token && data['ca.crt'] === b64(options.caPem) && data.namespace === b64(namespace) && wantedUid === uid) return;
    const token = data.token ? Buffer.from(data.token, 'base64').toString('utf8') : await options.issueLegacy(namespace, { name: saName, uid }, name);
    await secrets.update(loopbackContext(namespace), name, (live) => {
      if (!live) return live!;
      return {
        ...live,
        metadata: { ...live.metadata, annotations: { ...live.metadata.annotations, [UID_ANNOTATION]: uid } },
        data: { ...((live.data ?? {}) as Record<string, string>), token: b64(token), 'ca.crt': b64(options.caPem), namespace: b64(namespace) },
      };
    });
  }

  informer.onEvent((type, obj) => {
    if (type === 'delete' || obj.type !== SERVICE_ACCOUNT_TOKEN_TYPE || stopped) return;
    work = work.then(() => populate(obj)).catch((e: unknown) => {
      if (!(isStatusError(e) && (e.code === 404 || e.code === 409))) process.emitWarning(`tokens controller: ${e instanceof Error ? e.message : String(e)}`);
    });
  });
  return {
    stop() {
      stopped = true;
      informer.stop();
    },
  };
}
