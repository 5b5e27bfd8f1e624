// Nodes (SetDefaults_NodeStatus, node taint validation, printNode, the spec.unschedulable field label).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { validateQualifiedName } from '../../validation/meta.ts';
import { isValidLabelValue } from '../../validation/names.ts';
import { buildStrategy } from '../generic.ts';
import { clone, ensureObj, getPath, isObj, objsAt, setDefault, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';

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

/** SetDefaults_NodeStatus (allocatable from capacity) and the struct fields Go always writes. */
export function defaultNode(node: KubeObject): void {
  ensureObj(node, 'spec');
  const status = ensureObj(node, 'status');
  if (status.allocatable === undefined && isObj(status.capacity)) status.allocatable = clone(status.capacity);
  const endpoint = ensureObj(ensureObj(status, 'daemonEndpoints'), 'kubeletEndpoint');
  setDefault(endpoint, 'Port', 0);
  const info = ensureObj(status, 'nodeInfo');
  for (const f of NODE_INFO_FIELDS) setDefault(info, f, '');
}

function taintErrors(node: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  objsAt(node, 'spec', 'taints').forEach((t, i) => {
    const p = `spec.taints[${i}]`;
    const key = strAt(t, 'key');
    errs.push(...validateQualifiedName(key, `${p}.key`));
    const value = strAt(t, 'value');
    const valueErrs = isValidLabelValue(value);
    if (valueErrs.length) errs.push(fieldErrors.invalid(`${p}.value`, value, valueErrs.join(';')));
    const effect = strAt(t, 'effect');
    if (effect === '') errs.push(fieldErrors.required(`${p}.effect`));
    else if (!['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(effect)) {
      errs.push(fieldErrors.notSupported(`${p}.effect`, effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
    }
    const k = `${key}:${effect}`;
    if (seen.has(k)) {
      errs.push({ ...fieldErrors.duplicate(p, t), detail: 'taints must be unique by key and effect pair' });
      return;
    }
    seen.add(k);
  });
  return errs;
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
  return {
    strategy: buildStrategy(rules, {
      defaults: defaultNode,
      // Nodes register with their status: create keeps it.
      initialStatus: () => 'keep',
      validate: (obj) => taintErrors(obj),
      validateUpdate: (obj, _old, _ctx, validateNew) => validateNew(),
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
