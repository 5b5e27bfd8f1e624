// What the simulated kubelets report as their containers' resource usage: on a real cluster, the figures
// metrics-server scrapes from each kubelet every 15 s. Simulated containers use nothing unless a test says
// otherwise through the usage test control (`capstan.usage.add(...)`, POST /capstan/v1/usage): rules matching pods
// by namespace, name or label selector, and optionally one container, each setting cpu, memory or both. The last
// matching rule that sets a resource wins.

import { clockDate } from '../../apis/clock.ts';
import { parseQuantity } from '../../registry/validation/quantity.ts';
import type { KubeObject } from '../../registry/types.ts';
import { createPodRuleSet, PodRuleError, type PodTarget, type RuleView } from './pod-rules.ts';
import { asObj } from './shared.ts';

/** metrics-server's default --metric-resolution: the window every figure covers. */
export const USAGE_WINDOW_MS = 15_000;

export interface UsageRule extends PodTarget {
  /** Usage of each matching container, a quantity ("250m", "0.5"). */
  readonly cpu?: string;
  /** Usage of each matching container, a quantity ("64Mi"). */
  readonly memory?: string;
}

export type UsageRuleView = RuleView<UsageRule>;

/** One container's usage, in nano-units (as `quantityNanos` gives them): cores x 10^9, bytes x 10^9. */
export interface ContainerUsage {
  readonly name: string;
  readonly cpu: bigint;
  readonly memory: bigint;
}

export interface PodUsage {
  /** When the figures were taken (the server clock). */
  readonly timestamp: Date;
  /** The window they cover (USAGE_WINDOW_MS). */
  readonly windowMs: number;
  /** Each running container: the sidecars (init containers with restartPolicy Always), then the regular ones. */
  readonly containers: readonly ContainerUsage[];
}

export interface ResourceUsage {
  /**
   * A pod's usage: undefined unless it is Running on a node whose simulated kubelet runs (metrics-server reports
   * only running pods, and only what a kubelet it can scrape serves).
   */
  pod(pod: KubeObject): PodUsage | undefined;
  /** Adds a rule; throws a UsageRuleError for a bad one. */
  add(rule: UsageRule): UsageRuleView;
  remove(id: string): boolean;
  clear(): void;
  list(): UsageRuleView[];
  /** Called after the rules change (the autoscaler reads the new figures at once). */
  onChange(listener: () => void): () => void;
}

/** A rule the usage control refuses. */
export { PodRuleError as UsageRuleError } from './pod-rules.ts';

interface UsageSettings {
  readonly cpu?: bigint;
  readonly memory?: bigint;
}

function quantity(value: unknown, field: string): bigint | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new PodRuleError(`usage: "${field}" must be a quantity string such as ${field === 'cpu' ? '"250m"' : '"64Mi"'}`);
  const q = parseQuantity(value);
  if (!q.ok) throw new PodRuleError(`usage: "${field}": ${q.error}`);
  if (q.nanos < 0n) throw new PodRuleError(`usage: "${field}" must not be negative`);
  return q.nanos;
}

function compile(rule: UsageRule): UsageSettings {
  const cpu = quantity(rule.cpu, 'cpu');
  const memory = quantity(rule.memory, 'memory');
  if (cpu === undefined && memory === undefined) throw new PodRuleError('usage: a rule sets "cpu", "memory" or both');
  return { cpu, memory };
}

/** `kubeletRunning`: whether a node's simulated kubelet runs (false for nodes no simulated kubelet serves). */
export function createResourceUsage(kubeletRunning: (node: string) => boolean): ResourceUsage {
  const rules = createPodRuleSet<UsageRule, UsageSettings>('usage', ['cpu', 'memory'], compile);
  return {
    pod(pod) {
      if (asObj(pod.status).phase !== 'Running' || !kubeletRunning(String(asObj(pod.spec).nodeName ?? ''))) return undefined;
      const spec = asObj(pod.spec);
      const sidecars = ((spec.initContainers as unknown[] | undefined) ?? []).filter((c) => asObj(c).restartPolicy === 'Always');
      const containers = [...sidecars, ...((spec.containers as unknown[] | undefined) ?? [])].map((c) => {
        const name = String(asObj(c).name ?? '');
        let cpu = 0n;
        let memory = 0n;
        for (const r of rules.matching(pod, name)) {
          if (r.cpu !== undefined) cpu = r.cpu;
          if (r.memory !== undefined) memory = r.memory;
        }
        return { name, cpu, memory };
      });
      return { timestamp: clockDate(), windowMs: USAGE_WINDOW_MS, containers };
    },
    add: (rule) => rules.add(rule),
    remove: (id) => rules.remove(id),
    clear: () => rules.clear(),
    list: () => rules.list(),
    onChange: (listener) => rules.onChange(listener),
  };
}
