// API Priority and Fairness configuration in the control plane (kube's apf_controller and its bootstrap
// configuration maintenance): the mandatory objects are created and kept as they are, the suggested ones created
// when missing and updated while they carry apf.kubernetes.io/autoupdate-spec "true"; FlowSchemas get their
// Dangling condition; informers feed the request filter's classification.

import { clockDate } from '../apis/clock.ts';
import { isStatusError } from '../apis/errors.ts';
import { startInformer, type Informer } from '../registry/informer.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry, ResourceStore } from '../registry/types.ts';
import { semanticEqual } from '../registry/builtin/object.ts';
import { isFixedPriorityLevelSpec } from '../registry/builtin/flowcontrol/mandatory.ts';
import { AUTO_UPDATE_ANNOTATION, MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from '../server/flowcontrol/bootstrap.ts';
import type { FlowControlConfig } from '../server/flowcontrol/dispatcher.ts';
import type { FlowSchema, PriorityLevelConfiguration } from '../server/flowcontrol/types.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const API_VERSION = `${GROUP}/v1`;

export interface FlowControlConfigController extends FlowControlConfig {
  synced(): Promise<void>;
  stop(): void;
}

/** The bootstrap objects of one resource, created when missing and updated when not kept as they are. */
interface BootstrapObject {
  name: string;
  spec: unknown;
  mandatory: boolean;
  /** Whether a stored spec is as the bootstrap wants it (default: semantically equal to spec). */
  matches?(current: unknown): boolean;
}

async function ensureAll(registry: Registry, resource: string, kind: string, objects: readonly BootstrapObject[]): Promise<void> {
  const def = registry.lookup(GROUP, 'v1', resource);
  if (!def) return;
  const store = registry.store(def);
  // Every start finds them as they are: one list from the watch cache spares a read (or a NotFound) per object.
  const found = new Map((await store.list(loopbackContext())).items.map((o) => [o.metadata.name, o]));
  // The objects are independent: their writes share the storage's commits instead of waiting for one another.
  await Promise.all(objects.map((o) => ensure(store, kind, o, found.get(o.name))));
}

async function ensure(store: ResourceStore, kind: string, { name, spec, mandatory, matches }: BootstrapObject, found: KubeObject | undefined): Promise<void> {
  const ctx = loopbackContext();
  const kept = (current: KubeObject): boolean => {
    const annotations = (current.metadata?.annotations ?? {}) as Record<string, string>;
    return !(mandatory || annotations[AUTO_UPDATE_ANNOTATION] === 'true') || (matches ? matches(current.spec) : semanticEqual(current.spec, spec));
  };
  if (found && kept(found)) return;
  try {
    await store.update(ctx, name, (current) => {
      if (!current) return { apiVersion: API_VERSION, kind, metadata: { name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } }, spec };
      if (kept(current)) return current;
      const annotations = (current.metadata?.annotations ?? {}) as Record<string, string>;
      return { ...current, metadata: { ...current.metadata, annotations: { ...annotations, [AUTO_UPDATE_ANNOTATION]: 'true' } }, spec };
    }, { forceAllowCreate: true });
  } catch (e) {
    if (!(isStatusError(e) && (e.code === 409 || e.reason === 'AlreadyExists'))) throw e;
  }
}

function danglingCondition(plName: string, exists: boolean, previous: Record<string, unknown> | undefined): Record<string, unknown> {
  const status = exists ? 'False' : 'True';
  return {
    type: 'Dangling',
    status,
    lastTransitionTime: previous?.status === status && previous.lastTransitionTime ? previous.lastTransitionTime : clockDate().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    reason: exists ? 'Found' : 'NotFound',
    message: exists
      ? `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(plName)} and it exists`
      : `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(plName)} but there is no such object`,
  };
}

export async function startFlowControlConfig(registry: Registry): Promise<FlowControlConfigController | undefined> {
  const fsDef = registry.lookup(GROUP, 'v1', 'flowschemas');
  const plDef = registry.lookup(GROUP, 'v1', 'prioritylevelconfigurations');
  if (!fsDef || !plDef) return undefined;
  const objects = (mandatory: Record<string, unknown>, suggested: Record<string, unknown>, matches?: (name: string, current: unknown) => boolean): BootstrapObject[] => [
    ...Object.entries(mandatory).map(([name, spec]) => ({ name, spec, mandatory: true, ...(matches ? { matches: (current: unknown) => matches(name, current) } : {}) })),
    ...Object.entries(suggested).map(([name, spec]) => ({ name, spec, mandatory: false })),
  ];
  await Promise.all([
    // As kube's ensurer, the exempt level's spec.exempt is the admin's to tune: only the rest is put back.
    ensureAll(registry, 'prioritylevelconfigurations', 'PriorityLevelConfiguration', objects(MANDATORY_PRIORITY_LEVELS, SUGGESTED_PRIORITY_LEVELS, isFixedPriorityLevelSpec)),
    ensureAll(registry, 'flowschemas', 'FlowSchema', objects(MANDATORY_FLOW_SCHEMAS, SUGGESTED_FLOW_SCHEMAS)),
  ]);

  const fsStore = registry.store(fsDef);
  const schemas: Informer = startInformer(fsStore);
  const levels: Informer = startInformer(registry.store(plDef));
  let version = 0;
  let fsCache: FlowSchema[] | undefined;
  let plCache: PriorityLevelConfiguration[] | undefined;
  let conditionsPending = false;
  let stopped = false;

  const syncConditions = async (): Promise<void> => {
    conditionsPending = false;
    if (stopped) return;
    const plNames = new Set([...levels.items()].map((p) => p.metadata?.name));
    const writes: Promise<unknown>[] = [];
    for (const fs of [...schemas.items()]) {
      const plName = ((fs.spec as { priorityLevelConfiguration?: { name?: string } })?.priorityLevelConfiguration?.name) ?? '';
      const conditions = ((fs.status as { conditions?: Record<string, unknown>[] } | undefined)?.conditions ?? []);
      const previous = conditions.find((c) => c.type === 'Dangling');
      const wanted = danglingCondition(plName, plNames.has(plName), previous);
      if (previous && previous.status === wanted.status && previous.message === wanted.message) continue;
      const write = fsStore.update(loopbackContext(), fs.metadata!.name!, (current: KubeObject | undefined) => {
        if (!current) throw new Error('gone');
        const others = ((current.status as { conditions?: Record<string, unknown>[] } | undefined)?.conditions ?? []).filter((c) => c.type !== 'Dangling');
        return { ...current, status: { ...(current.status as object), conditions: [...others, wanted] } };
      }, { subresource: 'status' });
      writes.push(write.catch(() => undefined));
    }
    await Promise.all(writes);
  };
  const changed = (): void => {
    version++;
    fsCache = undefined;
    plCache = undefined;
    if (!conditionsPending) {
      conditionsPending = true;
      setTimeout(() => void syncConditions(), 50).unref();
    }
  };
  const offFs = schemas.onEvent(changed);
  const offPl = levels.onEvent(changed);

  return {
    version: () => version,
    flowSchemas: () => (fsCache ??= [...schemas.items()] as unknown as FlowSchema[]),
    priorityLevels: () => (plCache ??= [...levels.items()] as unknown as PriorityLevelConfiguration[]),
    async synced() {
      // Watches open too: the server's own watchers are all in place before it answers anyone.
      await Promise.all([schemas.synced(), levels.synced(), schemas.watching(), levels.watching()]);
      version++;
      await syncConditions();
    },
    stop() {
      stopped = true;
      offFs();
      offPl();
      schemas.stop();
      levels.stop();
    },
  };
}
