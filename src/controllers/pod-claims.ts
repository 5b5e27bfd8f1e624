// The PersistentVolumeClaims a pod's volumes name: a claim volume's claimName, or an ephemeral volume's generated
// claim `<pod name>-<volume name>` (ephemeral.VolumeClaimName).

import type { KubeObject } from '../registry/types.ts';

export interface PodClaim {
  readonly claim: string;
  readonly ephemeral: boolean;
}

export function claimsOfPod(pod: KubeObject): PodClaim[] {
  const volumes = (pod.spec as { volumes?: unknown } | undefined)?.volumes;
  if (!Array.isArray(volumes)) return [];
  const out: PodClaim[] = [];
  for (const v of volumes as Record<string, unknown>[]) {
    if (!v || typeof v !== 'object') continue;
    const claimName = (v.persistentVolumeClaim as { claimName?: unknown } | undefined)?.claimName;
    if (typeof claimName === 'string') out.push({ claim: claimName, ephemeral: false });
    else if (v.ephemeral && typeof v.name === 'string') out.push({ claim: `${pod.metadata.name ?? ''}-${v.name}`, ephemeral: true });
  }
  return out;
}
