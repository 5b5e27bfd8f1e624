// The warnings kube-apiserver 1.31 sends with a valid write of a pod or a pod template (pkg/api/pod's
// GetWarningsForPod and GetWarningsForPodTemplate): deprecated node labels, annotations and volume plugins,
// duplicates an apply would drop, fractional byte quantities, overlapping volume paths, ambiguous ports, selectors
// that match nothing. Also the claim spec warnings that pods, StatefulSets and PersistentVolumeClaims share, and the
// deprecated node labels PersistentVolumes and RuntimeClasses are warned about.
//
// Warnings that come from a Go map (node selectors, annotations) are in key order here; Go's map order is random.

import { isDNS1123Label } from '../../validation/names.ts';
import { canonicalQuantity, quantityNanos } from '../../validation/quantity.ts';
import { getPath, isObj, objsAt, strAt, type Obj } from '../object.ts';

export const DEPRECATED_NODE_LABELS: Readonly<Record<string, string>> = {
  'beta.kubernetes.io/arch': 'deprecated since v1.14; use "kubernetes.io/arch" instead',
  'beta.kubernetes.io/os': 'deprecated since v1.14; use "kubernetes.io/os" instead',
  'failure-domain.beta.kubernetes.io/region': 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
  'failure-domain.beta.kubernetes.io/zone': 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
  'beta.kubernetes.io/instance-type': 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
};

const deprecatedNodeLabel = (key: unknown): string | undefined => (typeof key === 'string' && Object.hasOwn(DEPRECATED_NODE_LABELS, key) ? DEPRECATED_NODE_LABELS[key] : undefined);

const DEPRECATED_ANNOTATIONS: readonly [string, string][] = [
  ['scheduler.alpha.kubernetes.io/critical-pod', 'non-functional in v1.16+; use the "priorityClassName" field instead'],
  ['security.alpha.kubernetes.io/sysctls', 'non-functional in v1.11+; use the "sysctls" field instead'],
  ['security.alpha.kubernetes.io/unsafe-sysctls', 'non-functional in v1.11+; use the "sysctls" field instead'],
];

/** The name kube's warnings give a volume plugin: its Go field's, which for storageos is "storageOS". */
const warnedAs = (plugin: string): string => (plugin === 'storageos' ? 'storageOS' : plugin);

