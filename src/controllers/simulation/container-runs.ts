// How the simulated containers run, as the tests script it (the containers test control: `capstan.containers.add()`,
// POST /capstan/v1/containers): rules matching pods by namespace, name or label selector, and optionally one
// container, that make the container exit (with an exit code, a reason, after a time on the server clock), fail its
// readiness, liveness or startup probe, and give what it prints (`kubectl logs`) and what commands run in it answer (`kubectl exec`). Without a rule a container runs until its pod goes, or, in a pod that runs to
// completion (restartPolicy Never or OnFailure), exits 0 shortly after it starts. The last matching rule that sets
// a value wins.

import { parseDuration } from '../../testing/duration.ts';
import type { KubeObject } from '../../registry/types.ts';
import { createPodRuleSet, PodRuleError, type PodRuleSet, type PodTarget, type RuleView } from './pod-rules.ts';
import { createContainerFiles, readsStdin, type FileReply } from './container-files.ts';

/** What a command run in the container (`kubectl exec`) answers. */
export interface ExecRule {
  /** The commands it answers: those that begin with these words (default: every command). */
  readonly command?: readonly string[];
  readonly stdout?: string;
  readonly stderr?: string;
  /** 0-255 (default 0). */
  readonly exitCode?: number;
}

export interface ContainerRunRule extends PodTarget {
  /** The code each run of the container exits with, 0-255 (default 0). */
  readonly exitCode?: number;
  /** How long each run lasts before the container exits, on the server clock: "30s", "1m30s", or milliseconds. */
  readonly after?: string | number;
  /** The terminated state's reason (default: Completed for exit code 0, else Error; e.g. OOMKilled). */
  readonly reason?: string;
  /** What each run prints, which `kubectl logs` shows. */
  readonly logs?: string;
  /**
   * false: the container's readiness probe fails, so it is not ready (a container without a readiness probe is ready
   * while it runs, as on a cluster); true: it passes again.
   */
  readonly ready?: boolean;
  /**
   * false: the container's liveness probe fails: once it has failed failureThreshold times, periodSeconds apart (on
   * the server clock), the kubelet kills the container (exit code 137) and restarts it as the pod's restartPolicy says.
   */
  readonly live?: boolean;
  /** false: the container's startup probe fails: it never starts (nor becomes ready), and is killed as for liveness. */
  readonly started?: boolean;
  /**
   * false: pulling the container's image fails, as for an image that does not exist: the pod waits (ErrImagePull,
   * then ImagePullBackOff with the kubelet's backoff on the server clock); true, or the rule removed: it starts.
   */
  readonly imagePull?: boolean;
  /**
   * What commands run in it answer; the last one matching a command answers it (exit 0, no output without one). Its
   * exec probes run their commands too: a non-zero exit fails the probe.
   */
  readonly exec?: ExecRule | readonly ExecRule[];
  /**
   * What listens on the container's ports: container port -> where the test serves it on loopback (a port of
   * 127.0.0.1, or "127.0.0.1:port", "[::1]:port", "localhost:port"). Port-forwards to the pod reach it there,
   * and the container's HTTP, TCP and gRPC probes to the port run against it (network-prober.ts).
   */
  readonly ports?: Readonly<Record<string, number | string>>;
  /**
   * How long the container takes to stop once its pod is deleted (the kubelet's SIGTERM), on the server clock:
   * "20s", or milliseconds. It then exits 0; one still running when the pod's grace period ends is killed (exit code
   * 137). Without it, the container stops at once.
   */
  readonly stopAfter?: string | number;
}

export type ContainerRunRuleView = RuleView<ContainerRunRule>;

/** What the rules say of one container: unset fields are left to the kubelet's defaults. */
export interface ContainerScript {
  readonly exitCode?: number;
  readonly afterMs?: number;
  readonly reason?: string;
  readonly logs?: string;
  readonly ready?: boolean;
  readonly live?: boolean;
  readonly started?: boolean;
  readonly imagePull?: boolean;
  /** Every matching rule's answers, in the order the rules were added. */
  readonly exec?: readonly ExecRule[];
  /** Container port -> loopback address, every matching rule's, the later winning a port. */
  readonly ports?: ReadonlyMap<number, LoopbackAddress>;
  readonly stopAfterMs?: number;
}

