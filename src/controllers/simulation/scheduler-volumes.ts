// kube-scheduler's VolumeBinding plugin for the simulated scheduler. PreFilter: every claim a pod names must exist,
// not be being deleted, and be bound unless its class waits for the first consumer ("pod has unbound immediate
// PersistentVolumeClaims"). Filter: a bound claim's volume must exist and its node affinity take the node; a
// waiting claim needs an available volume that fits it on the node, or a class that can provision there. PreBind:
// the volumes found are bound to their claims (claimRef), the claims to provision get the selected-node
// annotation, and the pod is bound once the PersistentVolume controller has bound all of them. Also the
// VolumeRestrictions plugin's ReadWriteOncePod check: a claim of that access mode that a scheduled pod already uses
// refuses every node; and the VolumeZone plugin: a bound volume's zone and region labels must match the node's.

import type { KubeObject } from '../../registry/types.ts';
import { ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_SELECTED_NODE, classOf, findMatchingVolume, NO_PROVISIONER, PVCS, PVS, STORAGE_CLASSES, volumeFitsNode } from '../persistent-volumes.ts';
import { claimsOfPod } from '../pod-claims.ts';
import type { Informers } from '../informers.ts';
import type { Refusal } from './scheduler-filters.ts';
import { asObj, type Obj, WRITERS } from './shared.ts';

export const BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind";
export const NODE_CONFLICT = 'node(s) had volume node affinity conflict';
export const PV_NOT_EXIST = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
/** VolumeZone's refusal: a bound volume's zone or region labels the node does not match. */
export const ZONE_CONFLICT = 'node(s) had no available volume zone';
/** VolumeRestrictions' Filter for a pod whose ReadWriteOncePod claim another scheduled pod uses (Unschedulable). */
export const RWOP_CONFLICT: Refusal = { reasons: ['node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode'], resolvable: true };

/** A pod's claims, as PreFilter sorts them. */
export interface PodClaims {
  readonly bound: readonly KubeObject[];
  /** Unbound claims of WaitForFirstConsumer classes. */
  readonly waiting: readonly KubeObject[];
}

/** What PreBind does on the chosen node: volumes to bind to claims, claims to provision. */
interface BindPlan {
  readonly staticBindings: readonly { claim: KubeObject; pv: KubeObject }[];
  readonly provisions: readonly KubeObject[];
}

