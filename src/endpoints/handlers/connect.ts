// Pod log/exec/attach/portforward/proxy on a server that runs no kubelets: kube's answers for pods
// that have no node (or a node nobody serves), after the same pod and container checks.

import { badRequest, notFound } from '../../apis/errors.ts';
import type { KubeObject } from '../../registry/types.ts';
import { writeBody } from '../respond.ts';
import { requestContext, type Scope } from '../scope.ts';

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

export async function connectResource(scope: Scope): Promise<void> {
  const pod = await scope.store.get(requestContext(scope), scope.name);
  if (scope.subresource === 'log' || scope.subresource === 'exec' || scope.subresource === 'attach') validateContainer(scope, pod);
  const nodeName = String((pod.spec as Record<string, unknown> | undefined)?.nodeName ?? '');
  if (scope.subresource === 'log') {
    // A pod without a node has no logs yet: kube streams an empty body.
    if (nodeName === '') {
      writeBody(scope.r, 200, 'text/plain', '');
      return;
    }
    throw notFound({ group: '', resource: 'nodes' }, nodeName);
  }
  if (nodeName === '') throw badRequest(`pod ${scope.name} does not have a host assigned`);
  throw notFound({ group: '', resource: 'nodes' }, nodeName);
}
