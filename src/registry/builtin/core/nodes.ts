// Nodes (SetDefaults_NodeStatus; core validation ValidateNode/ValidateNodeUpdate: taints, resources, pod CIDRs,
// provider ID; printNode; the spec.unschedulable field label).

import { fieldErrors, goStringsValue, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { quantityNanos } from '../../validation/quantity.ts';
import { cidrFamily } from '../ip-validation.ts';
import type { KubeObject } from '../../types.ts';
import { validateQualifiedName } from '../../validation/meta.ts';
import { isValidLabelValue } from '../../validation/names.ts';
import { buildStrategy } from '../generic.ts';
import { arrAt, clone, ensureObj, getPath, isObj, objAt, objsAt, setDefault, strAt } from '../object.ts';
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

/** Go's %#v of a string slice, as field errors print a []string bad value. */
/** validateNodeTaints: kube reports them under metadata.taints (its field path starts from metadata). */
function taintErrors(node: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  objsAt(node, 'spec', 'taints').forEach((t, i) => {
    const p = `metadata.taints[${i}]`;
    const key = strAt(t, 'key');
    errs.push(...validateQualifiedName(key, `${p}.key`));
    const value = strAt(t, 'value');
    const valueErrs = isValidLabelValue(value);
    if (valueErrs.length) errs.push(fieldErrors.invalid(`${p}.value`, value, valueErrs.join(';')));
    const effect = strAt(t, 'effect');
    if (effect === '') errs.push(fieldErrors.required(`${p}.effect`));
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(fieldErrors.notSupported(`${p}.effect`, effect, TAINT_EFFECTS));
    const k = `${key}:${effect}`;
    if (seen.has(k)) {
      const added = strAt(t, 'timeAdded');
      const goTaint = `core.Taint{Key:${JSON.stringify(key)}, Value:${JSON.stringify(value)}, Effect:${JSON.stringify(effect)}, TimeAdded:${added ? `time.Date(${added})` : '(*v1.Time)(nil)'}}`;
      errs.push({ ...fieldErrors.duplicate(p, renderedBadValue(goTaint)), detail: 'taints must be unique by key and effect pair' });
      return;
    }
    seen.add(k);
  });
  return errs;
}

/** ValidateNodeResources: capacity and allocatable quantities are not negative. */
function resourceErrors(node: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of ['capacity', 'allocatable']) {
    for (const [name, q] of Object.entries(objAt(objAt(node, 'status'), key) ?? {})) {
      const nanos = quantityNanos(q);
      if (nanos !== undefined && nanos < 0n) errs.push(fieldErrors.invalid(`status.${key}.${name}`, String(q), 'must be greater than or equal to 0'));
    }
  }
  return errs;
}

/** ValidateNode: taints, resources, and pod CIDRs (valid, at most one per family, no duplicates). */
function validateNode(node: KubeObject): FieldError[] {
  const errs = [...taintErrors(node), ...resourceErrors(node)];
  const cidrs = arrAt(node, 'spec', 'podCIDRs').map(String);
  cidrs.forEach((c, i) => {
    if (cidrFamily(c) === 0) errs.push(fieldErrors.invalid(`spec.podCIDRs[${i}]`, goStringsValue(cidrs), 'must be valid CIDR'));
  });
  if (cidrs.length > 1) {
    const families = cidrs.map(cidrFamily);
    if (cidrs.length > 2 || families[0] === families[1]) errs.push(fieldErrors.invalid('spec.podCIDRs', goStringsValue(cidrs), 'may specify no more than one CIDR for each IP family'));
    const seen = new Set<string>();
    cidrs.forEach((c, i) => {
      if (seen.has(c)) errs.push(fieldErrors.duplicate(`spec.podCIDRs[${i}]`, c));
      seen.add(c);
    });
  }
  return errs;
}

const NOT_CHANGED = (field: string) => `node updates may not change ${field} except from "" to valid`;

/** ValidateNodeUpdate (also the status subresource's): pod CIDRs and provider ID are set once. */
function validateNodeUpdate(node: KubeObject, old: KubeObject): FieldError[] {
  const errs = [...resourceErrors(node)];
  const seen = new Set<string>();
  objsAt(node, 'status', 'addresses').forEach((a, i) => {
    const k = `${strAt(a, 'type')}\u0000${strAt(a, 'address')}`;
    if (seen.has(k)) errs.push(fieldErrors.duplicate(`status.addresses[${i}]`, renderedBadValue(`core.NodeAddress{Type:${JSON.stringify(strAt(a, 'type'))}, Address:${JSON.stringify(strAt(a, 'address'))}}`)));
    seen.add(k);
  });
  const oldCIDRs = arrAt(old, 'spec', 'podCIDRs').map(String);
  const newCIDRs = arrAt(node, 'spec', 'podCIDRs').map(String);
  if (oldCIDRs.length > 0) {
    if (oldCIDRs.length !== newCIDRs.length) errs.push(fieldErrors.forbidden('spec.podCIDRs', NOT_CHANGED('podCIDR')));
    else oldCIDRs.forEach((c, i) => c !== newCIDRs[i] && errs.push(fieldErrors.forbidden('spec.podCIDRs', NOT_CHANGED('podCIDR'))));
  }
  const oldProvider = strAt(old, 'spec', 'providerID');
  if (oldProvider !== '' && oldProvider !== strAt(node, 'spec', 'providerID')) errs.push(fieldErrors.forbidden('spec.providerID', NOT_CHANGED('providerID')));
  errs.push(...taintErrors(node));
  return errs;
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

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
      validate: validateNode,
      validateUpdate: (obj, old) => validateNodeUpdate(obj, old),
      validateStatusUpdate: (obj, old) => validateNodeUpdate(obj, old),
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
