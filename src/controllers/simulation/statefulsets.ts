// The StatefulSet controller: pods <name>-0..N-1 created in order (OrderedReady: the next once the previous is
// Ready; Parallel: all at once), removed from the highest ordinal (OrderedReady: one at a time, each gone before the
// next goes; Parallel: all at once), rolled from the highest ordinal down when the template changes (RollingUpdate,
// honouring partition), with controller-revision-hash labels, a ControllerRevision per template (`kubectl rollout
// history` and `undo`) and the revision status `kubectl rollout status` compares. A pod that failed or succeeded is
// deleted and made again; a terminating one is counted in the status until it is gone, and not made again before.
// The status is written even when a pod cannot be made. Each pod's claims (spec.volumeClaimTemplates: <template>-<set>-<ordinal>)
// are created before it and mounted in it; their owner references follow persistentVolumeClaimRetentionPolicy.

import { clockNow } from '../../apis/clock.ts';
import { isStatusError } from '../../apis/errors.ts';
import type { KubeObject, OwnerReference } from '../../registry/types.ts';
import { PVCS } from '../persistent-volumes.ts';
import type { EventSink } from '../events.ts';
import type { Informers } from '../informers.ts';
import { CONTROLLERREVISIONS, syncHistory } from './controller-history.ts';
import { templateHash } from './deployments.ts';
import { minReadySecondsOf, podAvailable, podFromTemplate, recheckWhenAvailable, requeuedOnClock } from './replicasets.ts';
import { asObj, claim, controllerEvents, controllerRef, isConflictOrGone, isNotFound, key, PODS, podReady, startLoop, STATEFULSETS, writeStatus, type Loop, type Obj, WRITERS } from './shared.ts';

const REVISION_LABEL = 'controller-revision-hash';

const claimTemplates = (sts: KubeObject): Obj[] => {
  const templates = asObj(sts.spec).volumeClaimTemplates;
  return Array.isArray(templates) ? templates.map(asObj) : [];
};
const templateName = (template: Obj): string => String(asObj(template.metadata).name ?? '');
const claimName = (sts: KubeObject, template: Obj, ordinal: number): string => `${templateName(template)}-${sts.metadata.name}-${ordinal}`;
const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * The owner references a claim of the set's pod gets (updateClaimOwnerRefForSetAndPod): the pod once it is condemned
 * and whenScaled is Delete, else the set when whenDeleted is Delete, else none, as controller references. References
 * to an earlier set or pod of the same name are left as they are (the garbage collector's); a claim another object
 * controls gets none of ours.
 */
function claimOwners(refs: readonly OwnerReference[], sts: KubeObject, pod: KubeObject, condemned: boolean): OwnerReference[] {
  const ownerOf = (r: OwnerReference): KubeObject | undefined =>
    r.kind === 'StatefulSet' && r.apiVersion.startsWith('apps/') && r.name === sts.metadata.name ? sts : r.kind === 'Pod' && !r.apiVersion.includes('/') && r.name === pod.metadata.name ? pod : undefined;
  if (refs.some((r) => ownerOf(r) && r.uid !== ownerOf(r)!.metadata.uid)) return [...refs];
  const others = refs.filter((r) => !ownerOf(r));
  if (others.some((r) => r.controller)) return others;
  const policy = asObj(asObj(sts.spec).persistentVolumeClaimRetentionPolicy);
  if (condemned && policy.whenScaled === 'Delete') return [...others, controllerRef(pod, 'v1', 'Pod')];
  if (policy.whenDeleted === 'Delete') return [...others, controllerRef(sts, 'apps/v1', 'StatefulSet')];
  return others;
}

const sameOwners = (a: readonly OwnerReference[], b: readonly OwnerReference[]): boolean =>
  a.length === b.length && a.every((r) => b.some((o) => o.uid === r.uid && !!o.controller === !!r.controller));

function withOwners(obj: KubeObject, refs: OwnerReference[]): KubeObject {
  const { ownerReferences: _, ...metadata } = obj.metadata;
  return { ...obj, metadata: refs.length ? { ...metadata, ownerReferences: refs } : metadata };
}

/**
 * The claim of the set's pod made from a template (getPersistentVolumeClaims): the template's metadata and spec, named
 * <template>-<set>-<ordinal>, in the set's namespace, the selector's matchLabels over the template's labels.
 */
function newClaim(sts: KubeObject, template: Obj, pod: KubeObject, ordinal: number): KubeObject {
  const { metadata, spec } = structuredClone({ metadata: asObj(template.metadata), spec: template.spec });
  const labels = { ...asObj(metadata.labels), ...asObj(asObj(asObj(sts.spec).selector).matchLabels) } as Record<string, string>;
  const claim: KubeObject = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { ...metadata, name: claimName(sts, template, ordinal), namespace: sts.metadata.namespace, ...(Object.keys(labels).length ? { labels } : {}) },
    spec,
  };
  return withOwners(claim, claimOwners(claim.metadata.ownerReferences ?? [], sts, pod, false));
}

