// The log of a container on a simulated node, as a kubelet serves it: the run asked for (the current one, or with
// `previous` the one before) must exist, else the kubelet's 400 (waiting to start, no previous run), which the
// apiserver hands on as a BadRequest; then what the run printed (the containers test control's `logs`, else
// nothing), with the kubelet's options: lines since a time, the last N lines, timestamps, a byte limit. Every line of
// a run is stamped with the run's start. A followed log ends with what is there.

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

/**
 * validateContainerLogStatus: when the run whose log is read started, or the kubelet's error. A pod the simulated
 * kubelet has not started yet has its containers waiting in ContainerCreating, as a kubelet reports them.
 */
function runStart(pod: KubeObject, container: string, previous: boolean): string {
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
    return String(lastRun.startedAt ?? '');
  }
  if (state.running) return String(asObj(state.running).startedAt ?? '');
  if (state.terminated) {
    const terminated = asObj(state.terminated);
    if (typeof terminated.containerID === 'string' && terminated.containerID !== '') return String(terminated.startedAt ?? '');
    if (lastRun) return String(lastRun.startedAt ?? '');
    throw badRequest(`${where} is terminated`);
  }
  if (lastRun) return String(lastRun.startedAt ?? '');
  const waiting = asObj(state.waiting);
  if (state.waiting) throw badRequest(`${where} is waiting to start: ${String(waiting.reason ?? '')}`);
  throw badRequest(`${where} is waiting to start - no logs yet`);
}

export interface LogOptions {
  readonly previous: boolean;
  readonly timestamps: boolean;
  readonly tailLines?: number;
  readonly limitBytes?: number;
  readonly sinceSeconds?: number;
  /** RFC 3339 text. */
  readonly sinceTime?: string;
}

/** The log body of the container's run, or a StatusError (400) as the kubelet's answer becomes one. */
export function simulatedLog(pod: KubeObject, container: string, printed: string, options: LogOptions): Uint8Array {
  const startedAt = runStart(pod, container, options.previous);
  const stamp = Date.parse(startedAt);
  const since = options.sinceSeconds !== undefined ? clockNow() - options.sinceSeconds * 1000 : options.sinceTime ? Date.parse(options.sinceTime) : undefined;
  if (printed === '' || (since !== undefined && stamp < since)) return new Uint8Array(0);
  let lines: string[] = printed.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  if (options.tailLines !== undefined) lines = options.tailLines === 0 ? [] : lines.slice(-options.tailLines);
  const body = Buffer.from(options.timestamps ? lines.map((l) => `${startedAt} ${l}`).join('') : lines.join(''), 'utf8');
  return options.limitBytes !== undefined && body.length > options.limitBytes ? body.subarray(0, options.limitBytes) : body;
}
