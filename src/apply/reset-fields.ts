// Fields a write cannot set because the strategy resets them (rest.ResetFieldsStrategy.GetResetFields of
// kube-apiserver 1.31): no manager owns them through that endpoint. The main resource of a type with a status
// subresource cannot set status; its status subresource cannot set spec (plus per-type extras).

import type { ResourceDefinition } from '../registry/types.ts';
import { FieldSet } from './field-set.ts';
import { fieldElement } from './path-element.ts';

type Paths = readonly (readonly string[])[];

/** Per group/resource overrides of the defaults, by subresource ('' for the main resource). */
const OVERRIDES: Record<string, Record<string, Paths>> = {
  'certificates.k8s.io/certificatesigningrequests': {
    '': [['spec'], ['status']],
    status: [['spec'], ['status', 'conditions']],
    approval: [['spec'], ['status', 'certificate']],
  },
  '/pods': {
    status: [['spec'], ['metadata', 'deletionTimestamp'], ['metadata', 'ownerReferences']],
  },
  'apps/deployments': {
    status: [['spec'], ['metadata', 'labels']],
  },
  'flowcontrol.apiserver.k8s.io/flowschemas': { status: [['metadata'], ['spec']] },
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': { status: [['metadata'], ['spec']] },
  'apiextensions.k8s.io/customresourcedefinitions': { status: [['metadata'], ['spec']] },
  'apiregistration.k8s.io/apiservices': { status: [['metadata'], ['spec']] },
  'admissionregistration.k8s.io/validatingadmissionpolicies': { status: [['metadata'], ['spec']] },
};

function defaultPaths(def: ResourceDefinition, subresource: string): Paths {
  const hasStatus = def.subresources.some((s) => s.name === 'status');
  if (subresource === '') return hasStatus ? [['status']] : [];
  if (subresource === 'status') return [['spec']];
  return [];
}

export function resetFieldsFor(def: ResourceDefinition, subresource: string | undefined): FieldSet {
  const sub = subresource ?? '';
  const override = def.custom ? undefined : OVERRIDES[`${def.group}/${def.resource}`]?.[sub];
  const paths = override ?? defaultPaths(def, sub);
  return FieldSet.of(...paths.map((p) => p.map(fieldElement)));
}
