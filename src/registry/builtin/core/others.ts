// The remaining core types users list every day: ServiceAccounts, Endpoints, ReplicationControllers,
// PersistentVolumes and their claims, PodTemplates, ResourceQuotas (defaults, the validation that matters, and
// kube's printer cells).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { validateDNS1123Label, validateLabels } from '../../validation/meta.ts';
import { isValidPortNum } from '../../validation/names.ts';
import { buildStrategy } from '../generic.ts';
import { arrAt, clone, ensureObj, getPath, isObj, numAt, objAt, objsAt, setDefault, setDefaultString, sortedMap, stringMap, strAt } from '../object.ts';
import { ageColumn, column, containerCells, formatLabels } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { defaultPodTemplate } from './pod-defaults.ts';
import { protocolErrors, validatePodTemplateSpec } from './pod-validation.ts';

// ---- ServiceAccounts ----

export function serviceAccountFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules),
    printerColumns: [column('Secrets', 'string', 'Number of secrets listed.', (o) => arrAt(o, 'secrets').length), ageColumn],
    selectableFields: {},
  };
}

// ---- Endpoints ----

function endpointsCell(obj: KubeObject): string {
  const subsets = objsAt(obj, 'subsets');
  if (subsets.length === 0) return '<none>';
  const list: string[] = [];
  const max = 3;
  let more = false;
  let count = 0;
  for (const ss of subsets) {
    const addresses = objsAt(ss, 'addresses');
    const ports = objsAt(ss, 'ports');
    if (ports.length === 0) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(strAt(a, 'ip'));
      }
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        const ip = strAt(a, 'ip');
        list.push(`${ip.includes(':') ? `[${ip}]` : ip}:${String(port.port ?? 0)}`);
      }
    }
  }
  const s = list.join(',');
  return more ? `${s} + ${count - max} more...` : s;
}

function validateEndpointSubsets(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  objsAt(obj, 'subsets').forEach((ss, i) => {
    const p = `subsets[${i}]`;
    if (arrAt(ss, 'addresses').length === 0 && arrAt(ss, 'notReadyAddresses').length === 0) {
      errs.push(fieldErrors.required(p, 'must specify `addresses` or `notReadyAddresses`'));
    }
    for (const key of ['addresses', 'notReadyAddresses']) {
      objsAt(ss, key).forEach((a, j) => {
        const ip = strAt(a, 'ip');
        if (!/^(\d{1,3}\.){3}\d{1,3}$/.test(ip) && !(ip.includes(':') && /^[0-9a-fA-F:.]+$/.test(ip))) {
          errs.push(fieldErrors.invalid(`${p}.${key}[${j}].ip`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
        }
        if (strAt(a, 'hostname') !== '') errs.push(...validateDNS1123Label(strAt(a, 'hostname'), `${p}.${key}[${j}].hostname`));
      });
    }
    const ports = objsAt(ss, 'ports');
    ports.forEach((port, j) => {
      const pp = `${p}.ports[${j}]`;
      const name = strAt(port, 'name');
      if (ports.length > 1 && name === '') errs.push(fieldErrors.required(`${pp}.name`));
      else if (name !== '') errs.push(...validateDNS1123Label(name, `${pp}.name`));
      const n = typeof port.port === 'number' ? port.port : 0;
      for (const m of isValidPortNum(n)) errs.push(fieldErrors.invalid(`${pp}.port`, n, m));
      errs.push(...protocolErrors(port.protocol, `${pp}.protocol`));
    });
  });
  return errs;
}

export function endpointsFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      defaults(obj) {
        for (const ss of objsAt(obj, 'subsets')) for (const port of objsAt(ss, 'ports')) setDefaultString(port, 'protocol', 'TCP');
      },
      validate: validateEndpointSubsets,
    }),
    printerColumns: [column('Endpoints', 'string', 'Addresses of the endpoints.', endpointsCell), ageColumn],
    selectableFields: {},
  };
}

// ---- ReplicationControllers ----

function defaultReplicationController(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  const labels = getPath(spec, 'template', 'metadata', 'labels');
  if (isObj(labels)) {
    if (!isObj(spec.selector) || Object.keys(spec.selector).length === 0) spec.selector = clone(labels);
    const meta = obj.metadata ?? (obj.metadata = {});
    if (!isObj(meta.labels) || Object.keys(meta.labels).length === 0) meta.labels = clone(labels) as Record<string, string>;
  }
  setDefault(spec, 'replicas', 1);
  if (isObj(spec.template)) defaultPodTemplate(spec.template);
}