const DEPRECATED_VOLUME_PLUGINS: readonly [string, string][] = [
  ['photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
  ['gitRepo', 'deprecated in v1.11'],
  ['scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
  ['flocker', 'deprecated in v1.22, non-functional in v1.25+'],
  ['storageos', 'deprecated in v1.22, non-functional in v1.25+'],
  ['quobyte', 'deprecated in v1.22, non-functional in v1.25+'],
  ['glusterfs', 'deprecated in v1.25, non-functional in v1.26+'],
];

const REMOVED_IN_131: readonly string[] = ['cephfs', 'rbd'];
const REMOVED_IN_131_MESSAGE = 'deprecated in v1.28, non-functional in v1.31+';

const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
const APPARMOR_CONTAINER_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

/** The object at a path, {} when missing. */
const at = (v: unknown, ...keys: string[]): Obj => {
  const x = getPath(v, ...keys);
  return isObj(x) ? x : {};
};

/** field.Path's text: children joined by dots after a prefix that may be empty. */
const child = (prefix: string, ...names: string[]): string => {
  let path = prefix;
  for (const name of names) if (name !== '') path = path === '' ? name : `${path}.${name}`;
  return path;
};
const key = (path: string, k: string): string => `${path}[${k}]`;

/** Go's %q of a string. */
const quote = (s: string): string => JSON.stringify(s);

/** The deprecated node labels a NodeSelectorTerm's matchExpressions use (nodeapi.GetWarningsForNodeSelectorTerm). */
export function nodeSelectorTermWarnings(term: unknown, path: string): string[] {
  const out: string[] = [];
  objsAt(term, 'matchExpressions').forEach((e, j) => {
    const msg = deprecatedNodeLabel(e.key);
    if (msg) out.push(`${path}.matchExpressions[${j}].key: ${String(e.key)} is ${msg}`);
  });
  return out;
}

/** Whether a quantity (memory, storage) holds a fraction of a byte: Quantity.MilliValue() % 1000 != 0. */
function fractionalBytes(v: unknown): boolean {
  const nanos = quantityNanos(v);
  if (nanos === undefined) return false;
  const milli = nanos >= 0n ? (nanos + 999_999n) / 1_000_000n : nanos / 1_000_000n;
  return milli % 1000n !== 0n;
}

function fractionalWarning(path: string, v: unknown): string {
  return `${path}: fractional byte value ${quote(canonicalQuantity(v) ?? String(v))} is invalid, must be an integer`;
}

/** pvcutil.GetWarningsForPersistentVolumeClaimSpec: fractional storage requests and limits. */
export function claimSpecWarnings(path: string, spec: unknown): string[] {
  const out: string[] = [];
  for (const kind of ['requests', 'limits']) {
    const v = at(spec, 'resources', kind).storage;
    if (v !== undefined && fractionalBytes(v)) out.push(fractionalWarning(`${child(path, 'resources', kind)}[storage]`, v));
  }
  return out;
}

/** The containers a pod spec holds, with their paths, in pods.VisitContainersWithPath's order. */
function containersWithPaths(spec: Obj, specPath: string): [Obj, string][] {
  const out: [Obj, string][] = [];
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    objsAt(spec, list).forEach((c, i) => out.push([c, `${child(specPath, list)}[${i}]`]));
  }
  return out;
}

/** Go's %+v of a core ContainerPort (the internal type's field order). */
function goPort(p: Obj): string {
  const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  return `{Name:${str(p.name)} HostPort:${num(p.hostPort)} ContainerPort:${num(p.containerPort)} Protocol:${str(p.protocol)} HostIP:${str(p.hostIP)}}`;
}

function portWarnings(spec: Obj, specPath: string): string[] {
  const out: string[] = [];
  const seen = new Map<string, { path: string; port: Obj }[]>();
  for (const [c, path] of containersWithPaths(spec, specPath)) {
    objsAt(c, 'ports').forEach((port, i) => {
      const here = `${path}.ports[${i}]`;
      const hostIP = typeof port.hostIP === 'string' ? port.hostIP : '';
      const hostPort = typeof port.hostPort === 'number' ? port.hostPort : 0;
      if (hostIP !== '' && hostPort === 0) out.push(`${here}: hostIP set without hostPort: ${goPort(port)}`);
      const k = `${String(port.containerPort ?? 0)}/${String(port.protocol ?? '')}`;
      const others = seen.get(k);
      if (!others) {
        seen.set(k, [{ path: here, port }]);
        return;
      }
      for (const other of others) {
        const otherIP = typeof other.port.hostIP === 'string' ? other.port.hostIP : '';
        const otherPort = typeof other.port.hostPort === 'number' ? other.port.hostPort : 0;
        if (hostIP === otherIP && hostPort === otherPort) out.push(`${here}: duplicate port definition with ${other.path}`);
        else if (hostPort === 0 || otherPort === 0) out.push(`${here}: overlapping port definition with ${other.path}`);
        else if (hostPort === otherPort && (hostIP === '') !== (otherIP === '')) out.push(`${here}: dangerously ambiguous port definition with ${other.path}`);
      }
      others.push({ path: here, port });
    });
  }
  return out;
}

/** checkForOverlap: a path already mapped that equals the new one or holds it (or is held by it). */
function overlapWith(paths: readonly string[], path: string): string | undefined {
  for (const item of paths) {
    if (item === '' || path === '') return undefined;
    if (item === path || `${item}/`.startsWith(path) || `${path}/`.startsWith(item)) return item;
  }
  return undefined;
}

/** checkVolumeMappingForOverlap: each path against those before it. */
function mappingOverlaps(paths: readonly string[], message: string): string[] {
  const out: string[] = [];
  const seen: string[] = [];
  for (const p of paths) {
    const normalized = p.replace(/\/+$/, '');
    const collision = overlapWith(seen, normalized);
    if (collision !== undefined) out.push(`${message}: ${quote(normalized)} with ${quote(collision)}`);
    if (!seen.includes(normalized)) seen.push(normalized);
  }
  return out;
}

const itemPaths = (source: unknown): string[] => objsAt(source, 'items').map((item) => strAt(item, 'path'));

/** warningsForOverlappingVirtualPaths: items of one ConfigMap, Secret or DownwardAPI volume, or of a projected one. */
function overlappingPathWarnings(volumes: Obj[]): string[] {
  const out: string[] = [];
  for (const v of volumes) {
    const name = quote(strAt(v, 'name'));
    if (isObj(v.configMap) && Array.isArray(v.configMap.items)) {
      out.push(...mappingOverlaps(itemPaths(v.configMap), `volume ${name} (ConfigMap ${quote(strAt(v.configMap, 'name'))}): overlapping paths`));
    }
    if (isObj(v.secret) && Array.isArray(v.secret.items)) {
      out.push(...mappingOverlaps(itemPaths(v.secret), `volume ${name} (Secret ${quote(strAt(v.secret, 'secretName'))}): overlapping paths`));
    }
    if (isObj(v.downwardAPI) && Array.isArray(v.downwardAPI.items)) {
      out.push(...mappingOverlaps(itemPaths(v.downwardAPI), `volume ${name} (DownwardAPI): overlapping paths`));
    }
    if (!isObj(v.projected)) continue;
    // Each source's own paths, then all the volume's paths so far together, sorted.
    const all = new Set<string>();
    for (const source of objsAt(v.projected, 'sources')) {
      let paths: string[];
      let message: string;
      if (isObj(source.configMap) && Array.isArray(source.configMap.items)) {
        paths = itemPaths(source.configMap);
        message = `volume ${name} (Projected ConfigMap ${quote(strAt(source.configMap, 'name'))}): overlapping paths`;
      } else if (isObj(source.secret) && Array.isArray(source.secret.items)) {
        paths = itemPaths(source.secret);
        message = `volume ${name} (Projected Secret ${quote(strAt(source.secret, 'name'))}): overlapping paths`;
      } else if (isObj(source.downwardAPI) && Array.isArray(source.downwardAPI.items)) {
        paths = itemPaths(source.downwardAPI);
        message = `volume ${name} (Projected DownwardAPI): overlapping paths`;
      } else continue;
      if (paths.length === 0) continue;
      out.push(...mappingOverlaps(paths, message));
      const unique = [...new Set(paths)];
      out.push(...mappingOverlaps([...unique, ...all].sort(), message));
      for (const p of unique) all.add(p);
    }
  }
  return out;
}

/** A list's items whose field repeats an earlier item's: `<path>[i].<field>: duplicate <field> "<value>"`. */
function repeatWarnings(items: Obj[], path: string, field: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const value = strAt(item, field);
    if (seen.has(value)) out.push(`${path}[${i}].${field}: duplicate ${field} ${quote(value)}`);
    else seen.add(value);
  });
  return out;
}