/** Where a test serves a simulated container's port. */
export interface LoopbackAddress {
  readonly host: '127.0.0.1' | '::1' | 'localhost';
  readonly port: number;
}

export interface ContainerRuns extends Omit<PodRuleSet<ContainerRunRule, ContainerScript>, 'matching'> {
  /** The container's script: the last matching rule's value for each field. */
  script(pod: KubeObject, container: string): ContainerScript;
  /**
   * What the command answers in the container: the last matching exec answer; else, for the file commands `kubectl
   * cp` runs (`tar`, `test`, `cat`), what the container's files say (container-files.ts), given the command's
   * stdin; else exit 0 and no output.
   */
  exec(pod: KubeObject, container: string, command: readonly string[], stdin?: Buffer): FileReply;
  /** Whether the command's answer is made of all of its stdin (a tar extraction no exec answer scripts). */
  answersFromStdin(pod: KubeObject, container: string, command: readonly string[]): boolean;
  /** Where the pod's port is served: by the first of its containers that maps it (they share the pod's network). */
  portTarget(pod: KubeObject, port: number): LoopbackAddress | undefined;
}

const FIELDS = ['exitCode', 'after', 'reason', 'logs', 'ready', 'live', 'started', 'imagePull', 'exec', 'ports', 'stopAfter'] as const;
const BOOLEAN_FIELDS = ['ready', 'live', 'started', 'imagePull'] as const;
const EXEC_FIELDS = ['command', 'stdout', 'stderr', 'exitCode'];

const validExitCode = (v: unknown): boolean => v === undefined || (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 255);

function compileExec(value: unknown): ExecRule[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((e: unknown, i) => {
    const at = Array.isArray(value) ? `"exec"[${i}]` : '"exec"';
    if (!e || typeof e !== 'object' || Array.isArray(e)) throw new PodRuleError(`containers: ${at} must be an object`);
    const r = e as Record<string, unknown>;
    for (const k of Object.keys(r)) if (!EXEC_FIELDS.includes(k)) throw new PodRuleError(`containers: ${at}: unknown field "${k}" (known: ${EXEC_FIELDS.join(', ')})`);
    if (r.command !== undefined && (!Array.isArray(r.command) || r.command.some((w) => typeof w !== 'string'))) throw new PodRuleError(`containers: ${at}.command must be a list of strings`);
    for (const k of ['stdout', 'stderr']) if (r[k] !== undefined && typeof r[k] !== 'string') throw new PodRuleError(`containers: ${at}.${k} must be a string`);
    if (!validExitCode(r.exitCode)) throw new PodRuleError(`containers: ${at}.exitCode must be an integer from 0 to 255`);
    return r as ExecRule;
  });
}

const validPort = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 65535;

function compilePorts(value: unknown): Map<number, LoopbackAddress> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new PodRuleError('containers: "ports" must map container ports to loopback addresses');
  const out = new Map<number, LoopbackAddress>();
  for (const [key, target] of Object.entries(value)) {
    const port = /^[0-9]+$/.test(key) ? Number(key) : NaN;
    if (!validPort(port)) throw new PodRuleError(`containers: "ports": ${JSON.stringify(key)} is not a port (1-65535)`);
    const m = typeof target === 'string' ? /^(127\.0\.0\.1|\[::1\]|localhost):([0-9]+)$/.exec(target) : null;
    const address = validPort(target) ? { host: '127.0.0.1' as const, port: target } : m && validPort(Number(m[2])) ? { host: (m[1] === '[::1]' ? '::1' : m[1]) as LoopbackAddress['host'], port: Number(m[2]) } : undefined;
    if (!address) throw new PodRuleError(`containers: "ports"."${key}": a port of 127.0.0.1, or "127.0.0.1:port", "[::1]:port" or "localhost:port" (tests serve on loopback only)`);
    out.set(port, address);
  }
  return out;
}

