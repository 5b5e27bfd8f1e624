// What the simulated kubelets report as their containers' resource usage: on a real cluster, the figures
// metrics-server scrapes from each kubelet every 15 s. Simulated containers use nothing unless a test says
// otherwise through the usage test control (`capstan.usage.set(...)`, POST /capstan/v1/usage): rules matching pods
// by namespace, name or label selector, and optionally one container, each setting cpu, memory or both. The last
// matching rule that sets a resource wins.

import { clockDate } from '../../apis/clock.ts';
import { LabelSelectorError, labelsMatch, parseLabelSelector, type LabelSelector } from '../../apis/labels.ts';
import { parseQuantity } from '../../registry/validation/quantity.ts';
import type { KubeObject } from '../../registry/types.ts';
import { asObj } from './shared.ts';

/** metrics-server's default --metric-resolution: the window every figure covers. */
export const USAGE_WINDOW_MS = 15_000;

export interface UsageRule {
  /** Pods of this namespace only (default: every namespace). */
  readonly namespace?: string;
  /** Pods whose labels match this label selector ("app=web"). */
  readonly selector?: string;
  /** The pod of this name only. */
  readonly pod?: string;
  /** This container only (default: every container of a matching pod that runs, sidecars included). */
  readonly container?: string;
  /** Usage of each matching container, a quantity ("250m", "0.5"). */
  readonly cpu?: string;
  /** Usage of each matching container, a quantity ("64Mi"). */
  readonly memory?: string;
}

export interface UsageRuleView {
  readonly id: string;
  readonly rule: UsageRule;
}

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

export class UsageRuleError extends Error {}

interface CompiledRule {
  readonly view: UsageRuleView;
  readonly selector?: LabelSelector;
  readonly cpu?: bigint;
  readonly memory?: bigint;
}

const RULE_FIELDS = ['namespace', 'selector', 'pod', 'container', 'cpu', 'memory'];

function quantity(value: unknown, field: string): bigint | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new UsageRuleError(`usage: "${field}" must be a quantity string such as ${field === 'cpu' ? '"250m"' : '"64Mi"'}`);
  const q = parseQuantity(value);
  if (!q.ok) throw new UsageRuleError(`usage: "${field}": ${q.error}`);
  if (q.nanos < 0n) throw new UsageRuleError(`usage: "${field}" must not be negative`);
  return q.nanos;
}

function compile(rule: UsageRule, id: string): CompiledRule {
  if (!rule || typeof rule !== 'object' || Array.isArray(rule)) throw new UsageRuleError('usage: a rule must be an object');
  for (const k of Object.keys(rule)) {
    if (!RULE_FIELDS.includes(k)) throw new UsageRuleError(`usage: unknown field "${k}" (known: ${RULE_FIELDS.join(', ')})`);
  }
  for (const k of ['namespace', 'selector', 'pod', 'container'] as const) {
    if (rule[k] !== undefined && typeof rule[k] !== 'string') throw new UsageRuleError(`usage: "${k}" must be a string`);
  }
  const cpu = quantity(rule.cpu, 'cpu');
  const memory = quantity(rule.memory, 'memory');
  if (cpu === undefined && memory === undefined) throw new UsageRuleError('usage: a rule sets "cpu", "memory" or both');
  let selector: LabelSelector | undefined;
  if (rule.selector !== undefined) {
    try {
      selector = parseLabelSelector(rule.selector);
    } catch (e) {
      if (e instanceof LabelSelectorError) throw new UsageRuleError(`usage: "selector": ${e.message}`);
      throw e;
    }
  }
  const kept: UsageRule = Object.fromEntries(RULE_FIELDS.filter((k) => rule[k as keyof UsageRule] !== undefined).map((k) => [k, rule[k as keyof UsageRule]]));
  return { view: { id, rule: kept }, selector, cpu, memory };
}

function matches(r: CompiledRule, pod: KubeObject): boolean {
  const { rule } = r.view;
  if (rule.namespace !== undefined && rule.namespace !== (pod.metadata.namespace ?? '')) return false;
  if (rule.pod !== undefined && rule.pod !== pod.metadata.name) return false;
  return !r.selector || labelsMatch(r.selector, pod.metadata.labels);
}

/** `kubeletRunning`: whether a node's simulated kubelet runs (false for nodes no simulated kubelet serves). */
export function createResourceUsage(kubeletRunning: (node: string) => boolean): ResourceUsage {
  let rules: CompiledRule[] = [];
  let seq = 0;
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const l of [...listeners]) l();
  };
  return {
    pod(pod) {
      if (asObj(pod.status).phase !== 'Running' || !kubeletRunning(String(asObj(pod.spec).nodeName ?? ''))) return undefined;
      const applying = rules.filter((r) => matches(r, pod));
      const spec = asObj(pod.spec);
      const sidecars = ((spec.initContainers as unknown[] | undefined) ?? []).filter((c) => asObj(c).restartPolicy === 'Always');
      const containers = [...sidecars, ...((spec.containers as unknown[] | undefined) ?? [])].map((c) => {
        const name = String(asObj(c).name ?? '');
        let cpu = 0n;
        let memory = 0n;
        for (const r of applying) {
          if (r.view.rule.container !== undefined && r.view.rule.container !== name) continue;
          if (r.cpu !== undefined) cpu = r.cpu;
          if (r.memory !== undefined) memory = r.memory;
        }
        return { name, cpu, memory };
      });
      return { timestamp: clockDate(), windowMs: USAGE_WINDOW_MS, containers };
    },
    add(rule) {
      const compiled = compile(rule, `usage-${++seq}`);
      rules = [...rules, compiled];
      changed();
      return compiled.view;
    },
    remove(id) {
      const before = rules.length;
      rules = rules.filter((r) => r.view.id !== id);
      if (rules.length === before) return false;
      changed();
      return true;
    },
    clear() {
      if (rules.length === 0) return;
      rules = [];
      changed();
    },
    list: () => rules.map((r) => r.view),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
