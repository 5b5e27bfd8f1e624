// The DisruptionAllowed condition of a PodDisruptionBudget's status, which the disruption controller and the
// eviction subresource both write (pdbhelper.UpdateDisruptionAllowedCondition with metav1.SetStatusCondition).

import { clockDate } from '../../../apis/clock.ts';
import { rfc3339 } from '../../store-codec.ts';

type Obj = Record<string, unknown>;

/** The conditions with DisruptionAllowed set: its lastTransitionTime moves only when its status does. */
export function withDisruptionCondition(conditions: unknown, allowed: boolean, reason: string, message: string, observedGeneration: number): Obj[] {
  const list = Array.isArray(conditions) ? (conditions as Obj[]).map((c) => ({ ...c })) : [];
  const status = allowed ? 'True' : 'False';
  const existing = list.find((c) => c.type === 'DisruptionAllowed');
  const next: Obj = { type: 'DisruptionAllowed', status, observedGeneration, lastTransitionTime: existing?.status === status ? existing.lastTransitionTime : rfc3339(clockDate()), reason, message };
  return existing ? list.map((c) => (c === existing ? next : c)) : [...list, next];
}
