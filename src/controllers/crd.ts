// The CustomResourceDefinition controllers of apiextensions-apiserver, in one loop per CRD name: naming
// (status.acceptedNames and NamesAccepted, with kube's conflict reasons against the other CRDs of the group),
// establishing (Established, after which the versions are served), serving (the CRD's ResourceDefinitions
// registered with the registry, replaced on every spec change, removed when the CRD goes), and finalizing
// (on deletion every instance is deleted through its store, then the cleanup finalizer is removed).

import { isStatusError, StatusError } from '../apis/errors.ts';
import { compileValidationRules, type CompiledRules } from '../registry/apiextensions/cel-rules.ts';
import { customResourceDefinitions } from '../registry/apiextensions/custom-resource-definitions.ts';
import { webhookConverter } from '../registry/apiextensions/conversion-webhook.ts';
import { customResourceStrategy, type CrdRuntime, type VersionRuntime } from '../registry/apiextensions/custom-resource-strategy.ts';
import { hasStatusSubresource, scaleSubresource, versionSchema } from '../registry/apiextensions/crd-layout.ts';
import { setCrdCondition } from '../registry/apiextensions/crd-strategy.ts';
import { CLEANUP_FINALIZER, crdConditionTrue, type CrdCondition, type CrdNames, type CustomResourceDefinition } from '../registry/apiextensions/crd-types.ts';
import { compileSchema, type CompiledSchema } from '../registry/apiextensions/schema/index.ts';
import { loopbackContext, type RegistryHandle } from '../registry/registry.ts';
import { apiserverWriteContext } from '../endpoints/managed-fields.ts';
import type { KubeObject, ResourceDefinition, ResourceStore, Strategy } from '../registry/types.ts';
import { jsonEqual } from '../registry/store-codec.ts';
import { startWorkQueue, type WorkQueue } from './work-queue.ts';
import { cloneJson } from '../apis/json-clone.ts';
import { validateCABundle } from '../webhook/ca-bundle.ts';

export interface CrdController {
  /** Resolves once the CRDs stored at start are served. */
  synced(): Promise<void>;
  /** Resolves once every CRD event seen so far is processed (tests; installCRDs waits on conditions instead). */
  idle(): Promise<void>;
  /** Checks every stored and every served CRD again (after a restore of the test controls); resolves when done. */
  resync(): Promise<void>;
  stop(): Promise<void>;
}

export interface CrdControllerOptions {
  /** Delay before retrying a failed pass or checking again for remaining instances (default 1000 ms). */
  retryMs?: number;
}

/** What the controller keeps per served CRD. */
interface Served {
  readonly uid: string;
  /** The CRD generation and resource name the definitions were built from. */
  generation: number;
  plural: string;
  defs: ResourceDefinition[];
  versions: Map<string, VersionRuntime>;
  namespaced: boolean;
  terminating: boolean;
  /** One strategy per CRD: the group/resource's store keeps it; it reads the versions above. */
  readonly strategy: Strategy;
}

const notFound = (e: unknown) => isStatusError(e) && e.code === 404;

function condition(type: string, status: CrdCondition['status'], reason: string, message: string): CrdCondition {
  return { type, status, reason, message };
}

/** The names other CRDs of the same group have been given (kube's naming controller's view). */
function takenNames(others: readonly CustomResourceDefinition[]) {
  const plurals = new Set<string>();
  const singulars = new Set<string>();
  const shortNames = new Set<string>();
  const kinds = new Set<string>();
  const listKinds = new Set<string>();
  for (const o of others) {
    const n = o.status?.acceptedNames ?? {};
    // Resource names (plural, singular, short names) share one space, as do kinds and list kinds.
    for (const x of [n.plural, n.singular, ...(n.shortNames ?? [])]) if (x) (plurals.add(x), singulars.add(x), shortNames.add(x));
    for (const x of [n.kind, n.listKind]) if (x) (kinds.add(x), listKinds.add(x));
  }
  return { plurals, singulars, shortNames, kinds, listKinds };
}

