import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import type { BuiltinStrategy } from '../generic.ts';
import { builtinTypeFacts } from '../index.ts';
import type { Obj } from '../object.ts';
import { testContext as ctx } from '../test-context.ts';
import { defaultPodTemplate } from './pod-defaults.ts';
import { containerSecurityContextErrors, podSecurityErrors, securityAnnotationFieldErrors } from './pod-security-validation.ts';
import { validatePodSpec, validatePodTemplateSpec } from './pod-validation.ts';

const podErrors = (spec: Obj) => podSecurityErrors({ containers: [{ name: 'app', image: 'nginx' }], ...spec }, 'spec').map(fieldErrorString);
const containerErrors = (sc: unknown) => containerSecurityContextErrors(sc, 'spec.containers[0].securityContext').map(fieldErrorString);
const annotationErrors = (annotations: Obj, spec: Obj) => securityAnnotationFieldErrors(annotations, spec, 'spec').map(fieldErrorString);

const SYSCTL_REGEX = String.raw`^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`;

test('pod securityContext: user and group IDs in range, shareProcessNamespace without hostPID, fsGroupChangePolicy', () => {
  assert.deepEqual(
    podErrors({
      hostPID: true,
      shareProcessNamespace: true,
      securityContext: { fsGroup: -1, runAsUser: 2147483648, runAsGroup: 2147483647, supplementalGroups: [0, -2], fsGroupChangePolicy: 'Sometimes' },
    }),
    [
      'spec.securityContext.fsGroup: Invalid value: -1: must be between 0 and 2147483647, inclusive',
      'spec.securityContext.runAsUser: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive',
      'spec.securityContext.supplementalGroups[1]: Invalid value: -2: must be between 0 and 2147483647, inclusive',
      'spec.securityContext.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled',
      'spec.securityContext.fsGroupChangePolicy: Unsupported value: "Sometimes": supported values: "Always", "OnRootMismatch"',
    ],
  );
  assert.deepEqual(podErrors({ hostPID: true, shareProcessNamespace: false, securityContext: { fsGroup: 0, fsGroupChangePolicy: 'OnRootMismatch' } }), []);
});

test('sysctls: names valid and unique, none of a namespace shared with the host', () => {
  const sysctls = ['', 'Kernel.Foo', 'kernel.shm_rmid_forced', 'kernel.shm_rmid_forced', 'net/ipv4/ip_forward', 'fs.mqueue.msg_max', 'kernel.domainname', 'net.*'].map((name) => ({ name, value: '1' }));
  assert.deepEqual(podErrors({ hostNetwork: true, hostIPC: true, securityContext: { sysctls } }), [
    'spec.securityContext.sysctls[0].name: Required value',
    `spec.securityContext.sysctls[1].name: Invalid value: "Kernel.Foo": must have at most 253 characters and match regex ${SYSCTL_REGEX}`,
    `spec.securityContext.sysctls[2].name: Invalid value: "kernel.shm_rmid_forced": may not be specified when 'hostIPC' is true`,
    'spec.securityContext.sysctls[3].name: Duplicate value: "kernel.shm_rmid_forced"',
    `spec.securityContext.sysctls[3].name: Invalid value: "kernel.shm_rmid_forced": may not be specified when 'hostIPC' is true`,
    `spec.securityContext.sysctls[4].name: Invalid value: "net/ipv4/ip_forward": may not be specified when 'hostNetwork' is true`,
    `spec.securityContext.sysctls[5].name: Invalid value: "fs.mqueue.msg_max": may not be specified when 'hostIPC' is true`,
    `spec.securityContext.sysctls[7].name: Invalid value: "net.*": must have at most 253 characters and match regex ${SYSCTL_REGEX}`,
    `spec.securityContext.sysctls[7].name: Invalid value: "net.*": may not be specified when 'hostNetwork' is true`,
  ]);
  // Without the host namespaces the same namespaced sysctls are fine; dotted names with a slash segment too.
  assert.deepEqual(podErrors({ securityContext: { sysctls: [{ name: 'net.ipv4.conf.eno2/100.rp_filter' }, { name: 'kernel.msgmax' }] } }), []);
  assert.deepEqual(podErrors({ securityContext: { sysctls: [{ name: 'a'.repeat(254) }] } }), [
    `spec.securityContext.sysctls[0].name: Invalid value: "${'a'.repeat(254)}": must have at most 253 characters and match regex ${SYSCTL_REGEX}`,
  ]);
});

