// Pod spec defaulting (pkg/apis/core/v1/defaults.go: SetDefaults_PodSpec, _Pod, _Container, _Probe, _Volume
// ...) for pods and every pod template. The fields Go always writes (a template's metadata.creationTimestamp:
// null, a container's resources: {}) are the store's to fill (validation/go-zero-values.ts).

import { ensureObj, isObj, objsAt, setDefault, setDefaultString, type Obj } from '../object.ts';

const DEFAULT_MODE = 0o644;

// Docker reference grammar (github.com/distribution/reference), enough to find a tag or digest.
const alnum = '[a-z0-9]+';
const separator = '(?:[._]|__|[-]+)';
const pathComponent = `${alnum}(?:${separator}${alnum})*`;
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const domain = `(?:${domainComponent}(?:\\.${domainComponent})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const imageName = `(?:${domain}/)?${pathComponent}(?:/${pathComponent})*`;
const tag = '[\\w][\\w.-]{0,127}';
const digest = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const referenceRe = new RegExp(`^(${imageName})(?::(${tag}))?(?:@(${digest}))?$`);

/** parsers.ParseImageName's tag: "latest" when neither tag nor digest is given; undefined when unparseable. */
export function imageTag(image: string): string | undefined {
  const m = referenceRe.exec(image);
  if (!m || m[1].length > 255) return undefined;
  // The first component is a registry only if it looks like one; otherwise it must be a lowercase path.
  const name = m[1];
  const slash = name.indexOf('/');
  const first = slash < 0 ? name : name.slice(0, slash);
  const isDomain = slash >= 0 && (/[.:]/.test(first) || first === 'localhost' || first.toLowerCase() !== first);
  if (!isDomain && first.toLowerCase() !== first) return undefined;
  if (m[2]) return m[2];
  return m[3] ? '' : 'latest';
}

/** SetDefaults_Container's imagePullPolicy: Always for :latest (or no tag), IfNotPresent otherwise. */
export function defaultPullPolicy(image: string): string {
  return imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultHandler(handler: unknown): void {
  if (!isObj(handler)) return;
  const httpGet = handler.httpGet;
  if (isObj(httpGet)) {
    setDefaultString(httpGet, 'path', '/');
    setDefaultString(httpGet, 'scheme', 'HTTP');
  }
}

function defaultProbe(probe: unknown): void {
  if (!isObj(probe)) return;
  defaultHandler(probe);
  for (const [k, v] of [
    ['timeoutSeconds', 1],
    ['periodSeconds', 10],
    ['successThreshold', 1],
    ['failureThreshold', 3],
  ] as const) {
    if (probe[k] === undefined || probe[k] === null || probe[k] === 0) probe[k] = v;
  }
}

function defaultEnv(container: Obj): void {
  for (const env of objsAt(container, 'env')) {
    const fieldRef = isObj(env.valueFrom) ? env.valueFrom.fieldRef : undefined;
    if (isObj(fieldRef)) setDefaultString(fieldRef, 'apiVersion', 'v1');
  }
}

export function defaultContainer(container: Obj): void {
  if (!container.imagePullPolicy) container.imagePullPolicy = defaultPullPolicy(typeof container.image === 'string' ? container.image : '');
  setDefaultString(container, 'terminationMessagePath', '/dev/termination-log');
  setDefaultString(container, 'terminationMessagePolicy', 'File');
  for (const port of objsAt(container, 'ports')) setDefaultString(port, 'protocol', 'TCP');
  defaultProbe(container.livenessProbe);
  defaultProbe(container.readinessProbe);
  defaultProbe(container.startupProbe);
  if (isObj(container.lifecycle)) {
    defaultHandler(container.lifecycle.postStart);
    defaultHandler(container.lifecycle.preStop);
  }
  defaultEnv(container);
  // ResourceRequirements is a struct: Go always writes it.
}

const VOLUME_SOURCES = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile', 'configMap',
  'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO', 'storageos', 'csi',
  'ephemeral', 'image',
];

export function volumeSourceKeys(volume: Obj): string[] {
  return VOLUME_SOURCES.filter((k) => volume[k] !== undefined && volume[k] !== null);
}

function defaultVolume(volume: Obj): void {
  if (volumeSourceKeys(volume).length === 0) volume.emptyDir = {};
  for (const key of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const src = volume[key];
    if (isObj(src)) setDefault(src, 'defaultMode', DEFAULT_MODE);
  }
  if (isObj(volume.hostPath)) setDefault(volume.hostPath, 'type', '');
  if (isObj(volume.projected)) {
    for (const source of objsAt(volume.projected, 'sources')) {
      if (isObj(source.serviceAccountToken)) setDefault(source.serviceAccountToken, 'expirationSeconds', 3600);
      if (isObj(source.downwardAPI)) defaultDownwardAPIItems(source.downwardAPI);
    }
  }
  if (isObj(volume.downwardAPI)) defaultDownwardAPIItems(volume.downwardAPI);
  const claimTemplate = isObj(volume.ephemeral) ? volume.ephemeral.volumeClaimTemplate : undefined;
  if (isObj(claimTemplate)) setDefault(ensureObj(claimTemplate, 'spec'), 'volumeMode', 'Filesystem');
  // kube defaults an image volume's pull policy only with ImageVolume on; without it the volume is dropped anyway.
  if (isObj(volume.image)) setDefaultString(volume.image, 'pullPolicy', defaultPullPolicy(typeof volume.image.reference === 'string' ? volume.image.reference : ''));
}

function defaultDownwardAPIItems(source: Obj): void {
  for (const item of objsAt(source, 'items')) if (isObj(item.fieldRef)) setDefaultString(item.fieldRef, 'apiVersion', 'v1');
}

function defaultHostNetworkPorts(containers: Obj[]): void {
  for (const c of containers) {
    for (const port of objsAt(c, 'ports')) if (!port.hostPort) port.hostPort = port.containerPort;
  }
}

/** SetDefaults_PodSpec and the container/volume defaults under it. */
export function defaultPodSpec(spec: Obj): void {
  setDefaultString(spec, 'dnsPolicy', 'ClusterFirst');
  setDefaultString(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefaultString(spec, 'schedulerName', 'default-scheduler');
  for (const c of objsAt(spec, 'containers')) defaultContainer(c);
  for (const c of objsAt(spec, 'initContainers')) defaultContainer(c);
  for (const c of objsAt(spec, 'ephemeralContainers')) defaultContainer(c);
  for (const v of objsAt(spec, 'volumes')) defaultVolume(v);
}

function requestsFromLimits(containers: Obj[]): void {
  for (const c of containers) {
    const resources = isObj(c.resources) ? c.resources : undefined;
    if (!resources || !isObj(resources.limits)) continue;
    const requests = ensureObj(resources, 'requests');
    for (const [k, v] of Object.entries(resources.limits)) if (!Object.hasOwn(requests, k)) requests[k] = v;
  }
}

/** SetDefaults_Pod on top of the spec defaults: requests from limits, service links, host network ports. */
export function defaultPod(pod: Obj): void {
  const spec = ensureObj(pod, 'spec');
  defaultPodSpec(spec);
  requestsFromLimits(objsAt(spec, 'containers'));
  requestsFromLimits(objsAt(spec, 'initContainers'));
  setDefault(spec, 'enableServiceLinks', true);
  if (spec.hostNetwork === true) {
    defaultHostNetworkPorts(objsAt(spec, 'containers'));
    defaultHostNetworkPorts(objsAt(spec, 'initContainers'));
  }
}

/** A PodTemplateSpec inside a workload: its spec's defaults. */
export function defaultPodTemplate(template: Obj): void {
  defaultPodSpec(ensureObj(template, 'spec'));
}