function validateReplicationControllerSpec(obj: KubeObject): FieldError[] {
  const spec = objAt(obj, 'spec') ?? {};
  const errs: FieldError[] = [];
  if (typeof spec.minReadySeconds === 'number' && spec.minReadySeconds < 0) errs.push(fieldErrors.invalid('spec.minReadySeconds', spec.minReadySeconds, 'must be greater than or equal to 0'));
  const selector = stringMap(spec.selector);
  if (Object.keys(selector).length === 0) errs.push(fieldErrors.required('spec.selector'));
  else errs.push(...validateLabels(selector, 'spec.selector'));
  if (typeof spec.replicas === 'number' && spec.replicas < 0) errs.push(fieldErrors.invalid('spec.replicas', spec.replicas, 'must be greater than or equal to 0'));
  if (!isObj(spec.template)) {
    errs.push(fieldErrors.required('spec.template'));
    return errs;
  }
  const labels = stringMap(getPath(spec.template, 'metadata', 'labels'));
  if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
    errs.push(fieldErrors.invalid('spec.template.metadata.labels', sortedMap(labels), '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
  const restartPolicy = strAt(spec.template, 'spec', 'restartPolicy');
  if (restartPolicy !== 'Always') errs.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  if (getPath(spec.template, 'spec', 'activeDeadlineSeconds') !== undefined) {
    errs.push(fieldErrors.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicationController is not Supported'));
  }
  return errs;
}

export function replicationControllerFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      defaults: defaultReplicationController,
      initialStatus: () => ({ replicas: 0 }),
      validate: validateReplicationControllerSpec,
      validateUpdate: (obj) => validateReplicationControllerSpec(obj),
    }),
    printerColumns: [
      column('Desired', 'integer', 'Desired replicas.', (o) => numAt(o, 'spec', 'replicas')),
      column('Current', 'integer', 'Observed replicas.', (o) => numAt(o, 'status', 'replicas')),
      column('Ready', 'integer', 'Ready replicas.', (o) => numAt(o, 'status', 'readyReplicas')),
      ageColumn,
      column('Containers', 'string', 'Names of each container in the template.', (o) => containerCells(getPath(o, 'spec', 'template', 'spec')).names, 1),
      column('Images', 'string', 'Images referenced by each container in the template.', (o) => containerCells(getPath(o, 'spec', 'template', 'spec')).images, 1),
      column('Selector', 'string', 'Labels of the pods the controller manages.', (o) => formatLabels(getPath(o, 'spec', 'selector')), 1),
    ],
    selectableFields: { 'status.replicas': (o) => String(numAt(o, 'status', 'replicas')) },
  };
}

// ---- PersistentVolumes and claims ----

/** helper.GetAccessModesAsString. */
export function accessModesString(modes: unknown[]): string {
  const set = new Set(modes.map(String));
  const out: string[] = [];
  if (set.has('ReadWriteOnce')) out.push('RWO');
  if (set.has('ReadOnlyMany')) out.push('ROX');
  if (set.has('ReadWriteMany')) out.push('RWX');
  if (set.has('ReadWriteOncePod')) out.push('RWOP');
  return out.join(',');
}

function storageClassOf(obj: KubeObject): string {
  const annotation = obj.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'];
  return annotation !== undefined ? annotation : strAt(obj, 'spec', 'storageClassName');
}

function quantityCell(v: unknown): string {
  return typeof v === 'number' ? String(v) : typeof v === 'string' ? v : '0';
}

function terminatingPhase(obj: KubeObject): string {
  return obj.metadata?.deletionTimestamp ? 'Terminating' : strAt(obj, 'status', 'phase');
}

function unsetOr(v: unknown): string {
  return typeof v === 'string' ? v : '<unset>';
}

