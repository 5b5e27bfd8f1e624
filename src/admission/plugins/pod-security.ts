// PodSecurity (k8s.io/pod-security-admission): the namespace's pod-security.kubernetes.io/enforce|warn|audit
// labels (and their -version; else the PodSecurityConfiguration defaults of --admission-control-config-file) pick a level, privileged, baseline or restricted; a pod create or update that
// violates the enforced level is refused, one that violates the warn level gets a Warning header. The checks
// are the commonly hit ones of the baseline and restricted levels, reported in kube's check order and wording.

import { fieldErrors, fieldErrorString, invalid, type FieldError } from '../../apis/errors.ts';
import { forbiddenError } from '../../registry/store-errors.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import { loopbackContext } from '../../registry/registry.ts';
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

type LevelVersion = { level: Level; version: string };
type NamespacePolicy = { enforce: LevelVersion; audit: LevelVersion; warn: LevelVersion };
const MODES = ['enforce', 'audit', 'warn'] as const;

/**
 * PolicyToEvaluate: the configuration's defaults (privileged:latest where it gives none), overridden by the
 * namespace's labels. A level label kube cannot parse is restricted (and an error); warn follows an explicitly set,
 * more restrictive enforce level unless the namespace sets warn itself.
 */
function policyToEvaluate(labels: Record<string, string>, defaults: Record<string, string>): { policy: NamespacePolicy; errors: FieldError[] } {
  const base = (mode: string): LevelVersion => ({
    level: LEVELS.includes(defaults[mode] as Level) ? (defaults[mode] as Level) : 'privileged',
    version: defaults[`${mode}-version`] || 'latest',
  });
  const policy: NamespacePolicy = { enforce: base('enforce'), audit: base('audit'), warn: base('warn') };
  const errors: FieldError[] = [];
  const set = { enforceLevel: false, warnLevel: false, warnVersion: false };
  for (const mode of MODES) {
    const label = `pod-security.kubernetes.io/${mode}`;
    const level = labels[label];
    if (level !== undefined) {
      const valid = LEVELS.includes(level as Level);
      policy[mode].level = valid ? (level as Level) : 'restricted';
      if (!valid) errors.push(fieldErrors.invalid(`metadata.labels[${label}]`, level, `must be one of ${LEVELS.join(', ')}`));
      if (mode === 'enforce') set.enforceLevel = valid;
      if (mode === 'warn') set.warnLevel = valid;
    }
    const version = labels[`${label}-version`];
    if (version) {
      policy[mode].version = version;
      if (mode === 'warn') set.warnVersion = true;
    }
  }
  if (!set.warnLevel && set.enforceLevel && LEVELS.indexOf(policy.enforce.level) > LEVELS.indexOf(policy.warn.level)) {
    policy.warn = { level: policy.enforce.level, version: set.warnVersion ? policy.warn.version : policy.enforce.version };
  }
  return { policy, errors };
}

/** The resources kube's PodSecurity checks as pod controllers (warn and audit only), and where their pod template is. */
const POD_TEMPLATE_PATHS: Record<string, readonly string[]> = {
  '/podtemplates': ['template'],
  '/replicationcontrollers': ['spec', 'template'],
  'apps/replicasets': ['spec', 'template'],
  'apps/deployments': ['spec', 'template'],
  'apps/statefulsets': ['spec', 'template'],
  'apps/daemonsets': ['spec', 'template'],
  'batch/jobs': ['spec', 'template'],
  'batch/cronjobs': ['spec', 'jobTemplate', 'spec', 'template'],
};

const PRIVILEGED = { level: 'privileged' as Level, version: 'latest' };
const text = (lv: { level: Level; version: string }) => `${lv.level}:${lv.version}`;

