// A pod status write (pkg/apis/core/validation ValidatePodStatusUpdate of kube 1.31, past ObjectMeta's update rules
// and the pod-specific annotations): custom condition types, the nominated node, no terminated container brought
// back unless the pod restarts it, resource claim statuses naming the pod's claims, and pod and host IPs valid,
// unique and at most one of each family.

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goText } from '../../../apis/go-bad-values.ts';
import { validateQualifiedName } from '../../validation/meta.ts';
import { isDNS1123Subdomain } from '../../validation/names.ts';
import { goIPFamily, ipFamily, validIPErrors } from '../ip-validation.ts';
import { isObj, objsAt, strAt, type Obj } from '../object.ts';
import { idErrors } from './pod-security-validation.ts';

const SYSTEM_CONDITIONS = new Set(['PodScheduled', 'Ready', 'Initialized']);

/** validatePodConditions: kube checks custom condition types under metadata, with a capital T. */
function conditionTypeErrors(status: Obj): FieldError[] {
  return objsAt(status, 'conditions').flatMap((c, i) => {
    const type = strAt(c, 'type');
    return SYSTEM_CONDITIONS.has(type) ? [] : validateQualifiedName(type, `metadata.conditions[${i}].Type`);
  });
}

function nominatedNodeErrors(status: Obj, oldStatus: Obj): FieldError[] {
  const nominated = strAt(status, 'nominatedNodeName');
  if (nominated === '' || nominated === strAt(oldStatus, 'nominatedNodeName')) return [];
  return isDNS1123Subdomain(nominated).map((m) => fieldErrors.invalid('status.nominatedNodeName', nominated, m));
}

const terminatedState = (cs: Obj): Obj | undefined => {
  const state = isObj(cs.state) ? cs.state : {};
  return isObj(state.terminated) ? state.terminated : undefined;
};

/**
 * ValidateContainerStateTransition (and its init container variant, where `restartable` names the sidecars): under
 * restartPolicy Never, or OnFailure after a zero exit code, a terminated container stays terminated.
 */
function stateTransitionErrors(statuses: Obj[], oldStatuses: Obj[], path: string, restartPolicy: string, restartable: (name: string) => boolean = () => false): FieldError[] {
  if (restartPolicy === 'Always') return [];
  const errs: FieldError[] = [];
  oldStatuses.forEach((old, i) => {
    const terminated = terminatedState(old);
    if (!terminated) return;
    const exitCode = typeof terminated.exitCode === 'number' ? terminated.exitCode : 0;
    if (exitCode !== 0 && restartPolicy === 'OnFailure') return;
    const name = strAt(old, 'name');
    if (restartable(name)) return;
    for (const now of statuses) {
      if (strAt(now, 'name') === name && !terminatedState(now)) errs.push(fieldErrors.forbidden(`${path}[${i}].state`, 'may not be transitioned to non-terminated state'));
    }
  });
  return errs;
}

/** Whether the init container of that name restarts on its own (a sidecar, restartPolicy Always); the first match decides. */
function restartableInit(spec: unknown): (name: string) => boolean {
  return (name) => objsAt(spec, 'initContainers').find((c) => strAt(c, 'name') === name)?.restartPolicy === 'Always';
}

function containerTransitionErrors(status: Obj, oldStatus: Obj, oldSpec: unknown): FieldError[] {
  const restartPolicy = strAt(oldSpec, 'restartPolicy');
  return [
    ...stateTransitionErrors(objsAt(status, 'containerStatuses'), objsAt(oldStatus, 'containerStatuses'), 'status.containerStatuses', restartPolicy),
    ...stateTransitionErrors(objsAt(status, 'initContainerStatuses'), objsAt(oldStatus, 'initContainerStatuses'), 'status.initContainerStatuses', restartPolicy, restartableInit(oldSpec)),
    // The kubelet never restarts ephemeral containers.
    ...stateTransitionErrors(objsAt(status, 'ephemeralContainerStatuses'), objsAt(oldStatus, 'ephemeralContainerStatuses'), 'status.ephemeralContainerStatuses', 'Never'),
  ];
}

/** validatePodResourceClaimStatuses: each names one of the pod's claims, once; a generated claim name is a valid name. */
function resourceClaimStatusErrors(status: Obj, spec: unknown): FieldError[] {
  const claims = new Set(objsAt(spec, 'resourceClaims').map((c) => strAt(c, 'name')));
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  objsAt(status, 'resourceClaimStatuses').forEach((s, i) => {
    const path = `status.resourceClaimStatuses[${i}].name`;
    const name = strAt(s, 'name');
    if (!claims.has(name)) errs.push(fieldErrors.invalid(path, name, 'must match the name of an entry in `spec.resourceClaims`'));
    if (seen.has(name)) errs.push(fieldErrors.duplicate(path, name));
    seen.add(name);
    if (typeof s.resourceClaimName === 'string') {
      const claimName = s.resourceClaimName;
      errs.push(...isDNS1123Subdomain(claimName).map((m) => fieldErrors.invalid(path, claimName, m)));
    }
  });
  return errs;
}

