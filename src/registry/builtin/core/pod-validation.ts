// Pod spec validation (pkg/apis/core/validation: ValidatePodSpec, validateContainers, ValidateVolumes, probes,
// tolerations, ...) for pods and pod templates, with kube's paths and messages. A volume's source is
// volume-source-validation.ts's job.

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goInt, goPointer, goText } from '../../../apis/go-bad-values.ts';
import { validateAnnotations, validateDNS1123Label, validateLabels, validateNonnegative, validateQualifiedName } from '../../validation/meta.ts';
import { inclusiveRangeError, isConfigMapKey, isDNS1123Subdomain, isEnvVarName, isHTTPHeaderName, isValidLabelValue, isValidPortName, isValidPortNum } from '../../validation/names.ts';
import { quantityNanos } from '../../validation/quantity.ts';
import { isObj, objsAt, type Obj } from '../object.ts';
import { ENV_FIELD_PATHS, objectFieldSelectorErrors, resourceFieldSelectorErrors } from './downward-api-validation.ts';
import { pullPolicyErrors } from './image-pull-policy.ts';
import { isExtendedResourceName, isHugePagesResourceName, containerResourceNameErrors, overcommitAllowed } from './resource-names.ts';
import { podSpecificAnnotationErrors } from './pod-annotations.ts';
import { containerSecurityContextErrors, podSecurityErrors, securityAnnotationFieldErrors } from './pod-security-validation.ts';
import { validateHostAliases, validatePodDNSConfig } from './pod-dns-validation.ts';
import { validateAffinity, validateTopologySpreadConstraints, type SchedulingValidationOptions } from './pod-scheduling-validation.ts';
import { localDescendingPathErrors } from './local-paths.ts';
import { volumeSourceErrors } from './volume-source-validation.ts';
import type { PodUpdateOptions } from './pod-validation-options.ts';

export interface PodSpecOptions extends SchedulingValidationOptions {
  /** The spec belongs to a Pod (not a template): host ports must match container ports under hostNetwork. */
  readonly isPod: boolean;
  /** The pod's name (pods only): the claims its ephemeral volumes create are named after it. */
  readonly podName?: string;
  /** The server's feature gates, where the caller can reach them (an ephemeral volume's claim spec reads them). */
  readonly featureGates?: Readonly<Record<string, boolean>>;
  /** An update of a pod that already projected a service account token outside its volume. */
  readonly allowNonLocalProjectedTokenPath?: boolean;
  /** An update of a pod that already set sysctls of a namespace it shares with its host. */
  readonly allowNamespacedSysctlsForHostNetAndHostIPC?: boolean;
  /** An update of a pod whose old spec already held a hugepages value that is not a whole number of pages. */
  readonly allowIndivisibleHugePagesValues?: boolean;
}

const MAX_INT32 = 2147483647;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function subdomainErrors(value: string, path: string): FieldError[] {
  return isDNS1123Subdomain(value).map((m) => fieldErrors.invalid(path, value, m));
}

// ---- volumes ----

/** The claims a pod's ephemeral volumes create (<pod>-<volume>); none for a template or a pod without a name. */
function ephemeralClaimNames(volumes: Obj[], podName: string | undefined): Set<string> {
  return new Set(podName ? volumes.filter((v) => isObj(v.ephemeral)).map((v) => `${podName}-${str(v.name)}`) : []);
}

/** ValidateVolumes: the volumes that validated, by name (kube's map of volume sources), and the errors of the others. */
function validateVolumes(spec: Obj, path: string, opts: PodSpecOptions): { volumes: Map<string, Obj>; errs: FieldError[] } {
  const volumes = new Map<string, Obj>();
  const errs: FieldError[] = [];
  const list = objsAt(spec, 'volumes');
  const createdClaims = ephemeralClaimNames(list, opts.podName);
  const sourceOpts = { isPod: opts.isPod, podName: opts.podName, featureGates: opts.featureGates ?? {}, allowNonLocalProjectedTokenPath: opts.allowNonLocalProjectedTokenPath };
  list.forEach((vol, i) => {
    const p = `${path}[${i}]`;
    const name = str(vol.name);
    const el = volumeSourceErrors(vol, p, sourceOpts);
    if (name === '') el.push(fieldErrors.required(`${p}.name`));
    else el.push(...validateDNS1123Label(name, `${p}.name`));
    if (volumes.has(name)) el.push(fieldErrors.duplicate(`${p}.name`, name));
    if (el.length === 0) volumes.set(name, vol);
    else errs.push(...el);
    const claim = isObj(vol.persistentVolumeClaim) ? str(vol.persistentVolumeClaim.claimName) : undefined;
    if (claim !== undefined && createdClaims.has(claim)) {
      errs.push(fieldErrors.invalid(`${p}.persistentVolumeClaim.claimName`, claim, 'must not reference a PVC that gets created for an ephemeral volume'));
    }
  });
  return { volumes, errs };
}

