// PodSecurity (k8s.io/pod-security-admission): the namespace's pod-security.kubernetes.io/enforce|warn|audit
// labels (and their -version; else the PodSecurityConfiguration defaults of --admission-control-config-file) pick a level, privileged, baseline or restricted; a pod create or update that
// violates the enforced level is refused, one that violates the warn level gets a Warning header. The checks
// are the commonly hit ones of the baseline and restricted levels, reported in kube's check order and wording.

import { forbiddenError } from '../../registry/store-errors.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';

type Obj = Record<string, any>;
type Level = 'privileged' | 'baseline' | 'restricted';

interface Container {
  name: string;
  sc: Obj;
  ports: Obj[];
}

function containersOf(spec: Obj): Container[] {
  const out: Container[] = [];
  for (const f of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of Array.isArray(spec[f]) ? spec[f] : []) out.push({ name: String(c?.name ?? ''), sc: c?.securityContext ?? {}, ports: Array.isArray(c?.ports) ? c.ports : [] });
  }
  return out;
}

const quoted = (names: string[]): string => names.map((n) => JSON.stringify(n)).join(', ');
const containerWord = (names: string[]): string => `${names.length === 1 ? 'container' : 'containers'} ${quoted(names)}`;

const BASELINE_CAPS = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);

interface Check {
  id: string;
  level: 'baseline' | 'restricted';
  run(spec: Obj, containers: Container[]): string | undefined;
}

// Sorted by check ID, the order kube reports failures in.
const CHECKS: Check[] = [
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    run: (_s, cs) => {
      const bad = cs.filter((c) => c.sc.allowPrivilegeEscalation !== false).map((c) => c.name);
      return bad.length ? `allowPrivilegeEscalation != false (${containerWord(bad)} must set securityContext.allowPrivilegeEscalation=false)` : undefined;
    },
  },
  {
    id: 'capabilities_baseline',
    level: 'baseline',
    run: (_s, cs) => {
      const bad: string[] = [];
      const caps = new Set<string>();
      for (const c of cs) {
        const add = (Array.isArray(c.sc.capabilities?.add) ? c.sc.capabilities.add : []).filter((x: string) => !BASELINE_CAPS.has(x));
        if (add.length) {
          bad.push(c.name);
          for (const x of add) caps.add(x);
        }
      }
      return bad.length ? `non-default capabilities (${containerWord(bad)} must not include ${quoted([...caps])} in securityContext.capabilities.add)` : undefined;
    },
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    run: (_s, cs) => {
      const bad = cs.filter((c) => !(Array.isArray(c.sc.capabilities?.drop) && c.sc.capabilities.drop.includes('ALL'))).map((c) => c.name);
      const added = cs.filter((c) => (Array.isArray(c.sc.capabilities?.add) ? c.sc.capabilities.add : []).some((x: string) => x !== 'NET_BIND_SERVICE')).map((c) => c.name);
      const parts: string[] = [];
      if (bad.length) parts.push(`${containerWord(bad)} must set securityContext.capabilities.drop=["ALL"]`);
      if (added.length) parts.push(`${containerWord(added)} must not include ${quoted([...new Set(cs.flatMap((c) => (Array.isArray(c.sc.capabilities?.add) ? c.sc.capabilities.add : []).filter((x: string) => x !== 'NET_BIND_SERVICE')))])} in securityContext.capabilities.add`);
      return parts.length ? `unrestricted capabilities (${parts.join('; ')})` : undefined;
    },
  },
  {
    id: 'hostNamespaces',
    level: 'baseline',
    run: (s) => {
      const on = ['hostNetwork', 'hostPID', 'hostIPC'].filter((f) => s[f] === true).map((f) => `${f}=true`);
      return on.length ? `host namespaces (${on.join(', ')})` : undefined;
    },
  },
  {
    id: 'hostPathVolumes',
    level: 'baseline',
    run: (s) => {
      const vols = (Array.isArray(s.volumes) ? s.volumes : []).filter((v: Obj) => v?.hostPath).map((v: Obj) => String(v.name ?? ''));
      return vols.length ? `hostPath volumes (${vols.length === 1 ? 'volume' : 'volumes'} ${quoted(vols)})` : undefined;
    },
  },
  {
    id: 'hostPorts',
    level: 'baseline',
    run: (_s, cs) => {
      const bad = cs.filter((c) => c.ports.some((p) => p?.hostPort)).map((c) => c.name);
      const ports = cs.flatMap((c) => c.ports.filter((p) => p?.hostPort).map((p) => String(p.hostPort)));
      return bad.length ? `hostPort (${containerWord(bad)} ${bad.length === 1 ? 'uses' : 'use'} ${ports.length === 1 ? 'hostPort' : 'hostPorts'} ${ports.join(', ')})` : undefined;
    },
  },
  {
    id: 'privileged',
    level: 'baseline',
    run: (_s, cs) => {
      const bad = cs.filter((c) => c.sc.privileged === true).map((c) => c.name);
      return bad.length ? `privileged (${containerWord(bad)} must not set securityContext.privileged=true)` : undefined;
    },
  },
  {
    id: 'runAsNonRoot',
    level: 'restricted',
    run: (s, cs) => {
      const podSet = s.securityContext?.runAsNonRoot === true;
      if (s.securityContext?.runAsNonRoot === false) return 'runAsNonRoot != true (pod must not set securityContext.runAsNonRoot=false)';
      const bad = cs.filter((c) => c.sc.runAsNonRoot === false || (!podSet && c.sc.runAsNonRoot !== true)).map((c) => c.name);
      return bad.length ? `runAsNonRoot != true (pod or ${containerWord(bad)} must set securityContext.runAsNonRoot=true)` : undefined;
    },
  },
  {
    id: 'seccompProfile_baseline',
    level: 'baseline',
    run: (s, cs) => {
      if (s.securityContext?.seccompProfile?.type === 'Unconfined') return 'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")';
      const bad = cs.filter((c) => c.sc.seccompProfile?.type === 'Unconfined').map((c) => c.name);
      return bad.length ? `seccompProfile (${containerWord(bad)} must not set securityContext.seccompProfile.type to "Unconfined")` : undefined;
    },
  },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    run: (s, cs) => {
      const ok = (t: unknown) => t === 'RuntimeDefault' || t === 'Localhost';
      const podOk = ok(s.securityContext?.seccompProfile?.type);
      const bad = cs.filter((c) => (c.sc.seccompProfile?.type === undefined ? !podOk : !ok(c.sc.seccompProfile.type))).map((c) => c.name);
      return bad.length ? `seccompProfile (pod or ${containerWord(bad)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")` : undefined;
    },
  },
];