function nullSelectorWarnings(terms: Obj[], path: string, inner: string[]): string[] {
  const out: string[] = [];
  terms.forEach((t, i) => {
    const term = inner.length ? at(t, ...inner) : t;
    if (!isObj(term.labelSelector)) out.push(`${path}[${i}].${[...inner, 'labelSelector'].join('.')}: a null labelSelector results in matching no pod`);
  });
  return out;
}

/**
 * warningsForPodSpecAndMeta: `prefix` is '' for a pod, the template's path (spec.template, template,
 * spec.jobTemplate.spec.template) for a pod template.
 */
function podSpecAndMetaWarnings(prefix: string, spec: Obj, meta: Obj): string[] {
  const out: string[] = [];
  const specPath = child(prefix, 'spec');
  const annotationsPath = child(prefix, 'metadata', 'annotations');
  const annotations = at(meta, 'annotations');

  const nodeSelector = at(spec, 'nodeSelector');
  for (const k of Object.keys(nodeSelector).sort()) {
    const msg = deprecatedNodeLabel(k);
    if (msg) out.push(`${key(child(specPath, 'nodeSelector'), k)}: ${msg}`);
  }
  const nodeAffinity = at(spec, 'affinity', 'nodeAffinity');
  if (isObj(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution)) {
    const termsPath = child(specPath, 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms');
    objsAt(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, 'nodeSelectorTerms').forEach((term, i) => out.push(...nodeSelectorTermWarnings(term, `${termsPath}[${i}]`)));
  }
  objsAt(nodeAffinity, 'preferredDuringSchedulingIgnoredDuringExecution').forEach((term, i) => {
    const preferredPath = child(specPath, 'affinity', 'nodeAffinity', 'preferredDuringSchedulingIgnoredDuringExecution');
    out.push(...nodeSelectorTermWarnings(term.preference, `${preferredPath}[${i}].preference`));
  });
  objsAt(spec, 'topologySpreadConstraints').forEach((t, i) => {
    const path = `${child(specPath, 'topologySpreadConstraints')}[${i}]`;
    const msg = deprecatedNodeLabel(t.topologyKey);
    if (msg) out.push(`${path}.topologyKey: ${String(t.topologyKey)} is ${msg}`);
    if (!isObj(t.labelSelector)) out.push(`${path}.labelSelector: a null labelSelector results in matching no pod`);
  });

  for (const [k, msg] of DEPRECATED_ANNOTATIONS) if (Object.hasOwn(annotations, k)) out.push(`${key(annotationsPath, k)}: ${msg}`);

  const volumes = objsAt(spec, 'volumes');
  volumes.forEach((v, i) => {
    const path = `${child(specPath, 'volumes')}[${i}]`;
    for (const [plugin, msg] of DEPRECATED_VOLUME_PLUGINS) if (isObj(v[plugin])) out.push(`${path}.${warnedAs(plugin)}: ${msg}`);
    const claimTemplate = at(v, 'ephemeral').volumeClaimTemplate;
    if (isObj(claimTemplate)) out.push(...claimSpecWarnings(`${path}.ephemeral.volumeClaimTemplate.spec`, claimTemplate.spec));
    for (const plugin of REMOVED_IN_131) if (isObj(v[plugin])) out.push(`${path}.${plugin}: ${REMOVED_IN_131_MESSAGE}`);
  });
  out.push(...overlappingPathWarnings(volumes));

  out.push(...repeatWarnings(objsAt(spec, 'hostAliases'), child(specPath, 'hostAliases'), 'ip'));
  const pullSecrets = objsAt(spec, 'imagePullSecrets');
  out.push(...repeatWarnings(pullSecrets, child(specPath, 'imagePullSecrets'), 'name'));
  pullSecrets.forEach((s, i) => {
    if (strAt(s, 'name') === '') out.push(`${child(specPath, 'imagePullSecrets')}[${i}].name: invalid empty name ""`);
  });

  const overhead = at(spec, 'overhead');
  for (const resource of ['memory', 'ephemeral-storage']) {
    if (overhead[resource] !== undefined && fractionalBytes(overhead[resource])) out.push(fractionalWarning(key(child(specPath, 'overhead'), resource), overhead[resource]));
  }

  const podSecurity = at(spec, 'securityContext');
  if (!isObj(podSecurity.seccompProfile) && Object.hasOwn(annotations, SECCOMP_POD_ANNOTATION)) {
    out.push(`${key(annotationsPath, SECCOMP_POD_ANNOTATION)}: non-functional in v1.27+; use the "seccompProfile" field instead`);
  }
  const podAppArmor = isObj(podSecurity.appArmorProfile);
  for (const [c, path] of containersWithPaths(spec, specPath)) {
    const name = strAt(c, 'name');
    const security = at(c, 'securityContext');
    const seccompKey = SECCOMP_CONTAINER_ANNOTATION_PREFIX + name;
    if (!isObj(security.seccompProfile) && Object.hasOwn(annotations, seccompKey)) {
      out.push(`${key(annotationsPath, seccompKey)}: non-functional in v1.27+; use the "seccompProfile" field instead`);
    }
    // Pods are warned when their annotations are synced with the fields (applyAppArmorVersionSkew), not here.
    const appArmorKey = APPARMOR_CONTAINER_ANNOTATION_PREFIX + name;
    if (prefix !== '' && !podAppArmor && !isObj(security.appArmorProfile) && Object.hasOwn(annotations, appArmorKey)) {
      out.push(`${key(annotationsPath, appArmorKey)}: deprecated since v1.30; use the "appArmorProfile" field instead`);
    }
    for (const [kind, resource] of [['limits', 'memory'], ['requests', 'memory'], ['limits', 'ephemeral-storage'], ['requests', 'ephemeral-storage']] as const) {
      const v = at(c, 'resources', kind)[resource];
      if (v !== undefined && fractionalBytes(v)) out.push(fractionalWarning(key(`${path}.resources.${kind}`, resource), v));
    }
    const env = objsAt(c, 'env');
    if (env.length > 1) {
      const names = new Set<string>();
      env.forEach((item, i) => {
        const envName = strAt(item, 'name');
        if (!names.has(envName)) {
          names.add(envName);
          return;
        }
        // A later definition that builds on the earlier one ("$(X)...") keeps it; any other hides it.
        const ref = `$(${envName})`;
        const value = strAt(item, 'value');
        if (isObj(item.valueFrom) || value === ref || !value.includes(ref)) {
          out.push(`${path}.env[${i}]: hides previous definition of ${quote(envName)}, which may be dropped when using apply`);
        }
      });
    }
  }
  out.push(...portWarnings(spec, specPath));

  const grace = spec.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace < 0) {
    out.push(`${child(specPath, 'terminationGracePeriodSeconds')}: must be >= 0; negative values are invalid and will be treated as 1`);
  }
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const affinity = at(spec, 'affinity')[kind];
    if (!isObj(affinity)) continue;
    const base = child(specPath, 'affinity', kind);
    out.push(...nullSelectorWarnings(objsAt(affinity, 'requiredDuringSchedulingIgnoredDuringExecution'), `${base}.requiredDuringSchedulingIgnoredDuringExecution`, []));
    out.push(...nullSelectorWarnings(objsAt(affinity, 'preferredDuringSchedulingIgnoredDuringExecution'), `${base}.preferredDuringSchedulingIgnoredDuringExecution`, ['podAffinityTerm']));
  }
  return out;
}