// ---- containers ----

function validatePorts(ports: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const p = `${path}[${i}]`;
    const name = str(port.name);
    if (name !== '') {
      const msgs = isValidPortName(name);
      if (msgs.length) msgs.forEach((m) => errs.push(fieldErrors.invalid(`${p}.name`, name, m)));
      else if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
      else names.add(name);
    }
    const containerPort = typeof port.containerPort === 'number' ? port.containerPort : 0;
    if (containerPort === 0) errs.push(fieldErrors.required(`${p}.containerPort`));
    else for (const m of isValidPortNum(containerPort)) errs.push(fieldErrors.invalid(`${p}.containerPort`, containerPort, m));
    const hostPort = typeof port.hostPort === 'number' ? port.hostPort : 0;
    if (hostPort !== 0) for (const m of isValidPortNum(hostPort)) errs.push(fieldErrors.invalid(`${p}.hostPort`, hostPort, m));
    errs.push(...protocolErrors(port.protocol, `${p}.protocol`));
  });
  return errs;
}

export function protocolErrors(protocol: unknown, path: string): FieldError[] {
  const p = str(protocol);
  if (p === '') return [fieldErrors.required(path)];
  if (!['TCP', 'UDP', 'SCTP'].includes(p)) return [fieldErrors.notSupported(path, p, ['SCTP', 'TCP', 'UDP'])];
  return [];
}

function keySelectorErrors(sel: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(sel.name);
  for (const m of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid(`${path}.name`, name, m));
  const key = str(sel.key);
  if (key === '') errs.push(fieldErrors.required(`${path}.key`));
  else for (const m of isConfigMapKey(key)) errs.push(fieldErrors.invalid(`${path}.key`, key, m));
  return errs;
}

