// podutil.IsPodReady and nodeutil.IsNodeReady: an object whose Ready condition is True.

import type { KubeObject } from '../../types.ts';

export function hasReadyCondition(obj: KubeObject): boolean {
  const conditions = (obj.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(conditions) && conditions.some((c: { type?: unknown; status?: unknown } | null) => c?.type === 'Ready' && c.status === 'True');
}

export const isPodReady = hasReadyCondition;