/** isSignificantPodUpdate: kube re-evaluates a pod update only when an image, the container list or a seccomp annotation changed. */
function significantPodUpdate(pod: KubeObject, old: KubeObject): boolean {
  const ann = pod.metadata.annotations ?? {};
  const oldAnn = old.metadata.annotations ?? {};
  if (ann['seccomp.security.alpha.kubernetes.io/pod'] !== oldAnn['seccomp.security.alpha.kubernetes.io/pod']) return true;
  const list = (o: KubeObject, key: string) => (((o.spec as Obj | undefined)?.[key] as Obj[] | undefined) ?? []);
  for (const key of ['containers', 'initContainers']) {
    const now = list(pod, key);
    const before = list(old, key);
    if (now.length !== before.length) return true;
    for (let i = 0; i < now.length; i++) {
      const seccomp = `container.seccomp.security.alpha.kubernetes.io/${String(now[i].name)}`;
      if (now[i].image !== before[i].image || ann[seccomp] !== oldAnn[seccomp]) return true;
    }
  }
  // ephemeral containers: only ever added, each compared with its old self by name
  const beforeByName = new Map(list(old, 'ephemeralContainers').map((c) => [c.name, c]));
  for (const c of list(pod, 'ephemeralContainers')) {
    const b = beforeByName.get(c.name);
    const seccomp = `container.seccomp.security.alpha.kubernetes.io/${String(c.name)}`;
    if (!b || b.image !== c.image || ann[seccomp] !== oldAnn[seccomp]) return true;
  }
  return false;
}

/** utilerrors.NewAggregate's text: one error bare, several in brackets. */
const aggregate = (errors: readonly FieldError[]): string => (errors.length === 1 ? fieldErrorString(errors[0]) : `[${errors.map(fieldErrorString).join(', ')}]`);

/** The reasons of a check's violations without their details (kube's ForbiddenReason). */
const reasonsOf = (violations: readonly string[]): string => violations.map((v) => v.split(' (')[0]).join(', ');

const sameLevel = (x: LevelVersion, y: LevelVersion): boolean => x.level === y.level && x.version === y.version;

/** A namespace's pods as kube's pod lister reads them (the watch cache). */
export function podLister(registry: Registry): (namespace: string) => Promise<readonly KubeObject[]> {
  return async (namespace) => {
    const def = registry.lookup('', 'v1', 'pods');
    return def ? (await registry.store(def).list(loopbackContext(namespace), { resourceVersion: '0' })).items : [];
  };
}

/** The most pods a namespace's new enforce level is checked against (kube's namespaceMaxPodLimit). */
const NAMESPACE_MAX_POD_LIMIT = 3000;

