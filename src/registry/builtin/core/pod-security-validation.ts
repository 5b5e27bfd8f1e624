// Security-context and OS validation of a pod spec (pkg/apis/core/validation: validatePodSpecSecurityContext,
// ValidateSecurityContext, validateWindowsHostProcessPod, validateLinux/validateWindows, and the agreement of the
// deprecated seccomp and AppArmor annotations with their fields), with kube 1.31's paths and messages.
//
// The fields of features 1.31 ships turned off (spec.hostUsers, securityContext.supplementalGroupsPolicy) reach
// validation only when their gate is on (pod-disabled-fields.ts drops them first), so what is left is validated as
// kube does with the gate on. Privileged containers are always allowed (--allow-privileged=true): the "disallowed by
// cluster policy" errors never apply.

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goQuote } from '../../../encoding/go-format.ts';
import { inclusiveRangeError, isDNS1123Subdomain } from '../../validation/names.ts';
import { getPath, isObj, objsAt, type Obj } from '../object.ts';
import { APPARMOR_CONTAINER_ANNOTATION_PREFIX, SECCOMP_CONTAINER_ANNOTATION_PREFIX, SECCOMP_POD_ANNOTATION } from './pod-annotations.ts';
import { localDescendingPathErrors } from './local-paths.ts';

const ID_RANGE_ERROR = inclusiveRangeError(0, 2147483647);
const PROFILE_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'];
const FS_GROUP_CHANGE_POLICIES = ['Always', 'OnRootMismatch'];
const SUPPLEMENTAL_GROUPS_POLICIES = ['Merge', 'Strict'];
const HOST_USERS_MESSAGE = 'when `pod.Spec.HostUsers` is false';

/** A pointer field holding a value (Go's non-nil). */
const isSet = (v: unknown): boolean => v !== undefined && v !== null;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');
/** A string bad value as Go's %q prints it (control characters escaped Go's way). */
const goString = (s: string): unknown => renderedBadValue(goQuote(s));

interface ContainerAt {
  readonly container: Obj;
  readonly path: string;
}

/** podshelper.VisitContainersWithPath's order: init containers, containers, then ephemeral containers. */
function containersOf(spec: unknown, specPath: string): ContainerAt[] {
  return ['initContainers', 'containers', 'ephemeralContainers'].flatMap((list) => objsAt(spec, list).map((container, i) => ({ container, path: `${specPath}.${list}[${i}]` })));
}

/** validation.IsValidUserID / IsValidGroupID. */
/** validation.IsValidUserID / IsValidGroupID on a set id. */
export function idErrors(id: unknown, path: string): FieldError[] {
  return typeof id === 'number' && (id < 0 || id > 2147483647) ? [fieldErrors.invalid(path, id, ID_RANGE_ERROR)] : [];
}

// ---- Go's %#v of the structs kube puts in Invalid errors; a non-nil pointer shows its value in place of the address ----

function goPointer(type: string, v: unknown, pointee: (x: unknown) => string): string {
  return `(*${type})(${isSet(v) ? pointee(v) : 'nil'})`;
}

const goText = (v: unknown): string => goQuote(String(v));
const goScalar = (v: unknown): string => String(v);

function goStringList(type: string, v: unknown): string {
  return Array.isArray(v) ? `[]${type}{${v.map(goText).join(', ')}}` : `[]${type}(nil)`;
}

function goProfile(type: string, p: Obj): string {
  return `core.${type}{Type:${goText(str(p.type))}, LocalhostProfile:${goPointer('string', p.localhostProfile, goText)}}`;
}

const asObj = (v: unknown): Obj => (isObj(v) ? v : {});

function goCapabilities(v: unknown): string {
  const c = asObj(v);
  return `core.Capabilities{Add:${goStringList('core.Capability', c.add)}, Drop:${goStringList('core.Capability', c.drop)}}`;
}

function goSELinuxOptions(v: unknown): string {
  const o = asObj(v);
  return `core.SELinuxOptions{User:${goText(str(o.user))}, Role:${goText(str(o.role))}, Type:${goText(str(o.type))}, Level:${goText(str(o.level))}}`;
}