function compile(rule: ContainerRunRule): ContainerScript {
  if (FIELDS.every((f) => rule[f] === undefined)) throw new PodRuleError(`containers: a rule sets ${FIELDS.map((f) => `"${f}"`).join(', ')} or several`);
  const { exitCode, after, reason, logs, ready, live, started, imagePull } = rule;
  if (!validExitCode(exitCode)) throw new PodRuleError('containers: "exitCode" must be an integer from 0 to 255');
  if (reason !== undefined && (typeof reason !== 'string' || reason === '')) throw new PodRuleError('containers: "reason" must be a non-empty string');
  if (logs !== undefined && typeof logs !== 'string') throw new PodRuleError('containers: "logs" must be a string');
  for (const f of BOOLEAN_FIELDS) if (rule[f] !== undefined && typeof rule[f] !== 'boolean') throw new PodRuleError(`containers: "${f}" must be true or false`);
  const duration = (value: string | number | undefined, field: string): number | undefined => {
    if (value === undefined) return undefined;
    try {
      return parseDuration(value, `containers: "${field}"`);
    } catch (e) {
      throw new PodRuleError((e as Error).message);
    }
  };
  return {
    exitCode,
    afterMs: duration(after, 'after'),
    reason,
    logs,
    ready,
    live,
    started,
    imagePull,
    exec: rule.exec === undefined ? undefined : compileExec(rule.exec),
    ports: rule.ports === undefined ? undefined : compilePorts(rule.ports),
    stopAfterMs: duration(rule.stopAfter, 'stopAfter'),
  };
}

function scriptedAnswer(script: ContainerScript, command: readonly string[]): ExecRule | undefined {
  return (script.exec ?? []).findLast((a) => (a.command ?? []).every((w, i) => command[i] === w));
}

/** What the command answers in a container of this script: the last exec answer matching it, else exit 0 and no output. */
export function answerOf(script: ContainerScript, command: readonly string[]): { stdout: string; stderr: string; exitCode: number } {
  const found = scriptedAnswer(script, command);
  return { stdout: found?.stdout ?? '', stderr: found?.stderr ?? '', exitCode: found?.exitCode ?? 0 };
}

/** The ID of the container's current run (its status's containerID while it runs). */
function runIdOf(pod: KubeObject, container: string): string | undefined {
  const statuses = [...((pod.status as { containerStatuses?: unknown[] } | undefined)?.containerStatuses ?? []), ...((pod.status as { ephemeralContainerStatuses?: unknown[] } | undefined)?.ephemeralContainerStatuses ?? [])];
  const status = statuses.find((c) => (c as { name?: unknown }).name === container) as { containerID?: unknown; state?: { running?: unknown } } | undefined;
  return status?.state?.running !== undefined && typeof status.containerID === 'string' ? status.containerID : undefined;
}

export function createContainerRuns(): ContainerRuns {
  const rules = createPodRuleSet<ContainerRunRule, ContainerScript>('containers', FIELDS, compile);
  const files = createContainerFiles();
  const script = (pod: KubeObject, container: string): ContainerScript => {
    const out: { -readonly [K in keyof ContainerScript]: ContainerScript[K] } = {};
    for (const r of rules.matching(pod, container)) {
      if (r.exitCode !== undefined) out.exitCode = r.exitCode;
      if (r.afterMs !== undefined) out.afterMs = r.afterMs;
      if (r.stopAfterMs !== undefined) out.stopAfterMs = r.stopAfterMs;
      if (r.reason !== undefined) out.reason = r.reason;
      if (r.logs !== undefined) out.logs = r.logs;
      for (const f of BOOLEAN_FIELDS) if (r[f] !== undefined) out[f] = r[f];
      if (r.exec !== undefined) out.exec = [...(out.exec ?? []), ...r.exec];
      if (r.ports !== undefined) out.ports = new Map([...(out.ports ?? []), ...r.ports]);
    }
    return out;
  };
  return {
    add: (rule) => rules.add(rule),
    remove: (id) => rules.remove(id),
    clear: () => rules.clear(),
    list: () => rules.list(),
    onChange: (listener) => rules.onChange(listener),
    script,
    exec(pod, container, command, stdin) {
      const s = script(pod, container);
      const runId = scriptedAnswer(s, command) ? undefined : runIdOf(pod, container);
      return (runId !== undefined ? files.run(runId, pod, container, command, stdin ?? Buffer.alloc(0)) : undefined) ?? answerOf(s, command);
    },
    answersFromStdin: (pod, container, command) => readsStdin(command) && !scriptedAnswer(script(pod, container), command) && runIdOf(pod, container) !== undefined,
    portTarget(pod, port) {
      const containers = ((pod.spec as { containers?: { name?: unknown }[] } | undefined)?.containers ?? []).map((c) => String(c.name ?? ''));
      return containers.map((c) => script(pod, c).ports?.get(port)).find((t) => t !== undefined);
    },
  };
}
