// Plugins kube ships off by default (AlwaysAdmit, AlwaysDeny, NamespaceExists, NamespaceAutoProvision,
// AlwaysPullImages, DenyServiceExternalIPs) and two default ones that touch single objects (TaintNodesByCondition,
// RuntimeClass). Messages as kube words them.

import { notFound } from '../../apis/errors.ts';
import { loopbackContext } from '../../registry/registry.ts';
import { forbiddenError } from '../../registry/store-errors.ts';
import { NAMESPACES } from '../../registry/store-namespaces.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';

type Obj = Record<string, any>;

const nameOf = (a: AdmissionAttributes): string => a.object?.metadata?.name || a.object?.metadata?.generateName || a.name;
const refuse = (a: AdmissionAttributes, message: string) => forbiddenError({ group: a.resource.group, resource: a.resource.resource }, nameOf(a), message);
const isMain = (a: AdmissionAttributes, group: string, resource: string) => a.resource.group === group && a.resource.resource === resource && a.subResource === '' && !!a.object;

export const alwaysAdmit = (): AdmissionPlugin => ({ name: 'AlwaysAdmit' });

export function alwaysDeny(): AdmissionPlugin {
  return {
    name: 'AlwaysDeny',
    admit(a) {
      throw refuse(a, 'admission control is denying all modifications');
    },
  };
}

export function namespaceExists(getNamespace: (name: string) => Promise<KubeObject | undefined>): AdmissionPlugin {
  return {
    name: 'NamespaceExists',
    async validate(a) {
      if (!a.namespace || (a.resource.group === '' && a.resource.resource === 'namespaces')) return;
      if (!(await getNamespace(a.namespace))) throw notFound(NAMESPACES, a.namespace);
    },
  };
}

export function namespaceAutoProvision(registry: Registry, getNamespace: (name: string) => Promise<KubeObject | undefined>): AdmissionPlugin {
  return {
    name: 'NamespaceAutoProvision',
    handles: (op) => op === 'CREATE',
    async admit(a) {
      if (!a.namespace || (a.resource.group === '' && a.resource.resource === 'namespaces') || a.dryRun) return;
      if (await getNamespace(a.namespace)) return;
      const def = registry.lookup('', 'v1', 'namespaces');
      if (!def) return;
      await registry
        .store(def)
        .create(loopbackContext(), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: a.namespace } })
        .catch((e: { reason?: string }) => {
          if (e.reason !== 'AlreadyExists') throw e;
        });
    },
  };
}

function containerLists(spec: Obj): Obj[] {
  return ['initContainers', 'containers', 'ephemeralContainers'].flatMap((f) => (Array.isArray(spec[f]) ? spec[f] : []));
}

export function alwaysPullImages(): AdmissionPlugin {
  return {
    name: 'AlwaysPullImages',
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    admit(a) {
      if (!isMain(a, '', 'pods')) return;
      for (const c of containerLists((a.object!.spec ?? {}) as Obj)) if (c && typeof c === 'object') c.imagePullPolicy = 'Always';
    },
  };
}

export function denyServiceExternalIPs(): AdmissionPlugin {
  return {
    name: 'DenyServiceExternalIPs',
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    validate(a) {
      if (!isMain(a, '', 'services')) return;
      const ips: string[] = ((a.object!.spec as Obj | undefined)?.externalIPs as string[] | undefined) ?? [];
      const old = new Set<string>(((a.oldObject?.spec as Obj | undefined)?.externalIPs as string[] | undefined) ?? []);
      // Existing external IPs may stay (or be removed); new ones are refused.
      if (ips.some((ip) => !old.has(ip))) throw refuse(a, 'spec.externalIPs: Forbidden: use of external IPs is denied by admission control');
    },
  };
}

export function taintNodesByCondition(): AdmissionPlugin {
  return {
    name: 'TaintNodesByCondition',
    handles: (op) => op === 'CREATE',
    admit(a) {
      if (!isMain(a, '', 'nodes')) return;
      const spec = (a.object!.spec ??= {}) as Obj;
      const taints: Obj[] = Array.isArray(spec.taints) ? spec.taints : [];
      if (!taints.some((t) => t.key === 'node.kubernetes.io/not-ready' && t.effect === 'NoSchedule')) spec.taints = [...taints, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }];
    },
  };
}

export function runtimeClass(registry: Registry): AdmissionPlugin {
  const lookup = async (name: string): Promise<KubeObject | undefined> => {
    const def = registry.lookup('node.k8s.io', 'v1', 'runtimeclasses');
    if (!def) return undefined;
    return registry.store(def).get(loopbackContext(), name).catch(() => undefined);
  };
  return {
    name: 'RuntimeClass',
    handles: (op) => op === 'CREATE',
    async admit(a) {
      if (!isMain(a, '', 'pods')) return;
      const spec = (a.object!.spec ??= {}) as Obj;
      if (!spec.runtimeClassName) return;
      const rc = await lookup(spec.runtimeClassName);
      if (!rc) throw refuse(a, `pod rejected: RuntimeClass "${spec.runtimeClassName}" not found`);
      const fixed = ((rc.overhead as Obj | undefined)?.podFixed ?? undefined) as Obj | undefined;
      if (fixed) {
        if (spec.overhead !== undefined && JSON.stringify(spec.overhead) !== JSON.stringify(fixed)) throw refuse(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
        spec.overhead = { ...fixed };
      }
      const scheduling = (rc.scheduling ?? {}) as Obj;
      if (scheduling.nodeSelector) {
        for (const [k, v] of Object.entries(scheduling.nodeSelector as Obj)) {
          if (spec.nodeSelector?.[k] !== undefined && spec.nodeSelector[k] !== v) throw refuse(a, 'pod rejected: conflict: nodeSelector of the pod and of the RuntimeClass');
        }
        spec.nodeSelector = { ...(spec.nodeSelector ?? {}), ...scheduling.nodeSelector };
      }
      if (Array.isArray(scheduling.tolerations)) {
        const have: Obj[] = Array.isArray(spec.tolerations) ? spec.tolerations : [];
        const add = scheduling.tolerations.filter((t: Obj) => !have.some((h) => JSON.stringify(h) === JSON.stringify(t)));
        if (add.length) spec.tolerations = [...have, ...add];
      }
    },
    async validate(a) {
      if (!isMain(a, '', 'pods')) return;
      const spec = (a.object!.spec ?? {}) as Obj;
      if (!spec.runtimeClassName || spec.overhead === undefined) return;
      const rc = await lookup(spec.runtimeClassName);
      const fixed = (rc?.overhead as Obj | undefined)?.podFixed;
      if (rc && JSON.stringify(spec.overhead) !== JSON.stringify(fixed)) throw refuse(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
    },
  };
}