function goWindowsOptions(v: unknown): string {
  const w = asObj(v);
  const fields = [
    `GMSACredentialSpecName:${goPointer('string', w.gmsaCredentialSpecName, goText)}`,
    `GMSACredentialSpec:${goPointer('string', w.gmsaCredentialSpec, goText)}`,
    `RunAsUserName:${goPointer('string', w.runAsUserName, goText)}`,
    `HostProcess:${goPointer('bool', w.hostProcess, goScalar)}`,
  ];
  return `core.WindowsSecurityContextOptions{${fields.join(', ')}}`;
}

const goSeccompProfile = (v: unknown): string => goProfile('SeccompProfile', asObj(v));
const goAppArmorProfile = (v: unknown): string => goProfile('AppArmorProfile', asObj(v));

/** A container's core.SecurityContext, in the internal type's field order. */
function goSecurityContext(sc: Obj): string {
  const fields = [
    `Capabilities:${goPointer('core.Capabilities', sc.capabilities, goCapabilities)}`,
    `Privileged:${goPointer('bool', sc.privileged, goScalar)}`,
    `SELinuxOptions:${goPointer('core.SELinuxOptions', sc.seLinuxOptions, goSELinuxOptions)}`,
    `WindowsOptions:${goPointer('core.WindowsSecurityContextOptions', sc.windowsOptions, goWindowsOptions)}`,
    `RunAsUser:${goPointer('int64', sc.runAsUser, goScalar)}`,
    `RunAsGroup:${goPointer('int64', sc.runAsGroup, goScalar)}`,
    `RunAsNonRoot:${goPointer('bool', sc.runAsNonRoot, goScalar)}`,
    `ReadOnlyRootFilesystem:${goPointer('bool', sc.readOnlyRootFilesystem, goScalar)}`,
    `AllowPrivilegeEscalation:${goPointer('bool', sc.allowPrivilegeEscalation, goScalar)}`,
    `ProcMount:${goPointer('core.ProcMountType', sc.procMount, goText)}`,
    `SeccompProfile:${goPointer('core.SeccompProfile', sc.seccompProfile, goSeccompProfile)}`,
    `AppArmorProfile:${goPointer('core.AppArmorProfile', sc.appArmorProfile, goAppArmorProfile)}`,
  ];
  return `core.SecurityContext{${fields.join(', ')}}`;
}

// ---- profiles and Windows options (shared by pods and containers) ----

/** validateSeccompProfileField. */
function seccompProfileErrors(profile: unknown, path: string): FieldError[] {
  if (!isObj(profile)) return [];
  const errs: FieldError[] = [];
  const type = str(profile.type);
  if (type === '') errs.push(fieldErrors.required(`${path}.type`, 'type is required when seccompProfile is set'));
  else if (!PROFILE_TYPES.includes(type)) errs.push(fieldErrors.notSupported(`${path}.type`, type, PROFILE_TYPES));
  const local = profile.localhostProfile;
  if (type === 'Localhost') {
    if (!isSet(local)) errs.push(fieldErrors.required(`${path}.localhostProfile`, 'must be set when seccomp type is Localhost'));
    else errs.push(...localDescendingPathErrors(str(local), `${path}.localhostProfile`));
  } else if (isSet(local)) {
    errs.push(fieldErrors.invalid(`${path}.localhostProfile`, renderedBadValue(goSeccompProfile(profile)), 'can only be set when seccomp type is Localhost'));
  }
  return errs;
}

/** Go's strings.TrimSpace (unicode.IsSpace differs from JavaScript's trim on U+0085 and U+FEFF). */
const goTrimSpace = (s: string): string => s.replace(/^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g, '');

/** ValidateAppArmorProfileField. */
function appArmorProfileErrors(profile: unknown, path: string): FieldError[] {
  if (!isObj(profile)) return [];
  const type = str(profile.type);
  const local = profile.localhostProfile;
  const localPath = `${path}.localhostProfile`;
  switch (type) {
    case 'Localhost': {
      if (!isSet(local)) return [fieldErrors.required(localPath, 'must be set when AppArmor type is Localhost')];
      const name = str(local);
      const errs: FieldError[] = [];
      if (goTrimSpace(name) !== name) errs.push(fieldErrors.invalid(localPath, goString(name), 'must not be padded with whitespace'));
      else if (name === '') errs.push(fieldErrors.required(localPath, 'must be set when AppArmor type is Localhost'));
      if (byteLength(name) > 4095) errs.push(fieldErrors.tooLong(localPath, 4095));
      return errs;
    }
    case 'RuntimeDefault':
    case 'Unconfined':
      return isSet(local) ? [fieldErrors.invalid(localPath, goString(str(local)), 'can only be set when AppArmor type is Localhost')] : [];
    case '':
      return [fieldErrors.required(`${path}.type`, 'type is required when appArmorProfile is set')];
    default:
      return [fieldErrors.notSupported(`${path}.type`, type, PROFILE_TYPES)];
  }
}