/** The establishing controller holds back a CRD whose conversion webhook could not trust its caBundle. */
function hasInvalidConversionCABundle(crd: CustomResourceDefinition): boolean {
  const clientConfig = crd.spec.conversion?.webhook?.clientConfig;
  return !!clientConfig && validateCABundle('', clientConfig.caBundle).length > 0;
}

/** calculateNamesAndConditions: the accepted names and the NamesAccepted / Established conditions. */
export function namesAndConditions(crd: CustomResourceDefinition, others: readonly CustomResourceDefinition[]): { names: CrdNames; namesAccepted: CrdCondition; established: CrdCondition } {
  const requested = crd.spec.names ?? {};
  const accepted = crd.status?.acceptedNames ?? {};
  const taken = takenNames(others);
  const names: CrdNames = { ...accepted };
  let namesAccepted = condition('NamesAccepted', 'True', 'NoConflicts', 'no conflicts found');
  const conflict = (reason: string, value: string) => (namesAccepted = condition('NamesAccepted', 'False', reason, `"${value}" is already in use`));
  const check = (value: string | undefined, current: string | undefined, set: Set<string>) => value === undefined || value === current || !set.has(value);

  if (check(requested.plural, accepted.plural, taken.plurals)) names.plural = requested.plural;
  else conflict('PluralConflict', requested.plural ?? '');
  if (check(requested.singular, accepted.singular, taken.singulars)) names.singular = requested.singular;
  else conflict('SingularConflict', requested.singular ?? '');
  const clash = (requested.shortNames ?? []).find((s) => !(accepted.shortNames ?? []).includes(s) && taken.shortNames.has(s));
  if (clash === undefined) names.shortNames = requested.shortNames;
  else conflict('ShortNamesConflict', clash);
  if (check(requested.kind, accepted.kind, taken.kinds)) names.kind = requested.kind;
  else conflict('KindConflict', requested.kind ?? '');
  if (check(requested.listKind, accepted.listKind, taken.listKinds)) names.listKind = requested.listKind;
  else conflict('ListKindConflict', requested.listKind ?? '');
  names.categories = requested.categories;
  for (const k of Object.keys(names) as (keyof CrdNames)[]) if (names[k] === undefined) delete names[k];

  let established: CrdCondition;
  if (crdConditionTrue(crd, 'Established')) established = condition('Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted');
  else if (namesAccepted.status === 'True' && hasInvalidConversionCABundle(crd)) established = condition('Established', 'False', 'InvalidCABundle', 'The conversion webhook CABundle is invalid');
  else if (namesAccepted.status === 'True') established = condition('Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted');
  else established = condition('Established', 'False', 'NotAccepted', 'not all names are accepted');
  return { names: { plural: names.plural ?? '', kind: names.kind ?? '', ...names }, namesAccepted, established };
}

function versionRuntimes(crd: CustomResourceDefinition): Map<string, VersionRuntime> {
  const group = crd.spec.group ?? '';
  const out = new Map<string, VersionRuntime>();
  for (const v of crd.spec.versions ?? []) {
    if (!v.name) continue;
    const schema = versionSchema(v);
    let compiled: CompiledSchema | undefined;
    let rules: CompiledRules | undefined;
    if (schema) {
      compiled = compileSchema(schema);
      rules = compileValidationRules(schema, `spec.versions[${v.name}].schema.openAPIV3Schema`).rules;
    }
    out.set(`${group}/${v.name}`, { apiVersion: `${group}/${v.name}`, schema: compiled, rules, statusEnabled: hasStatusSubresource(v), scale: scaleSubresource(v) ?? undefined });
  }
  return out;
}

function terminatingError(crd: CustomResourceDefinition): StatusError {
  const group = crd.spec.group ?? '';
  const resource = crd.status?.acceptedNames?.plural ?? '';
  return new StatusError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', { ...(group ? { group } : {}), kind: resource });
}

