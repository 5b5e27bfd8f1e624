// The pods/binding and pods/eviction subresources (pkg/registry/core/pod/storage): a Binding assigns a pod to a
// node (what a scheduler posts), an Eviction deletes a pod unless a PodDisruptionBudget forbids it (what
// `kubectl drain` posts). Both answer 201 with a Success Status, as kube does.

import { clockDate } from '../../../apis/clock.ts';
import { badRequest, conflict, fieldErrors, invalid, notFound, StatusError, type FieldError } from '../../../apis/errors.ts';
import { labelsMatch, parseLabelSelector, formatLabelSelector } from '../../../apis/labels.ts';
import { rfc3339 } from '../../store-codec.ts';
import type { KubeObject, Registry, RequestContext, ResourceStore } from '../../types.ts';

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

const SUCCESS: KubeObject = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } as unknown as KubeObject;

/** ValidatePodBinding. */
function validateBinding(binding: KubeObject): FieldError[] {
  const target = asObj(binding.target);
  const errs: FieldError[] = [];
  const kind = typeof target.kind === 'string' ? target.kind : '';
  if (kind !== '' && kind !== 'Node') errs.push(fieldErrors.notSupported('target.kind', kind, ['Node', '<empty>']));
  if (!target.name) errs.push(fieldErrors.required('target.name'));
  return errs;
}

async function bind(store: ResourceStore, ctx: RequestContext, name: string, binding: KubeObject): Promise<KubeObject> {
  if ((binding.metadata?.name ?? '') !== name) throw badRequest('name in URL does not match name in Binding object');
  const errs = validateBinding(binding);
  if (errs.length) throw invalid({ group: '', kind: 'Binding' }, name, errs);
  const node = String(asObj(binding.target).name);
  const on = { group: '', resource: 'pods/binding' };
  // kube's assignPod writes the pod straight to storage: the binding leaves the pod's managedFields as they are.
  await store.update(
    { ...ctx, trackManagedFields: undefined },
    name,
    (pod) => {
      if (!pod) throw notFound({ group: '', resource: 'pods' }, name);
      if (pod.metadata.deletionTimestamp) throw conflict(on, name, `pod ${name} is being deleted, cannot be assigned to a host`);
      const spec = asObj(pod.spec);
      if (spec.nodeName) throw conflict(on, name, `pod ${name} is already assigned to node ${JSON.stringify(spec.nodeName)}`);
      const annotations = { ...(pod.metadata.annotations ?? {}), ...(binding.metadata.annotations ?? {}) };
      const status = asObj(pod.status);
      const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter((c) => asObj(c).type !== 'PodScheduled');
      conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339(clockDate()) });
      return {
        ...pod,
        metadata: { ...pod.metadata, ...(Object.keys(annotations).length ? { annotations } : {}) },
        spec: { ...spec, nodeName: node },
        status: { ...status, conditions },
      };
    },
    { subresource: 'binding' },
  );
  return SUCCESS;
}

/** The disruption budgets that select the pod; a pod covered by one that allows no disruption is not evicted. */
async function checkDisruptionBudgets(registry: Registry, ctx: RequestContext, pod: KubeObject): Promise<void> {
  const def = registry.lookup('policy', 'v1', 'poddisruptionbudgets');
  if (!def) return;
  const pdbs = (await registry.store(def).list(ctx, {})).items.filter((pdb) => {
    const selector = formatLabelSelector(asObj(pdb.spec).selector);
    return selector !== '' && labelsMatch(parseLabelSelector(selector), pod.metadata.labels);
  });
  if (pdbs.length > 1) throw new StatusError(500, 'InternalError', 'Internal error occurred: This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  const pdb = pdbs[0];
  if (!pdb) return;
  const status = asObj(pdb.status);
  const name = pdb.metadata.name ?? '';
  if (typeof status.observedGeneration !== 'number' || status.observedGeneration < (pdb.metadata.generation ?? 0)) {
    throw new StatusError(429, 'TooManyRequests', 'Cannot evict pod as it would violate the pod\'s disruption budget.', {
      causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${name} is still being processed by the server.` }],
    });
  }
  if (typeof status.disruptionsAllowed !== 'number' || status.disruptionsAllowed < 1) {
    throw new StatusError(429, 'TooManyRequests', 'Cannot evict pod as it would violate the pod\'s disruption budget.', {
      causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${name} needs ${String(status.desiredHealthy ?? 0)} healthy pods and has ${String(status.currentHealthy ?? 0)} currently` }],
    });
  }
}

async function evict(registry: Registry, store: ResourceStore, ctx: RequestContext, name: string, eviction: KubeObject): Promise<KubeObject> {
  if ((eviction.metadata?.name ?? '') !== name) throw badRequest('name in URL does not match name in Eviction object');
  const pod = await store.get(ctx, name);
  const phase = asObj(pod.status).phase;
  // Terminal or terminating pods are deleted without asking the budgets (kube's eviction shortcut).
  if (phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp) await checkDisruptionBudgets(registry, ctx, pod);
  const options = asObj(eviction.deleteOptions);
  await store.delete(ctx, name, {
    ...(typeof options.gracePeriodSeconds === 'number' ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
    ...(options.preconditions ? { preconditions: options.preconditions as { uid?: string; resourceVersion?: string } } : {}),
  });
  return SUCCESS;
}

/** The pods store with its binding and eviction subresources (a registry store wrapper). */
export function podSubresourcesWrapper(registry: () => Registry): (store: ResourceStore) => ResourceStore {
  return (store) => ({
    ...store,
    async createSubresource(ctx, name, subresource, obj) {
      if (subresource === 'binding') return bind(store, ctx, name, obj);
      if (subresource === 'eviction') return evict(registry(), store, ctx, name, obj);
      throw badRequest(`subresource ${JSON.stringify(subresource)} cannot be created`);
    },
  });
}