const CONTROL_CHARACTERS = /[\x00-\x1f\x7f]/;
const NETBIOS_DOMAIN = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/u;
const DNS_DOMAIN = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
const USER_NAME_FORBIDDEN_CHARACTERS = /["/\\:;|=,+*?<>@[\]]/;

/** The messages for a Windows runAsUserName ("DOMAIN\USER" or "USER"). */
function runAsUserNameMessages(name: string): string[] {
  if (name === '') return ['runAsUserName cannot be an empty string'];
  if (CONTROL_CHARACTERS.test(name)) return ['runAsUserName cannot contain control characters'];
  const parts = name.split('\\');
  if (parts.length > 2) return ['runAsUserName cannot contain more than one backslash'];
  const [domain, user] = parts.length === 2 ? parts : ['', parts[0]];
  const msgs: string[] = [];
  if (byteLength(domain) >= 256) msgs.push("runAsUserName's Domain length must be under 256 characters");
  if (parts.length === 2 && !NETBIOS_DOMAIN.test(domain) && !DNS_DOMAIN.test(domain)) msgs.push("runAsUserName's Domain doesn't match the NetBios nor the DNS format");
  if (user === '') msgs.push("runAsUserName's User cannot be empty");
  else if (byteLength(user) > 104) msgs.push("runAsUserName's User length must not be longer than 104 characters");
  if (/^[. ]+$/.test(user)) msgs.push("runAsUserName's User cannot contain only periods or spaces");
  if (USER_NAME_FORBIDDEN_CHARACTERS.test(user)) msgs.push(`runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`);
  return msgs;
}

/** validateWindowsSecurityContextOptions. */
function windowsOptionsErrors(options: unknown, path: string): FieldError[] {
  if (!isObj(options)) return [];
  const errs: FieldError[] = [];
  if (isSet(options.gmsaCredentialSpecName)) {
    const name = str(options.gmsaCredentialSpecName);
    for (const m of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid(`${path}.gmsaCredentialSpecName`, goString(name), m));
  }
  if (isSet(options.gmsaCredentialSpec)) {
    const spec = str(options.gmsaCredentialSpec);
    const p = `${path}.gmsaCredentialSpec`;
    if (spec === '') errs.push(fieldErrors.invalid(p, goString(spec), 'gmsaCredentialSpec cannot be an empty string'));
    else if (byteLength(spec) > 64 * 1024) errs.push(fieldErrors.invalid(p, goString(spec), 'gmsaCredentialSpec size must be under 64 KiB'));
  }
  if (isSet(options.runAsUserName)) {
    const name = str(options.runAsUserName);
    for (const m of runAsUserNameMessages(name)) errs.push(fieldErrors.invalid(`${path}.runAsUserName`, goString(name), m));
  }
  return errs;
}

// ---- containers ----

/**
 * ValidateSecurityContext: a container's securityContext (containers, init and ephemeral containers alike), but for
 * the rule tying procMount to the pod's hostUsers (podSecurityErrors has the pod). `path` is the securityContext's.
 */
export function containerSecurityContextErrors(scValue: unknown, path: string): FieldError[] {
  if (!isObj(scValue)) return [];
  const sc = scValue;
  const errs = [...idErrors(sc.runAsUser, `${path}.runAsUser`), ...idErrors(sc.runAsGroup, `${path}.runAsGroup`)];
  const procMount = sc.procMount;
  if (isSet(procMount) && procMount !== 'Default' && procMount !== 'Unmasked') errs.push(fieldErrors.notSupported(`${path}.procMount`, procMount, ['Default', 'Unmasked']));
  errs.push(...seccompProfileErrors(sc.seccompProfile, `${path}.seccompProfile`));
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged === true) {
      errs.push(fieldErrors.invalid(path, renderedBadValue(goSecurityContext(sc)), 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    }
    const added = isObj(sc.capabilities) && Array.isArray(sc.capabilities.add) ? sc.capabilities.add : [];
    for (const cap of added) {
      if (cap === 'CAP_SYS_ADMIN') {
        errs.push(fieldErrors.invalid(path, renderedBadValue(goSecurityContext(sc)), 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
      }
    }
  }
  errs.push(...windowsOptionsErrors(sc.windowsOptions, `${path}.windowsOptions`));
  errs.push(...appArmorProfileErrors(sc.appArmorProfile, `${path}.appArmorProfile`));
  return errs;
}

// ---- the pod's securityContext ----

const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL_NAME_SOURCE = `^(${SYSCTL_SEGMENT}[\\./])*${SYSCTL_SEGMENT}$`;
const SYSCTL_NAME = new RegExp(SYSCTL_NAME_SOURCE);
const SYSCTL_NAME_ERROR = `must have at most 253 characters and match regex ${SYSCTL_NAME_SOURCE}`;

const IPC_SYSCTLS = new Set([
  'kernel.sem',
  'kernel.shmall',
  'kernel.shmmax',
  'kernel.shmmni',
  'kernel.shm_rmid_forced',
  'kernel.shm',
  'kernel.msgmax',
  'kernel.msgmnb',
  'kernel.msgmni',
  'kernel.msg',
]);

/** utilsysctl.NormalizeName: a name whose first separator is a slash has its slashes and dots swapped. */
function normalizeSysctlName(name: string): string {
  const first = name.search(/[./]/);
  if (first < 0 || name[first] === '.') return name;
  return name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'));
}

/** utilsysctl.GetNamespace: the kernel namespace a sysctl (or a `*` pattern of them) belongs to. */
function sysctlNamespace(name: string): 'Net' | 'IPC' | undefined {
  const normalized = normalizeSysctlName(name);
  const star = normalized.indexOf('*');
  const prefix = star < 0 ? normalized : normalized.slice(0, star);
  if (IPC_SYSCTLS.has(prefix)) return 'IPC';
  if (prefix.startsWith('net.')) return 'Net';
  if (prefix.startsWith('fs.mqueue.')) return 'IPC';
  return undefined;
}

/** ValidateHostSysctl: a sysctl of a namespace the pod shares with its host. */
function hostSysctlErrors(spec: Obj, name: string, path: string): FieldError[] {
  const namespace = sysctlNamespace(name);
  if (spec.hostNetwork === true && namespace === 'Net') return [fieldErrors.invalid(path, name, "may not be specified when 'hostNetwork' is true")];
  if (spec.hostIPC === true && namespace === 'IPC') return [fieldErrors.invalid(path, name, "may not be specified when 'hostIPC' is true")];
  return [];
}

/** Whether a spec sets a sysctl of a namespace it shares with its host (an update may keep such sysctls). */
export function usesHostNamespacedSysctl(specValue: unknown): boolean {
  const spec = isObj(specValue) ? specValue : {};
  const sc = isObj(spec.securityContext) ? spec.securityContext : {};
  return objsAt(sc, 'sysctls').some((s) => hostSysctlErrors(spec, str(s.name), '').length > 0);
}

/**
 * validateSysctls: names valid and unique, and (unless `allowHostNamespaced`, an update of a spec that already had
 * them) none of a namespace the pod shares with its host.
 */
function sysctlErrors(spec: Obj, sysctls: Obj[], path: string, allowHostNamespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  sysctls.forEach((sysctl, i) => {
    const name = str(sysctl.name);
    const p = `${path}[${i}].name`;
    if (name === '') errs.push(fieldErrors.required(p));
    else if (name.length > 253 || !SYSCTL_NAME.test(name)) errs.push(fieldErrors.invalid(p, name, SYSCTL_NAME_ERROR));
    else if (seen.has(name)) errs.push(fieldErrors.duplicate(p, name));
    if (!allowHostNamespaced) errs.push(...hostSysctlErrors(spec, name, p));
    seen.add(name);
  });
  return errs;
}

/** validatePodSpecSecurityContext (the host namespace fields sit on the spec in v1, in the security context in kube's internal type). */
function podSecurityContextErrors(spec: Obj, path: string, allowHostNamespacedSysctls: boolean): FieldError[] {
  const sc = isObj(spec.securityContext) ? spec.securityContext : {};
  const p = `${path}.securityContext`;
  const errs = [...idErrors(sc.fsGroup, `${p}.fsGroup`), ...idErrors(sc.runAsUser, `${p}.runAsUser`), ...idErrors(sc.runAsGroup, `${p}.runAsGroup`)];
  if (Array.isArray(sc.supplementalGroups)) sc.supplementalGroups.forEach((gid, i) => errs.push(...idErrors(gid, `${p}.supplementalGroups[${i}]`)));
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    errs.push(fieldErrors.invalid(`${p}.shareProcessNamespace`, true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  }
  errs.push(...sysctlErrors(spec, objsAt(sc, 'sysctls'), `${p}.sysctls`, allowHostNamespacedSysctls));
  const policy = sc.fsGroupChangePolicy;
  if (isSet(policy) && !FS_GROUP_CHANGE_POLICIES.includes(str(policy))) errs.push(fieldErrors.notSupported(`${p}.fsGroupChangePolicy`, policy, FS_GROUP_CHANGE_POLICIES));
  errs.push(...seccompProfileErrors(sc.seccompProfile, `${p}.seccompProfile`));
  errs.push(...windowsOptionsErrors(sc.windowsOptions, `${p}.windowsOptions`));
  errs.push(...appArmorProfileErrors(sc.appArmorProfile, `${p}.appArmorProfile`));
  const groupsPolicy = sc.supplementalGroupsPolicy;
  if (isSet(groupsPolicy) && !SUPPLEMENTAL_GROUPS_POLICIES.includes(str(groupsPolicy))) {
    errs.push(fieldErrors.notSupported(`${p}.supplementalGroupsPolicy`, groupsPolicy, SUPPLEMENTAL_GROUPS_POLICIES));
  }
  return errs;
}

/**
 * ValidateSecurityContext's procMount rule: an unmasked /proc only in a pod with its own user namespace. In kube's
 * order: containers, init containers, then ephemeral containers.
 */
function unmaskedProcMountErrors(spec: Obj, path: string): FieldError[] {
  if (spec.hostUsers === false) return [];
  return ['containers', 'initContainers', 'ephemeralContainers'].flatMap((list) =>
    objsAt(spec, list)
      .map((c, i) => ({ procMount: getPath(c, 'securityContext', 'procMount'), p: `${path}.${list}[${i}].securityContext.procMount` }))
      .filter(({ procMount }) => procMount === 'Unmasked')
      .map(({ procMount, p }) => fieldErrors.invalid(p, procMount, '`hostUsers` must be false to use `Unmasked`')),
  );
}

/** validateHostUsers: a pod in its own user namespace shares no other namespace with the host (kube's path spelling). */
function hostUsersErrors(spec: Obj, path: string): FieldError[] {
  if (spec.hostUsers !== false) return [];
  const errs: FieldError[] = [];
  if (spec.hostNetwork === true) errs.push(fieldErrors.forbidden(`${path}.hostNetwork`, HOST_USERS_MESSAGE));
  if (spec.hostPID === true) errs.push(fieldErrors.forbidden(`${path}.HostPID`, HOST_USERS_MESSAGE));
  if (spec.hostIPC === true) errs.push(fieldErrors.forbidden(`${path}.HostIPC`, HOST_USERS_MESSAGE));
  return errs;
}

/** validateWindowsHostProcessPod: hostProcess containers come all together, agree with the pod, and need the host network. */
function hostProcessErrors(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const podValue = getPath(spec, 'securityContext', 'windowsOptions', 'hostProcess');
  const podHostProcess = typeof podValue === 'boolean' ? podValue : undefined;
  const containers = containersOf(spec, path);
  let hostProcessContainers = 0;
  for (const { container, path: cPath } of containers) {
    const value = getPath(container, 'securityContext', 'windowsOptions', 'hostProcess');
    const hostProcess = typeof value === 'boolean' ? value : undefined;
    if (podHostProcess !== undefined && hostProcess !== undefined && podHostProcess !== hostProcess) {
      errs.push(fieldErrors.invalid(`${cPath}.securityContext.windowsOptions.hostProcess`, hostProcess, `pod hostProcess value must be identical if both are specified, was ${podHostProcess}`));
    }
    if (hostProcess ?? podHostProcess) hostProcessContainers++;
  }
  if (hostProcessContainers === 0) return errs;
  if (hostProcessContainers !== containers.length) errs.push(fieldErrors.invalid(path, '', 'If pod contains any hostProcess containers then all containers must be HostProcess containers'));
  if (spec.hostNetwork !== true) errs.push(fieldErrors.invalid(`${path}.hostNetwork`, false, 'hostNetwork must be true if pod contains any hostProcess containers'));
  return errs;
}

// ---- spec.os ----

/** validateLinux: no Windows options anywhere. */
function linuxErrors(spec: Obj, path: string): FieldError[] {
  const message = 'windows options cannot be set for a linux pod';
  const errs: FieldError[] = [];
  if (isSet(getPath(spec, 'securityContext', 'windowsOptions'))) errs.push(fieldErrors.forbidden(`${path}.securityContext.windowsOptions`, message));
  for (const { container, path: cPath } of containersOf(spec, path)) {
    if (isSet(getPath(container, 'securityContext', 'windowsOptions'))) errs.push(fieldErrors.forbidden(`${cPath}.securityContext.windowsOptions`, message));
  }
  return errs;
}

/** The pod fields a Windows pod may not set, by path under the spec ([path, set]). */
function windowsPodFields(spec: Obj): [string, boolean][] {
  const sc = isObj(spec.securityContext) ? spec.securityContext : {};
  return [
    ['securityContext.appArmorProfile', isSet(sc.appArmorProfile)],
    ['securityContext.seLinuxOptions', isSet(sc.seLinuxOptions)],
    ['hostUsers', isSet(spec.hostUsers)],
    ['hostPID', spec.hostPID === true],
    ['hostIPC', spec.hostIPC === true],
    ['securityContext.seccompProfile', isSet(sc.seccompProfile)],
    ['securityContext.fsGroup', isSet(sc.fsGroup)],
    ['securityContext.fsGroupChangePolicy', isSet(sc.fsGroupChangePolicy)],
    ['securityContext.sysctls', Array.isArray(sc.sysctls) && sc.sysctls.length > 0],
    ['shareProcessNamespace', isSet(spec.shareProcessNamespace)],
    ['securityContext.runAsUser', isSet(sc.runAsUser)],
    ['securityContext.runAsGroup', isSet(sc.runAsGroup)],
    ['securityContext.supplementalGroups', isSet(sc.supplementalGroups)],
    ['securityContext.supplementalGroupsPolicy', isSet(sc.supplementalGroupsPolicy)],
  ];
}

const WINDOWS_FORBIDDEN_CONTAINER_FIELDS = [
  'appArmorProfile',
  'seLinuxOptions',
  'seccompProfile',
  'capabilities',
  'readOnlyRootFilesystem',
  'privileged',
  'allowPrivilegeEscalation',
  'procMount',
  'runAsUser',
  'runAsGroup',
];

/** validateWindows: the Linux-only security settings, on the pod and on every container. */
function windowsErrors(spec: Obj, path: string): FieldError[] {
  const message = 'cannot be set for a windows pod';
  const errs = windowsPodFields(spec)
    .filter(([, set]) => set)
    .map(([field]) => fieldErrors.forbidden(`${path}.${field}`, message));
  for (const { container, path: cPath } of containersOf(spec, path)) {
    const sc = container.securityContext;
    if (!isObj(sc)) continue;
    for (const field of WINDOWS_FORBIDDEN_CONTAINER_FIELDS) if (isSet(sc[field])) errs.push(fieldErrors.forbidden(`${cPath}.securityContext.${field}`, message));
  }
  return errs;
}

/**
 * The security checks of ValidatePodSpec that need the whole pod: unmasked /proc against hostUsers, the pod's
 * securityContext, the Windows hostProcess rules, hostUsers and, for a spec.os that validates, what its OS forbids.
 */
export function podSecurityErrors(spec: Obj, path: string, allowHostNamespacedSysctls = false): FieldError[] {
  const errs = [...unmaskedProcMountErrors(spec, path), ...podSecurityContextErrors(spec, path, allowHostNamespacedSysctls), ...hostProcessErrors(spec, path), ...hostUsersErrors(spec, path)];
  const os = isObj(spec.os) ? str(spec.os.name) : '';
  if (os === 'linux') errs.push(...linuxErrors(spec, path));
  else if (os === 'windows') errs.push(...windowsErrors(spec, path));
  return errs;
}

// ---- the deprecated annotations against the fields ----

/** validateSeccompAnnotationsAndFieldsMatch. */
function seccompMismatch(annotation: string, field: Obj, path: string): FieldError[] {
  const typeMismatch = [fieldErrors.forbidden(`${path}.type`, 'seccomp type in annotation and field must match')];
  switch (field.type) {
    case 'Unconfined':
      return annotation === 'unconfined' ? [] : typeMismatch;
    case 'RuntimeDefault':
      return annotation === 'runtime/default' || annotation === 'docker/default' ? [] : typeMismatch;
    case 'Localhost':
      if (!annotation.startsWith('localhost/')) return typeMismatch;
      if (annotation.slice('localhost/'.length) !== field.localhostProfile) return [fieldErrors.forbidden(`${path}.localhostProfile`, 'seccomp profile in annotation and field must match')];
      return [];
    default:
      return [];
  }
}

/** The annotation's value when present (kube's annotations are all strings). */
function annotationOf(annotations: unknown, key: string): string | undefined {
  return isObj(annotations) && Object.hasOwn(annotations, key) ? String(annotations[key]) : undefined;
}

/** validateSeccompAnnotationsAndFields: where an annotation and its field are both set they agree (no inheritance). */
function seccompAnnotationFieldErrors(annotations: unknown, spec: unknown, specPath: string): FieldError[] {
  const errs: FieldError[] = [];
  const podField = getPath(spec, 'securityContext', 'seccompProfile');
  const podAnnotation = annotationOf(annotations, SECCOMP_POD_ANNOTATION);
  if (isObj(podField) && podAnnotation !== undefined) errs.push(...seccompMismatch(podAnnotation, podField, `${specPath}.securityContext.seccompProfile`));
  for (const { container, path } of containersOf(spec, specPath)) {
    const field = getPath(container, 'securityContext', 'seccompProfile');
    const annotation = annotationOf(annotations, SECCOMP_CONTAINER_ANNOTATION_PREFIX + str(container.name));
    if (isObj(field) && annotation !== undefined) errs.push(...seccompMismatch(annotation, field, `${path}.securityContext.seccompProfile`));
  }
  return errs;
}

/**
 * validateAppArmorAnnotationsAndFieldsMatchOnCreate: a container's annotation agrees with the profile that applies
 * to it, its own or else the pod's (reported at the container's path either way). Windows pods are skipped.
 */
function appArmorAnnotationFieldErrors(annotations: unknown, spec: unknown, specPath: string): FieldError[] {
  if (getPath(spec, 'os', 'name') === 'windows') return [];
  const errs: FieldError[] = [];
  const podProfile = getPath(spec, 'securityContext', 'appArmorProfile');
  for (const { container, path } of containersOf(spec, specPath)) {
    const own = getPath(container, 'securityContext', 'appArmorProfile');
    const profile = isSet(own) ? own : podProfile;
    const annotation = annotationOf(annotations, APPARMOR_CONTAINER_ANNOTATION_PREFIX + str(container.name));
    if (!isObj(profile) || annotation === undefined) continue;
    const p = `${path}.securityContext.appArmorProfile`;
    const typeMismatch = fieldErrors.forbidden(`${p}.type`, 'apparmor type in annotation and field must match');
    switch (profile.type) {
      case 'Unconfined':
        if (annotation !== 'unconfined') errs.push(typeMismatch);
        break;
      case 'RuntimeDefault':
        if (annotation !== 'runtime/default') errs.push(typeMismatch);
        break;
      case 'Localhost':
        if (!annotation.startsWith('localhost/')) errs.push(typeMismatch);
        else if (annotation.slice('localhost/'.length) !== profile.localhostProfile) {
          errs.push(fieldErrors.forbidden(`${p}.localhostProfile`, 'apparmor profile in annotation and field must match'));
        }
        break;
    }
  }
  return errs;
}

/**
 * The deprecated seccomp and AppArmor annotations (`annotations` of a pod or template) against the spec's fields:
 * kube checks them when a pod is created and whenever a pod template is validated.
 */
export function securityAnnotationFieldErrors(annotations: unknown, spec: unknown, specPath: string): FieldError[] {
  return [...seccompAnnotationFieldErrors(annotations, spec, specPath), ...appArmorAnnotationFieldErrors(annotations, spec, specPath)];
}