/** The pods, by ordinal. */
const byOrdinalAsc = (pods: [number, KubeObject][]): KubeObject[] => [...pods].sort(([a], [b]) => a - b).map(([, p]) => p);

const terminating = (pod: KubeObject): boolean => pod.metadata.deletionTimestamp !== undefined;
const phaseOf = (pod: KubeObject): unknown => asObj(pod.status).phase;
/** isRunningAndReady. */
const runningAndReady = (pod: KubeObject): boolean => phaseOf(pod) === 'Running' && podReady(pod);
/** isHealthy: running, ready and not terminating. */
const healthy = (pod: KubeObject): boolean => runningAndReady(pod) && !terminating(pod);
const revisionOf = (pod: KubeObject): string | undefined => pod.metadata.labels?.[REVISION_LABEL];

/**
 * processCondemned, OrderedReady: the highest condemned pod goes once it is available, or when it is the first
 * unhealthy pod (so a broken pod does not hold the scale-down back).
 */
function condemnable(pod: KubeObject, inRange: [number, KubeObject][], condemned: [number, KubeObject][], available: (p: KubeObject) => boolean): boolean {
  const firstUnhealthy = [...byOrdinalAsc(inRange), ...byOrdinalAsc(condemned)].find((p) => !healthy(p));
  return available(pod) || pod === firstUnhealthy;
}

/**
 * The rolling update (kube 1.31, without MaxUnavailableStatefulSet): from the highest ordinal down to the partition,
 * the first pod of an older revision that is not terminating goes, once every pod above it is there and healthy
 * (readiness, not availability; OrderedReady waits for availability before it gets here).
 */
function nextToUpdate(byOrdinal: Map<number, KubeObject>, replicas: number, partition: number, revision: string): KubeObject | undefined {
  for (let i = replicas - 1; i >= partition; i--) {
    const pod = byOrdinal.get(i);
    if (pod && !terminating(pod) && revisionOf(pod) !== revision) return pod;
    if (!pod || !healthy(pod)) return undefined;
  }
  return undefined;
}

