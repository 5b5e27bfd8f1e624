// Pod log/exec/attach/portforward/proxy on a server that runs no kubelets: kube's answers for pods
// that have no node (or a node nobody serves), after the same pod and container checks. The kubelets of
// `--simulate-workloads` run no processes: their pods' logs are empty.

import { badRequest, notFound, StatusError } from '../../apis/errors.ts';
import type { KubeObject } from '../../registry/types.ts';
import { writeBody } from '../respond.ts';
import { admissionInfo, requestContext, type Scope } from '../scope.ts';
import { admissionAttributes } from '../../admission/request.ts';
import { SIMULATED_NODE_ANNOTATION } from '../../apis/capstan-annotations.ts';
import { loopbackContext } from '../../registry/registry.ts';

function containerNames(pod: KubeObject, field: 'containers' | 'initContainers' | 'ephemeralContainers'): string[] {
  const spec = pod.spec as Record<string, unknown> | undefined;
  const list = spec?.[field];
  if (!Array.isArray(list)) return [];
  return list.map((c) => (c && typeof c === 'object' ? String((c as { name?: unknown }).name ?? '') : ''));
}

/** validateContainer: the named container must exist; without a name the pod must have exactly one. */
function validateContainer(scope: Scope, pod: KubeObject): void {
  const container = scope.r.query.get('container') ?? '';
  const containers = containerNames(pod, 'containers');
  const all = [...containers, ...containerNames(pod, 'initContainers'), ...containerNames(pod, 'ephemeralContainers')];
  if (container === '') {
    if (containers.length === 1) return;
    const init = containerNames(pod, 'initContainers');
    const ephemeral = containerNames(pod, 'ephemeralContainers');
    let message = `a container name must be specified for pod ${scope.name}, choose one of: [${containers.join(' ')}]`;
    if (init.length > 0) message += ` or one of the init containers: [${init.join(' ')}]`;
    if (ephemeral.length > 0) message += ` or one of the ephemeral containers: [${ephemeral.join(' ')}]`;
    throw badRequest(message);
  }
  if (!all.includes(container)) throw badRequest(`container ${container} is not valid for pod ${scope.name}`);
}

const CONNECT_OPTIONS: Record<string, string> = { exec: 'PodExecOptions', attach: 'PodAttachOptions', portforward: 'PodPortForwardOptions', proxy: 'PodProxyOptions' };

/** The connect options object admission sees for a CONNECT (kube decodes them from the query). */
function connectOptions(scope: Scope): Record<string, unknown> {
  const q = scope.r.query;
  const out: Record<string, unknown> = { kind: CONNECT_OPTIONS[scope.subresource], apiVersion: 'v1' };
  for (const flag of ['stdin', 'stdout', 'stderr', 'tty']) if (q.has(flag)) out[flag] = q.get(flag) === 'true' || q.get(flag) === '1';
  if (q.has('container')) out.container = q.get('container');
  if (q.has('command')) out.command = q.getAll('command');
  if (q.has('ports')) out.ports = q.getAll('ports').map(Number);
  if (q.has('path')) out.path = q.get('path');
  return out;
}

async function readNode(scope: Scope, name: string): Promise<KubeObject | undefined> {
  const def = scope.deps.registry.lookup('', 'v1', 'nodes');
  return def && (await scope.deps.registry.store(def).get(loopbackContext(), name).catch(() => undefined));
}

/**
 * kube's answer when the node's kubelet cannot be reached (ErrorToAPIStatus of the dial error: 500, no reason). No
 * kubelet serves any node here, so the dial is not tried: the message says why instead of a resolver's words.
 */
function kubeletUnreachable(node: KubeObject): StatusError {
  const name = node.metadata.name ?? '';
  const simulated = node.metadata.annotations?.[SIMULATED_NODE_ANNOTATION] === 'true';
  return new StatusError(500, '', `error dialing backend: no kubelet serves node "${name}"${simulated ? ' (a simulated node: its containers run no processes)' : ''}`);
}

export async function connectResource(scope: Scope): Promise<void> {
  const chain = scope.deps.admission;
  if (chain && CONNECT_OPTIONS[scope.subresource]) {
    // kube admits a CONNECT (both phases) with the options as the object, before it reaches the pod.
    const attrs = admissionAttributes(admissionInfo(scope, {}), 'CONNECT', scope.name, connectOptions(scope) as KubeObject, undefined);
    await chain.admit(attrs);
    await chain.validate(attrs);
  }
  const pod = await scope.store.get(requestContext(scope), scope.name);
  if (scope.subresource === 'log' || scope.subresource === 'exec' || scope.subresource === 'attach') validateContainer(scope, pod);
  const nodeName = String((pod.spec as Record<string, unknown> | undefined)?.nodeName ?? '');
  // A pod without a node has no logs yet: kube streams an empty body.
  if (scope.subresource === 'log' && nodeName === '') {
    writeBody(scope.r, 200, 'text/plain', '');
    return;
  }
  if (nodeName === '') throw badRequest(`pod ${scope.name} does not have a host assigned`);
  // pods/proxy goes to the pod's IP, not through its node's kubelet; what answers there is a container.
  if (scope.subresource === 'proxy') throw new StatusError(500, '', `error trying to reach pod "${scope.name}": no container serves it`);
  // kube finds the node (GetConnectionInfo) before it dials the kubelet.
  const node = await readNode(scope, nodeName);
  if (!node) throw notFound({ group: '', resource: 'nodes' }, nodeName);
  // A simulated node's containers print nothing: their logs are empty.
  if (scope.subresource === 'log' && node.metadata.annotations?.[SIMULATED_NODE_ANNOTATION] === 'true') {
    writeBody(scope.r, 200, 'text/plain', '');
    return;
  }
  throw kubeletUnreachable(node);
}
