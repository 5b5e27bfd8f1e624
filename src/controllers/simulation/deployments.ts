// The Deployment controller: a ReplicaSet per pod template (named <deployment>-<pod-template-hash>, revisions in
// deployment.kubernetes.io/revision so `kubectl rollout undo` finds them), rolling updates within maxSurge and
// maxUnavailable or Recreate, paused deployments only scaled (in proportion across the ReplicaSets of a rollout
// paused halfway; no new ReplicaSet until resumed, Progressing Unknown DeploymentPaused, then DeploymentResumed), old
// ReplicaSets beyond revisionHistoryLimit removed, and status with kube's Available and Progressing conditions (what
// `kubectl rollout status` and `kubectl wait --for=condition=Available` read).

import { clockNow, onClockChange } from '../../apis/clock.ts';
import { jsonEqual } from '../../registry/store-codec.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { EventSink } from '../events.ts';
import type { Informer, Informers } from '../informers.ts';
import { asObj, claim, controlled, controllerEvents, controllerRef, ctxFor, DEPLOYMENTS, ignoreConflictOrGone, isConflictOrGone, key, REPLICASETS, startLoop, writeStatus, type Loop, type Obj, WRITERS } from './shared.ts';
import { now } from './replicasets.ts';
import { sortedKeys } from './controller-history.ts';

const HASH_LABEL = 'pod-template-hash';
const REVISION = 'deployment.kubernetes.io/revision';
const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
/** The Deployment's annotations its ReplicaSets do not get (kube's annotationsToSkip). */
const NOT_COPIED = new Set(['kubectl.kubernetes.io/last-applied-configuration', REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, 'deprecated.deployment.rollback.to']);
const SAFE_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * FNV-32a of the template, encoded as rand.SafeEncodeString does (kube hashes its Go printout; this its JSON, keys
 * sorted, so a template written back in another key order, as `kubectl rollout undo` does, hashes the same).
 */
export function templateHash(template: unknown): string {
  let h = 0x811c9dc5;
  const bytes = Buffer.from(JSON.stringify(sortedKeys(template ?? {})));
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193) >>> 0;
  return [...String(h)].map((c) => SAFE_CHARS[c.charCodeAt(0) % SAFE_CHARS.length]).join('');
}