test('seccomp profiles: a supported type, a relative localhost profile only for Localhost', () => {
  assert.deepEqual(podErrors({ securityContext: { seccompProfile: {} } }), ['spec.securityContext.seccompProfile.type: Required value: type is required when seccompProfile is set']);
  assert.deepEqual(podErrors({ securityContext: { seccompProfile: { type: 'Default' } } }), [
    'spec.securityContext.seccompProfile.type: Unsupported value: "Default": supported values: "Localhost", "RuntimeDefault", "Unconfined"',
  ]);
  assert.deepEqual(podErrors({ securityContext: { seccompProfile: { type: 'Localhost' } } }), [
    'spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost',
  ]);
  assert.deepEqual(containerErrors({ seccompProfile: { type: 'Localhost', localhostProfile: '/etc/../x.json' } }), [
    'spec.containers[0].securityContext.seccompProfile.localhostProfile: Invalid value: "/etc/../x.json": must be a relative path',
    `spec.containers[0].securityContext.seccompProfile.localhostProfile: Invalid value: "/etc/../x.json": must not contain '..'`,
  ]);
  assert.deepEqual(containerErrors({ seccompProfile: { type: 'RuntimeDefault', localhostProfile: 'x.json' } }), [
    'spec.containers[0].securityContext.seccompProfile.localhostProfile: Invalid value: core.SeccompProfile{Type:"RuntimeDefault", LocalhostProfile:(*string)("x.json")}: can only be set when seccomp type is Localhost',
  ]);
  assert.deepEqual(containerErrors({ seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/audit.json' } }), []);
});

test('AppArmor profiles: a supported type, an unpadded localhost profile of at most 4095 bytes only for Localhost', () => {
  assert.deepEqual(podErrors({ securityContext: { appArmorProfile: { localhostProfile: 'x' } } }), [
    'spec.securityContext.appArmorProfile.type: Required value: type is required when appArmorProfile is set',
  ]);
  assert.deepEqual(containerErrors({ appArmorProfile: { type: 'Enforce' } }), [
    'spec.containers[0].securityContext.appArmorProfile.type: Unsupported value: "Enforce": supported values: "Localhost", "RuntimeDefault", "Unconfined"',
  ]);
  assert.deepEqual(containerErrors({ appArmorProfile: { type: 'Localhost' } }), [
    'spec.containers[0].securityContext.appArmorProfile.localhostProfile: Required value: must be set when AppArmor type is Localhost',
  ]);
  assert.deepEqual(containerErrors({ appArmorProfile: { type: 'Localhost', localhostProfile: '' } }), [
    'spec.containers[0].securityContext.appArmorProfile.localhostProfile: Required value: must be set when AppArmor type is Localhost',
  ]);
  assert.deepEqual(containerErrors({ appArmorProfile: { type: 'Localhost', localhostProfile: ' web\n' } }), [
    'spec.containers[0].securityContext.appArmorProfile.localhostProfile: Invalid value: " web\\n": must not be padded with whitespace',
  ]);
  assert.deepEqual(containerErrors({ appArmorProfile: { type: 'Localhost', localhostProfile: 'p'.repeat(4096) } }), [
    'spec.containers[0].securityContext.appArmorProfile.localhostProfile: Too long: may not be more than 4095 bytes',
  ]);
  assert.deepEqual(containerErrors({ appArmorProfile: { type: 'Unconfined', localhostProfile: 'web' } }), [
    'spec.containers[0].securityContext.appArmorProfile.localhostProfile: Invalid value: "web": can only be set when AppArmor type is Localhost',
  ]);
  assert.deepEqual(containerErrors({ appArmorProfile: { type: 'Localhost', localhostProfile: 'k8s-web' } }), []);
});

test('Windows options: a GMSA spec name that is a DNS subdomain, a non-empty spec, a DOMAIN backslash USER account name', () => {
  const user = (name: string) => containerErrors({ windowsOptions: { runAsUserName: name } });
  const path = 'spec.containers[0].securityContext.windowsOptions';
  assert.deepEqual(podErrors({ securityContext: { windowsOptions: { gmsaCredentialSpecName: 'Web_Spec', gmsaCredentialSpec: '' } } }), [
    `spec.securityContext.windowsOptions.gmsaCredentialSpecName: Invalid value: "Web_Spec": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    'spec.securityContext.windowsOptions.gmsaCredentialSpec: Invalid value: "": gmsaCredentialSpec cannot be an empty string',
  ]);
  assert.deepEqual(containerErrors({ windowsOptions: { gmsaCredentialSpec: 'x'.repeat(64 * 1024 + 1) } }).map((m) => m.replace(/"x+"/, '"x..."')), [
    `${path}.gmsaCredentialSpec: Invalid value: "x...": gmsaCredentialSpec size must be under 64 KiB`,
  ]);
  assert.deepEqual(user(''), [`${path}.runAsUserName: Invalid value: "": runAsUserName cannot be an empty string`]);
  assert.deepEqual(user('bad\u0007user'), [`${path}.runAsUserName: Invalid value: "bad\\auser": runAsUserName cannot contain control characters`]);
  assert.deepEqual(user('a\\b\\c'), [`${path}.runAsUserName: Invalid value: "a\\\\b\\\\c": runAsUserName cannot contain more than one backslash`]);
  assert.deepEqual(user('.corp\\'), [
    `${path}.runAsUserName: Invalid value: ".corp\\\\": runAsUserName's Domain doesn't match the NetBios nor the DNS format`,
    `${path}.runAsUserName: Invalid value: ".corp\\\\": runAsUserName's User cannot be empty`,
  ]);
  assert.deepEqual(user('..'), [`${path}.runAsUserName: Invalid value: "..": runAsUserName's User cannot contain only periods or spaces`]);
  assert.deepEqual(user('who@corp'), [`${path}.runAsUserName: Invalid value: "who@corp": runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`]);
  assert.deepEqual(user('u'.repeat(105)), [`${path}.runAsUserName: Invalid value: "${'u'.repeat(105)}": runAsUserName's User length must not be longer than 104 characters`]);
  assert.deepEqual(user(`${'d'.repeat(256)}\\u`), [
    `${path}.runAsUserName: Invalid value: "${'d'.repeat(256)}\\\\u": runAsUserName's Domain length must be under 256 characters`,
    `${path}.runAsUserName: Invalid value: "${'d'.repeat(256)}\\\\u": runAsUserName's Domain doesn't match the NetBios nor the DNS format`,
  ]);
  for (const ok of ['ContainerUser', 'NT AUTHORITY\\NETWORK SERVICE', 'corp.example.com\\svc-web']) assert.deepEqual(user(ok), [], ok);
});

test('container securityContext: IDs, procMount values, privileged or CAP_SYS_ADMIN without privilege escalation', () => {
  assert.deepEqual(containerErrors({ runAsUser: -1, runAsGroup: 4294967295, procMount: 'Masked' }), [
    'spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive',
    'spec.containers[0].securityContext.runAsGroup: Invalid value: 4294967295: must be between 0 and 2147483647, inclusive',
    'spec.containers[0].securityContext.procMount: Unsupported value: "Masked": supported values: "Default", "Unmasked"',
  ]);
  const sc = { privileged: true, allowPrivilegeEscalation: false, capabilities: { add: ['NET_ADMIN', 'CAP_SYS_ADMIN'] }, runAsUser: 1000 };
  const rendered =
    'core.SecurityContext{Capabilities:(*core.Capabilities)(core.Capabilities{Add:[]core.Capability{"NET_ADMIN", "CAP_SYS_ADMIN"}, Drop:[]core.Capability(nil)}), ' +
    'Privileged:(*bool)(true), SELinuxOptions:(*core.SELinuxOptions)(nil), WindowsOptions:(*core.WindowsSecurityContextOptions)(nil), RunAsUser:(*int64)(1000), ' +
    'RunAsGroup:(*int64)(nil), RunAsNonRoot:(*bool)(nil), ReadOnlyRootFilesystem:(*bool)(nil), AllowPrivilegeEscalation:(*bool)(false), ProcMount:(*core.ProcMountType)(nil), ' +
    'SeccompProfile:(*core.SeccompProfile)(nil), AppArmorProfile:(*core.AppArmorProfile)(nil)}';
  assert.deepEqual(containerErrors(sc), [
    `spec.containers[0].securityContext: Invalid value: ${rendered}: cannot set \`allowPrivilegeEscalation\` to false and \`privileged\` to true`,
    `spec.containers[0].securityContext: Invalid value: ${rendered}: cannot set \`allowPrivilegeEscalation\` to false and \`capabilities.Add\` CAP_SYS_ADMIN`,
  ]);
  // kube matches the capability name as written: SYS_ADMIN (without CAP_) passes, as does privilege escalation left on.
  assert.deepEqual(containerErrors({ allowPrivilegeEscalation: false, capabilities: { add: ['SYS_ADMIN'] } }), []);
  assert.deepEqual(containerErrors({ privileged: true, capabilities: { add: ['CAP_SYS_ADMIN'] }, procMount: 'Default' }), []);
});

test('an unmasked /proc needs a pod with its own user namespace; such a pod shares no other namespace with the host', () => {
  const unmasked = { name: 'app', image: 'nginx', securityContext: { procMount: 'Unmasked' } };
  assert.deepEqual(podErrors({ containers: [unmasked], initContainers: [unmasked] }), [
    'spec.containers[0].securityContext.procMount: Invalid value: "Unmasked": `hostUsers` must be false to use `Unmasked`',
    'spec.initContainers[0].securityContext.procMount: Invalid value: "Unmasked": `hostUsers` must be false to use `Unmasked`',
  ]);
  assert.deepEqual(podErrors({ hostUsers: false, containers: [unmasked] }), []);
  assert.deepEqual(podErrors({ hostUsers: false, hostNetwork: true, hostPID: true, hostIPC: true }), [
    'spec.hostNetwork: Forbidden: when `pod.Spec.HostUsers` is false',
    'spec.HostPID: Forbidden: when `pod.Spec.HostUsers` is false',
    'spec.HostIPC: Forbidden: when `pod.Spec.HostUsers` is false',
  ]);
  assert.deepEqual(podErrors({ hostUsers: true, hostNetwork: true, hostPID: true }), []);
});

test('hostProcess containers: all or none, agreeing with the pod, on the host network', () => {
  const hostProcess = (v: boolean) => ({ securityContext: { windowsOptions: { hostProcess: v } } });
  assert.deepEqual(
    podErrors({
      securityContext: { windowsOptions: { hostProcess: true } },
      initContainers: [{ name: 'init', image: 'busybox', ...hostProcess(false) }],
      containers: [{ name: 'app', image: 'nginx' }],
    }),
    [
      'spec.initContainers[0].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true',
      'spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers',
      'spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers',
    ],
  );
  assert.deepEqual(podErrors({ hostNetwork: true, containers: [{ name: 'a', image: 'x', ...hostProcess(true) }, { name: 'b', image: 'x', ...hostProcess(true) }] }), []);
});

test('spec.os linux: no Windows options; spec.os windows: none of the Linux-only settings', () => {
  assert.deepEqual(podErrors({ os: { name: 'linux' }, securityContext: { windowsOptions: {} }, containers: [{ name: 'app', image: 'x', securityContext: { windowsOptions: { runAsUserName: 'u' } } }] }), [
    'spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
    'spec.containers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
  ]);
  const linuxOnly = {
    seLinuxOptions: { level: 's0' },
    seccompProfile: { type: 'RuntimeDefault' },
    appArmorProfile: { type: 'RuntimeDefault' },
    runAsUser: 1,
    runAsGroup: 1,
  };
  assert.deepEqual(
    podErrors({
      os: { name: 'windows' },
      hostPID: true,
      hostIPC: false,
      hostUsers: true,
      shareProcessNamespace: false,
      securityContext: { ...linuxOnly, fsGroup: 1, fsGroupChangePolicy: 'Always', sysctls: [{ name: 'kernel.msgmax', value: '1' }], supplementalGroups: [], windowsOptions: { runAsUserName: 'u' } },
      ephemeralContainers: [{ name: 'debug', image: 'x', securityContext: { ...linuxOnly, capabilities: {}, readOnlyRootFilesystem: false, privileged: false, allowPrivilegeEscalation: true, procMount: 'Default' } }],
    }),
    [
      'spec.securityContext.appArmorProfile: Forbidden: cannot be set for a windows pod',
      'spec.securityContext.seLinuxOptions: Forbidden: cannot be set for a windows pod',
      'spec.hostUsers: Forbidden: cannot be set for a windows pod',
      'spec.hostPID: Forbidden: cannot be set for a windows pod',
      'spec.securityContext.seccompProfile: Forbidden: cannot be set for a windows pod',
      'spec.securityContext.fsGroup: Forbidden: cannot be set for a windows pod',
      'spec.securityContext.fsGroupChangePolicy: Forbidden: cannot be set for a windows pod',
      'spec.securityContext.sysctls: Forbidden: cannot be set for a windows pod',
      'spec.shareProcessNamespace: Forbidden: cannot be set for a windows pod',
      'spec.securityContext.runAsUser: Forbidden: cannot be set for a windows pod',
      'spec.securityContext.runAsGroup: Forbidden: cannot be set for a windows pod',
      'spec.securityContext.supplementalGroups: Forbidden: cannot be set for a windows pod',
      'spec.ephemeralContainers[0].securityContext.appArmorProfile: Forbidden: cannot be set for a windows pod',
      'spec.ephemeralContainers[0].securityContext.seLinuxOptions: Forbidden: cannot be set for a windows pod',
      'spec.ephemeralContainers[0].securityContext.seccompProfile: Forbidden: cannot be set for a windows pod',
      'spec.ephemeralContainers[0].securityContext.capabilities: Forbidden: cannot be set for a windows pod',
      'spec.ephemeralContainers[0].securityContext.readOnlyRootFilesystem: Forbidden: cannot be set for a windows pod',
      'spec.ephemeralContainers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod',
      'spec.ephemeralContainers[0].securityContext.allowPrivilegeEscalation: Forbidden: cannot be set for a windows pod',
      'spec.ephemeralContainers[0].securityContext.procMount: Forbidden: cannot be set for a windows pod',
      'spec.ephemeralContainers[0].securityContext.runAsUser: Forbidden: cannot be set for a windows pod',
      'spec.ephemeralContainers[0].securityContext.runAsGroup: Forbidden: cannot be set for a windows pod',
    ],
  );
  // An os the spec does not validate gets no OS rules (validateOS reports it instead).
  assert.deepEqual(podErrors({ os: { name: 'plan9' }, securityContext: { windowsOptions: {} } }), []);
});

test('seccomp annotations agree with the fields beside them; a container does not inherit the pod field', () => {
  const spec = {
    securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
    initContainers: [{ name: 'init', securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'a.json' } } }],
    containers: [{ name: 'app', securityContext: { seccompProfile: { type: 'Unconfined' } } }, { name: 'side' }],
  };
  assert.deepEqual(
    annotationErrors(
      {
        'seccomp.security.alpha.kubernetes.io/pod': 'unconfined',
        'container.seccomp.security.alpha.kubernetes.io/init': 'localhost/b.json',
        'container.seccomp.security.alpha.kubernetes.io/app': 'runtime/default',
        'container.seccomp.security.alpha.kubernetes.io/side': 'localhost/c.json',
      },
      spec,
    ),
    [
      'spec.securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match',
      'spec.initContainers[0].securityContext.seccompProfile.localhostProfile: Forbidden: seccomp profile in annotation and field must match',
      'spec.containers[0].securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match',
    ],
  );
  assert.deepEqual(
    annotationErrors({ 'seccomp.security.alpha.kubernetes.io/pod': 'docker/default', 'container.seccomp.security.alpha.kubernetes.io/init': 'localhost/a.json', 'container.seccomp.security.alpha.kubernetes.io/app': 'unconfined' }, spec),
    [],
  );
});

test('AppArmor annotations agree with the profile that applies, the pod profile for a container without one', () => {
  const spec = {
    securityContext: { appArmorProfile: { type: 'RuntimeDefault' } },
    containers: [{ name: 'app' }, { name: 'side', securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: 'web' } } }, { name: 'plain' }],
  };
  assert.deepEqual(
    annotationErrors({ 'container.apparmor.security.beta.kubernetes.io/app': 'unconfined', 'container.apparmor.security.beta.kubernetes.io/side': 'localhost/api', 'container.apparmor.security.beta.kubernetes.io/plain': 'runtime/default' }, spec),
    [
      'spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match',
      'spec.containers[1].securityContext.appArmorProfile.localhostProfile: Forbidden: apparmor profile in annotation and field must match',
    ],
  );
  assert.deepEqual(annotationErrors({ 'container.apparmor.security.beta.kubernetes.io/side': 'runtime/default' }, spec), [
    'spec.containers[1].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match',
  ]);
  // Windows pods are not checked.
  assert.deepEqual(annotationErrors({ 'container.apparmor.security.beta.kubernetes.io/app': 'unconfined' }, { ...spec, os: { name: 'windows' } }), []);
});