export function createVolumeBinding(informers: Informers) {
  const claims = informers.of(PVCS);
  const volumes = informers.of(PVS).as(WRITERS.scheduler);
  const claimsAsScheduler = claims.as(WRITERS.scheduler);
  const classes = informers.of(STORAGE_CLASSES);
  const synced = Promise.all([claims.synced, volumes.synced, classes.synced]);
  const classOfClaim = (claim: KubeObject): Obj | undefined => classes.get('', classOf(claim)) as Obj | undefined;

  /** PreFilter: the pod's claims, or why no node can take it (UnschedulableAndUnresolvable). */
  function preFilter(pod: KubeObject): PodClaims | string | undefined {
    const names = claimsOfPod(pod);
    if (names.length === 0) return undefined;
    const namespace = pod.metadata.namespace ?? '';
    const bound: KubeObject[] = [];
    const waiting: KubeObject[] = [];
    let unboundImmediate = false;
    for (const { claim: name, ephemeral } of names) {
      const claim = claims.get(namespace, name);
      if (!claim) return `persistentvolumeclaim "${name}" not found`;
      if (claim.metadata.deletionTimestamp) return `persistentvolumeclaim "${name}" is being deleted`;
      if (ephemeral && !claim.metadata.ownerReferences?.some((o) => o.controller === true && o.uid === pod.metadata.uid)) {
        return `PVC ${namespace}/${name} was not created for pod ${namespace}/${pod.metadata.name} (pod is not owner)`;
      }
      if (asObj(claim.spec).volumeName) bound.push(claim);
      else if (classOfClaim(claim)?.volumeBindingMode === 'WaitForFirstConsumer') waiting.push(claim);
      else unboundImmediate = true;
    }
    if (unboundImmediate) return 'pod has unbound immediate PersistentVolumeClaims';
    return { bound, waiting };
  }

  /** Where the waiting claims go on this node, or undefined when one of them cannot be served there. */
  function planOn(podClaims: PodClaims, node: KubeObject): BindPlan | undefined {
    const taken = new Set<string>();
    const staticBindings: { claim: KubeObject; pv: KubeObject }[] = [];
    const provisions: KubeObject[] = [];
    for (const claim of podClaims.waiting) {
      const pv = findMatchingVolume(claim, volumes.list().filter((v) => !taken.has(v.metadata.name ?? '')), true, node);
      if (pv) {
        taken.add(pv.metadata.name ?? '');
        staticBindings.push({ claim, pv });
        continue;
      }
      const sc = classOfClaim(claim);
      if (!sc || sc.provisioner === NO_PROVISIONER || !topologyAllows(sc, node)) return undefined;
      provisions.push(claim);
    }
    return { staticBindings, provisions };
  }

  /** VolumeBinding's Filter for one node, then VolumeZone's. */
  function filter(podClaims: PodClaims, node: KubeObject): Refusal | undefined {
    const reasons: string[] = [];
    const bound: KubeObject[] = [];
    for (const claim of podClaims.bound) {
      const pv = volumes.get('', String(asObj(claim.spec).volumeName));
      if (!pv) return { reasons: [PV_NOT_EXIST], resolvable: false };
      bound.push(pv);
      if (!volumeFitsNode(pv, node) && !reasons.includes(NODE_CONFLICT)) reasons.push(NODE_CONFLICT);
    }
    if (podClaims.waiting.length > 0 && !planOn(podClaims, node)) reasons.push(BIND_CONFLICT);
    if (reasons.length > 0) return { reasons, resolvable: false };
    return bound.every((pv) => inVolumeZone(pv, node)) ? undefined : { reasons: [ZONE_CONFLICT], resolvable: false };
  }

  /** PreBind's writes; the keys of the claims the pod then waits for. */
  async function preBind(podClaims: PodClaims, node: KubeObject): Promise<string[]> {
    const plan = planOn(podClaims, node);
    if (!plan) throw new Error(`binding volumes: ${BIND_CONFLICT}`);
    for (const { claim, pv } of plan.staticBindings) {
      await volumes.update('', pv.metadata.name ?? '', (cur) => ({
        ...cur!,
        metadata: { ...cur!.metadata, annotations: { ...(cur!.metadata.annotations ?? {}), [ANN_BOUND_BY_CONTROLLER]: 'yes' } },
        spec: { ...asObj(cur!.spec), claimRef: { kind: 'PersistentVolumeClaim', namespace: claim.metadata.namespace, name: claim.metadata.name, uid: claim.metadata.uid, apiVersion: 'v1', resourceVersion: claim.metadata.resourceVersion } },
      }));
    }
    for (const claim of plan.provisions) {
      await claimsAsScheduler.update(claim.metadata.namespace ?? '', claim.metadata.name ?? '', (cur) => ({
        ...cur!,
        metadata: { ...cur!.metadata, annotations: { ...(cur!.metadata.annotations ?? {}), [ANN_SELECTED_NODE]: node.metadata.name ?? '' } },
      }));
    }
    return podClaims.waiting.map((c) => `${c.metadata.namespace ?? ''}/${c.metadata.name ?? ''}`);
  }

  /** Whether every one of these claims is bound (by the PersistentVolume controller). */
  function allBound(keys: readonly string[]): boolean {
    return keys.every((k) => {
      const slash = k.indexOf('/');
      const claim = claims.get(k.slice(0, slash), k.slice(slash + 1));
      return !!claim && claim.metadata.annotations?.[ANN_BIND_COMPLETED] === 'yes' && !!asObj(claim.spec).volumeName;
    });
  }

  /**
   * VolumeRestrictions' conflictingPVCRefCount: the other pods already on a node that use a claim of the pod with the
   * ReadWriteOncePod access mode (a terminated one no longer counts, as the scheduler's cache drops it).
   */
  /** The pods of the namespace (listed only for a pod with a ReadWriteOncePod claim) that hold one of its claims. */
  function readWriteOncePodHolders(pod: KubeObject, namespacePods: () => readonly KubeObject[]): KubeObject[] {
    const namespace = pod.metadata.namespace ?? '';
    const exclusive = claimsOfPod(pod)
      .map((c) => c.claim)
      .filter((name) => ((asObj(claims.get(namespace, name)?.spec).accessModes as unknown[] | undefined) ?? []).includes('ReadWriteOncePod'));
    if (exclusive.length === 0) return [];
    return namespacePods().filter((other) => {
      const status = asObj(other.status);
      if (other.metadata.uid === pod.metadata.uid || !asObj(other.spec).nodeName || status.phase === 'Succeeded' || status.phase === 'Failed') return false;
      return claimsOfPod(other).some((c) => exclusive.includes(c.claim));
    });
  }

  return {
    synced,
    readWriteOncePodHolders,
    preFilter,
    filter,
    preBind,
    allBound,
    /** Called on every change of a claim, volume or class (a pending pod may now fit, a waiting one be bound). */
    onChange(handler: (claimKey?: string) => void): void {
      claims.onEvent((ev) => handler(`${ev.object.metadata.namespace ?? ''}/${ev.object.metadata.name ?? ''}`));
      volumes.onEvent(() => handler());
      classes.onEvent(() => handler());
    },
  };
}

