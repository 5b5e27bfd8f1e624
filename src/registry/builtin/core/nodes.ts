// Nodes (SetDefaults_NodeStatus; the strategy's dropped dynamic kubelet configuration and deprecation warnings;
// validation in node-validation.ts; printNode; the spec.unschedulable field label).

import type { KubeObject } from '../../types.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../validation/meta.ts';
import { buildStrategy } from '../generic.ts';
import { clone, ensureObj, getPath, isObj, objsAt, setDefault, strAt, type Obj } from '../object.ts';
import { ageColumn, column } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { nodeErrors, nodeUpdateErrors } from './node-validation.ts';

const NODE_INFO_FIELDS = [
  'architecture',
  'bootID',
  'containerRuntimeVersion',
  'kernelVersion',
  'kubeProxyVersion',
  'kubeletVersion',
  'machineID',
  'operatingSystem',
  'osImage',
  'systemUUID',
];

/**
 * The v1 <-> internal conversion of the pod CIDRs: the internal type has podCIDRs only. A podCIDR that differs from
 * podCIDRs[0] (or comes without podCIDRs) wins for older clients; podCIDR is written back as podCIDRs[0].
 */
function convertPodCIDRs(spec: Obj): void {
  const single = typeof spec.podCIDR === 'string' ? spec.podCIDR : '';
  const list = Array.isArray(spec.podCIDRs) ? spec.podCIDRs : [];
  if (single !== '' && (list.length === 0 || list[0] !== single)) spec.podCIDRs = [single];
  const first: unknown = Array.isArray(spec.podCIDRs) ? spec.podCIDRs[0] : undefined;
  if (typeof first === 'string' && first !== '') spec.podCIDR = first;
  else delete spec.podCIDR;
}

/** SetDefaults_NodeStatus (allocatable from capacity), the pod CIDR conversion and the struct fields Go always writes. */
export function defaultNode(node: KubeObject): void {
  convertPodCIDRs(ensureObj(node, 'spec'));
  const status = ensureObj(node, 'status');
  if (status.allocatable === undefined && isObj(status.capacity)) status.allocatable = clone(status.capacity);
  const endpoint = ensureObj(ensureObj(status, 'daemonEndpoints'), 'kubeletEndpoint');
  setDefault(endpoint, 'Port', 0);
  const info = ensureObj(status, 'nodeInfo');
  for (const f of NODE_INFO_FIELDS) setDefault(info, f, '');
}

function nodeStatus(node: KubeObject): string {
  const ready = objsAt(node, 'status', 'conditions').find((c) => c.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (getPath(node, 'spec', 'unschedulable') === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function nodeRoles(node: KubeObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata?.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (k === 'kubernetes.io/role' && v !== '') roles.add(v);
  }
  const list = [...roles].sort().join(',');
  return list === '' ? '<none>' : list;
}

function nodeAddress(node: KubeObject, type: string): string {
  const a = objsAt(node, 'status', 'addresses').find((x) => x.type === type);
  return a ? strAt(a, 'address') : '<none>';
}

const orUnknown = (s: string) => (s === '' ? '<unknown>' : s);

export function nodeFacts(rules: TypeRules): TypeFacts {
  const validate = (node: KubeObject) => [...validateObjectMeta(node.metadata, rules), ...nodeErrors(node)];
  const metaUpdate = (node: KubeObject, old: KubeObject) => validateObjectMetaUpdate(node.metadata, old.metadata, 'metadata', rules.kubeFinalizers);
  return {
    strategy: buildStrategy(rules, {
      // The strategy's ValidateUpdate runs ValidateNode before ValidateNodeUpdate, whose ObjectMeta rules come second.
      genericMetaOnly: true,
      defaults: defaultNode,
      // Nodes register with their status: create keeps it.
      initialStatus: () => 'keep',
      // Dynamic kubelet configuration is gone: a create drops its fields, an update drops a config source the node
      // did not already have (dropDisabledFields), and a status write a config the status did not already hold.
      prepareForCreate(obj) {
        if (isObj(obj.spec)) delete obj.spec.configSource;
        if (isObj(obj.status)) delete obj.status.config;
      },
      prepareForUpdate(obj, old) {
        if (isObj(obj.spec) && getPath(old, 'spec', 'configSource') === undefined) delete obj.spec.configSource;
      },
      prepareForStatusUpdate(merged, old) {
        if (isObj(merged.status) && getPath(old, 'status', 'config') === undefined) delete merged.status.config;
      },
      validate,
      validateUpdate: (obj, old) => [...validate(obj), ...metaUpdate(obj, old), ...nodeUpdateErrors(obj, old)],
      validateStatusUpdate: (obj, old) => [...metaUpdate(obj, old), ...nodeUpdateErrors(obj, old)],
      warnings: (obj) => [
        ...(getPath(obj, 'spec', 'configSource') !== undefined && getPath(obj, 'spec', 'configSource') !== null ? ['spec.configSource: the feature is removed'] : []),
        ...(strAt(obj, 'spec', 'externalID') !== '' ? ['spec.externalID: this field is deprecated, and is unused by Kubernetes'] : []),
      ],
    }),
    printerColumns: [
      column('Status', 'string', 'The readiness of the node.', nodeStatus),
      column('Roles', 'string', 'The roles of the node.', nodeRoles),
      ageColumn,
      column('Version', 'string', 'The kubelet version.', (o) => strAt(o, 'status', 'nodeInfo', 'kubeletVersion')),
      column('Internal-IP', 'string', 'The first internal address.', (o) => nodeAddress(o, 'InternalIP'), 1),
      column('External-IP', 'string', 'The first external address.', (o) => nodeAddress(o, 'ExternalIP'), 1),
      column('OS-Image', 'string', 'The operating system image.', (o) => orUnknown(strAt(o, 'status', 'nodeInfo', 'osImage')), 1),
      column('Kernel-Version', 'string', 'The kernel version.', (o) => orUnknown(strAt(o, 'status', 'nodeInfo', 'kernelVersion')), 1),
      column('Container-Runtime', 'string', 'The container runtime version.', (o) => orUnknown(strAt(o, 'status', 'nodeInfo', 'containerRuntimeVersion')), 1),
    ],
    selectableFields: { 'spec.unschedulable': (o) => String(getPath(o, 'spec', 'unschedulable') === true) },
  };
}
