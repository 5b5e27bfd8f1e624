// Built-in type behaviour for the registry: builtinTypeFacts(group, resource) gives the strategy (defaulting,
// preparation, validation, subresources), kube's printer columns and the field selectors of one built-in
// resource. Every built-in resource gets at least the generic strategy (ObjectMeta rules, generation and
// status handling per its type rules).
//
// What the store is expected to do around a strategy (kube's rest.BeforeCreate/BeforeUpdate):
// - create: fill uid, creationTimestamp, the name from generateName and the namespace from the request, then
//   defaults(obj), prepareForCreate(obj, ctx), validate(obj, ctx); 422 Invalid on errors. Jobs need the uid
//   before prepareForCreate (their selector is built from it).
// - update: for unconditional updates set metadata.resourceVersion to the stored one first, then
//   defaults(new), prepareForUpdate(new, old, ctx), validateUpdate(new, old, ctx).
// - subresource writes: subresources[name].prepareForUpdate(new, old) gives the object to store, then its
//   validateUpdate.
// - BuiltinStrategy extras (see generic.ts): prepareForDelete (namespaces: phase Terminating) and
//   gracefulDeletePeriod (pods).

import type { TypeFacts } from './facts.ts';
import { buildStrategy } from './generic.ts';
import { OTHER_PRINTERS } from './other-printers.ts';
import { typeKey, typeRules, type TypeRules } from './type-rules.ts';
import { daemonSetFacts, deploymentFacts, replicaSetFacts, statefulSetFacts } from './apps/workloads.ts';
import { cronJobFacts, jobFacts } from './batch/jobs.ts';
import { configMapFacts, secretFacts } from './core/configmaps.ts';
import { namespaceFacts } from './core/namespaces.ts';
import { coreEventFacts, eventsGroupFacts, nodeFacts } from './core/nodes-events.ts';
import {
  endpointsFacts,
  persistentVolumeClaimFacts,
  persistentVolumeFacts,
  podTemplateFacts,
  replicationControllerFacts,
  resourceQuotaFacts,
  serviceAccountFacts,
} from './core/others.ts';
import { podFacts } from './core/pods.ts';
import { serviceFacts } from './core/services.ts';
import { clusterRoleBindingFacts, roleBindingFacts } from './rbac/bindings.ts';

export type { TypeFacts } from './facts.ts';
export type { BuiltinStrategy } from './generic.ts';
export { typeRules } from './type-rules.ts';

const FACTS: Readonly<Record<string, (rules: TypeRules) => TypeFacts>> = {
  '/namespaces': namespaceFacts,
  '/configmaps': configMapFacts,
  '/secrets': secretFacts,
  '/pods': podFacts,
  '/services': serviceFacts,
  '/nodes': nodeFacts,
  '/events': coreEventFacts,
  'events.k8s.io/events': eventsGroupFacts,
  '/serviceaccounts': serviceAccountFacts,
  '/endpoints': endpointsFacts,
  '/replicationcontrollers': replicationControllerFacts,
  '/persistentvolumes': persistentVolumeFacts,
  '/persistentvolumeclaims': persistentVolumeClaimFacts,
  '/podtemplates': podTemplateFacts,
  '/resourcequotas': resourceQuotaFacts,
  'apps/deployments': deploymentFacts,
  'apps/replicasets': replicaSetFacts,
  'apps/statefulsets': statefulSetFacts,
  'apps/daemonsets': daemonSetFacts,
  'batch/jobs': jobFacts,
  'batch/cronjobs': cronJobFacts,
  'rbac.authorization.k8s.io/rolebindings': roleBindingFacts,
  'rbac.authorization.k8s.io/clusterrolebindings': clusterRoleBindingFacts,
};

const SELECTABLE: Readonly<Record<string, TypeFacts['selectableFields']>> = {
  'certificates.k8s.io/certificatesigningrequests': {
    'spec.signerName': (o) => {
      const spec = o.spec as { signerName?: unknown } | undefined;
      return typeof spec?.signerName === 'string' ? spec.signerName : '';
    },
  },
};

/** The strategy, printer columns and selectable fields of a built-in group/resource. */
export function builtinTypeFacts(group: string, resource: string): TypeFacts {
  const key = typeKey(group, resource);
  const rules = typeRules(group, resource);
  const make = FACTS[key];
  if (make) return make(rules);
  return {
    strategy: buildStrategy(rules),
    printerColumns: OTHER_PRINTERS[key]?.() ?? [],
    selectableFields: SELECTABLE[key] ?? {},
  };
}
