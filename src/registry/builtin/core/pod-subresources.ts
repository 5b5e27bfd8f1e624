// The pods/binding and pods/eviction subresources (pkg/registry/core/pod/storage): a Binding assigns a pod to a
// node (what a scheduler posts), an Eviction deletes a pod unless a PodDisruptionBudget forbids it (what
// `kubectl drain` posts). Both answer 201 with a Success Status, as kube does.

import { clockDate } from '../../../apis/clock.ts';
import { badRequest, conflict, fieldErrors, invalid, isStatusError, notFound, StatusError, type FieldError } from '../../../apis/errors.ts';
import { cloneJson } from '../../../apis/json-clone.ts';
import { withDisruptionCondition } from '../policy/disruption-status.ts';
import { isPodReady } from './pod-ready.ts';
import { loopbackContext } from '../../loopback-context.ts';
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

/** MaxDisruptedPodSize: evictions the disruption controller has not confirmed yet, at most. */
const MAX_DISRUPTED_PODS = 2000;

/** createTooManyRequestsError: the budget's status is older than its spec. */
function budgetNotProcessed(name: string): StatusError {
  return new StatusError(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.", {
    causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${name} is still being processed by the server.` }],
    retryAfterSeconds: 10,
  });
}

function budgetForbids(name: string, why: string): StatusError {
  return new StatusError(403, 'Forbidden', `poddisruptionbudget.policy "${name}" is forbidden: ${why}`, { name, group: 'policy', kind: 'poddisruptionbudget' });
}

/** The budgets selecting the pod, as the eviction reads them: a budget with no or an empty selector selects nothing. */
async function budgetsOf(registry: Registry, pod: KubeObject): Promise<{ store: ResourceStore; pdbs: KubeObject[] } | undefined> {
  const def = registry.lookup('policy', 'v1', 'poddisruptionbudgets');
  if (!def) return undefined;
  const store = registry.store(def);
  const pdbs = (await store.list(loopbackContext(pod.metadata.namespace ?? ''), {})).items.filter((pdb) => {
    const selector = formatLabelSelector(asObj(pdb.spec).selector);
    return selector !== '' && labelsMatch(parseLabelSelector(selector), pod.metadata.labels);
  });
  return { store, pdbs };
}

/** checkAndDecrement: the budget allows one more disruption, which the pod takes (recorded in disruptedPods). */
function takeDisruption(pdb: KubeObject, podName: string): KubeObject {
  const name = pdb.metadata.name ?? '';
  const status = asObj(pdb.status);
  const allowed = typeof status.disruptionsAllowed === 'number' ? status.disruptionsAllowed : 0;
  if (typeof status.observedGeneration !== 'number' || status.observedGeneration < (pdb.metadata.generation ?? 0)) throw budgetNotProcessed(name);
  if (allowed < 0) throw budgetForbids(name, 'pdb disruptions allowed is negative');
  if (Object.keys(asObj(status.disruptedPods)).length > MAX_DISRUPTED_PODS) throw budgetForbids(name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  if (allowed === 0) {
    throw new StatusError(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.", {
      causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${name} needs ${String(status.desiredHealthy ?? 0)} healthy pods and has ${String(status.currentHealthy ?? 0)} currently` }],
    });
  }
  const next = cloneJson(pdb);
  const nextStatus: Obj = { ...status, disruptionsAllowed: allowed - 1, disruptedPods: { ...asObj(status.disruptedPods), [podName]: rfc3339(clockDate()) } };
  if (allowed - 1 === 0) nextStatus.conditions = withDisruptionCondition(status.conditions, false, 'InsufficientPods', '', Number(status.observedGeneration));
  next.status = nextStatus;
  return next;
}

/** canIgnorePDB: a pod that is done, not started or already going is deleted without asking the budgets. */
function canIgnoreBudgets(pod: KubeObject): boolean {
  const phase = asObj(pod.status).phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata.deletionTimestamp;
}

async function evict(registry: Registry, store: ResourceStore, ctx: RequestContext, name: string, eviction: KubeObject): Promise<KubeObject> {
  if ((eviction.metadata?.name ?? '') !== name) throw badRequest('name in URL does not match name in Eviction object');
  const options = asObj(eviction.deleteOptions);
  const given = asObj(options.preconditions) as { uid?: string; resourceVersion?: string };
  const dryRun = ctx.dryRun || (Array.isArray(options.dryRun) && options.dryRun.includes('All'));
  const deleteCtx = dryRun && !ctx.dryRun ? { ...ctx, dryRun: true } : ctx;
  const remove = (preconditions: { uid?: string; resourceVersion?: string } | undefined) =>
    store.delete(deleteCtx, name, {
      ...(typeof options.gracePeriodSeconds === 'number' ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
      ...(preconditions && Object.keys(preconditions).length > 0 ? { preconditions } : {}),
    });
  const pod = await store.get(ctx, name);
  const phase = asObj(pod.status).phase;
  // The pod's version is held to, unless given: it must not have become Ready (and guarded) meanwhile.
  const pinned = given.resourceVersion === undefined ? { ...given, resourceVersion: pod.metadata.resourceVersion } : given;
  if (canIgnoreBudgets(pod)) {
    const terminal = phase === 'Succeeded' || phase === 'Failed' || !!pod.metadata.deletionTimestamp;
    await remove(terminal ? given : pinned);
    return SUCCESS;
  }
  const found = await budgetsOf(registry, pod);
  const pdbs = found?.pdbs ?? [];
  // Answered as a Status of its own (no reason), as kube's REST handler returns it.
  if (pdbs.length > 1) throw new StatusError(500, '', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  let holdVersion = false;
  const pdb = pdbs[0];
  if (pdb && found) {
    const status = asObj(pdb.status);
    const current = Number(status.currentHealthy ?? 0);
    const desired = Number(status.desiredHealthy ?? 0);
    // An unready pod does not count as healthy: evicting it takes nothing from the budget when the policy lets it go.
    if (!isPodReady(pod) && (asObj(pdb.spec).unhealthyPodEvictionPolicy === 'AlwaysAllow' || (current >= desired && desired > 0))) {
      holdVersion = true;
    } else if (dryRun) {
      takeDisruption(pdb, name);
    } else {
      await found.store.update(
        loopbackContext(pod.metadata.namespace ?? ''),
        pdb.metadata.name ?? '',
        (latest) => {
          if (!latest) throw notFound({ group: 'policy', resource: 'poddisruptionbudgets' }, pdb.metadata.name ?? '');
          return takeDisruption(latest, name);
        },
        { subresource: 'status' },
      );
    }
  }
  try {
    await remove(holdVersion ? pinned : given);
  } catch (e) {
    if (holdVersion && given.resourceVersion === undefined && isStatusError(e) && e.code === 409) throw budgetNotProcessed(pdb?.metadata.name ?? '');
    throw e;
  }
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