export function podSecurity(
  getNamespace: (name: string) => Promise<KubeObject | undefined>,
  config: PodSecurityConfiguration = {},
  listPods: (namespace: string) => Promise<readonly KubeObject[]> = async () => [],
): AdmissionPlugin {
  const defaults = config.defaults ?? {};
  const exempt = config.exemptions ?? {};
  return {
    name: 'PodSecurity',
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    validate(a: AdmissionAttributes) {
      if (!a.object || !a.namespace) return undefined;
      if (a.resource.group === '' && a.resource.resource === 'namespaces') return a.subResource ? undefined : checkNamespace(a);
      if (a.resource.group === '' && a.resource.resource === 'pods') return checkPod(a);
      const path = POD_TEMPLATE_PATHS[`${a.resource.group}/${a.resource.resource}`];
      return path && !a.subResource ? checkController(a, path) : undefined;
    },
  };

  // The plugin's audit annotations carry kube's prefix (pod-security.kubernetes.io/enforce-policy, /exempt, ...).
  function annotate(a: AdmissionAttributes, key: string, value: string): void {
    a.auditAnnotations[`pod-security.kubernetes.io/${key}`] ??= value;
  }

  /** The namespace's policy; labels kube cannot parse are noted in the audit log as kube notes them. */
  async function policyOf(a: AdmissionAttributes): Promise<NamespacePolicy & { parsed: boolean }> {
    const { policy, errors } = policyToEvaluate((await getNamespace(a.namespace))?.metadata.labels ?? {}, defaults);
    if (errors.length) annotate(a, 'error', `Failed to parse policy: ${aggregate(errors)}`);
    return { ...policy, parsed: errors.length === 0 };
  }

  /** Exempt namespaces and users (kube answers them before it reads the namespace). */
  function exemption(a: AdmissionAttributes): boolean {
    if (exempt.namespaces?.includes(a.namespace)) annotate(a, 'exempt', 'namespace');
    else if (exempt.usernames?.includes(a.userInfo.name)) annotate(a, 'exempt', 'user');
    else return false;
    return true;
  }

  function runtimeClassExempt(spec: Obj): boolean {
    return !!exempt.runtimeClasses?.includes(String(spec.runtimeClassName ?? ''));
  }

  /** The audit and warn evaluations every checked pod or template gets. */
  function auditAndWarn(a: AdmissionAttributes, spec: Obj, policy: NamespacePolicy, warn: boolean): void {
    const audited = podSecurityViolations(spec, policy.audit.level);
    if (audited.length) annotate(a, 'audit-violations', `would violate PodSecurity "${text(policy.audit)}": ${audited.join(', ')}`);
    if (!warn) return;
    const warned = podSecurityViolations(spec, policy.warn.level);
    if (warned.length) a.warnings.push(`would violate PodSecurity "${text(policy.warn)}": ${warned.join(', ')}`);
  }

  async function checkPod(a: AdmissionAttributes): Promise<void> {
    const pod = a.object!;
    if (a.subResource && a.subResource !== 'ephemeralcontainers') return;
    if (exemption(a)) return;
    const policy = await policyOf(a);
    if (policy.parsed && policy.enforce.level === 'privileged' && policy.audit.level === 'privileged' && policy.warn.level === 'privileged') {
      annotate(a, 'enforce-policy', text(PRIVILEGED));
      return;
    }
    // An update that changes nothing the checks read is not re-evaluated (kube ignores metadata-only updates).
    if (a.operation === 'UPDATE' && a.oldObject && !significantPodUpdate(pod, a.oldObject)) return;
    const spec = (pod.spec ?? {}) as Obj;
    if (runtimeClassExempt(spec)) {
      annotate(a, 'exempt', 'runtimeClass');
      return;
    }
    annotate(a, 'enforce-policy', text(policy.enforce));
    const denied = podSecurityViolations(spec, policy.enforce.level);
    // kube audits a refused pod too, and warns only of one it lets through
    auditAndWarn(a, spec, policy, denied.length === 0);
    if (denied.length) {
      const m = pod.metadata;
      throw forbiddenError({ group: '', resource: 'pods' }, m.name || m.generateName || a.name, `violates PodSecurity "${text(policy.enforce)}": ${denied.join(', ')}`);
    }
  }

  /** ValidatePodController: a workload's pod template, for warn and audit (never enforced). */
  async function checkController(a: AdmissionAttributes, path: readonly string[]): Promise<void> {
    if (exemption(a)) return;
    const policy = await policyOf(a);
    if (policy.parsed && policy.audit.level === 'privileged' && policy.warn.level === 'privileged') return;
    let template: unknown = a.object;
    for (const key of path) template = template && typeof template === 'object' ? (template as Obj)[key] : undefined;
    const spec = template && typeof template === 'object' ? (template as Obj).spec : undefined;
    if (!spec || typeof spec !== 'object') return;
    if (runtimeClassExempt(spec as Obj)) {
      annotate(a, 'exempt', 'runtimeClass');
      return;
    }
    auditAndWarn(a, spec as Obj, policy, true);
  }

  /** exemptNamespaceWarning: the policy an exempt namespace's labels set, which kube will not apply. */
  function exemptNamespaceWarning(name: string, policy: NamespacePolicy, labels: Record<string, string>): string | undefined {
    const fallback = policyToEvaluate({}, defaults).policy;
    const privileged = MODES.every((m) => policy[m].level === 'privileged');
    if (privileged || MODES.every((m) => sameLevel(policy[m], fallback[m]))) return undefined;
    const parts = MODES.filter((m) => policy[m].level !== 'privileged' && (`pod-security.kubernetes.io/${m}` in labels || `pod-security.kubernetes.io/${m}-version` in labels)).map((m) => `${m}=${text(policy[m])}`);
    return `namespace ${JSON.stringify(name)} is exempt from Pod Security, and the policy (${parts.join(', ')}) will be ignored`;
  }

  /** ValidateNamespace: labels must parse; a stricter enforce level is tried on the namespace's pods, as warnings. */
  async function checkNamespace(a: AdmissionAttributes): Promise<void> {
    const ns = a.object!;
    const labels = ns.metadata.labels ?? {};
    const { policy, errors } = policyToEvaluate(labels, defaults);
    const name = ns.metadata.name ?? a.name;
    const warnExempt = () => {
      const w = exemptNamespaceWarning(name, policy, labels);
      if (w) a.warnings.push(w);
    };
    if (a.operation === 'CREATE') {
      if (errors.length) throw invalid({ group: '', kind: 'Namespace' }, name, errors);
      if (exempt.namespaces?.includes(name)) warnExempt();
      return;
    }
    const old = policyToEvaluate(a.oldObject?.metadata.labels ?? {}, defaults);
    if (errors.length && (old.errors.length === 0 || aggregate(errors) !== aggregate(old.errors))) throw invalid({ group: '', kind: 'Namespace' }, name, errors);
    if (sameLevel(policy.enforce, old.policy.enforce) || policy.enforce.level === 'privileged') return;
    if (policy.enforce.version === old.policy.enforce.version && LEVELS.indexOf(policy.enforce.level) <= LEVELS.indexOf(old.policy.enforce.level)) return;
    if (exempt.namespaces?.includes(name)) return warnExempt();
    a.warnings.push(...(await podsViolating(name, policy.enforce)));
  }

  /** EvaluatePodsInNamespace: one pod of each controller first, the warnings grouped by their reasons. */
  async function podsViolating(namespace: string, enforce: LevelVersion): Promise<string[]> {
    let pods: readonly KubeObject[];
    try {
      pods = await listPods(namespace);
    } catch {
      return ['failed to list pods while checking new PodSecurity enforce level'];
    }
    const first: KubeObject[] = [];
    const later: KubeObject[] = [];
    const seen = new Set<string>();
    for (const pod of pods) {
      if (runtimeClassExempt((pod.spec ?? {}) as Obj)) continue;
      const owner = pod.metadata.ownerReferences?.find((r) => r.controller === true);
      if (owner && seen.has(owner.uid)) later.push(pod);
      else {
        if (owner) seen.add(owner.uid);
        first.push(pod);
      }
    }
    const prioritized = [...first, ...later];
    const checked = prioritized.slice(0, NAMESPACE_MAX_POD_LIMIT);
    const byReason = new Map<string, { podName: string; count: number }>();
    for (const pod of checked) {
      const violations = podSecurityViolations((pod.spec ?? {}) as Obj, enforce.level);
      if (!violations.length) continue;
      const reason = reasonsOf(violations);
      const podName = pod.metadata.name ?? '';
      const c = byReason.get(reason);
      if (!c) byReason.set(reason, { podName, count: 1 });
      else {
        c.count++;
        if (podName < c.podName) c.podName = podName;
      }
    }
    const warnings: string[] = [];
    if (checked.length < prioritized.length) warnings.push(`new PodSecurity enforce level only checked against the first ${checked.length} of ${prioritized.length} existing pods`);
    if (byReason.size > 0) warnings.push(`existing pods in namespace ${JSON.stringify(namespace)} violate the new PodSecurity enforce level ${JSON.stringify(text(enforce))}`);
    const podWarnings = [...byReason].map(([reason, { podName, count }]) =>
      count === 1 ? `${podName}: ${reason}` : count === 2 ? `${podName} (and 1 other pod): ${reason}` : `${podName} (and ${count - 1} other pods): ${reason}`,
    );
    return [...warnings, ...podWarnings.sort()];
  }
}
