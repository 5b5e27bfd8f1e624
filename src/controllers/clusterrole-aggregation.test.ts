import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregatedRules } from './clusterrole-aggregation.ts';
import type { KubeObject } from '../registry/types.ts';

const role = (name: string, labels: Record<string, string>, rules: unknown[], selector?: Record<string, string>): KubeObject => ({
  metadata: { name, labels },
  rules,
  ...(selector ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: selector }] } } : {}),
});

test('aggregation: the matching roles\' rules in name order, each distinct rule once, never the role itself', () => {
  const r1 = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
  const r2 = { apiGroups: ['x'], resources: ['w'], verbs: ['list'] };
  const target = role('view', { agg: 'true' }, [{ stale: true }], { agg: 'true' });
  const all = [target, role('b', { agg: 'true' }, [r2, r1]), role('a', { agg: 'true' }, [r1]), role('c', { other: 'true' }, [{ apiGroups: ['no'], resources: ['no'], verbs: ['no'] }])];
  assert.deepEqual(aggregatedRules(target, all), [r1, r2]);
});
