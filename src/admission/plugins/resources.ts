// Quantities as the resource plugins (LimitRanger, ResourceQuota) handle them: the containers of a pod and their
// requests and limits, sums in nano-units, and kube's canonical rendering of a quantity.

import { quantityNanos } from '../../registry/validation/quantity.ts';
import type { KubeObject } from '../../registry/types.ts';

export type ResourceList = Record<string, string>;
type Obj = Record<string, unknown>;

export interface ContainerRef {
  readonly name: string;
  readonly resources: { requests?: ResourceList; limits?: ResourceList };
  readonly init: boolean;
}

/** The containers and init containers of a pod spec, with their resources objects (created when missing). */
export function podContainers(pod: KubeObject, create = false): ContainerRef[] {
  const spec = (pod.spec ?? {}) as Obj;
  const out: ContainerRef[] = [];
  for (const [field, init] of [['initContainers', true], ['containers', false]] as const) {
    const list = Array.isArray(spec[field]) ? (spec[field] as Obj[]) : [];
    for (const c of list) {
      if (!c || typeof c !== 'object') continue;
      if (create && (!c.resources || typeof c.resources !== 'object')) c.resources = {};
      out.push({ name: typeof c.name === 'string' ? c.name : '', resources: (c.resources ?? {}) as ContainerRef['resources'], init });
    }
  }
  return out;
}

/** Canonical text of a sum: binary suffixes when every part was binary, else decimal (m below one unit). */
export function formatNanos(nanos: bigint, binary: boolean): string {
  if (nanos === 0n) return '0';
  const neg = nanos < 0n;
  const n = neg ? -nanos : nanos;
  const sign = neg ? '-' : '';
  if (n % 1_000_000_000n === 0n) {
    const units = n / 1_000_000_000n;
    if (binary) {
      for (const [suffix, shift] of [['Ei', 60n], ['Pi', 50n], ['Ti', 40n], ['Gi', 30n], ['Mi', 20n], ['Ki', 10n]] as const) {
        const d = 1n << shift;
        if (units % d === 0n) return `${sign}${units / d}${suffix}`;
      }
      return `${sign}${units}`;
    }
    for (const [suffix, exp] of [['E', 18n], ['P', 15n], ['T', 12n], ['G', 9n], ['M', 6n], ['k', 3n]] as const) {
      const d = 10n ** exp;
      if (units % d === 0n) return `${sign}${units / d}${suffix}`;
    }
    return `${sign}${units}`;
  }
  if (n % 1_000_000n === 0n) return `${sign}${n / 1_000_000n}m`;
  if (n % 1_000n === 0n) return `${sign}${n / 1_000n}u`;
  return `${sign}${n}n`;
}

/** Whether a quantity is written with a binary suffix (objects stored before quantities were canonical may hold numbers). */
export const isBinary = (q: unknown): boolean => typeof q === 'string' && /[KMGTPE]i$/.test(q.trim());

export function nanosOf(q: unknown): bigint {
  return quantityNanos(q) ?? 0n;
}

/** Requests or limits of a pod as kube's quota counts them: max(sum of containers, largest init container). */
export function podResource(pod: KubeObject, kind: 'requests' | 'limits', resource: string): { nanos: bigint; binary: boolean; missing: string[] } {
  let sum = 0n;
  let initMax = 0n;
  let binary = true;
  let any = false;
  const missing: string[] = [];
  for (const c of podContainers(pod)) {
    const v = c.resources[kind]?.[resource];
    if (v === undefined) {
      if (!c.init) missing.push(c.name);
      continue;
    }
    any = true;
    binary &&= isBinary(v);
    const n = nanosOf(v);
    if (c.init) initMax = n > initMax ? n : initMax;
    else sum += n;
  }
  return { nanos: sum > initMax ? sum : initMax, binary: any && binary, missing };
}