export function persistentVolumeFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      defaults(obj) {
        const spec = ensureObj(obj, 'spec');
        setDefaultString(spec, 'persistentVolumeReclaimPolicy', 'Retain');
        setDefaultString(spec, 'volumeMode', 'Filesystem');
        setDefaultString(ensureObj(obj, 'status'), 'phase', 'Pending');
      },
      initialStatus: () => ({ phase: 'Pending' }),
    }),
    printerColumns: [
      column('Capacity', 'string', 'Storage capacity.', (o) => quantityCell(getPath(o, 'spec', 'capacity', 'storage'))),
      column('Access Modes', 'string', 'How the volume can be mounted.', (o) => accessModesString(arrAt(o, 'spec', 'accessModes'))),
      column('Reclaim Policy', 'string', 'What happens to the volume when released.', (o) => strAt(o, 'spec', 'persistentVolumeReclaimPolicy')),
      column('Status', 'string', 'The phase of the volume.', terminatingPhase),
      column('Claim', 'string', 'The claim bound to the volume.', (o) => {
        const ref = objAt(objAt(o, 'spec'), 'claimRef');
        return ref ? `${strAt(ref, 'namespace')}/${strAt(ref, 'name')}` : '';
      }),
      column('StorageClass', 'string', 'The storage class of the volume.', storageClassOf),
      column('VolumeAttributesClass', 'string', 'The volume attributes class.', (o) => unsetOr(getPath(o, 'spec', 'volumeAttributesClassName'))),
      column('Reason', 'string', 'Why the volume is in its phase.', (o) => strAt(o, 'status', 'reason')),
      ageColumn,
      column('VolumeMode', 'string', 'Filesystem or Block.', (o) => unsetOr(getPath(o, 'spec', 'volumeMode')), 1),
    ],
    selectableFields: {},
  };
}

export function persistentVolumeClaimFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      defaults(obj) {
        setDefaultString(ensureObj(obj, 'spec'), 'volumeMode', 'Filesystem');
        setDefaultString(ensureObj(obj, 'status'), 'phase', 'Pending');
      },
      initialStatus: () => ({ phase: 'Pending' }),
      validate(obj) {
        const errs: FieldError[] = [];
        if (arrAt(obj, 'spec', 'accessModes').length === 0) errs.push(fieldErrors.required('spec.accessModes', 'at least 1 access mode is required'));
        if (getPath(obj, 'spec', 'resources', 'requests', 'storage') === undefined) errs.push(fieldErrors.required('spec.resources[storage]'));
        return errs;
      },
      validateUpdate: () => [],
    }),
    printerColumns: [
      column('Status', 'string', 'The phase of the claim.', terminatingPhase),
      column('Volume', 'string', 'The bound volume.', (o) => strAt(o, 'spec', 'volumeName')),
      column('Capacity', 'string', 'Storage capacity of the bound volume.', (o) => (strAt(o, 'spec', 'volumeName') ? quantityCell(getPath(o, 'status', 'capacity', 'storage')) : '')),
      column('Access Modes', 'string', 'How the volume can be mounted.', (o) => (strAt(o, 'spec', 'volumeName') ? accessModesString(arrAt(o, 'status', 'accessModes')) : '')),
      column('StorageClass', 'string', 'The storage class of the claim.', storageClassOf),
      column('VolumeAttributesClass', 'string', 'The volume attributes class.', (o) => unsetOr(getPath(o, 'spec', 'volumeAttributesClassName'))),
      ageColumn,
      column('VolumeMode', 'string', 'Filesystem or Block.', (o) => unsetOr(getPath(o, 'spec', 'volumeMode')), 1),
    ],
    selectableFields: {},
  };
}

// ---- PodTemplates ----

export function podTemplateFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      defaults(obj) {
        defaultPodTemplate(ensureObj(obj, 'template'));
      },
      validate: (obj) => validatePodTemplateSpec(obj.template, 'template'),
    }),
    printerColumns: [
      column('Containers', 'string', 'Names of each container in the template.', (o) => containerCells(getPath(o, 'template', 'spec')).names),
      column('Images', 'string', 'Images referenced by each container in the template.', (o) => containerCells(getPath(o, 'template', 'spec')).images),
      column('Pod Labels', 'string', 'The labels of the template.', (o) => formatLabels(getPath(o, 'template', 'metadata', 'labels'))),
    ],
    selectableFields: {},
  };
}

// ---- ResourceQuotas ----

function quotaCells(obj: KubeObject): { request: string; limit: string } {
  const hard = objAt(objAt(obj, 'status'), 'hard') ?? {};
  const used = objAt(objAt(obj, 'status'), 'used') ?? {};
  const request: string[] = [];
  const limit: string[] = [];
  for (const name of Object.keys(hard).sort()) {
    const text = `${name}: ${quantityCell(used[name] ?? '0')}/${quantityCell(hard[name])}`;
    (name.split('.').length > 1 && name.split('.')[0] === 'limits' ? limit : request).push(text);
  }
  return { request: request.join(', '), limit: limit.join(', ') };
}

export function resourceQuotaFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules),
    printerColumns: [
      column('Request', 'string', 'Used and hard request quotas.', (o) => quotaCells(o).request),
      column('Limit', 'string', 'Used and hard limit quotas.', (o) => quotaCells(o).limit),
      ageColumn,
    ],
    selectableFields: {},
  };
}

