// The log of a container on a simulated node, as a kubelet serves it: the run asked for (the current one, or with
// `previous` the one before) must exist, else the kubelet's 400 (waiting to start, no previous run), which the
// apiserver hands on as a BadRequest; then what the run printed (the containers test control's `logs`, else
// nothing), with the kubelet's options: lines since a time, the last N lines, timestamps, a byte limit. Every line of
// a run is stamped with the run's start. A followed log of a running container stays open until that run ends.

import { badRequest } from '../../apis/errors.ts';
import { clockNow } from '../../apis/clock.ts';
import type { KubeObject } from '../../registry/types.ts';

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** The container's status among the pod's regular, init and ephemeral containers' statuses. */
function statusOf(pod: KubeObject, container: string): Obj | undefined {
  const status = asObj(pod.status);
  for (const field of ['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses']) {
    const found = ((status[field] as unknown[] | undefined) ?? []).map(asObj).find((s) => s.name === container);
    if (found) return found;
  }
  return undefined;
}

/** The run a log is read from: when it started, and its container ID while it runs. */
interface LoggedRun {
  readonly startedAt: string;
  readonly running?: string;
}

/**
 * validateContainerLogStatus: the run whose log is read, or the kubelet's error. A pod the simulated kubelet has not
 * started yet has its containers waiting in ContainerCreating, as a kubelet reports them.
 */
function loggedRun(pod: KubeObject, container: string, previous: boolean): LoggedRun {
  const podName = pod.metadata.name ?? '';
  const where = `container ${JSON.stringify(container)} in pod ${JSON.stringify(podName)}`;
  const status = statusOf(pod, container);
  if (!status) {
    const phase = asObj(pod.status).phase;
    if (phase === undefined || phase === 'Pending') throw badRequest(`${where} is waiting to start: ContainerCreating`);
    throw badRequest(`${where} is not available`);
  }
  const state = asObj(status.state);
  const last = asObj(asObj(status.lastState).terminated);
  const lastRun = typeof last.containerID === 'string' && last.containerID !== '' ? last : undefined;
  if (previous) {
    if (!lastRun) throw badRequest(`previous terminated ${where} not found`);
    return { startedAt: String(lastRun.startedAt ?? '') };
  }
  if (state.running) return { startedAt: String(asObj(state.running).startedAt ?? ''), running: String(status.containerID ?? '') };
  if (state.terminated) {
    const terminated = asObj(state.terminated);
    if (typeof terminated.containerID === 'string' && terminated.containerID !== '') return { startedAt: String(terminated.startedAt ?? '') };
    if (lastRun) return { startedAt: String(lastRun.startedAt ?? '') };
    throw badRequest(`${where} is terminated`);
  }
  if (lastRun) return { startedAt: String(lastRun.startedAt ?? '') };
  const waiting = asObj(state.waiting);
  if (state.waiting) throw badRequest(`${where} is waiting to start: ${String(waiting.reason ?? '')}`);
  throw badRequest(`${where} is waiting to start - no logs yet`);
}

export interface LogOptions {
  readonly previous: boolean;
  readonly follow: boolean;
  readonly timestamps: boolean;
  readonly tailLines?: number;
  readonly limitBytes?: number;
  readonly sinceSeconds?: number;
  /** RFC 3339 text. */
  readonly sinceTime?: string;
}

export interface SimulatedLog {
  readonly body: Uint8Array;
  /** With follow, the running container's ID: the log stays open until that run ends. */
  readonly following?: string;
}

/** The log of the container's run, or a StatusError (400) as the kubelet's answer becomes one. */
export function simulatedLog(pod: KubeObject, container: string, printed: string, options: LogOptions): SimulatedLog {
  const run = loggedRun(pod, container, options.previous);
  const body = logBody(run.startedAt, printed, options);
  const full = options.limitBytes !== undefined && body.length >= options.limitBytes;
  return options.follow && run.running !== undefined && !full ? { body, following: run.running } : { body };
}

/** The ID of the container's run while it runs. */
export function runningId(pod: KubeObject, container: string): string | undefined {
  const status = statusOf(pod, container);
  return status && asObj(status.state).running !== undefined ? String(status.containerID ?? '') : undefined;
}

/** Whether the container runs (the run of this ID, when given). */
export function stillRunning(pod: KubeObject, container: string, id?: string): boolean {
  const status = statusOf(pod, container);
  return status !== undefined && (id === undefined || status.containerID === id) && asObj(status.state).running !== undefined;
}

function logBody(startedAt: string, printed: string, options: LogOptions): Uint8Array {
  const stamp = Date.parse(startedAt);
  const since = options.sinceSeconds !== undefined ? clockNow() - options.sinceSeconds * 1000 : options.sinceTime ? Date.parse(options.sinceTime) : undefined;
  if (printed === '' || (since !== undefined && stamp < since)) return new Uint8Array(0);
  let lines: string[] = printed.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  if (options.tailLines !== undefined) lines = options.tailLines === 0 ? [] : lines.slice(-options.tailLines);
  const body = Buffer.from(options.timestamps ? lines.map((l) => `${startedAt} ${l}`).join('') : lines.join(''), 'utf8');
  return options.limitBytes !== undefined && body.length > options.limitBytes ? body.subarray(0, options.limitBytes) : body;
}