test('wired into ValidatePodSpec and ValidatePodTemplateSpec', () => {
  const template: Obj = {
    metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'localhost/web' } },
    spec: {
      securityContext: { appArmorProfile: { type: 'RuntimeDefault' }, runAsUser: -1 },
      containers: [{ name: 'app', image: 'nginx', securityContext: { allowPrivilegeEscalation: false, privileged: false, runAsGroup: -1 } }],
    },
  };
  defaultPodTemplate(template);
  assert.deepEqual(validatePodTemplateSpec(template, 'spec.template').map(fieldErrorString), [
    'spec.template.spec.containers[0].securityContext.runAsGroup: Invalid value: -1: must be between 0 and 2147483647, inclusive',
    'spec.template.spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive',
    'spec.template.spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match',
  ]);
  assert.deepEqual(validatePodSpec(template.spec, 'spec', { isPod: true }).map(fieldErrorString), [
    'spec.containers[0].securityContext.runAsGroup: Invalid value: -1: must be between 0 and 2147483647, inclusive',
    'spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive',
  ]);
});

test('pods: the annotation and field agreement is checked on create, not on update', () => {
  const strategy = builtinTypeFacts('', 'pods').strategy as BuiltinStrategy;
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' } },
    spec: { securityContext: { seccompProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'app', image: 'nginx' }] },
  };
  strategy.defaults?.(pod);
  strategy.prepareForCreate?.(pod, ctx);
  assert.deepEqual((strategy.validate?.(pod, ctx) ?? []).map(fieldErrorString), ['spec.securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match']);
  const stored = { ...pod, metadata: { ...pod.metadata, resourceVersion: '1' } };
  assert.deepEqual((strategy.validateUpdate?.(stored, stored, ctx) ?? []).map(fieldErrorString), []);
});
