// The test controls of one server: snapshots (restore, reset, fork), faults, the clock, the simulated kubelets and
// their containers' usage and runs, the recording and logical clusters. Both doors use this object: the library handle's methods and the HTTP paths under /capstan/v1/.
// Everything goes through the seams a request uses: a restore is a storage operation (revisions move forward,
// watchers are told as after a compaction, the watch caches relist), faults and the recording sit in the filter
// chain, logical clusters are whole API stacks of their own behind the same listeners.

import { StatusError } from '../apis/errors.ts';
import { clock, type ClockState } from '../apis/clock.ts';
import type { ControlPlane } from '../controllers/index.ts';
import type { ContainerRunRule } from '../controllers/simulation/container-runs.ts';
import { PodRuleError, type RuleView } from '../controllers/simulation/pod-rules.ts';
import type { UsageRule } from '../controllers/simulation/resource-usage.ts';
import type { RegistryHandle } from '../registry/registry.ts';
import type { Logger } from '../server/log.ts';
import type { ApiServer } from '../server/types.ts';
import type { Storage, StorageSnapshot } from '../storage/types.ts';
import { parseDuration } from './duration.ts';
import { createFaults, type FaultHandle, type FaultLogEntry, type FaultRule, type Faults, type FaultView } from './faults.ts';
import { createRecorder, type AuditEventList, type Recorder, type RequestQuery, type RequestRecord } from './recorder.ts';

/** A failed control call: the HTTP door answers with this code and message as a Status. */
export class ControlError extends StatusError {}

const badControl = (message: string) => new ControlError(400, 'BadRequest', message);
const notFoundControl = (message: string) => new ControlError(404, 'NotFound', message);
const NO_KUBELETS = 'no simulated kubelets run on this server (start it with --simulate-workloads; with several instances, they run on the one that leads)';

export interface SnapshotInfo {
  readonly id: string;
  /** The storage revision it was taken at. */
  readonly revision: number;
  readonly objects: number;
  readonly created: string;
}

/** What fork() returns: a second server (close it when done; the parent's close() closes it too). */
export interface ForkedServer {
  readonly url: string;
  readonly kubeconfig: string;
  readonly kubeconfigPath: string;
  close(): Promise<void>;
}

export interface LogicalCluster {
  readonly name: string;
  /** The server URL with /clusters/<name>. */
  readonly url: string;
  /** A kubeconfig for it (the admin credentials). */
  readonly kubeconfig: string;
}

/** One API stack of a logical cluster (built by start-up: storage, registry, control plane, endpoints). */
export interface ClusterStack {
  readonly api: ApiServer;
  close(): Promise<void>;
}

export interface ClockControls {
  /** The clock's state now. */
  state(): ClockState;
  /** Stops the clock (at `at` when given: a Date, ms since the epoch or an RFC 3339 text). */
  freeze(at?: Date | number | string): ClockState;
  /** Moves it forward: "10m", "1h30m", "250ms" or milliseconds. */
  advance(by: string | number): ClockState;
  set(to: Date | number | string): ClockState;
  /** Lets a frozen clock run again from where it stands. */
  resume(): ClockState;
  /** Back to real time. */
  reset(): ClockState;
}

/** The simulated kubelets (--simulate-workloads): stop one to take its node down, start it to bring it back. */
export interface KubeletTestControls {
  list(): { node: string; running: boolean }[];
  stop(node: string): Promise<{ node: string; running: boolean }>;
  start(node: string): Promise<{ node: string; running: boolean }>;
}

/** Rules about the simulated containers: each matches pods (and maybe one container); the last setting a value wins. */
export interface RuleControls<R> {
  add(rule: R): RuleView<R>;
  remove(id: string): boolean;
  clear(): void;
  list(): RuleView<R>[];
}

/**
 * What the simulated kubelets report as their containers' usage (--simulate-workloads: the metrics API that
 * `kubectl top` and the horizontal pod autoscaler read).
 */