/** intstr.GetScaledValueFromIntOrPercent. */
function scaled(value: unknown, total: number, roundUp: boolean, fallback: string): number {
  const v = value ?? fallback;
  if (typeof v === 'number') return v;
  const pct = Number(String(v).replace('%', ''));
  const x = (pct * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

const revisionOf = (rs: KubeObject) => Number(rs.metadata.annotations?.[REVISION] ?? 0);
const specReplicas = (rs: KubeObject) => Number(asObj(rs.spec).replicas ?? 0);
const stat = (rs: KubeObject, k: string) => Number(asObj(rs.status)[k] ?? 0);

/** Whether the ReplicaSet's pod template is the Deployment's, its pod-template-hash label aside (EqualIgnoreHash). */
function sameTemplateIgnoringHash(rs: KubeObject, template: Obj): boolean {
  const { metadata: rsMeta, ...rsRest } = asObj(asObj(rs.spec).template);
  const { metadata: meta, ...rest } = template;
  if (!jsonEqual(rsRest, rest)) return false;
  const { labels: rsLabels, ...rsOtherMeta } = asObj(rsMeta);
  const { labels, ...otherMeta } = asObj(meta);
  if (!jsonEqual(rsOtherMeta, otherMeta)) return false;
  const { [HASH_LABEL]: _hash, ...rsOwnLabels } = asObj(rsLabels);
  return jsonEqual(rsOwnLabels, asObj(labels));
}

/** The Deployment's annotations a ReplicaSet of it carries (copyDeploymentAnnotationsToReplicaSet). */
function copiedAnnotations(d: KubeObject): Record<string, string> {
  return Object.fromEntries(Object.entries(d.metadata.annotations ?? {}).filter(([k]) => !NOT_COPIED.has(k)));
}

/** Sets spec.replicas and the annotations given, when any differs; whether it wrote them. */
async function setReplicas(replicaSets: Informer, rs: KubeObject, replicas: number, annotations: Record<string, string> = {}): Promise<boolean> {
  if (specReplicas(rs) === replicas && Object.entries(annotations).every(([k, v]) => rs.metadata.annotations?.[k] === v)) return false;
  const written = await replicaSets
    .update(rs.metadata.namespace ?? '', rs.metadata.name ?? '', (cur) => ({
      ...cur!,
      metadata: { ...cur!.metadata, annotations: { ...(cur!.metadata.annotations ?? {}), ...annotations } },
      spec: { ...asObj(cur!.spec), replicas },
    }))
    .catch(ignoreConflictOrGone);
  return written !== undefined;
}

/** Go's math.Round: halves away from zero. */
const roundHalfAway = (x: number): number => Math.sign(x) * Math.round(Math.abs(x));

/**
 * scale()'s proportional sharing of a size change among a rolling Deployment's active ReplicaSets: each gets its
 * share by the max-replicas it was last scaled for (GetProportion), the largest (newer first when growing, older
 * first when shrinking) the leftover.
 */
export function proportionalSizes(active: readonly KubeObject[], d: KubeObject, desired: number, maxSurge: number): [KubeObject, number][] {
  const allowed = desired > 0 ? desired + maxSurge : 0;
  const toAdd = allowed - active.reduce((n, rs) => n + specReplicas(rs), 0);
  const created = (rs: KubeObject) => String(rs.metadata.creationTimestamp ?? '');
  const sorted = [...active].sort((a, b) => specReplicas(b) - specReplicas(a) || (toAdd > 0 ? created(b).localeCompare(created(a)) : created(a).localeCompare(created(b))));
  let added = 0;
  const sizes = sorted.map((rs): [KubeObject, number] => {
    const size = specReplicas(rs);
    if (toAdd === 0 || size === 0 || toAdd === added) return [rs, size];
    let fraction: number;
    if (desired === 0) fraction = -size;
    else {
      const before = Number(rs.metadata.annotations?.[MAX_REPLICAS] ?? 0) || Number(asObj(d.status).replicas ?? 0);
      fraction = before > 0 ? roundHalfAway((size * allowed) / before) - size : 0;
    }
    const proportion = toAdd > 0 ? Math.min(fraction, toAdd - added) : Math.max(fraction, toAdd - added);
    added += proportion;
    return [rs, size + proportion];
  });
  if (sizes.length > 0 && toAdd !== 0) sizes[0]![1] = Math.max(0, sizes[0]![1] + toAdd - added);
  return sizes;
}

function condition(type: string, status: string, reason: string, message: string, previous: Obj[] | undefined): Obj {
  const at = now();
  const old = previous?.find((c) => c.type === type);
  const same = old && old.status === status && old.reason === reason && old.message === message;
  return { type, status, lastUpdateTime: same ? old.lastUpdateTime : at, lastTransitionTime: old && old.status === status ? old.lastTransitionTime : at, reason, message };
}

/** When a rollout whose Progressing condition is this times out (ms on the server's clock); undefined: it cannot. */
function progressDeadline(d: KubeObject, progressing: Obj): number | undefined {
  const seconds = asObj(d.spec).progressDeadlineSeconds;
  if (typeof seconds !== 'number' || seconds >= 2 ** 31 - 1 || progressing.status !== 'True' || progressing.reason === 'NewReplicaSetAvailable') return undefined;
  return Date.parse(String(progressing.lastUpdateTime)) + seconds * 1000;
}

interface RolloutState {
  /** The new ReplicaSet's name; undefined while a paused Deployment has none. */
  readonly rsName: string | undefined;
  readonly paused: boolean;
  readonly complete: boolean;
  readonly created: boolean;
  readonly replicas: number;
  readonly updated: number;
  readonly ready: number;
  readonly available: number;
}

/**
 * syncRolloutStatus's Progressing condition: NewReplicaSetAvailable once the rollout is complete (and kept while it
 * stays so), NewReplicaSetCreated with a new ReplicaSet, ReplicaSetUpdated (its lastUpdateTime moved) whenever the
 * rollout made progress (more updated, ready or available pods, fewer old ones), and False ProgressDeadlineExceeded
 * once progressDeadlineSeconds have passed since the last progress: `kubectl rollout status` then fails.
 */
function progressingCondition(d: KubeObject, previous: Obj[] | undefined, r: RolloutState): Obj {
  let old = previous?.find((c) => c.type === 'Progressing');
  // A paused Deployment's status keeps a timed-out rollout's condition as it is (sync() does not look at progress).
  if (r.paused && old?.reason === 'ProgressDeadlineExceeded') return old;
  // checkPausedConditions: a paused Deployment's rollout is not timed; resumed, it starts from DeploymentResumed.
  if (old?.reason !== 'ProgressDeadlineExceeded') {
    if (r.paused) return condition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused', previous);
    if (old?.reason === 'DeploymentPaused') old = condition('Progressing', 'Unknown', 'DeploymentResumed', 'Deployment is resumed', previous);
  }
  const named = (rsMessage: string, deploymentMessage: string) => (r.rsName === undefined ? deploymentMessage : rsMessage);
  const before = asObj(d.status);
  const count = (k: string) => Number(before[k] ?? 0);
  if (old?.reason === 'NewReplicaSetAvailable' && r.replicas === r.updated && !r.created) return old;
  if (r.complete) return condition('Progressing', 'True', 'NewReplicaSetAvailable', named(`ReplicaSet "${r.rsName}" has successfully progressed.`, `Deployment "${d.metadata.name}" has successfully progressed.`), previous);
  if (r.created) return condition('Progressing', 'True', 'NewReplicaSetCreated', `Created new replica set "${r.rsName}"`, previous);
  const moved = r.updated > count('updatedReplicas') || r.replicas - r.updated < count('replicas') - count('updatedReplicas') || r.ready > count('readyReplicas') || r.available > count('availableReplicas');
  if (moved || !old) {
    const at = now();
    const message = named(`ReplicaSet "${r.rsName}" is progressing.`, `Deployment "${d.metadata.name}" is progressing.`);
    return { type: 'Progressing', status: 'True', lastUpdateTime: at, lastTransitionTime: old?.status === 'True' ? old.lastTransitionTime : at, reason: 'ReplicaSetUpdated', message };
  }
  const deadline = progressDeadline(d, old);
  if (old.reason === 'ProgressDeadlineExceeded' || (deadline !== undefined && deadline < clockNow())) {
    return condition('Progressing', 'False', 'ProgressDeadlineExceeded', named(`ReplicaSet "${r.rsName}" has timed out progressing.`, `Deployment "${d.metadata.name}" has timed out progressing.`), previous);
  }
  return old;
}

export function startDeploymentController(informers: Informers, eventSink: EventSink): Loop {
  const deployments = informers.of(DEPLOYMENTS).as(WRITERS.deployment);
  const replicaSets = informers.of(REPLICASETS).as(WRITERS.deployment);
  const events = controllerEvents(eventSink, 'deployment-controller', WRITERS.deployment);
  const loop: Loop = startLoop(
    informers,
    DEPLOYMENTS,
    async (namespace, name) => {
      const d = deployments.get(namespace, name);
      if (!d || d.metadata.deletionTimestamp) return;
      const spec = asObj(d.spec);
      const desired = typeof spec.replicas === 'number' ? spec.replicas : 1;
      const template = asObj(spec.template);
      const paused = spec.paused === true;
      // getReplicaSetsForDeployment: the ReplicaSets it claims (an orphan it selects is adopted).
      let all = await claim(replicaSets, d, { apiVersion: 'apps/v1', kind: 'Deployment' });
      let newRS = all.find((rs) => sameTemplateIgnoringHash(rs, template));
      const maxRevision = Math.max(0, ...all.map(revisionOf));
      const recreate = asObj(spec.strategy).type === 'Recreate';
      const maxSurge = recreate ? 0 : scaled(asObj(asObj(spec.strategy).rollingUpdate).maxSurge, desired, true, '25%');
      let maxUnavailable = recreate ? 0 : scaled(asObj(asObj(spec.strategy).rollingUpdate).maxUnavailable, desired, false, '25%');
      // ResolveFenceposts: a rolling update that may neither surge nor go short still moves one pod at a time.
      if (!recreate && maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
      // What a ReplicaSet scaled for this Deployment records (SetReplicasAnnotations).
      const sizeAnnotations = { [DESIRED_REPLICAS]: String(desired), [MAX_REPLICAS]: String(desired + maxSurge) };
      let created = false;
      // ScalingReplicaSet: kube creates a new ReplicaSet at its first size ("Scaled up replica set <rs> to <n>");
      // here it is made at 0 and scaled in the same pass, which reads the same.
      const scaleTo = async (rs: KubeObject, replicas: number) => {
        const from = specReplicas(rs);
        if (!(await setReplicas(replicaSets, rs, replicas, replicas === from ? {} : sizeAnnotations)) || replicas === from) return;
        const fresh = created && from === 0 && rs.metadata.uid === newRS?.metadata.uid;
        events.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${replicas > from ? 'up' : 'down'} replica set ${rs.metadata.name} to ${replicas}${fresh ? '' : ` from ${from}`}`);
      };
      if (!newRS && !paused) {
        // (A paused Deployment gets no new ReplicaSet: kube's sync() asks for none to be created.)
        const podHash = templateHash(template);
        const labels = { ...(asObj(asObj(template.metadata).labels) as Record<string, string>), [HASH_LABEL]: podHash };
        const selector = asObj(spec.selector);
        const rs: KubeObject = {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: {
            name: `${name}-${podHash}`,
            namespace,
            labels,
            annotations: { ...copiedAnnotations(d), [REVISION]: String(maxRevision + 1), ...sizeAnnotations },
            ownerReferences: [controllerRef(d, 'apps/v1', 'Deployment')],
          },
          spec: {
            replicas: 0,
            ...(spec.minReadySeconds !== undefined ? { minReadySeconds: spec.minReadySeconds } : {}),
            selector: { ...selector, matchLabels: { ...(asObj(selector.matchLabels) as Record<string, string>), [HASH_LABEL]: podHash } },
            template: { ...template, metadata: { ...asObj(template.metadata), labels } },
          },
        };
        newRS = await replicaSets.create(namespace, rs).catch(async (e) => {
          if (!isConflictOrGone(e)) throw e;
          // Made by an earlier pass whose write the cache has not seen yet: read it.
          const made = await replicaSets.store()?.get(ctxFor(namespace), rs.metadata.name ?? '');
          if (!made) throw e;
          return made;
        });
        created = true;
        all = [...all.filter((x) => x.metadata.uid !== newRS!.metadata.uid), newRS];
      } else if (newRS) {
        const annotations = copiedAnnotations(d);
        const revision = revisionOf(newRS);
        if (revision < maxRevision) {
          // A rollback to an older template: that ReplicaSet becomes the newest revision again, and remembers the
          // revisions it had.
          const history = newRS.metadata.annotations?.[REVISION_HISTORY];
          annotations[REVISION] = String(maxRevision + 1);
          annotations[REVISION_HISTORY] = history ? `${history},${revision}` : String(revision);
        }
        await setReplicas(replicaSets, newRS, specReplicas(newRS), annotations);
        // getNewReplicaSet keeps the new ReplicaSet's minReadySeconds the Deployment's.
        if (Number(asObj(newRS.spec).minReadySeconds ?? 0) !== Number(spec.minReadySeconds ?? 0)) {
          await replicaSets
            .update(namespace, newRS.metadata.name ?? '', (cur) => ({ ...cur!, spec: { ...asObj(cur!.spec), minReadySeconds: spec.minReadySeconds } }))
            .catch(ignoreConflictOrGone);
        }
        newRS = replicaSets.get(namespace, newRS.metadata.name ?? '') ?? newRS;
      }
      // The Deployment names its current revision (SetDeploymentRevision), written with UpdateStatus as kube's
      // controller does: the status subresource keeps the annotations it is given, and the generation stays.
      const revision = newRS?.metadata.annotations?.[REVISION];
      if (revision !== undefined && d.metadata.annotations?.[REVISION] !== revision) {
        await deployments
          .update(namespace, name, (cur) => ({ ...cur!, metadata: { ...cur!.metadata, annotations: { ...(cur!.metadata.annotations ?? {}), [REVISION]: revision } } }), { subresource: 'status' })
          .catch(ignoreConflictOrGone);
      }
      const olds = all.filter((rs) => rs.metadata.uid !== newRS?.metadata.uid).sort((a, b) => revisionOf(a) - revisionOf(b));

      if (paused) {
        // sync()'s scale(): the one active ReplicaSet, or the newest when none is, follows spec.replicas; a saturated
        // new one leaves the old ones nothing; otherwise a rolling Deployment's change is shared in proportion.
        const createdAt = (rs: KubeObject) => String(rs.metadata.creationTimestamp ?? '');
        const active = all.filter((rs) => specReplicas(rs) > 0);
        const newest = () => newRS ?? [...olds].sort((a, b) => createdAt(b).localeCompare(createdAt(a)))[0];
        const target = active.length === 1 ? active[0] : active.length === 0 ? newest() : undefined;
        const saturated = newRS && newRS.metadata.annotations?.[DESIRED_REPLICAS] === String(desired) && stat(newRS, 'availableReplicas') === desired && specReplicas(newRS) === desired;
        if (target) {
          if (specReplicas(target) !== desired) await scaleTo(target, desired);
        } else if (saturated) {
          for (const rs of active) if (rs !== newRS) await scaleTo(rs, 0);
        } else if (!recreate) {
          for (const [rs, size] of proportionalSizes(active, d, desired, maxSurge)) {
            if (size !== specReplicas(rs)) await scaleTo(rs, size);
            else await setReplicas(replicaSets, rs, size, sizeAnnotations);
          }
        }
      } else {
        const newSet = newRS!;
        if (recreate) {
          for (const rs of olds) await scaleTo(rs, 0);
          if (olds.every((rs) => stat(rs, 'replicas') === 0)) await scaleTo(newSet, desired);
        } else {
          const allSpec = all.reduce((n, rs) => n + specReplicas(rs), 0);
          const newSpec = specReplicas(newSet);
          if (newSpec > desired) await scaleTo(newSet, desired);
          else if (newSpec < desired) {
            const up = Math.min(desired + maxSurge - allSpec, desired - newSpec);
            if (up > 0) await scaleTo(newSet, newSpec + up);
          }
          const minAvailable = desired - maxUnavailable;
          const newUnavailable = Math.max(0, specReplicas(newSet) - stat(newSet, 'availableReplicas'));
          let down = allSpec - minAvailable - newUnavailable;
          for (const rs of olds) {
            if (down <= 0) break;
            const cut = Math.min(specReplicas(rs), down);
            if (cut > 0) await scaleTo(rs, specReplicas(rs) - cut);
            down -= cut;
          }
        }
      }
      // cleanupDeployment (paused ones too): old ReplicaSets with nothing left beyond revisionHistoryLimit go.
      const limit = typeof spec.revisionHistoryLimit === 'number' ? spec.revisionHistoryLimit : 10;
      const idle = olds.filter((rs) => specReplicas(rs) === 0 && stat(rs, 'replicas') === 0);
      for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) {
        await replicaSets.delete(namespace, rs.metadata.name ?? '', { preconditions: { uid: rs.metadata.uid } }).catch(ignoreConflictOrGone);
      }

      const fresh = controlled(replicaSets, d);
      const current = newRS && (fresh.find((rs) => rs.metadata.uid === newRS!.metadata.uid) ?? newRS);
      const sum = (k: string) => fresh.reduce((n, rs) => n + stat(rs, k), 0);
      const replicas = sum('replicas');
      const available = sum('availableReplicas');
      const updated = current ? stat(current, 'replicas') : 0;
      const previous = asObj(d.status).conditions as Obj[] | undefined;
      const availableCondition =
        available >= desired - maxUnavailable
          ? condition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', previous)
          : condition('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.', previous);
      const rsName = current?.metadata.name;
      const complete = !!current && updated === desired && replicas === desired && available === desired && specReplicas(current) === desired;
      const ready = sum('readyReplicas');
      const progressing = progressingCondition(d, previous, { rsName, paused, complete, created, replicas, updated, ready, available });
      // requeueStuckDeployment: a rollout that stops moving is looked at again when its deadline passes.
      const deadline = progressDeadline(d, progressing);
      if (deadline !== undefined) loop.enqueue(key(d), Math.max(0, deadline - clockNow()) + 10);
      const status: Obj = {
        observedGeneration: d.metadata.generation ?? 0,
        replicas,
        updatedReplicas: updated,
        readyReplicas: ready,
        availableReplicas: available,
        unavailableReplicas: Math.max(0, replicas - available),
        conditions: [availableCondition, progressing],
      };
      // A ReplicaSet that cannot make or remove its pods says so on the Deployment too (getReplicaFailures: the new
      // ReplicaSet's condition first, else an old one's).
      const failure = [...(current ? [current] : []), ...fresh.filter((rs) => rs !== current)]
        .map((rs) => ((asObj(rs.status).conditions as unknown[] | undefined) ?? []).map(asObj).find((c) => c.type === 'ReplicaFailure'))
        .find((c) => c !== undefined);
      if (failure) {
        const { type, status: value, reason, message, lastTransitionTime } = failure;
        (status.conditions as Obj[]).push({ type, status: value, lastUpdateTime: lastTransitionTime, lastTransitionTime, reason, message });
      }
      for (const k of ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas']) if (status[k] === 0) delete status[k];
      await writeStatus(deployments, d, status);
    },
    { owned: [REPLICASETS], adopts: true },
  );
  // The test controls' clock moves deadlines too.
  const offClock = onClockChange(() => {
    for (const d of deployments.list()) loop.enqueue(key(d));
  });
  return {
    enqueue: loop.enqueue,
    async stop() {
      offClock();
      await loop.stop();
    },
  };
}