const LEVELS: Level[] = ['privileged', 'baseline', 'restricted'];

/** The violations of a pod spec at a level, in kube's order. */
export function podSecurityViolations(spec: Obj, level: Level): string[] {
  if (level === 'privileged') return [];
  const cs = containersOf(spec);
  return CHECKS.filter((c) => level === 'restricted' || c.level === 'baseline')
    .map((c) => c.run(spec, cs))
    .filter((x): x is string => x !== undefined);
}

/** A PodSecurityConfiguration (pod-security.admission.config.k8s.io/v1) from --admission-control-config-file. */
export interface PodSecurityConfiguration {
  defaults?: Record<string, string>;
  exemptions?: { usernames?: string[]; namespaces?: string[]; runtimeClasses?: string[] };
}

function levelOf(labels: Record<string, string>, defaults: Record<string, string>, mode: string): { level: Level; version: string } | undefined {
  const level = (labels[`pod-security.kubernetes.io/${mode}`] ?? defaults[mode]) as Level | undefined;
  if (!level || !LEVELS.includes(level)) return undefined;
  return { level, version: labels[`pod-security.kubernetes.io/${mode}-version`] || defaults[`${mode}-version`] || 'latest' };
}

export function podSecurity(getNamespace: (name: string) => Promise<KubeObject | undefined>, config: PodSecurityConfiguration = {}): AdmissionPlugin {
  const defaults = config.defaults ?? {};
  const exempt = config.exemptions ?? {};
  return {
    name: 'PodSecurity',
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    validate(a: AdmissionAttributes) {
      return a.resource.group === '' && a.resource.resource === 'pods' && a.object ? checkPod(a) : undefined;
    },
  };

  async function checkPod(a: AdmissionAttributes): Promise<void> {
    if (!a.object) return;
    if (a.subResource && a.subResource !== 'ephemeralcontainers') return;
    if (!a.namespace) return;
    if (exempt.namespaces?.includes(a.namespace) || exempt.usernames?.includes(a.userInfo.name)) return;
    if (exempt.runtimeClasses?.includes(String((a.object.spec as Obj | undefined)?.runtimeClassName ?? ''))) return;
    const ns = await getNamespace(a.namespace);
    const labels = ns?.metadata.labels ?? {};
    const spec = (a.object.spec ?? {}) as Obj;
    // An update that changes nothing the checks read is not re-evaluated (kube ignores metadata-only updates).
    if (a.operation === 'UPDATE' && a.oldObject && JSON.stringify(a.oldObject.spec) === JSON.stringify(a.object.spec)) return;
    const enforce = levelOf(labels, defaults, 'enforce');
    if (enforce) {
      const v = podSecurityViolations(spec, enforce.level);
      if (v.length) {
        const m = a.object.metadata;
        throw forbiddenError({ group: '', resource: 'pods' }, m.name || m.generateName || a.name, `violates PodSecurity "${enforce.level}:${enforce.version}": ${v.join(', ')}`);
      }
    }
    const warn = levelOf(labels, defaults, 'warn');
    if (warn) {
      const v = podSecurityViolations(spec, warn.level);
      if (v.length) a.warnings.push(`would violate PodSecurity "${warn.level}:${warn.version}": ${v.join(', ')}`);
    }
    const audit = levelOf(labels, defaults, 'audit');
    if (audit) {
      const v = podSecurityViolations(spec, audit.level);
      if (v.length) a.auditAnnotations['pod-security.kubernetes.io/audit-violations'] = `would violate PodSecurity "${audit.level}:${audit.version}": ${v.join(', ')}`;
    }
  }
}
