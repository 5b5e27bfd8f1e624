// The scale subresource (deployments, replicasets, statefulsets, replicationcontrollers): an autoscaling/v1 Scale
// read from the parent, and a Scale write that becomes a spec.replicas change of the parent.

import { badRequest, conflict, fieldErrors, invalid } from '../apis/errors.ts';
import { formatLabelSelector } from '../apis/labels.ts';
import type { StoreCore } from './store-core.ts';
import type { KubeObject, ScalePaths } from './types.ts';

type Obj = Record<string, unknown>;

function asObj(v: unknown): Obj {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
}

/** A map selector (replication controllers) as labels.SelectorFromSet prints it: sorted key=value pairs. */
function mapSelectorString(sel: unknown): string {
  return Object.entries(asObj(sel))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',');
}

/** The value at a simple JSON path (".spec.replicas"). */
function atPath(obj: unknown, path: string): unknown {
  let v: unknown = obj;
  for (const seg of path.slice(1).split('.')) v = asObj(v)[seg];
  return v;
}

/** A custom resource's Scale (scaleFromCustomResource): the CRD's paths, 0 for missing replicas. */
function customScaleValues(obj: KubeObject, paths: ScalePaths): { replicas: number; statusReplicas: number; selector: string } {
  const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : 0);
  const selector = paths.labelSelectorPath ? atPath(obj, paths.labelSelectorPath) : '';
  return { replicas: int(atPath(obj, paths.specReplicasPath)), statusReplicas: int(atPath(obj, paths.statusReplicasPath)), selector: typeof selector === 'string' ? selector : '' };
}

function builtinScaleValues(core: StoreCore, obj: KubeObject): { replicas: number; statusReplicas: number; selector: string } {
  const spec = asObj(obj.spec);
  const status = asObj(obj.status);
  const selector = core.gr.resource === 'replicationcontrollers' ? mapSelectorString(spec.selector) : formatLabelSelector(spec.selector);
  return {
    replicas: typeof spec.replicas === 'number' ? spec.replicas : 0,
    statusReplicas: typeof status.replicas === 'number' ? status.replicas : 0,
    selector,
  };
}

export function scaleOf(core: StoreCore, obj: KubeObject, paths?: ScalePaths): KubeObject {
  const { replicas, statusReplicas, selector } = paths ? customScaleValues(obj, paths) : builtinScaleValues(core, obj);
  const m = obj.metadata;
  const metadata: KubeObject['metadata'] = { name: m.name };
  if (m.namespace) metadata.namespace = m.namespace;
  if (m.uid) metadata.uid = m.uid;
  if (m.resourceVersion) metadata.resourceVersion = m.resourceVersion;
  metadata.creationTimestamp = m.creationTimestamp ?? null;
  const scaleStatus: Obj = { replicas: statusReplicas };
  if (selector) scaleStatus.selector = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata,
    // ScaleSpec.replicas is omitempty in autoscaling/v1.
    spec: replicas ? { replicas } : {},
    status: scaleStatus,
  };
}

/** Apply a written Scale to (a copy of) the parent: replicas and the resourceVersion precondition move over. */
export function applyScale(core: StoreCore, parent: KubeObject, scale: unknown, paths?: ScalePaths): KubeObject {
  if (!scale || typeof scale !== 'object') throw badRequest('nil update passed to Scale');
  const s = scale as KubeObject;
  const name = parent.metadata.name ?? '';
  const replicas = asObj(s.spec).replicas ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
    throw invalid({ group: 'autoscaling', kind: 'Scale' }, name, [fieldErrors.invalid('spec.replicas', replicas, 'must be an integer')]);
  }
  if (replicas < 0) {
    throw invalid({ group: 'autoscaling', kind: 'Scale' }, name, [fieldErrors.invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  }
  const uid = s.metadata?.uid;
  if (uid && uid !== parent.metadata.uid) {
    throw conflict(
      { group: core.gr.group, resource: `${core.gr.resource}/scale` },
      name,
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${parent.metadata.uid ?? ''}`,
    );
  }
  const resourceVersion = s.metadata?.resourceVersion ?? '';
  if (paths) {
    // A custom resource (scaleUpdatedObjectInfo in customresource/etcd.go): a Scale without a resourceVersion keeps
    // the parent's, since custom resources allow no unconditional update.
    setAtPath(parent, paths.specReplicasPath, replicas);
    if (resourceVersion) parent.metadata.resourceVersion = resourceVersion;
    return parent;
  }
  // Built-in kinds move the Scale's resourceVersion over as it is: empty makes the write unconditional.
  parent.spec = { ...asObj(parent.spec), replicas };
  parent.metadata.resourceVersion = resourceVersion;
  return parent;
}

/** unstructured.SetNestedField: creates the objects on the way, replacing non-objects. */
function setAtPath(obj: KubeObject, path: string, value: unknown): void {
  const segs = path.slice(1).split('.');
  let node = obj as Obj;
  for (const seg of segs.slice(0, -1)) {
    const next = node[seg];
    node = node[seg] = next && typeof next === 'object' && !Array.isArray(next) ? { ...(next as Obj) } : {};
  }
  node[segs[segs.length - 1]] = value;
}