export function startCrdController(registry: RegistryHandle, options: CrdControllerOptions = {}): CrdController {
  const retryMs = options.retryMs ?? 1000;
  const served = new Map<string, Served>();
  const ctx = loopbackContext();

  const crdStore = (): ResourceStore | undefined => {
    const def = registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    return def ? registry.store(def) : undefined;
  };

  function unserve(name: string) {
    const s = served.get(name);
    if (!s) return;
    served.delete(name);
    registry.unregister(s.defs);
  }

  function servedState(crd: CustomResourceDefinition): Served {
    const name = crd.metadata.name ?? '';
    const uid = crd.metadata.uid ?? '';
    const existing = served.get(name);
    if (existing?.uid === uid) return existing;
    if (existing) unserve(name);
    const state: Served = {
      uid,
      generation: -1,
      plural: '',
      defs: [],
      versions: new Map(),
      namespaced: crd.spec.scope === 'Namespaced',
      terminating: false,
      strategy: customResourceStrategy(() => runtime),
    };
    const runtime: CrdRuntime = {
      get namespaced() {
        return state.namespaced;
      },
      version: (apiVersion) => (apiVersion ? state.versions.get(apiVersion) : undefined),
      createRefusal: () => (state.terminating ? terminatingError(crd) : undefined),
    };
    served.set(name, state);
    return state;
  }

  /** Registers (or re-registers after a spec change) the served versions of an established CRD. */
  function serve(crd: CustomResourceDefinition) {
    const state = servedState(crd);
    state.terminating = !!crd.metadata.deletionTimestamp;
    const generation = crd.metadata.generation ?? 0;
    const plural = crd.status?.acceptedNames?.plural ?? '';
    if (state.generation === generation && state.plural === plural) return;
    state.versions = versionRuntimes(crd);
    state.namespaced = crd.spec.scope === 'Namespaced';
    const convertAsync = crd.spec.conversion?.strategy === 'Webhook' ? webhookConverter(crd, registry) : undefined;
    // As kube's storage decoder, reads default each object by the schema of the version it is stored in.
    const defaulted = [...state.versions.values()].some((v) => v.schema?.root.hasDefaultsBelow);
    // A function of its own per generation: what was checked against the old defaults is checked again.
    const defaults = state.strategy.defaults!;
    const readDefaults = defaulted ? (obj: KubeObject) => defaults(obj) : undefined;
    const defs = customResourceDefinitions(crd, { strategy: state.strategy, convertAsync, readDefaults, schemaNode: (v) => state.versions.get(`${crd.spec.group}/${v}`)?.schema?.node });
    const gone = state.defs.filter((d) => !defs.some((n) => n.version === d.version && n.resource === d.resource));
    if (gone.length) registry.unregister(gone);
    Object.assign(state, { defs, generation, plural });
    registry.register(defs);
  }

  async function updateStatus(name: string, mutate: (crd: CustomResourceDefinition) => void): Promise<CustomResourceDefinition | undefined> {
    const store = crdStore();
    if (!store) return undefined;
    try {
      // apiextensions-apiserver's controllers write through kube-apiserver's loopback client: recorded as it.
      const res = await store.update(
        await apiserverWriteContext(store.definition),
        name,
        (cur) => {
          const next = cloneJson(cur!) as CustomResourceDefinition;
          mutate(next);
          return next;
        },
        { subresource: 'status' },
      );
      return res.object as CustomResourceDefinition;
    } catch (e) {
      if (notFound(e)) return undefined;
      throw e;
    }
  }

  /** Deletes every instance; true when none is left. */
  async function deleteInstances(crd: CustomResourceDefinition): Promise<{ done: boolean; error?: string }> {
    const s = served.get(crd.metadata.name ?? '');
    const def = s?.defs[0];
    if (!def) return { done: true };
    const store = registry.store(def);
    const all = await store.list(ctx, {});
    const errors: string[] = [];
    for (const item of all.items) {
      if (item.metadata.deletionTimestamp) continue;
      try {
        await store.delete(loopbackContext(item.metadata.namespace ?? ''), item.metadata.name ?? '', {});
      } catch (e) {
        if (!notFound(e)) errors.push(e instanceof Error ? e.message : String(e));
      }
    }
    if (errors.length) return { done: false, error: errors.join(', ') };
    return { done: (await store.list(ctx, {})).items.length === 0 };
  }

  async function finalize(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata.name ?? '';
    if (!crd.metadata.finalizers?.includes(CLEANUP_FINALIZER)) return;
    await updateStatus(name, (c) => setCrdCondition(c, condition('Terminating', 'True', 'InstanceDeletionInProgress', 'CustomResource deletion is in progress')));
    const result = await deleteInstances(crd);
    if (!result.done) {
      if (result.error) await updateStatus(name, (c) => setCrdCondition(c, condition('Terminating', 'True', 'InstanceDeletionFailed', `could not delete instances: ${result.error}`)));
      queue.enqueue(name, retryMs);
      return;
    }
    await updateStatus(name, (c) => setCrdCondition(c, condition('Terminating', 'False', 'InstanceDeletionCompleted', 'removed all instances')));
    unserve(name);
    const store = crdStore();
    if (!store) return;
    await store
      .update(await apiserverWriteContext(store.definition), name, (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: (cur!.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER) } }))
      .catch((e) => {
        if (!notFound(e)) throw e;
      });
  }

  async function sync(name: string): Promise<void> {
    const store = crdStore();
    if (!store) return;
    let crd: CustomResourceDefinition;
    try {
      crd = (await store.get(ctx, name)) as CustomResourceDefinition;
    } catch (e) {
      if (notFound(e)) return unserve(name);
      throw e;
    }
    if (!crd.metadata.deletionTimestamp) {
      const others = ((await store.list(ctx, {})).items as CustomResourceDefinition[]).filter((o) => o.metadata.name !== name && o.spec?.group === crd.spec.group);
      const { names, namesAccepted, established } = namesAndConditions(crd, others);
      const status = crd.status ?? {};
      const probe = cloneJson(crd);
      probe.status = { ...status, acceptedNames: names };
      setCrdCondition(probe, namesAccepted);
      setCrdCondition(probe, established);
      if (!jsonEqual(probe.status, crd.status)) {
        const updated = await updateStatus(name, (c) => {
          c.status = { ...(c.status ?? {}), acceptedNames: names };
          setCrdCondition(c, namesAccepted);
          setCrdCondition(c, established);
        });
        if (!updated) return;
        crd = updated;
        // A name this CRD gave up may now be free for another CRD of the group.
        for (const o of others) if (o.status?.conditions?.some((c) => c.type === 'NamesAccepted' && c.status === 'False')) queue.enqueue(o.metadata.name ?? '');
      }
    }
    if (crdConditionTrue(crd, 'Established')) serve(crd);
    if (crd.metadata.deletionTimestamp) await finalize(crd);
  }

  const queue: WorkQueue = startWorkQueue({ store: crdStore, context: ctx, sync, retryMs });
  // CRDs already stored (a restart) are served before start-up completes, as kube's crd-informer-synced check waits.
  const initial = crdStore()
    ?.list(ctx, {})
    .then(async (list) => {
      for (const item of list.items) await sync(item.metadata.name ?? '').catch(() => queue.enqueue(item.metadata.name ?? '', retryMs));
    });

  return {
    synced: async () => {
      await initial;
    },
    idle: () => queue.idle(),
    async resync() {
      const names = new Set(served.keys());
      for (const item of (await crdStore()?.list(ctx, {}))?.items ?? []) names.add(item.metadata.name ?? '');
      for (const name of names) queue.enqueue(name);
      await queue.idle();
    },
    async stop() {
      await queue.stop();
    },
  };
}
