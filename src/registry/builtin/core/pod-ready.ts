// podutil.IsPodReady: a pod whose Ready condition is True.

import type { KubeObject } from '../../types.ts';

export function isPodReady(pod: KubeObject): boolean {
  const conditions = (pod.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(conditions) && conditions.some((c: { type?: unknown; status?: unknown } | null) => c?.type === 'Ready' && c.status === 'True');
}
