// The test controls' rules about simulated containers (what they use, how they run): each picks pods by namespace,
// name and label selector, and optionally one container, and carries its own settings. Kept in the order added; where
// several match, the caller takes the last one that sets a value.

import { LabelSelectorError, labelsMatch, parseLabelSelector, type LabelSelector } from '../../apis/labels.ts';
import type { KubeObject } from '../../registry/types.ts';

/** Which containers a rule is about. */
export interface PodTarget {
  /** Pods of this namespace only (default: every namespace). */
  readonly namespace?: string;
  /** Pods whose labels match this label selector ("app=web"). */
  readonly selector?: string;
  /** The pod of this name only. */
  readonly pod?: string;
  /** This container only (default: every container of a matching pod). */
  readonly container?: string;
}

const TARGET_FIELDS = ['namespace', 'selector', 'pod', 'container'] as const;

export interface RuleView<R> {
  readonly id: string;
  readonly rule: R;
}

/** A rule the control refuses: the message names the control and the field. */
export class PodRuleError extends Error {}

export interface PodRuleSet<R, V> {
  /** Adds a rule; throws a PodRuleError for a bad one. */
  add(rule: R): RuleView<R>;
  remove(id: string): boolean;
  clear(): void;
  list(): RuleView<R>[];
  /** Called after the rules change. */
  onChange(listener: () => void): () => void;
  /** The settings of the rules matching the pod and, when named, its container, in the order they were added. */
  matching(pod: KubeObject, container?: string): V[];
}

interface Compiled<R, V> {
  readonly view: RuleView<R>;
  readonly selector?: LabelSelector;
  readonly settings: V;
}

/**
 * A set of rules named `what` (in ids and messages) with the target fields and `fields` of its own, which `compile`
 * checks (throwing a PodRuleError) and turns into the settings matching() hands out.
 */
export function createPodRuleSet<R extends PodTarget, V>(what: string, fields: readonly (keyof R & string)[], compile: (rule: R) => V): PodRuleSet<R, V> {
  const known = [...TARGET_FIELDS, ...fields];
  let rules: Compiled<R, V>[] = [];
  let seq = 0;
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const l of [...listeners]) l();
  };

  function check(rule: R): Compiled<R, V> {
    if (!rule || typeof rule !== 'object' || Array.isArray(rule)) throw new PodRuleError(`${what}: a rule must be an object`);
    for (const k of Object.keys(rule)) {
      if (!known.includes(k as never)) throw new PodRuleError(`${what}: unknown field "${k}" (known: ${known.join(', ')})`);
    }
    for (const k of TARGET_FIELDS) {
      if (rule[k] !== undefined && typeof rule[k] !== 'string') throw new PodRuleError(`${what}: "${k}" must be a string`);
    }
    const settings = compile(rule);
    let selector: LabelSelector | undefined;
    if (rule.selector !== undefined) {
      try {
        selector = parseLabelSelector(rule.selector);
      } catch (e) {
        if (e instanceof LabelSelectorError) throw new PodRuleError(`${what}: "selector": ${e.message}`);
        throw e;
      }
    }
    const kept = Object.fromEntries(known.filter((k) => (rule as Record<string, unknown>)[k] !== undefined).map((k) => [k, (rule as Record<string, unknown>)[k]])) as unknown as R;
    return { view: { id: `${what}-${++seq}`, rule: kept }, selector, settings };
  }

  function matches(r: Compiled<R, V>, pod: KubeObject, container: string | undefined): boolean {
    const { rule } = r.view;
    if (rule.namespace !== undefined && rule.namespace !== (pod.metadata.namespace ?? '')) return false;
    if (rule.pod !== undefined && rule.pod !== pod.metadata.name) return false;
    if (container !== undefined && rule.container !== undefined && rule.container !== container) return false;
    return !r.selector || labelsMatch(r.selector, pod.metadata.labels);
  }

  return {
    add(rule) {
      const compiled = check(rule);
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
    matching: (pod, container) => rules.filter((r) => matches(r, pod, container)).map((r) => r.settings),
  };
}