function validateEnv(env: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  env.forEach((ev, i) => {
    const p = `${path}[${i}]`;
    const name = str(ev.name);
    if (name === '') errs.push(fieldErrors.required(`${p}.name`));
    else for (const m of isEnvVarName(name)) errs.push(fieldErrors.invalid(`${p}.name`, name, m));
    if (!isObj(ev.valueFrom)) return;
    const vf = ev.valueFrom;
    const vp = `${p}.valueFrom`;
    let sources = 0;
    if (isObj(vf.fieldRef)) {
      sources++;
      errs.push(...objectFieldSelectorErrors(vf.fieldRef, ENV_FIELD_PATHS, `${vp}.fieldRef`));
    }
    if (isObj(vf.resourceFieldRef)) {
      sources++;
      errs.push(...resourceFieldSelectorErrors(vf.resourceFieldRef, `${vp}.resourceFieldRef`, false));
    }
    if (isObj(vf.configMapKeyRef)) {
      sources++;
      errs.push(...keySelectorErrors(vf.configMapKeyRef, `${vp}.configMapKeyRef`));
    }
    if (isObj(vf.secretKeyRef)) {
      sources++;
      errs.push(...keySelectorErrors(vf.secretKeyRef, `${vp}.secretKeyRef`));
    }
    if (sources === 0) errs.push(fieldErrors.invalid(vp, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (str(ev.value) !== '') errs.push(fieldErrors.invalid(vp, '', 'may not be specified when `value` is not empty'));
    else if (sources > 1) errs.push(fieldErrors.invalid(vp, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

function validateEnvFrom(envFrom: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  envFrom.forEach((ef, i) => {
    const p = `${path}[${i}]`;
    const prefix = str(ef.prefix);
    if (prefix !== '') for (const m of isEnvVarName(prefix)) errs.push(fieldErrors.invalid(`${p}.prefix`, prefix, m));
    let sources = 0;
    for (const key of ['configMapRef', 'secretRef']) {
      const ref = ef[key];
      if (!isObj(ref)) continue;
      sources++;
      const name = str(ref.name);
      if (name === '') errs.push(fieldErrors.required(`${p}.${key}.name`));
      else for (const m of isDNS1123Subdomain(name.endsWith('-') && name.length > 1 ? name.slice(0, -2) + 'a' : name)) errs.push(fieldErrors.invalid(`${p}.${key}.name`, name, m));
    }
    if (sources === 0) errs.push(fieldErrors.invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources > 1) errs.push(fieldErrors.invalid(path, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

/** A container's mounts or devices: volume name -> path (GetVolumeMountMap, GetVolumeDeviceMap). */
function pathsByVolume(list: Obj[], pathKey: string): Map<string, string> {
  return new Map(list.map((m) => [str(m.name), str(m[pathKey])]));
}

const MOUNT_PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None'];
const RECURSIVE_READ_ONLY = ['Disabled', 'Enabled', 'IfPossible'];

/** validateMountPropagation and validateMountRecursiveReadOnly (kube reports both at the list's path). */
function mountModeErrors(m: Obj, container: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const propagation = m.mountPropagation;
  if (typeof propagation === 'string') {
    if (!MOUNT_PROPAGATIONS.includes(propagation)) errs.push(fieldErrors.notSupported(`${path}.mountPropagation`, propagation, MOUNT_PROPAGATIONS));
    const privileged = isObj(container.securityContext) && container.securityContext.privileged === true;
    if (propagation === 'Bidirectional' && !privileged) errs.push(fieldErrors.forbidden(`${path}.mountPropagation`, 'Bidirectional mount propagation is available only to privileged containers'));
  }
  const rro = m.recursiveReadOnly;
  if (typeof rro === 'string') {
    if (rro === 'Enabled' || rro === 'IfPossible') {
      if (m.readOnly !== true) errs.push(fieldErrors.forbidden(`${path}.recursiveReadOnly`, 'may only be specified when readOnly is true'));
      if (typeof propagation === 'string' && propagation !== 'None') errs.push(fieldErrors.forbidden(`${path}.recursiveReadOnly`, 'may only be specified when mountPropagation is None or not specified'));
    } else if (rro !== 'Disabled') errs.push(fieldErrors.notSupported(`${path}.recursiveReadOnly`, rro, RECURSIVE_READ_ONLY));
  }
  return errs;
}

function validateVolumeMounts(container: Obj, volumes: ReadonlyMap<string, Obj>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const devices = pathsByVolume(objsAt(container, 'volumeDevices'), 'devicePath');
  const devicePaths = new Set(devices.values());
  const mountPoints = new Set<string>();
  objsAt(container, 'volumeMounts').forEach((m, i) => {
    const p = `${path}[${i}]`;
    const name = str(m.name);
    const mountPath = str(m.mountPath);
    if (name === '') errs.push(fieldErrors.required(`${p}.name`));
    if (!volumes.has(name)) errs.push(fieldErrors.notFound(`${p}.name`, name));
    if (mountPath === '') errs.push(fieldErrors.required(`${p}.mountPath`));
    if (mountPoints.has(mountPath)) errs.push(fieldErrors.invalid(`${p}.mountPath`, mountPath, 'must be unique'));
    mountPoints.add(mountPath);
    if (devices.has(name)) errs.push(fieldErrors.invalid(`${p}.name`, name, 'must not already exist in volumeDevices'));
    if (devicePaths.has(mountPath)) errs.push(fieldErrors.invalid(`${p}.mountPath`, mountPath, 'must not already exist as a path in volumeDevices'));
    const subPath = str(m.subPath);
    if (subPath !== '') errs.push(...localDescendingPathErrors(subPath, `${path}.subPath`));
    const subPathExpr = str(m.subPathExpr);
    if (subPathExpr !== '') {
      if (subPath !== '') errs.push(fieldErrors.invalid(`${p}.subPathExpr`, subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...localDescendingPathErrors(subPathExpr, `${path}.subPathExpr`));
    }
    errs.push(...mountModeErrors(m, container, path));
  });
  return errs;
}

/** ValidateVolumeDevices: raw block devices come from claims (a PersistentVolumeClaim or an ephemeral volume). */
function validateVolumeDevices(container: Obj, volumes: ReadonlyMap<string, Obj>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mounts = pathsByVolume(objsAt(container, 'volumeMounts'), 'mountPath');
  const mountPaths = new Set(mounts.values());
  const names = new Set<string>();
  const devicePaths = new Set<string>();
  objsAt(container, 'volumeDevices').forEach((d, i) => {
    const p = `${path}[${i}]`;
    const name = str(d.name);
    const devicePath = str(d.devicePath);
    const volume = volumes.get(name);
    if (name === '') errs.push(fieldErrors.required(`${p}.name`));
    if (names.has(name)) errs.push(fieldErrors.invalid(`${p}.name`, name, 'must be unique'));
    if (volume && !isObj(volume.persistentVolumeClaim) && !isObj(volume.ephemeral)) {
      errs.push(fieldErrors.invalid(`${p}.name`, name, 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode'));
    }
    if (!volume) errs.push(fieldErrors.notFound(`${p}.name`, name));
    if (devicePath === '') errs.push(fieldErrors.required(`${p}.devicePath`));
    if (devicePaths.has(devicePath)) errs.push(fieldErrors.invalid(`${p}.devicePath`, devicePath, 'must be unique'));
    if (devicePath !== '' && devicePath.split('/').includes('..')) errs.push(fieldErrors.invalid(`${p}.devicePath`, devicePath, "can not contain backsteps ('..')"));
    else devicePaths.add(devicePath);
    if (mounts.has(name)) errs.push(fieldErrors.invalid(`${p}.name`, name, 'must not already exist in volumeMounts'));
    if (mountPaths.has(devicePath)) errs.push(fieldErrors.invalid(`${p}.devicePath`, devicePath, 'must not already exist as a path in volumeMounts'));
    if (name !== '') names.add(name);
  });
  return errs;
}

function quantityText(v: unknown): string {
  return typeof v === 'number' ? String(v) : str(v);
}

const NANOS = 1_000_000_000n;

/** Quantity.Value(): the whole units, rounded up away from zero. */
function wholeUnits(nanos: bigint): bigint {
  const units = nanos / NANOS;
  if (nanos % NANOS === 0n) return units;
  return nanos > 0n ? units + 1n : units - 1n;
}

/** helper.IsHugePageResourceValueDivisible: a whole number of the pages the resource name gives the size of. */
export function hugePagesValueDivisible(name: string, v: unknown): boolean {
  const page = quantityNanos(name.slice('hugepages-'.length));
  const q = quantityNanos(v);
  if (page === undefined || q === undefined || page <= 0n || page % NANOS !== 0n) return false;
  return wholeUnits(q) % (page / NANOS) === 0n;
}

/**
 * ValidateResourceRequirements (limits, requests, overhead). `allowIndivisibleHugePages`: an update of an object whose
 * old spec already held a hugepages limit that is not a whole number of pages.
 */
export function validateResources(resources: unknown, path: string, allowIndivisibleHugePages = false): FieldError[] {
  if (!isObj(resources)) return [];
  const errs: FieldError[] = [];
  const limits = isObj(resources.limits) ? resources.limits : {};
  const requests = isObj(resources.requests) ? resources.requests : {};
  const check = (name: string, v: unknown, p: string) => {
    errs.push(...containerResourceNameErrors(name, p));
    const q = quantityNanos(v);
    if (q !== undefined && q < 0n) errs.push(fieldErrors.invalid(p, quantityText(v), 'must be greater than or equal to 0'));
    if (q !== undefined && isExtendedResourceName(name) && q % 1_000_000_000n !== 0n) {
      errs.push(fieldErrors.invalid(p, quantityText(v), 'must be an integer'));
    }
  };
  for (const [name, v] of Object.entries(limits)) {
    const p = `${path}.limits[${name}]`;
    check(name, v, p);
    // validateResourceQuantityHugePageValue: limits only (a hugepages request must equal its limit).
    if (isHugePagesResourceName(name) && !allowIndivisibleHugePages && quantityNanos(v) !== undefined && !hugePagesValueDivisible(name, v)) {
      errs.push(fieldErrors.invalid(p, quantityText(v), `${quantityText(v)} is not positive integer multiple of ${name}`));
    }
  }
  for (const [name, v] of Object.entries(requests)) {
    check(name, v, `${path}.requests[${name}]`);
    const req = quantityNanos(v);
    if (Object.hasOwn(limits, name)) {
      const lim = quantityNanos(limits[name]);
      if (req !== undefined && lim !== undefined) {
        if (req !== lim && !overcommitAllowed(name)) {
          errs.push(fieldErrors.invalid(`${path}.requests`, quantityText(v), `must be equal to ${name} limit of ${quantityText(limits[name])}`));
        } else if (req > lim) {
          errs.push(fieldErrors.invalid(`${path}.requests`, quantityText(v), `must be less than or equal to ${name} limit of ${quantityText(limits[name])}`));
        }
      }
    } else if (!overcommitAllowed(name)) {
      errs.push(fieldErrors.required(`${path}.limits`, 'Limit must be set for non overcommitable resources'));
    }
  }
  const hasCpuOrMemory = ['cpu', 'memory'].some((r) => Object.hasOwn(limits, r) || Object.hasOwn(requests, r));
  const hasHugePages = [...Object.keys(limits), ...Object.keys(requests)].some(isHugePagesResourceName);
  if (hasHugePages && !hasCpuOrMemory) errs.push(fieldErrors.forbidden(path, 'HugePages require cpu or memory'));
  return errs;
}

function portNumOrNameErrors(port: unknown, path: string): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((m) => fieldErrors.invalid(path, port, m));
  if (typeof port === 'string') return isValidPortName(port).map((m) => fieldErrors.invalid(path, port, m));
  return isValidPortNum(0).map((m) => fieldErrors.invalid(path, 0, m));
}

function handlerErrors(handler: Obj, path: string, allowSleep: boolean, gracePeriod: number | undefined): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  const kinds = allowSleep ? ['exec', 'httpGet', 'tcpSocket', 'sleep'] : ['exec', 'httpGet', 'tcpSocket', 'grpc'];
  for (const kind of kinds) {
    const h = handler[kind];
    if (!isObj(h)) continue;
    const p = `${path}.${kind}`;
    if (count > 0) {
      errs.push(fieldErrors.forbidden(p, 'may not specify more than 1 handler type'));
      continue;
    }
    count++;
    switch (kind) {
      case 'exec':
        if (!Array.isArray(h.command) || h.command.length === 0) errs.push(fieldErrors.required(`${p}.command`));
        break;
      case 'httpGet':
        if (str(h.path) === '') errs.push(fieldErrors.required(`${p}.path`));
        errs.push(...portNumOrNameErrors(h.port, `${p}.port`));
        if (!['HTTP', 'HTTPS'].includes(str(h.scheme))) errs.push(fieldErrors.notSupported(`${p}.scheme`, str(h.scheme), ['HTTP', 'HTTPS']));
        for (const header of objsAt(h, 'httpHeaders')) {
          for (const m of isHTTPHeaderName(str(header.name))) errs.push(fieldErrors.invalid(`${p}.httpHeaders`, str(header.name), m));
        }
        break;
      case 'tcpSocket':
        errs.push(...portNumOrNameErrors(h.port, `${p}.port`));
        break;
      case 'grpc':
        errs.push(...portNumOrNameErrors(typeof h.port === 'number' ? h.port : 0, `${p}.port`));
        break;
      case 'sleep': {
        const seconds = typeof h.seconds === 'number' ? h.seconds : 0;
        if (gracePeriod !== undefined && (seconds <= 0 || seconds > gracePeriod)) {
          errs.push(
            fieldErrors.invalid(
              p,
              seconds,
              `must be greater than 0 and less than terminationGracePeriodSeconds (${gracePeriod}). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.`,
            ),
          );
        }
        break;
      }
    }
  }
  if (count === 0) errs.push(fieldErrors.required(path, 'must specify a handler type'));
  return errs;
}

function probeErrors(probe: unknown, path: string, kind: 'liveness' | 'readiness' | 'startup', gracePeriod: number | undefined): FieldError[] {
  if (!isObj(probe)) return [];
  const errs = handlerErrors(probe, path, false, gracePeriod);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    if (typeof probe[f] === 'number') errs.push(...validateNonnegative(probe[f] as number, `${path}.${f}`));
  }
  const tgps = probe.terminationGracePeriodSeconds;
  if (typeof tgps === 'number' && tgps <= 0) errs.push(fieldErrors.invalid(`${path}.terminationGracePeriodSeconds`, tgps, 'must be greater than 0'));
  if (kind !== 'readiness' && typeof probe.successThreshold === 'number' && probe.successThreshold !== 1) {
    errs.push(fieldErrors.invalid(`${path}.successThreshold`, probe.successThreshold, 'must be 1'));
  }
  if (kind === 'readiness' && tgps !== undefined && tgps !== null) {
    errs.push(fieldErrors.invalid(`${path}.terminationGracePeriodSeconds`, tgps, 'must not be set for readinessProbes'));
  }
  return errs;
}

function lifecycleErrors(lifecycle: unknown, path: string, gracePeriod: number | undefined): FieldError[] {
  if (!isObj(lifecycle)) return [];
  const errs: FieldError[] = [];
  for (const k of ['postStart', 'preStop']) if (isObj(lifecycle[k])) errs.push(...handlerErrors(lifecycle[k], `${path}.${k}`, true, gracePeriod));
  return errs;
}

function containerCommonErrors(c: Obj, volumes: ReadonlyMap<string, Obj>, path: string, allowIndivisibleHugePages: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(c.name);
  if (name === '') errs.push(fieldErrors.required(`${path}.name`));
  else errs.push(...validateDNS1123Label(name, `${path}.name`));
  if (str(c.image) === '') errs.push(fieldErrors.required(`${path}.image`));
  const tmp = str(c.terminationMessagePolicy);
  if (tmp === '') errs.push(fieldErrors.required(`${path}.terminationMessagePolicy`));
  else if (tmp !== 'File' && tmp !== 'FallbackToLogsOnError') {
    errs.push(fieldErrors.notSupported(`${path}.terminationMessagePolicy`, tmp, ['File', 'FallbackToLogsOnError']));
  }
  errs.push(...validatePorts(objsAt(c, 'ports'), `${path}.ports`));
  errs.push(...validateEnv(objsAt(c, 'env'), `${path}.env`));
  errs.push(...validateEnvFrom(objsAt(c, 'envFrom'), `${path}.envFrom`));
  errs.push(...validateVolumeMounts(c, volumes, `${path}.volumeMounts`));
  errs.push(...validateVolumeDevices(c, volumes, `${path}.volumeDevices`));
  errs.push(...pullPolicyErrors(c.imagePullPolicy, `${path}.imagePullPolicy`));
  errs.push(...validateResources(c.resources, `${path}.resources`, allowIndivisibleHugePages));
  errs.push(...containerSecurityContextErrors(c.securityContext, `${path}.securityContext`));
  return errs;
}

function hostPortConflicts(containers: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  containers.forEach((c, ci) => {
    objsAt(c, 'ports').forEach((port, pi) => {
      const hostPort = typeof port.hostPort === 'number' ? port.hostPort : 0;
      if (hostPort === 0) return;
      const key = `${str(port.protocol)}/${str(port.hostIP)}/${hostPort}`;
      if (seen.has(key)) errs.push(fieldErrors.duplicate(`${path}[${ci}].ports[${pi}].hostPort`, key));
      else seen.add(key);
    });
  });
  return errs;
}

function validateContainers(spec: Obj, volumes: ReadonlyMap<string, Obj>, path: string, gracePeriod: number | undefined, allowIndivisibleHugePages: boolean): FieldError[] {
  const containers = objsAt(spec, 'containers');
  if (containers.length === 0) return [fieldErrors.required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...containerCommonErrors(c, volumes, p, allowIndivisibleHugePages));
    const name = str(c.name);
    if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
    else names.add(name);
    errs.push(...lifecycleErrors(c.lifecycle, `${p}.lifecycle`, gracePeriod));
    errs.push(...probeErrors(c.livenessProbe, `${p}.livenessProbe`, 'liveness', gracePeriod));
    errs.push(...probeErrors(c.readinessProbe, `${p}.readinessProbe`, 'readiness', gracePeriod));
    errs.push(...probeErrors(c.startupProbe, `${p}.startupProbe`, 'startup', gracePeriod));
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) errs.push(fieldErrors.forbidden(`${p}.restartPolicy`, 'may not be set for non-init containers'));
  });
  errs.push(...hostPortConflicts(containers, path));
  return errs;
}

function validateInitContainers(spec: Obj, volumes: ReadonlyMap<string, Obj>, path: string, gracePeriod: number | undefined, allowIndivisibleHugePages: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(objsAt(spec, 'containers').map((c) => str(c.name)));
  objsAt(spec, 'initContainers').forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...containerCommonErrors(c, volumes, p, allowIndivisibleHugePages));
    let restartAlways = false;
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) {
      if (c.restartPolicy === 'Always') restartAlways = true;
      else errs.push(fieldErrors.notSupported(`${p}.restartPolicy`, c.restartPolicy, ['Always']));
    }
    const name = str(c.name);
    if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
    else if (name !== '') names.add(name);
    errs.push(...hostPortConflicts([c], path));
    if (restartAlways) {
      errs.push(...lifecycleErrors(c.lifecycle, `${p}.lifecycle`, gracePeriod));
      errs.push(...probeErrors(c.livenessProbe, `${p}.livenessProbe`, 'liveness', gracePeriod));
      errs.push(...probeErrors(c.readinessProbe, `${p}.readinessProbe`, 'readiness', gracePeriod));
      errs.push(...probeErrors(c.startupProbe, `${p}.startupProbe`, 'startup', gracePeriod));
    } else {
      for (const f of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (c[f] !== undefined && c[f] !== null) errs.push(fieldErrors.forbidden(`${p}.${f}`, 'may not be set for init containers without restartPolicy=Always'));
      }
    }
  });
  return errs;
}

/** EphemeralContainerCommon's fields an ephemeral container may not set (kube's allow list, in its field order). */
const NOT_FOR_EPHEMERAL_CONTAINERS = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'];

/** Whether a field holds a non-zero Go value (an empty object is a zero struct; an empty list is still set). */
function isSet(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === false || v === 0) return false;
  return !(isObj(v) && Object.values(v).every((x) => !isSet(x)));
}

/** validateEphemeralContainers: the common container rules, names unique across all containers, the target a regular container. */
function validateEphemeralContainers(spec: Obj, volumes: ReadonlyMap<string, Obj>, path: string, allowIndivisibleHugePages: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const others = new Set([...objsAt(spec, 'containers'), ...objsAt(spec, 'initContainers')].map((c) => str(c.name)));
  const all = new Set(others);
  objsAt(spec, 'ephemeralContainers').forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...containerCommonErrors(c, volumes, p, allowIndivisibleHugePages));
    const name = str(c.name);
    if (all.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
    else all.add(name);
    const target = str(c.targetContainerName);
    if (target !== '' && !others.has(target)) errs.push(fieldErrors.notFound(`${p}.targetContainerName`, target));
    for (const f of NOT_FOR_EPHEMERAL_CONTAINERS) if (isSet(c[f])) errs.push(fieldErrors.forbidden(`${p}.${f}`, 'cannot be set for an Ephemeral Container'));
    objsAt(c, 'volumeMounts').forEach((m, mi) => {
      for (const f of ['subPath', 'subPathExpr']) if (str(m[f]) !== '') errs.push(fieldErrors.forbidden(`${p}.volumeMounts[${mi}].${f}`, 'cannot be set for an Ephemeral Container'));
    });
  });
  return errs;
}

/** Go's %#v of a core.Toleration (kube reports a whole toleration whose Exists operator has a value). */
function goToleration(t: Obj): unknown {
  const seconds = goPointer('int64', t.tolerationSeconds, goInt);
  return renderedBadValue(`core.Toleration{Key:${goText(t.key)}, Operator:${goText(t.operator)}, Value:${goText(t.value)}, Effect:${goText(t.effect)}, TolerationSeconds:${seconds}}`);
}

export function validateTolerations(tolerations: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  tolerations.forEach((t, i) => {
    const p = `${path}[${i}]`;
    const key = str(t.key);
    const operator = str(t.operator);
    const value = str(t.value);
    const effect = str(t.effect);
    if (key !== '') errs.push(...validateQualifiedName(key, `${p}.key`));
    if (key === '' && operator !== 'Exists') {
      errs.push(fieldErrors.invalid(`${p}.operator`, operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && effect !== 'NoExecute') {
      errs.push(fieldErrors.invalid(`${p}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    switch (operator) {
      case 'Equal':
      case '': {
        const msgs = isValidLabelValue(value);
        if (msgs.length) errs.push(fieldErrors.invalid(`${p}.operator`, value, msgs.join(';')));
        break;
      }
      case 'Exists':
        if (value !== '') errs.push(fieldErrors.invalid(`${p}.operator`, goToleration(t), "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errs.push(fieldErrors.notSupported(`${p}.operator`, operator, ['Equal', 'Exists']));
    }
    if (effect !== '' && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(effect)) {
      errs.push(fieldErrors.notSupported(`${p}.effect`, effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
    }
  });
  return errs;
}

function nameListErrors(value: string, path: string): FieldError[] {
  return subdomainErrors(value, path);
}

/** ValidatePodSpec. */
export function validatePodSpec(specValue: unknown, path: string, opts: PodSpecOptions): FieldError[] {
  const spec = isObj(specValue) ? specValue : {};
  const errs: FieldError[] = [];
  const grace = typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : undefined;
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) {
    errs.push(fieldErrors.required(`${path}.terminationGracePeriodSeconds`));
  }
  const vols = validateVolumes(spec, `${path}.volumes`, opts);
  errs.push(...vols.errs);
  const hugePages = opts.allowIndivisibleHugePagesValues === true;
  errs.push(...validateContainers(spec, vols.volumes, `${path}.containers`, grace, hugePages));
  errs.push(...validateInitContainers(spec, vols.volumes, `${path}.initContainers`, grace, hugePages));
  errs.push(...validateEphemeralContainers(spec, vols.volumes, `${path}.ephemeralContainers`, hugePages));
  if (spec.hostNetwork === true) {
    objsAt(spec, 'containers').forEach((c, ci) => {
      objsAt(c, 'ports').forEach((port, pi) => {
        const hp = typeof port.hostPort === 'number' ? port.hostPort : 0;
        const cp = typeof port.containerPort === 'number' ? port.containerPort : 0;
        if ((opts.isPod || hp !== 0) && hp !== cp) {
          errs.push(fieldErrors.invalid(`${path}.containers[${ci}].ports[${pi}].hostPort`, hp, 'must match `containerPort` when `hostNetwork` is true'));
        }
      });
    });
  }
  const restartPolicy = str(spec.restartPolicy);
  if (restartPolicy === '') errs.push(fieldErrors.required(`${path}.restartPolicy`));
  else if (!['Always', 'OnFailure', 'Never'].includes(restartPolicy)) {
    errs.push(fieldErrors.notSupported(`${path}.restartPolicy`, restartPolicy, ['Always', 'OnFailure', 'Never']));
  }
  const dnsPolicy = str(spec.dnsPolicy);
  if (dnsPolicy === '') errs.push(fieldErrors.required(`${path}.dnsPolicy`));
  else if (!['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'].includes(dnsPolicy)) {
    errs.push(fieldErrors.notSupported(`${path}.dnsPolicy`, dnsPolicy, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']));
  }
  errs.push(...validateLabels(spec.nodeSelector, `${path}.nodeSelector`));
  errs.push(...podSecurityErrors(spec, path, opts.allowNamespacedSysctlsForHostNetAndHostIPC));
  objsAt(spec, 'imagePullSecrets').forEach((s, i) => {
    if (Object.keys(s).some((k) => k !== 'name')) errs.push(fieldErrors.invalid(`${path}.imagePullSecrets[${i}]`, s, 'only name may be set'));
  });
  errs.push(...validateAffinity(spec.affinity, `${path}.affinity`, opts));
  errs.push(...validatePodDNSConfig(spec.dnsConfig, dnsPolicy, `${path}.dnsConfig`));
  objsAt(spec, 'readinessGates').forEach((g, i) => errs.push(...validateQualifiedName(str(g.conditionType), `${path}.readinessGates[${i}].conditionType`)));
  const gates = new Set<string>();
  objsAt(spec, 'schedulingGates').forEach((g, i) => {
    const name = str(g.name);
    errs.push(...validateQualifiedName(name, `${path}.schedulingGates[${i}]`));
    if (gates.has(name)) errs.push(fieldErrors.duplicate(`${path}.schedulingGates[${i}]`, name));
    gates.add(name);
  });
  errs.push(...validateTopologySpreadConstraints(spec.topologySpreadConstraints, `${path}.topologySpreadConstraints`, opts));
  const sa = str(spec.serviceAccountName);
  if (sa !== '') errs.push(...nameListErrors(sa, `${path}.serviceAccountName`));
  const nodeName = str(spec.nodeName);
  if (nodeName !== '') errs.push(...nameListErrors(nodeName, `${path}.nodeName`));
  const ads = spec.activeDeadlineSeconds;
  if (typeof ads === 'number' && (ads < 1 || ads > MAX_INT32)) {
    errs.push(fieldErrors.invalid(`${path}.activeDeadlineSeconds`, ads, inclusiveRangeError(1, MAX_INT32)));
  }
  if (str(spec.hostname) !== '') errs.push(...validateDNS1123Label(str(spec.hostname), `${path}.hostname`));
  if (str(spec.subdomain) !== '') errs.push(...validateDNS1123Label(str(spec.subdomain), `${path}.subdomain`));
  errs.push(...validateTolerations(objsAt(spec, 'tolerations'), `${path}.tolerations`));
  errs.push(...validateHostAliases(spec.hostAliases, `${path}.hostAliases`));
  const pc = str(spec.priorityClassName);
  if (pc !== '') errs.push(...nameListErrors(pc, `${path}.priorityClassName`));
  if (typeof spec.runtimeClassName === 'string') errs.push(...nameListErrors(spec.runtimeClassName, `${path}.runtimeClassName`));
  if (typeof spec.preemptionPolicy === 'string' && !['PreemptLowerPriority', 'Never'].includes(spec.preemptionPolicy)) {
    errs.push(
      spec.preemptionPolicy === ''
        ? fieldErrors.required(`${path}.preemptionPolicy`)
        : fieldErrors.notSupported(`${path}.preemptionPolicy`, spec.preemptionPolicy, ['PreemptLowerPriority', 'Never']),
    );
  }
  // validateOverhead: the RuntimeClass overhead is checked as limits (kube's paths read spec.overhead.limits[...]).
  if (isObj(spec.overhead)) errs.push(...validateResources({ limits: spec.overhead }, `${path}.overhead`, opts.allowIndivisibleHugePagesValues === true));
  const os = spec.os;
  if (isObj(os) && !['linux', 'windows'].includes(str(os.name))) {
    errs.push(str(os.name) === '' ? fieldErrors.required(`${path}.os.name`) : fieldErrors.notSupported(`${path}.os.name`, str(os.name), ['linux', 'windows']));
  }
  return errs;
}

/**
 * ValidatePodTemplateSpec: template labels and annotations, and the spec (not a pod's). `gates` are the server's
 * feature gates where the caller has them; `updateOptions` what an update earns from the template it replaces.
 */
export function validatePodTemplateSpec(template: unknown, path: string, gates: Readonly<Record<string, boolean>> = {}, updateOptions: PodUpdateOptions = {}): FieldError[] {
  const t = isObj(template) ? template : {};
  const meta = isObj(t.metadata) ? t.metadata : {};
  const errs: FieldError[] = [];
  errs.push(...validateLabels(meta.labels, `${path}.labels`));
  errs.push(...validateAnnotations(meta.annotations, `${path}.annotations`));
  errs.push(...podSpecificAnnotationErrors(meta.annotations, t.spec, `${path}.annotations`, updateOptions.allowInvalidPodDeletionCost));
  errs.push(...validatePodSpec(t.spec, `${path}.spec`, { ...updateOptions, isPod: false, featureGates: gates }));
  errs.push(...securityAnnotationFieldErrors(meta.annotations, t.spec, `${path}.spec`));
  if (objsAt(t.spec, 'ephemeralContainers').length > 0) {
    errs.push(fieldErrors.forbidden(`${path}.spec.ephemeralContainers`, 'ephemeral containers not allowed in pod template'));
  }
  return errs;
}