export type VolumeBinding = ReturnType<typeof createVolumeBinding>;

/** The topology labels VolumeZone compares, each with the GA label a node may carry for a beta one. */
const ZONE_LABELS: ReadonlyMap<string, string> = new Map([
  ['failure-domain.beta.kubernetes.io/zone', 'topology.kubernetes.io/zone'],
  ['failure-domain.beta.kubernetes.io/region', 'topology.kubernetes.io/region'],
  ['topology.kubernetes.io/zone', 'topology.kubernetes.io/zone'],
  ['topology.kubernetes.io/region', 'topology.kubernetes.io/region'],
]);

/**
 * VolumeZone's Filter for one bound volume: a node with a zone or region label must carry each such label of the
 * volume (a beta one, or its GA name) with one of the volume's values (several joined by "__"); a node without any
 * takes every volume, as in a single-zone cluster.
 */
function inVolumeZone(pv: KubeObject, node: KubeObject): boolean {
  const pvLabels = pv.metadata.labels ?? {};
  const nodeLabels = node.metadata.labels ?? {};
  if (![...ZONE_LABELS.keys()].some((l) => l in nodeLabels)) return true;
  for (const [label, ga] of ZONE_LABELS) {
    const value = pvLabels[label];
    if (value === undefined) continue;
    const on = nodeLabels[label] ?? nodeLabels[ga];
    if (on === undefined || !value.split('__').includes(on)) return false;
  }
  return true;
}

/** A class's allowedTopologies: some term's label expressions all match the node (none: anywhere). */
function topologyAllows(sc: Obj, node: KubeObject): boolean {
  const terms = (sc.allowedTopologies as unknown[] | undefined) ?? [];
  if (terms.length === 0) return true;
  const labels = node.metadata.labels ?? {};
  return terms.map(asObj).some((t) =>
    ((t.matchLabelExpressions as unknown[] | undefined) ?? []).map(asObj).every((e) => ((e.values as unknown[] | undefined) ?? []).map(String).includes(labels[String(e.key)] ?? '\u0000')),
  );
}