export function startStatefulSetController(informers: Informers, eventSink: EventSink): Loop {
  const statefulSets = informers.of(STATEFULSETS).as(WRITERS.statefulset);
  const podCache = informers.of(PODS).as(WRITERS.statefulset);
  const claimCache = informers.of(PVCS).as(WRITERS.statefulset);
  const history = informers.of(CONTROLLERREVISIONS).as(WRITERS.statefulset);
  const events = controllerEvents(eventSink, 'statefulset-controller', WRITERS.statefulset);
  /** recordPodEvent: "<verb> Pod <pod> in StatefulSet <set> successful", or Failed<Verb> with the error. */
  async function podWrite(verb: 'create' | 'delete', sts: KubeObject, pod: KubeObject, write: () => Promise<unknown>): Promise<void> {
    const where = `Pod ${pod.metadata.name} in StatefulSet ${sts.metadata.name}`;
    const reason = verb === 'create' ? 'Create' : 'Delete';
    try {
      await write();
      events.event(sts, 'Normal', `Successful${reason}`, `${verb} ${where} successful`);
    } catch (e) {
      if (isConflictOrGone(e)) return;
      events.event(sts, 'Warning', `Failed${reason}`, `${verb} ${where} failed error: ${e instanceof Error ? e.message : String(e)}`);
      throw e;
    }
  }
  /**
   * createPersistentVolumeClaims: the pod's missing claims are created ("create Claim <claim> Pod <pod> in StatefulSet
   * <set> success", or FailedCreate with the error); one that failed, or that exists but is being deleted, fails the
   * pod's creation (kube's aggregated error).
   */
  async function createClaims(sts: KubeObject, pod: KubeObject, ordinal: number): Promise<void> {
    const namespace = sts.metadata.namespace ?? '';
    const errors: string[] = [];
    for (const template of claimTemplates(sts)) {
      const name = claimName(sts, template, ordinal);
      const existing = claimCache.get(namespace, name);
      if (existing) {
        if (existing.metadata.deletionTimestamp) errors.push(`pvc ${name} is being deleted`);
        continue;
      }
      try {
        await claimCache.create(namespace, newClaim(sts, template, pod, ordinal));
        events.event(sts, 'Normal', 'SuccessfulCreate', `create Claim ${name} Pod ${pod.metadata.name} in StatefulSet ${sts.metadata.name} success`);
      } catch (e) {
        errors.push(`failed to create PVC ${name}: ${errorMessage(e)}`);
        if (isStatusError(e) && e.reason === 'AlreadyExists') continue;
        events.event(sts, 'Warning', 'FailedCreate', `create Claim ${name} for Pod ${pod.metadata.name} in StatefulSet ${sts.metadata.name} failed error: ${errorMessage(e)}`);
      }
    }
    if (errors.length) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  }
  /** UpdatePodClaimForRetentionPolicy: the pod's claims get the owner references the retention policy asks for. */
  async function setClaimOwners(sts: KubeObject, pod: KubeObject, ordinal: number, condemned: boolean): Promise<void> {
    const namespace = sts.metadata.namespace ?? '';
    for (const template of claimTemplates(sts)) {
      const claim = claimCache.get(namespace, claimName(sts, template, ordinal));
      const refs = claim?.metadata.ownerReferences ?? [];
      if (!claim || sameOwners(refs, claimOwners(refs, sts, pod, condemned))) continue;
      await claimCache
        .update(namespace, claim.metadata.name ?? '', (cur) => withOwners(cur!, claimOwners(cur!.metadata.ownerReferences ?? [], sts, pod, condemned)))
        .catch((e) => {
          if (!isNotFound(e)) throw e;
        });
    }
  }
  /** PodClaimIsStale: with whenScaled Delete, a claim still owned by an earlier pod of this name waits for the garbage collector. */
  function staleClaim(sts: KubeObject, podName: string, ordinal: number): boolean {
    if (asObj(asObj(sts.spec).persistentVolumeClaimRetentionPolicy).whenScaled !== 'Delete') return false;
    const namespace = sts.metadata.namespace ?? '';
    return claimTemplates(sts).some((t) => claimCache.get(namespace, claimName(sts, t, ordinal))?.metadata.ownerReferences?.some((r) => r.kind === 'Pod' && r.name === podName));
  }
  const loop = startLoop(
    informers,
    STATEFULSETS,
    async (namespace, name) => {
      await Promise.all([claimCache.synced, history.synced]);
      const sts = statefulSets.get(namespace, name);
      if (!sts || sts.metadata.deletionTimestamp) return;
      const spec = asObj(sts.spec);
      const replicas = typeof spec.replicas === 'number' ? spec.replicas : 1;
      const hash = templateHash(spec.template);
      const revision = `${name}-${hash}`;
      const currentRevision = String(asObj(sts.status).currentRevision ?? '') || revision;
      const ordered = asObj(spec).podManagementPolicy !== 'Parallel';
      // getPodsForStatefulSet: the pods it claims among those named as its members (isMemberOf).
      const member = (p: KubeObject) => /^(.*)-\d+$/.exec(p.metadata.name ?? '')?.[1] === name;
      // Terminating pods included: one in range is not made again until it is gone, and all of them are counted.
      const pods = await claim(podCache, sts, { apiVersion: 'apps/v1', kind: 'StatefulSet', match: member });
      // getStatefulSetRevisions, then truncateHistory: the revisions of the pods and of the status stay.
      const live = new Set([...pods.map((p) => revisionOf(p) ?? ''), String(asObj(sts.status).currentRevision ?? '')]);
      await syncHistory(history, sts, { kind: 'StatefulSet', hash, hashLabel: 'controller.kubernetes.io/hash', live });
      const byOrdinal = new Map(pods.map((p) => [Number(String(p.metadata.name).slice(name.length + 1)), p]));
      const template = asObj(spec.template);
      const at = clockNow();
      const available = (p: KubeObject) => podAvailable(p, minReadySecondsOf(sts), at);
      // A pod that cannot be made ends the pass, after the status is written (as kube's performUpdate does).
      let failure: unknown;
      // OrderedReady (processReplica, monotonic): a pod not yet available (ready for minReadySeconds) holds back the
      // next one, and the scale-down and the update with it.
      let blocked = false;
      const remove = (pod: KubeObject) => podWrite('delete', sts, pod, () => podCache.delete(namespace, pod.metadata.name ?? '', { preconditions: { uid: pod.metadata.uid } }));
      for (let i = 0; i < replicas && !blocked; i++) {
        const existing = byOrdinal.get(i);
        if (existing) {
          // processReplica: a pod that failed or succeeded is deleted, to be made again once it is gone.
          if (phaseOf(existing) === 'Failed' || phaseOf(existing) === 'Succeeded') {
            if (!terminating(existing)) await remove(existing);
            blocked = ordered;
            continue;
          }
          // createMissingPersistentVolumeClaims: a pending pod gets back a claim deleted under it.
          if (phaseOf(existing) === 'Pending') await createClaims(sts, existing, i);
          blocked = ordered && (terminating(existing) || !available(existing));
          continue;
        }
        if (staleClaim(sts, `${name}-${i}`, i)) {
          blocked = ordered;
          continue;
        }
        const pod = podFromTemplate(sts, 'apps/v1', 'StatefulSet', template, { name: `${name}-${i}` });
        pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [REVISION_LABEL]: revision, 'statefulset.kubernetes.io/pod-name': `${name}-${i}`, 'apps.kubernetes.io/pod-index': String(i) };
        // updateStorage: a volume per claim template, in place of the template's volume of that name.
        const claimVolumes = claimTemplates(sts).map((t) => ({ name: templateName(t), persistentVolumeClaim: { claimName: claimName(sts, t, i) } }));
        const podVolumes = (asObj(pod.spec).volumes ?? []) as Obj[];
        const volumes = [...claimVolumes, ...podVolumes.filter((v) => !claimVolumes.some((c) => c.name === v.name))];
        pod.spec = { ...asObj(pod.spec), ...(claimVolumes.length ? { volumes } : {}), hostname: `${name}-${i}`, ...(spec.serviceName ? { subdomain: spec.serviceName } : {}) };
        try {
          await podWrite('create', sts, pod, async () => {
            await createClaims(sts, pod, i);
            await podCache.create(namespace, pod);
          });
        } catch (e) {
          failure = e;
          break;
        }
        blocked = ordered;
      }
      const condemned = [...byOrdinal.entries()].filter(([i]) => i >= replicas).sort(([a], [b]) => b - a);
      // The claims of the pods kept are owned as the policy says; those of condemned pods before the pods go.
      if (failure === undefined) for (const [i, p] of byOrdinal) await setClaimOwners(sts, p, i, i >= replicas);
      const inRange = [...byOrdinal.entries()].filter(([i]) => i < replicas);
      // processCondemned, from the highest ordinal: OrderedReady deletes one at a time, waiting for it to be gone;
      // Parallel deletes all that are not terminating yet.
      if (failure === undefined && !blocked && condemned.length) {
        if (!ordered) for (const [, p] of condemned) if (!terminating(p)) await remove(p);
        const top = condemned[0][1];
        if (ordered && !terminating(top) && condemnable(top, inRange, condemned, available)) await remove(top);
        blocked = ordered;
      }
      const rolling = asObj(spec.updateStrategy).type !== 'OnDelete';
      const partition = Number(asObj(asObj(spec.updateStrategy).rollingUpdate).partition ?? 0);
      let rolled = false;
      if (failure === undefined && rolling && !blocked) {
        const stale = nextToUpdate(byOrdinal, replicas, partition, revision);
        if (stale) await remove(stale);
        rolled = stale !== undefined && revisionOf(stale) === currentRevision;
      }
      recheckWhenAvailable(loop, sts, pods, at);
      // updateStatus over every created pod, condemned and terminating ones too; current and updated pods are those
      // not terminating. completeRollingUpdate: with every pod updated and ready, the update revision becomes current.
      const created = pods.filter((p) => phaseOf(p) !== undefined && phaseOf(p) !== '');
      const counted = created.filter((p) => !terminating(p));
      const updated = counted.filter((p) => revisionOf(p) === revision).length;
      const ready = created.filter(runningAndReady).length;
      const done = rolling && updated === created.length && ready === created.length;
      const status: Obj = {
        observedGeneration: sts.metadata.generation ?? 0,
        replicas: created.length,
        readyReplicas: ready,
        currentReplicas: done ? updated : counted.filter((p) => revisionOf(p) === currentRevision).length - (rolled ? 1 : 0),
        updatedReplicas: updated,
        currentRevision: done ? revision : currentRevision,
        updateRevision: revision,
        collisionCount: 0,
        availableReplicas: created.filter((p) => runningAndReady(p) && available(p)).length,
      };
      for (const k of ['readyReplicas', 'currentReplicas', 'updatedReplicas']) if (status[k] === 0) delete status[k];
      await writeStatus(statefulSets, sts, status);
      if (failure !== undefined) throw failure;
    },
    { owned: [PODS], adopts: true },
  );
  // A claim gone may be what a pod waited for (one being deleted, or a condemned pod's): its set looks again.
  claimCache.onEvent((ev) => {
    if (ev.type !== 'DELETED') return;
    const claim = ev.object.metadata.name ?? '';
    for (const sts of statefulSets.list(ev.object.metadata.namespace ?? '')) {
      const prefixes = claimTemplates(sts).map((t) => `${templateName(t)}-${sts.metadata.name}-`);
      if (prefixes.some((p) => claim.startsWith(p) && /^\d+$/.test(claim.slice(p.length)))) loop.enqueue(key(sts));
    }
  });
  return requeuedOnClock(loop, statefulSets);
}
