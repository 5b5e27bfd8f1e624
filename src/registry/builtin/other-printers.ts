// Printer columns of the other built-in types kube's printers.go knows (networking, RBAC, storage, policy,
// autoscaling, ...), keyed "group/resource". Types absent here print Name and Created At.

import type { KubeObject, PrinterColumn } from '../types.ts';
import { arrAt, getPath, isObj, numAt, objAt, objsAt, strAt } from './object.ts';
import { ageColumn, column, formatLabelSelector } from './printing.ts';
import { humanDuration } from './duration.ts';
import { controllerRevisionColumns } from './apps/workloads.ts';

const orNone = (s: string) => (s === '' ? '<none>' : s);
const orUnset = (s: string) => (s === '' ? '<unset>' : s);

function listWithMore(list: string[], more: boolean, count: number, max: number): string {
  const s = list.join(',');
  if (more) return `${s} + ${count - max} more...`;
  return s === '' ? '<unset>' : s;
}

function loadBalancerIngress(status: unknown): string {
  const set = new Set<string>();
  for (const ing of objsAt(status, 'loadBalancer', 'ingress')) {
    if (strAt(ing, 'ip') !== '') set.add(strAt(ing, 'ip'));
    else if (strAt(ing, 'hostname') !== '') set.add(strAt(ing, 'hostname'));
  }
  return [...set].sort().join(',');
}

function ingressHosts(obj: KubeObject): string {
  const rules = objsAt(obj, 'spec', 'rules');
  const list: string[] = [];
  const max = 3;
  let more = false;
  for (const r of rules) {
    if (list.length === max) more = true;
    if (!more && strAt(r, 'host') !== '') list.push(strAt(r, 'host'));
  }
  if (list.length === 0) return '*';
  const s = list.join(',');
  return more ? `${s} + ${rules.length - max} more...` : s;
}