/** Go's %#v of a core.PodIP or core.HostIP. */
const goIP = (type: string) => (entry: Obj): string => `core.${type}{IP:${goText(entry.ip)}}`;

/** netutils.IsDualStackIPStrings: undefined when an address does not parse (kube reports that as an internal error). */
function isDualStack(ips: string[]): boolean | undefined {
  if (ips.some((ip) => ipFamily(ip) === 0)) return undefined;
  const families = new Set(ips.map(goIPFamily));
  return families.has(4) && families.has(6);
}

function dualStackErrors(entries: Obj[], path: string, type: string): FieldError[] {
  const errs: FieldError[] = [];
  const dualStack = isDualStack(entries.map((e) => strAt(e, 'ip')));
  if (dualStack === undefined) errs.push({ type: 'InternalError', field: path, detail: 'failed to check for dual stack with error:ip <nil> is invalid' });
  if (!dualStack || entries.length > 2) {
    errs.push(fieldErrors.invalid(path, renderedBadValue(`[]core.${type}{${entries.map(goIP(type)).join(', ')}}`), 'may specify no more than one IP for each IP family'));
  }
  return errs;
}

function duplicateIPErrors(entries: Obj[], path: string, type: string): FieldError[] {
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  entries.forEach((e, i) => {
    const ip = strAt(e, 'ip');
    if (seen.has(ip)) errs.push(fieldErrors.duplicate(`${path}[${i}]`, renderedBadValue(goIP(type)(e))));
    seen.add(ip);
  });
  return errs;
}

/** validatePodIPs: valid addresses; past one, dual-stack, at most two, no duplicates. */
function podIPErrors(status: Obj): FieldError[] {
  const path = 'status.podIPs';
  const ips = objsAt(status, 'podIPs');
  const errs = ips.flatMap((e, i) => validIPErrors(strAt(e, 'ip'), `${path}[${i}]`));
  if (ips.length > 1) errs.push(...dualStackErrors(ips, path, 'PodIP'), ...duplicateIPErrors(ips, path, 'PodIP'));
  return errs;
}

/** validateHostIPs: the first is hostIP, all valid; past one, no duplicates, dual-stack, at most two. */
function hostIPErrors(status: Obj): FieldError[] {
  const path = 'status.hostIPs';
  const ips = objsAt(status, 'hostIPs');
  if (ips.length === 0) return [];
  const errs: FieldError[] = [];
  const first = strAt(ips[0], 'ip');
  if (strAt(status, 'hostIP') !== first) errs.push(fieldErrors.invalid(`${path}[0].ip`, first, 'must be equal to `hostIP`'));
  errs.push(...ips.flatMap((e, i) => validIPErrors(strAt(e, 'ip'), `${path}[${i}]`)));
  if (ips.length > 1) errs.push(...duplicateIPErrors(ips, path, 'HostIP'), ...dualStackErrors(ips, path, 'HostIP'));
  return errs;
}

/** validateContainerStatusUsers: the user a container runs as (kube's path skips `user`). */
function containerUserErrors(status: Obj, spec: unknown): FieldError[] {
  const os = strAt(spec, 'os', 'name') || 'linux';
  const errs: FieldError[] = [];
  for (const list of ['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses']) {
    objsAt(status, list).forEach((cs, i) => {
      if (!isObj(cs.user)) return;
      const linux = cs.user.linux;
      const path = `status.${list}[${i}].linux`;
      if (os === 'windows') {
        if (linux != null) errs.push(fieldErrors.forbidden(path, 'cannot be set for a windows pod'));
      } else if (os === 'linux' && isObj(linux)) {
        errs.push(...idErrors(linux.uid, `${path}.uid`), ...idErrors(linux.gid, `${path}.gid`));
        if (Array.isArray(linux.supplementalGroups)) linux.supplementalGroups.forEach((g, j) => errs.push(...idErrors(g, `${path}.supplementalGroups[${j}]`)));
      }
    });
  }
  return errs;
}

/** ValidatePodStatusUpdate from the conditions on (`annotationErrors` are the pod-specific annotation checks before them). */
export function podStatusUpdateErrors(pod: Obj, old: Obj, annotationErrors: FieldError[]): FieldError[] {
  const status = isObj(pod.status) ? pod.status : {};
  const oldStatus = isObj(old.status) ? old.status : {};
  return [
    ...annotationErrors,
    ...conditionTypeErrors(status),
    ...nominatedNodeErrors(status, oldStatus),
    ...containerTransitionErrors(status, oldStatus, old.spec),
    ...resourceClaimStatusErrors(status, pod.spec),
    ...podIPErrors(status),
    ...hostIPErrors(status),
    ...containerUserErrors(status, pod.spec),
  ];
}
