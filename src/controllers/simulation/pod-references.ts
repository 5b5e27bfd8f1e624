// What keeps a simulated pod's containers from starting, as the kubelet finds it: a ConfigMap or Secret its volumes
// name that does not exist (the pod waits in ContainerCreating with FailedMount events: `MountVolume.SetUp failed for
// volume "config" : configmap "app-config" not found`), or one its containers' environment names (the container
// waits in CreateContainerConfigError: `configmap "app-config" not found`, `couldn't find key password in Secret
// default/db`). References marked optional are skipped when missing, as the kubelet skips them.

import type { KubeObject } from '../../registry/types.ts';
import { imageNameError } from './image-pulls.ts';
import { asObj, type Obj } from './shared.ts';

/** Reads the pod namespace's ConfigMaps and Secrets (undefined: not found). */
export interface ReferenceReader {
  configMap(name: string): Promise<KubeObject | undefined>;
  secret(name: string): Promise<KubeObject | undefined>;
}

/** Why the pod's containers cannot start. */
export type StartBlocker =
  /** A volume cannot be mounted: every container waits in ContainerCreating. */
  | { readonly kind: 'volume'; readonly message: string }
  /** A container's environment cannot be made: it waits in CreateContainerConfigError. */
  | { readonly kind: 'env'; readonly field: 'initContainers' | 'containers'; readonly container: string; readonly message: string }
  /** A container's image name does not parse (`invalid`: the kubelet's message), or its pulls fail (as a rule scripts it). */
  | { readonly kind: 'image'; readonly field: 'initContainers' | 'containers'; readonly container: string; readonly image: string; readonly invalid?: string };

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(asObj) : []);
const keysOf = (obj: KubeObject): Set<string> => new Set([...Object.keys(asObj((obj as Obj).data)), ...Object.keys(asObj((obj as Obj).binaryData))]);

type Kind = 'configmap' | 'secret';

async function read(reader: ReferenceReader, kind: Kind, name: string): Promise<KubeObject | undefined> {
  return kind === 'configmap' ? reader.configMap(name) : reader.secret(name);
}

/** The error of one volume source of a ConfigMap or Secret (its items' keys checked too); undefined when it mounts. */
async function sourceError(reader: ReferenceReader, kind: Kind, name: string, items: Obj[], optional: boolean): Promise<string | undefined> {
  const obj = await read(reader, kind, name);
  if (!obj) return optional ? undefined : `${kind} "${name}" not found`;
  const keys = keysOf(obj);
  const missing = items.find((i) => !keys.has(String(i.key ?? '')));
  if (!missing || optional) return undefined;
  return kind === 'configmap' ? `configmap references non-existent config key: ${String(missing.key)}` : `references non-existent secret key: ${String(missing.key)}`;
}

/** The first volume that cannot be mounted, with the volume manager's message. */
export async function volumeBlocker(pod: KubeObject, reader: ReferenceReader): Promise<string | undefined> {
  for (const v of list(asObj(pod.spec).volumes)) {
    const errors: string[] = [];
    const cm = asObj(v.configMap);
    const secret = asObj(v.secret);
    if (v.configMap) errors.push(...[await sourceError(reader, 'configmap', String(cm.name ?? ''), list(cm.items), cm.optional === true)].filter((e) => e !== undefined));
    if (v.secret) errors.push(...[await sourceError(reader, 'secret', String(secret.secretName ?? ''), list(secret.items), secret.optional === true)].filter((e) => e !== undefined));
    for (const source of list(asObj(v.projected).sources)) {
      for (const kind of ['configmap', 'secret'] as const) {
        const ref = asObj(kind === 'configmap' ? source.configMap : source.secret);
        if (!(kind === 'configmap' ? source.configMap : source.secret)) continue;
        const err = await sourceError(reader, kind, String(ref.name ?? ''), list(ref.items), ref.optional === true);
        if (err) errors.push(err);
      }
    }
    // utilerrors' aggregate: one error as it is, several in brackets.
    if (errors.length > 0) return `MountVolume.SetUp failed for volume "${String(v.name ?? '')}" : ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`;
  }
  return undefined;
}

/** makeEnvironmentVariables' first error for a container: its envFrom sources, then its env, in order. */
export async function envBlocker(pod: KubeObject, container: Obj, reader: ReferenceReader): Promise<string | undefined> {
  const namespace = pod.metadata.namespace ?? '';
  for (const from of list(container.envFrom)) {
    for (const kind of ['configmap', 'secret'] as const) {
      const ref = kind === 'configmap' ? from.configMapRef : from.secretRef;
      if (!ref) continue;
      const { name, optional } = asObj(ref);
      if (!(await read(reader, kind, String(name ?? ''))) && optional !== true) return `${kind} "${String(name ?? '')}" not found`;
    }
  }
  for (const env of list(container.env)) {
    const from = asObj(env.valueFrom);
    for (const kind of ['configmap', 'secret'] as const) {
      const ref = kind === 'configmap' ? from.configMapKeyRef : from.secretKeyRef;
      if (!ref) continue;
      const { name, key, optional } = asObj(ref);
      const obj = await read(reader, kind, String(name ?? ''));
      if (!obj) {
        if (optional === true) continue;
        return `${kind} "${String(name ?? '')}" not found`;
      }
      if (!keysOf(obj).has(String(key ?? '')) && optional !== true) return `couldn't find key ${String(key ?? '')} in ${kind === 'configmap' ? 'ConfigMap' : 'Secret'} ${namespace}/${String(name ?? '')}`;
    }
  }
  return undefined;
}

/** What keeps one container from starting: its image's name, its pull (`pullFails`), then its environment. */
async function containerBlocker(pod: KubeObject, field: 'initContainers' | 'containers', c: Obj, reader: ReferenceReader, pullFails: (container: string) => boolean): Promise<StartBlocker | undefined> {
  const container = String(c.name ?? '');
  const image = String(c.image ?? '');
  const invalid = imageNameError(image);
  if (invalid) return { kind: 'image', field, container, image, invalid };
  if (pullFails(container)) return { kind: 'image', field, container, image };
  const message = await envBlocker(pod, c, reader);
  return message ? { kind: 'env', field, container, message } : undefined;
}

/**
 * What keeps the pod from starting: its volumes first (the volume manager mounts them before any container starts),
 * then its init containers in order (the first that cannot start holds the rest), or, without init containers, the
 * first of its regular containers that cannot start (with them, those are looked at once they are done).
 */
export async function startBlocker(pod: KubeObject, reader: ReferenceReader, pullFails: (container: string) => boolean = () => false): Promise<StartBlocker | undefined> {
  const mount = await volumeBlocker(pod, reader);
  if (mount) return { kind: 'volume', message: mount };
  const init = list(asObj(pod.spec).initContainers);
  const field = init.length > 0 ? 'initContainers' : 'containers';
  for (const c of init.length > 0 ? init : list(asObj(pod.spec).containers)) {
    const blocker = await containerBlocker(pod, field, c, reader, pullFails);
    if (blocker) return blocker;
  }
  return undefined;
}

/** What keeps each regular container that cannot start from starting (the kubelet starts the others). */
export async function containerBlockers(pod: KubeObject, reader: ReferenceReader, pullFails: (container: string) => boolean = () => false): Promise<StartBlocker[]> {
  const found: StartBlocker[] = [];
  for (const c of list(asObj(pod.spec).containers)) {
    const blocker = await containerBlocker(pod, 'containers', c, reader, pullFails);
    if (blocker) found.push(blocker);
  }
  return found;
}