function subjects(obj: KubeObject, kind: string): string {
  return objsAt(obj, 'subjects')
    .filter((s) => strAt(s, 'kind') === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${strAt(s, 'namespace')}/${strAt(s, 'name')}` : strAt(s, 'name')))
    .join(', ');
}

function bindingColumns(): PrinterColumn[] {
  return [
    column('Role', 'string', 'The role the binding grants.', (o) => `${strAt(o, 'roleRef', 'kind')}/${strAt(o, 'roleRef', 'name')}`),
    ageColumn,
    column('Users', 'string', 'Users in the binding.', (o) => subjects(o, 'User'), 1),
    column('Groups', 'string', 'Groups in the binding.', (o) => subjects(o, 'Group'), 1),
    column('ServiceAccounts', 'string', 'Service accounts in the binding.', (o) => subjects(o, 'ServiceAccount'), 1),
  ];
}

function intOrStringCell(v: unknown): string {
  return typeof v === 'number' || typeof v === 'string' ? String(v) : 'N/A';
}

function csrCondition(obj: KubeObject): string {
  let approved = false;
  let denied = false;
  let failed = false;
  for (const c of objsAt(obj, 'status', 'conditions')) {
    if (c.type === 'Approved') approved = true;
    if (c.type === 'Denied') denied = true;
    if (c.type === 'Failed') failed = true;
  }
  let s = denied ? 'Denied' : approved ? 'Approved' : 'Pending';
  if (failed) s += ',Failed';
  if (strAt(obj, 'status', 'certificate') !== '') s += ',Issued';
  return s;
}

function storageClassName(obj: KubeObject): string {
  const a = obj.metadata?.annotations ?? {};
  const isDefault = a['storageclass.kubernetes.io/is-default-class'] === 'true' || a['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
  return isDefault ? `${obj.metadata?.name ?? ''} (default)` : (obj.metadata?.name ?? '');
}

function discoveryEndpoints(obj: KubeObject): string {
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const e of objsAt(obj, 'endpoints')) {
    for (const a of arrAt(e, 'addresses')) {
      if (list.length < 3) list.push(String(a));
      else more = true;
      count++;
    }
  }
  return listWithMore(list, more, count, 3);
}

function discoveryPorts(obj: KubeObject): string {
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const p of objsAt(obj, 'ports')) {
    if (list.length < 3) list.push(typeof p.port === 'number' ? String(p.port) : typeof p.name === 'string' ? p.name : '*');
    else more = true;
    count++;
  }
  return listWithMore(list, more, count, 3);
}

function hpaTargets(obj: KubeObject): string {
  const specs = objsAt(obj, 'spec', 'metrics');
  if (specs.length === 0) {
    // autoscaling/v1 objects carry a single CPU target.
    const target = getPath(obj, 'spec', 'targetCPUUtilizationPercentage');
    if (typeof target === 'number') {
      const current = getPath(obj, 'status', 'currentCPUUtilizationPercentage');
      return `cpu: ${typeof current === 'number' ? `${current}%` : '<unknown>'}/${target}%`;
    }
    return '<none>';
  }
  const statuses = objsAt(obj, 'status', 'currentMetrics');
  const list = specs.map((spec, i) => {
    const status = statuses[i];
    if (spec.type === 'Resource' || spec.type === 'ContainerResource') {
      const key = spec.type === 'Resource' ? 'resource' : 'containerResource';
      const s = objAt(spec, key) ?? {};
      const target = objAt(s, 'target') ?? {};
      const cur = objAt(objAt(status, key), 'current') ?? {};
      if (target.averageValue !== undefined) return `${strAt(s, 'name')}: ${cur.averageValue !== undefined ? String(cur.averageValue) : '<unknown>'}/${String(target.averageValue)}`;
      const current = typeof cur.averageUtilization === 'number' ? `${cur.averageUtilization}%` : '<unknown>';
      const want = typeof target.averageUtilization === 'number' ? `${target.averageUtilization}%` : '<auto>';
      return `${strAt(s, 'name')}: ${current}/${want}`;
    }
    const key = spec.type === 'Pods' ? 'pods' : spec.type === 'Object' ? 'object' : spec.type === 'External' ? 'external' : '';
    if (key === '') return '<unknown type>';
    const target = objAt(objAt(spec, key), 'target') ?? {};
    const cur = objAt(objAt(status, key), 'current') ?? {};
    if (target.averageValue !== undefined) {
      const suffix = key === 'pods' ? '' : ' (avg)';
      return `${cur.averageValue !== undefined ? String(cur.averageValue) : '<unknown>'}/${String(target.averageValue)}${suffix}`;
    }
    return `${cur.value !== undefined ? String(cur.value) : '<unknown>'}/${String(target.value ?? '')}`;
  });
  const max = 2;
  if (list.length > max) return `${list.slice(0, max).join(', ')} + ${list.length - max} more...`;
  return list.join(', ');
}

export const OTHER_PRINTERS: Readonly<Record<string, () => PrinterColumn[]>> = {
  'networking.k8s.io/ingresses': () => [
    column('Class', 'string', 'The ingress class.', (o) => (typeof getPath(o, 'spec', 'ingressClassName') === 'string' ? strAt(o, 'spec', 'ingressClassName') : '<none>')),
    column('Hosts', 'string', 'Hosts the rules match.', ingressHosts),
    column('Address', 'string', 'Load-balancer addresses.', (o) => loadBalancerIngress(o.status)),
    column('Ports', 'string', 'Ports the ingress opens.', (o) => (arrAt(o, 'spec', 'tls').length > 0 ? '80, 443' : '80')),
    ageColumn,
  ],
  'networking.k8s.io/ingressclasses': () => [
    column('Controller', 'string', 'The controller handling the class.', (o) => strAt(o, 'spec', 'controller')),
    column('Parameters', 'string', 'The parameters resource of the class.', (o) => {
      const p = objAt(objAt(o, 'spec'), 'parameters');
      if (!p) return '<none>';
      const group = typeof p.apiGroup === 'string' ? `.${p.apiGroup}` : '';
      return `${strAt(p, 'kind')}${group}/${strAt(p, 'name')}`;
    }),
    ageColumn,
  ],
  'networking.k8s.io/networkpolicies': () => [
    column('Pod-Selector', 'string', 'Pods the policy applies to.', (o) => formatLabelSelector(getPath(o, 'spec', 'podSelector'))),
    ageColumn,
  ],
  'rbac.authorization.k8s.io/rolebindings': bindingColumns,
  'rbac.authorization.k8s.io/clusterrolebindings': bindingColumns,
  'coordination.k8s.io/leases': () => [column('Holder', 'string', 'The current holder of the lease.', (o) => strAt(o, 'spec', 'holderIdentity')), ageColumn],
  'storage.k8s.io/storageclasses': () => [
    // kube marks the default class in the name cell itself.
    column('Name', 'string', 'The name of the storage class; "(default)" marks the default one.', storageClassName, 0, 'name'),
    column('Provisioner', 'string', 'The volume provisioner.', (o) => strAt(o, 'provisioner')),
    column('ReclaimPolicy', 'string', 'What happens to released volumes.', (o) => strAt(o, 'reclaimPolicy') || 'Delete'),
    column('VolumeBindingMode', 'string', 'When volumes are bound.', (o) => strAt(o, 'volumeBindingMode') || 'Immediate'),
    column('AllowVolumeExpansion', 'string', 'Whether volumes may grow.', (o) => o.allowVolumeExpansion === true),
    ageColumn,
  ],
  'storage.k8s.io/csidrivers': () => [
    column('AttachRequired', 'boolean', 'Whether volumes need attaching.', (o) => getPath(o, 'spec', 'attachRequired') !== false),
    column('PodInfoOnMount', 'boolean', 'Whether pod info is passed on mount.', (o) => getPath(o, 'spec', 'podInfoOnMount') === true),
    column('StorageCapacity', 'boolean', 'Whether capacity is tracked.', (o) => getPath(o, 'spec', 'storageCapacity') === true),
    column('TokenRequests', 'string', 'Audiences of requested tokens.', (o) => {
      const t = getPath(o, 'spec', 'tokenRequests');
      return Array.isArray(t) ? t.filter(isObj).map((x) => strAt(x, 'audience')).join(',') : '<unset>';
    }),
    column('RequiresRepublish', 'boolean', 'Whether volumes are republished periodically.', (o) => getPath(o, 'spec', 'requiresRepublish') === true),
    column('Modes', 'string', 'Volume lifecycle modes.', (o) => orNone(arrAt(o, 'spec', 'volumeLifecycleModes').map(String).join(','))),
    ageColumn,
  ],
  'storage.k8s.io/csinodes': () => [column('Drivers', 'integer', 'Registered CSI drivers.', (o) => arrAt(o, 'spec', 'drivers').length), ageColumn],
  'storage.k8s.io/volumeattachments': () => [
    column('Attacher', 'string', 'The attaching driver.', (o) => strAt(o, 'spec', 'attacher'), 0, 'name'),
    column('PV', 'string', 'The persistent volume.', (o) => strAt(o, 'spec', 'source', 'persistentVolumeName')),
    column('Node', 'string', 'The node.', (o) => strAt(o, 'spec', 'nodeName')),
    column('Attached', 'boolean', 'Whether the volume is attached.', (o) => getPath(o, 'status', 'attached') === true),
    ageColumn,
  ],
  'scheduling.k8s.io/priorityclasses': () => [
    column('Value', 'integer', 'The priority value.', (o) => numAt(o, 'value')),
    column('Global-Default', 'boolean', 'Whether this is the default class.', (o) => o.globalDefault === true),
    ageColumn,
    column('PreemptionPolicy', 'string', 'Whether pods of the class preempt others.', (o) => strAt(o, 'preemptionPolicy')),
  ],
  'node.k8s.io/runtimeclasses': () => [column('Handler', 'string', 'The runtime handler.', (o) => strAt(o, 'handler')), ageColumn],
  'policy/poddisruptionbudgets': () => [
    column('Min Available', 'string', 'Pods that must stay available.', (o) => intOrStringCell(getPath(o, 'spec', 'minAvailable'))),
    column('Max Unavailable', 'string', 'Pods that may be unavailable.', (o) => intOrStringCell(getPath(o, 'spec', 'maxUnavailable'))),
    column('Allowed Disruptions', 'integer', 'Disruptions allowed now.', (o) => numAt(o, 'status', 'disruptionsAllowed')),
    ageColumn,
  ],
  'autoscaling/horizontalpodautoscalers': () => [
    column('Reference', 'string', 'The scaled object.', (o) => `${strAt(o, 'spec', 'scaleTargetRef', 'kind')}/${strAt(o, 'spec', 'scaleTargetRef', 'name')}`),
    column('Targets', 'string', 'Current and target metric values.', hpaTargets),
    column('MinPods', 'string', 'The lower replica bound.', (o) => (typeof getPath(o, 'spec', 'minReplicas') === 'number' ? String(getPath(o, 'spec', 'minReplicas')) : '<unset>')),
    column('MaxPods', 'string', 'The upper replica bound.', (o) => numAt(o, 'spec', 'maxReplicas')),
    column('Replicas', 'string', 'Current replicas.', (o) => numAt(o, 'status', 'currentReplicas')),
    ageColumn,
  ],
  'discovery.k8s.io/endpointslices': () => [
    column('AddressType', 'string', 'The type of addresses.', (o) => strAt(o, 'addressType')),
    column('Ports', 'string', 'Ports of the endpoints.', discoveryPorts),
    column('Endpoints', 'string', 'Addresses of the endpoints.', discoveryEndpoints),
    ageColumn,
  ],
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': () => [column('Webhooks', 'integer', 'Webhooks in the configuration.', (o) => arrAt(o, 'webhooks').length), ageColumn],
  'admissionregistration.k8s.io/validatingwebhookconfigurations': () => [column('Webhooks', 'integer', 'Webhooks in the configuration.', (o) => arrAt(o, 'webhooks').length), ageColumn],
  'admissionregistration.k8s.io/validatingadmissionpolicies': () => [
    column('Validations', 'integer', 'Validation rules of the policy.', (o) => arrAt(o, 'spec', 'validations').length),
    column('ParamKind', 'string', 'The kind of the policy parameters.', (o) => {
      const p = objAt(objAt(o, 'spec'), 'paramKind');
      return p ? `${strAt(p, 'apiVersion')}/${strAt(p, 'kind')}` : '<unset>';
    }),
    ageColumn,
  ],
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': () => [
    column('PolicyName', 'string', 'The bound policy.', (o) => strAt(o, 'spec', 'policyName')),
    column('ParamRef', 'string', 'The parameter resource.', (o) => {
      const p = objAt(objAt(o, 'spec'), 'paramRef');
      if (!p) return '<unset>';
      if (strAt(p, 'name') !== '') return strAt(p, 'namespace') !== '' ? `${strAt(p, 'namespace')}/${strAt(p, 'name')}` : `*/${strAt(p, 'name')}`;
      return isObj(p.selector) ? formatLabelSelector(p.selector) : '<unset>';
    }),
    ageColumn,
  ],
  'certificates.k8s.io/certificatesigningrequests': () => [
    ageColumn,
    column('SignerName', 'string', 'The signer asked to sign.', (o) => orNone(strAt(o, 'spec', 'signerName'))),
    column('Requestor', 'string', 'Who asked.', (o) => strAt(o, 'spec', 'username')),
    column('RequestedDuration', 'string', 'The requested validity.', (o) => {
      const s = getPath(o, 'spec', 'expirationSeconds');
      return typeof s === 'number' ? humanDuration(s * 1e9) : '<none>';
    }),
    column('Condition', 'string', 'Approval state of the request.', csrCondition),
  ],
  'certificates.k8s.io/clustertrustbundles': () => [column('SignerName', 'string', 'The signer of the bundle.', (o) => orNone(strAt(o, 'spec', 'signerName')))],
  'apps/controllerrevisions': controllerRevisionColumns,
  'flowcontrol.apiserver.k8s.io/flowschemas': () => [
    column('PriorityLevel', 'string', 'The priority level of matching requests.', (o) => strAt(o, 'spec', 'priorityLevelConfiguration', 'name')),
    column('MatchingPrecedence', 'string', 'Lower numbers match first.', (o) => numAt(o, 'spec', 'matchingPrecedence')),
    column('DistinguisherMethod', 'string', 'How flows are told apart.', (o) => orNone(strAt(o, 'spec', 'distinguisherMethod', 'type'))),
    ageColumn,
    column('MissingPL', 'string', 'Whether the priority level is missing.', (o) => {
      const c = objsAt(o, 'status', 'conditions').find((x) => x.type === 'Dangling');
      return c ? strAt(c, 'status') : '?';
    }),
  ],
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': () => [
    column('Type', 'string', 'Limited or Exempt.', (o) => strAt(o, 'spec', 'type')),
    column('NominalConcurrencyShares', 'string', 'Concurrency shares.', (o) => getPath(o, 'spec', 'limited', 'nominalConcurrencyShares') ?? '<none>'),
    column('Queues', 'string', 'Queues.', (o) => getPath(o, 'spec', 'limited', 'limitResponse', 'queuing', 'queues') ?? '<none>'),
    column('HandSize', 'string', 'Hand size.', (o) => getPath(o, 'spec', 'limited', 'limitResponse', 'queuing', 'handSize') ?? '<none>'),
    column('QueueLengthLimit', 'string', 'Queue length limit.', (o) => getPath(o, 'spec', 'limited', 'limitResponse', 'queuing', 'queueLengthLimit') ?? '<none>'),
    ageColumn,
  ],
  'networking.k8s.io/servicecidrs': () => [column('CIDRs', 'string', 'The CIDRs.', (o) => arrAt(o, 'spec', 'cidrs').map(String).join(',')), ageColumn],
  'networking.k8s.io/ipaddresses': () => [
    column('ParentRef', 'string', 'The object the address belongs to.', (o) => {
      const p = objAt(objAt(o, 'spec'), 'parentRef');
      if (!p) return '<none>';
      const gr = strAt(p, 'group') ? `${strAt(p, 'resource')}.${strAt(p, 'group')}` : strAt(p, 'resource');
      return `${gr.toLowerCase()}${strAt(p, 'namespace') ? `/${strAt(p, 'namespace')}` : ''}/${strAt(p, 'name')}`;
    }),
  ],
  'storage.k8s.io/volumeattributesclasses': () => [column('DriverName', 'string', 'The driver.', (o) => strAt(o, 'driverName')), ageColumn],
  'storage.k8s.io/csistoragecapacities': () => [
    column('StorageClassName', 'string', 'The storage class.', (o) => strAt(o, 'storageClassName')),
    column('Capacity', 'string', 'Available capacity.', (o) => (o.capacity === undefined ? '<unset>' : String(o.capacity))),
  ],
  'internal.apiserver.k8s.io/storageversions': () => [
    column('CommonEncodingVersion', 'string', 'The version all servers encode in.', (o) => orUnset(strAt(o, 'status', 'commonEncodingVersion'))),
    column('StorageVersions', 'string', 'Versions per server.', (o) => {
      const list = objsAt(o, 'status', 'storageVersions').map((s) => `${strAt(s, 'apiServerID')}=${strAt(s, 'encodingVersion')}`);
      return listWithMore(list.slice(0, 3), list.length > 3, list.length, 3);
    }),
    ageColumn,
  ],
};