/** GetWarningsForPod. */
export function podWarnings(pod: Obj): string[] {
  return podSpecAndMetaWarnings('', at(pod, 'spec'), at(pod, 'metadata'));
}

/** GetWarningsForPodTemplate: the template at `path` (e.g. spec.template), absent or not, warns about nothing when absent. */
export function podTemplateWarnings(template: unknown, path: string): string[] {
  if (!isObj(template)) return [];
  return podSpecAndMetaWarnings(path, at(template, 'spec'), at(template, 'metadata'));
}

/** Node labels in a RuntimeClass's scheduling.nodeSelector (nodeapi.GetWarningsForRuntimeClass). */
export function runtimeClassWarnings(rc: Obj): string[] {
  const selector = at(rc, 'scheduling', 'nodeSelector');
  return Object.keys(selector)
    .sort()
    .flatMap((k) => {
      const msg = deprecatedNodeLabel(k);
      return msg ? [`scheduling.nodeSelector: ${msg}`] : [];
    });
}

/** The name warning of the types whose names go into pod names and hostnames (kube's WarningsOnCreate). */
export function workloadNameWarnings(obj: Obj, subject = 'Pod names and hostnames'): string[] {
  const msgs = isDNS1123Label(strAt(obj, 'metadata', 'name'));
  return msgs.length ? [`metadata.name: this is used in ${subject}, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`] : [];
}