export type UsageControls = RuleControls<UsageRule>;

/**
 * How the simulated containers run (--simulate-workloads): when they exit and with what code and reason (restarted
 * as their pod's restartPolicy says, with the kubelet's crash loop backoff), and what they print (`kubectl logs`).
 */
export type ContainerControls = RuleControls<ContainerRunRule>;

export interface RecordingControls {
  /** Turn recording on or off, bodies on or off. */
  configure(options: { enabled?: boolean; bodies?: boolean }): { enabled: boolean; bodies: boolean };
  clear(): void;
  /** The records as audit.k8s.io/v1 Events. */
  auditEvents(query?: RequestQuery): AuditEventList;
}

export interface FaultControls {
  add(rule: FaultRule): FaultHandle;
  remove(id: string): boolean;
  clear(): void;
  list(): FaultView[];
  /** Every fault injected so far. */
  log(): FaultLogEntry[];
}

export interface TestControls {
  /** Captures the whole store; returns the id restore() takes. */
  snapshot(): Promise<string>;
  snapshots(): SnapshotInfo[];
  deleteSnapshot(id: string): boolean;
  /** Brings the whole store back to a snapshot; resolves once the watch caches serve it. */
  restore(id: string): Promise<void>;
  /** Back to the state the server had when start-up finished. */
  reset(): Promise<void>;
  /** A second server started from a snapshot (a fresh one when no id is given). */
  fork(id?: string): Promise<ForkedServer>;
  readonly faults: FaultControls;
  readonly clock: ClockControls;
  readonly kubelets: KubeletTestControls;
  readonly usage: UsageControls;
  readonly containers: ContainerControls;
  /** Recorded requests matching the query (all when none is given). */
  requests(query?: RequestQuery): RequestRecord[];
  readonly recording: RecordingControls;
  createCluster(name: string): Promise<LogicalCluster>;
  deleteCluster(name: string): Promise<boolean>;
  clusters(): LogicalCluster[];
}

export interface ControlsDeps {
  readonly storage: Storage;
  readonly registry: RegistryHandle;
  readonly controlPlane: ControlPlane;
  readonly log: Logger;
  /** The server's URL (for cluster URLs and kubeconfigs); known once the listener is up. */
  readonly url: () => string;
  readonly kubeconfigFor: (server: string) => string;
  /** Starts a second server on memory storage restored from the snapshot. */
  readonly fork: (snapshot: StorageSnapshot) => Promise<ForkedServer>;
  /** Builds the API stack of a new logical cluster. */
  readonly buildCluster: (name: string) => Promise<ClusterStack>;
  /** Most logical clusters one server holds (default 1000). */
  readonly maxClusters?: number;
}

/** The internal side the filter-chain hooks use. */
export interface ControlsInternals {
  readonly faults: Faults;
  readonly recorder: Recorder;
  /** The API of a logical cluster, if it exists. */
  clusterApi(name: string): ApiServer | undefined;
  /** Takes the post-start snapshot reset() returns to. */
  markBaseline(): Promise<void>;
  close(): Promise<void>;
}

const CLUSTER_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const CACHE_READY_MS = 10_000;

function timeOf(v: Date | number | string, what: string): number {
  const t = v instanceof Date ? v.getTime() : typeof v === 'number' ? v : typeof v === 'string' ? Date.parse(v) : NaN;
  if (!Number.isFinite(t)) throw badControl(`${what}: want a time (RFC 3339 text, a Date or milliseconds since the epoch), not ${JSON.stringify(v)}`);
  return t;
}

