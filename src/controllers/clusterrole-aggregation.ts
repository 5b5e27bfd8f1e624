// The ClusterRole aggregation controller (kube-controller-manager's clusterrole-aggregation-controller): a
// ClusterRole with an aggregationRule gets, as its rules, the rules of every other ClusterRole its selectors
// match, in name order, each distinct rule once. It writes through the store as the loopback user.

import { formatLabelSelector, labelsMatch, parseLabelSelector } from '../apis/labels.ts';
import { RBAC_GROUP } from '../auth/authz/rbac/policy.ts';
import { startInformer } from '../registry/informer.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry } from '../registry/types.ts';

export interface AggregationController {
  /** Resolves when every aggregated ClusterRole is up to date with what the informer holds now. */
  idle(): Promise<void>;
  stop(): void;
}

/** A ClusterRole's aggregation selectors; none when one cannot be converted (kube's controller gives up on the role). */
function selectors(obj: KubeObject) {
  const rule = obj.aggregationRule as { clusterRoleSelectors?: unknown } | undefined;
  const list = Array.isArray(rule?.clusterRoleSelectors) ? rule.clusterRoleSelectors : [];
  try {
    return list.map((s) => parseLabelSelector(formatLabelSelector(s)));
  } catch {
    return [];
  }
}

export function aggregatedRules(target: KubeObject, all: Iterable<KubeObject>): unknown[] {
  const sels = selectors(target);
  const sources = [...all]
    .filter((cr) => cr.metadata.name !== target.metadata.name && sels.some((sel) => labelsMatch(sel, cr.metadata.labels)))
    .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  const rules: unknown[] = [];
  const seen = new Set<string>();
  for (const cr of sources) {
    for (const rule of Array.isArray(cr.rules) ? cr.rules : []) {
      const key = JSON.stringify(rule);
      if (seen.has(key)) continue;
      seen.add(key);
      rules.push(rule);
    }
  }
  return rules;
}

export function startClusterRoleAggregation(registry: Registry): AggregationController | undefined {
  const def = registry.lookup(RBAC_GROUP, 'v1', 'clusterroles');
  if (!def) return undefined;
  const store = registry.store(def);
  const informer = startInformer(store);
  let work: Promise<void> = Promise.resolve();
  let pending = false;
  let stopped = false;

  const syncAll = async () => {
    pending = false;
    const all = [...informer.items()];
    for (const cr of all) {
      if (stopped) return;
      if (selectors(cr).length === 0) continue;
      const rules = aggregatedRules(cr, all);
      if (JSON.stringify(rules) === JSON.stringify(Array.isArray(cr.rules) ? cr.rules : [])) continue;
      try {
        await store.update(loopbackContext(), cr.metadata.name!, (live) => (live ? { ...live, rules: aggregatedRules(live, informer.items()) } : cr));
      } catch {
        // Gone or changed meanwhile: the informer's next event brings another pass.
      }
    }
  };
  const schedule = () => {
    if (pending || stopped) return;
    pending = true;
    work = work.then(syncAll).catch((e: unknown) => {
      process.emitWarning(`clusterrole aggregation controller: ${e instanceof Error ? e.message : String(e)}`);
    });
  };
  informer.onEvent(schedule);
  return {
    idle: async () => {
      await informer.synced();
      await work;
    },
    stop() {
      stopped = true;
      informer.stop();
    },
  };
}