/** Whether an update changed metadata.generation (the template warnings of an update come only then). */
export const generationChanged = (obj: Obj, old: Obj): boolean => at(obj, 'metadata').generation !== at(old, 'metadata').generation;

/**
 * job.WarningsForJobSpec: an Indexed Job past the completions and parallelism kube can track, and its template
 * (spec, or spec.jobTemplate.spec of a CronJob).
 */
export function jobSpecWarnings(spec: unknown, path: string): string[] {
  const out: string[] = [];
  const s = isObj(spec) ? spec : {};
  const count = (v: unknown): number => (typeof v === 'number' ? v : 0);
  if (s.completionMode === 'Indexed' && count(s.completions) > 100_000 && count(s.parallelism) > 10_000) {
    out.push(
      `${path}: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail`,
    );
  }
  out.push(...podTemplateWarnings(s.template, `${path}.template`));
  return out;
}

const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';
const STORAGE_CLASS_ANNOTATION_MESSAGE = 'deprecated since v1.8; use "storageClassName" attribute instead';

const storageClassAnnotationWarnings = (obj: Obj): string[] =>
  Object.hasOwn(at(obj, 'metadata', 'annotations'), BETA_STORAGE_CLASS_ANNOTATION) ? [`metadata.annotations[${BETA_STORAGE_CLASS_ANNOTATION}]: ${STORAGE_CLASS_ANNOTATION_MESSAGE}`] : [];

/** pvcutil.GetWarningsForPersistentVolumeClaim. */
export function persistentVolumeClaimWarnings(pvc: Obj): string[] {
  return [...storageClassAnnotationWarnings(pvc), ...claimSpecWarnings('spec', pvc.spec)];
}

/** pvutil.GetWarningsForPersistentVolume. */
export function persistentVolumeWarnings(pv: Obj): string[] {
  const out = storageClassAnnotationWarnings(pv);
  const spec = at(pv, 'spec');
  if (spec.persistentVolumeReclaimPolicy === 'Recycle') {
    out.push('spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.');
  }
  const required = at(spec, 'nodeAffinity').required;
  if (isObj(required)) objsAt(required, 'nodeSelectorTerms').forEach((term, i) => out.push(...nodeSelectorTermWarnings(term, `spec.nodeAffinity.required.nodeSelectorTerms[${i}]`)));
  const plugins: [string, string][] = [
    ['cephfs', REMOVED_IN_131_MESSAGE],
    ['photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
    ['scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
    ['storageos', 'deprecated in v1.22, non-functional in v1.25+'],
    ['glusterfs', 'deprecated in v1.25, non-functional in v1.26+'],
    ['rbd', REMOVED_IN_131_MESSAGE],
  ];
  for (const [plugin, msg] of plugins) if (isObj(spec[plugin])) out.push(`spec.${warnedAs(plugin)}: ${msg}`);
  return out;
}