export function createTestControls(deps: ControlsDeps): TestControls & { readonly internals: ControlsInternals } {
  const { storage, registry, controlPlane, log } = deps;
  const maxClusters = deps.maxClusters ?? 1000;
  const stored = new Map<string, { info: SnapshotInfo; snapshot: StorageSnapshot }>();
  let seq = 0;
  let baseline: StorageSnapshot | undefined;
  const forks = new Set<ForkedServer>();
  const clusters = new Map<string, { view: LogicalCluster; stack: ClusterStack }>();
  const pendingClusters = new Set<string>();
  /** Restores run one at a time. */
  let restoring: Promise<void> = Promise.resolve();

  const faults = createFaults((e) => log.info('injected fault', { ...e }));
  const recorder = createRecorder();

  async function take(): Promise<StorageSnapshot> {
    if (!storage.snapshot) throw new ControlError(501, 'NotImplemented', `storage backend ${storage.name} cannot take snapshots`);
    return storage.snapshot();
  }

  async function restoreTo(snapshot: StorageSnapshot): Promise<void> {
    if (!storage.restore) throw new ControlError(501, 'NotImplemented', `storage backend ${storage.name} cannot restore snapshots`);
    const run = restoring.then(async () => {
      await storage.restore!(snapshot);
      // The watch hub tells its watchers on the next turn; after it the caches are relisting.
      await new Promise((r) => setImmediate(r));
      if (!(await registry.cachesReady(CACHE_READY_MS))) throw new ControlError(503, 'ServiceUnavailable', 'the watch caches did not relist after the restore');
      await controlPlane.crds.resync();
    });
    restoring = run.catch(() => undefined);
    await run;
  }

  const simulated = () => {
    const sim = controlPlane.kubelets();
    if (!sim) throw notFoundControl(NO_KUBELETS);
    return sim;
  };
  const kubeletState = (node: string) => simulated().list().find((k) => k.node === node)!;
  const setKubelet = async (node: unknown, running: boolean) => {
    const sim = simulated();
    if (typeof node !== 'string' || !sim.list().some((k) => k.node === node)) {
      throw notFoundControl(`no simulated kubelet serves node ${JSON.stringify(node)} (simulated nodes: ${sim.list().map((k) => k.node).join(', ')})`);
    }
    await (running ? sim.start(node) : sim.stop(node));
    return kubeletState(node);
  };
  const kubeletControls: KubeletTestControls = {
    list: () => simulated().list(),
    stop: (node) => setKubelet(node, false),
    start: (node) => setKubelet(node, true),
  };

  /** The controls of a rule set the simulation may lack (`missing` says why it is not there). */
  function ruleControls<R>(rules: () => RuleControls<R> | undefined, missing: string): RuleControls<R> {
    const present = () => {
      const r = rules();
      if (!r) throw notFoundControl(missing);
      return r;
    };
    return {
      add(rule) {
        try {
          return present().add(rule);
        } catch (e) {
          if (e instanceof PodRuleError) throw badControl(e.message);
          throw e;
        }
      },
      remove: (id) => present().remove(id),
      clear: () => present().clear(),
      list: () => present().list(),
    };
  }
  const usageControls = ruleControls(() => controlPlane.usage(), 'no simulated metrics API runs on this server (start it with --simulate-workloads and the metrics API on; with several instances, it runs on the one that leads)');
  const containerControls = ruleControls(() => controlPlane.containers(), NO_KUBELETS);

  const clockState = () => clock.state();
  const clockControls: ClockControls = {
    state: clockState,
    freeze(at) {
      clock.freeze(at === undefined ? undefined : timeOf(at, 'clock freeze'));
      return clockState();
    },
    advance(by) {
      let ms: number;
      try {
        ms = parseDuration(by, 'clock advance');
      } catch (e) {
        throw badControl((e as Error).message);
      }
      clock.advance(ms);
      return clockState();
    },
    set(to) {
      clock.set(timeOf(to, 'clock set'));
      return clockState();
    },
    resume() {
      clock.resume();
      return clockState();
    },
    reset() {
      clock.reset();
      return clockState();
    },
  };

  const clusterView = (name: string): LogicalCluster => {
    const url = `${deps.url()}/clusters/${name}`;
    return { name, url, kubeconfig: deps.kubeconfigFor(url) };
  };

  const controls: TestControls & { readonly internals: ControlsInternals } = {
    async snapshot() {
      const snapshot = await take();
      const id = `snapshot-${++seq}`;
      stored.set(id, { info: { id, revision: snapshot.revision, objects: snapshot.kvs.length, created: new Date().toISOString() }, snapshot });
      return id;
    },
    snapshots: () => [...stored.values()].map((s) => s.info),
    deleteSnapshot: (id) => stored.delete(id),
    async restore(id) {
      if (typeof id !== 'string') throw badControl('restore: want a snapshot id');
      const s = stored.get(id);
      if (!s) throw notFoundControl(`snapshot "${id}" not found`);
      await restoreTo(s.snapshot);
    },
    async reset() {
      if (!baseline) throw new ControlError(503, 'ServiceUnavailable', 'the server has not finished starting');
      await restoreTo(baseline);
      // At the end of start-up every simulated kubelet ran, and simulated containers used nothing.
      controlPlane.usage()?.clear();
      controlPlane.containers()?.clear();
      const sim = controlPlane.kubelets();
      for (const k of sim?.list() ?? []) if (!k.running) await sim!.start(k.node);
    },
    async fork(id) {
      let snapshot: StorageSnapshot;
      if (id === undefined) snapshot = await take();
      else {
        const s = typeof id === 'string' ? stored.get(id) : undefined;
        if (!s) throw notFoundControl(`snapshot ${JSON.stringify(id)} not found`);
        snapshot = s.snapshot;
      }
      const child = await deps.fork(snapshot);
      const tracked: ForkedServer = {
        ...child,
        close: async () => {
          forks.delete(tracked);
          await child.close();
        },
      };
      forks.add(tracked);
      return tracked;
    },
    faults: {
      add(rule) {
        try {
          return faults.add(rule);
        } catch (e) {
          throw badControl((e as Error).message);
        }
      },
      remove: (id) => faults.remove(id),
      clear: () => faults.clear(),
      list: () => faults.list(),
      log: () => faults.log(),
    },
    clock: clockControls,
    kubelets: kubeletControls,
    usage: usageControls,
    containers: containerControls,
    requests: (query) => recorder.query(query),
    recording: {
      configure(o) {
        recorder.configure(o);
        return { enabled: recorder.enabled, bodies: recorder.bodies };
      },
      clear: () => recorder.clear(),
      auditEvents: (query) => recorder.auditEvents(query),
    },
    async createCluster(name) {
      if (typeof name !== 'string' || name.length > 63 || !CLUSTER_NAME.test(name)) {
        throw badControl(`cluster name ${JSON.stringify(name)} is invalid: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (at most 63 characters)`);
      }
      if (clusters.has(name) || pendingClusters.has(name)) throw new ControlError(409, 'AlreadyExists', `cluster "${name}" already exists`);
      if (clusters.size + pendingClusters.size >= maxClusters) throw new ControlError(429, 'TooManyRequests', `at most ${maxClusters} logical clusters per server (${clusters.size} exist); delete some first`);
      pendingClusters.add(name);
      try {
        const stack = await deps.buildCluster(name);
        const view = clusterView(name);
        clusters.set(name, { view, stack });
        return view;
      } finally {
        pendingClusters.delete(name);
      }
    },
    async deleteCluster(name) {
      const c = clusters.get(name);
      if (!c) return false;
      clusters.delete(name);
      await c.stack.close();
      return true;
    },
    clusters: () => [...clusters.values()].map((c) => c.view),
    internals: {
      faults,
      recorder,
      clusterApi: (name) => clusters.get(name)?.stack.api,
      async markBaseline() {
        baseline = await take().catch(() => undefined);
      },
      async close() {
        for (const f of [...forks]) await f.close().catch((e: unknown) => log.error('closing a fork failed', { error: e }));
        for (const [name] of [...clusters]) await controls.deleteCluster(name).catch((e: unknown) => log.error('closing a logical cluster failed', { error: e }));
        stored.clear();
      },
    },
  };
  return controls;
}
