// APIServices (apiregistration v1 SetDefaults_ServiceReference; k8s.io/kube-aggregator validation
// ValidateAPIService/Update and the status conditions; the apiservice strategy: a local APIService Available from
// its creation, status writes that keep spec and metadata; the aggregator's table: Service, Available, Age).

import { clockDate } from '../../../apis/clock.ts';
import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { rfc3339 } from '../../store-codec.ts';
import type { KubeObject } from '../../types.ts';
import { isDNS1035Label, isDNS1123Subdomain, isValidPortNum } from '../../validation/names.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { clone, numAt, objAt, objsAt, setDefault, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

const CONDITION_STATUSES = ['True', 'False', 'Unknown'];

function validateAPIService(svc: KubeObject): FieldError[] {
  const spec = objAt(svc, 'spec') ?? {};
  const group = strAt(spec, 'group');
  const version = strAt(spec, 'version');
  const errs: FieldError[] = [];
  // The name must be version.group (checked after the path-segment rule of the type's name function).
  const name = svc.metadata?.name ?? '';
  const required = `${version}.${group}`;
  if (name !== '' && !name.includes('/') && !name.includes('%') && name !== '.' && name !== '..' && name !== required) {
    errs.push(fieldErrors.invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`));
  }
  if (group === '' && version !== 'v1') errs.push(fieldErrors.required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const m of isDNS1123Subdomain(group)) errs.push(fieldErrors.invalid('spec.group', group, m));
  for (const m of isDNS1035Label(version)) errs.push(fieldErrors.invalid('spec.version', version, m));
  const groupPriority = numAt(spec, 'groupPriorityMinimum');
  if (groupPriority <= 0 || groupPriority > 20000) errs.push(fieldErrors.invalid('spec.groupPriorityMinimum', groupPriority, 'must be positive and less than 20000'));
  const versionPriority = numAt(spec, 'versionPriority');
  if (versionPriority <= 0 || versionPriority > 1000) errs.push(fieldErrors.invalid('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));
  const caBundle = typeof spec.caBundle === 'string' ? Buffer.from(spec.caBundle, 'base64') : Buffer.alloc(0);
  const insecure = spec.insecureSkipTLSVerify === true;
  const service = objAt(spec, 'service');
  if (!service) {
    if (caBundle.length > 0) errs.push(fieldErrors.invalid('spec.caBundle', `${caBundle.length} bytes`, 'local APIServices may not have a caBundle'));
    if (insecure) errs.push(fieldErrors.invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
  } else {
    if (strAt(service, 'namespace') === '') errs.push(fieldErrors.required('spec.service.namespace'));
    if (strAt(service, 'name') === '') errs.push(fieldErrors.required('spec.service.name'));
    const port = numAt(service, 'port');
    const portErrs = isValidPortNum(port);
    if (portErrs.length) errs.push(fieldErrors.invalid('spec.service.port', port, `port is not valid: ${portErrs.join(', ')}`));
    if (insecure && caBundle.length > 0) errs.push(fieldErrors.invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  }
  return errs;
}

function validateStatus(svc: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  objsAt(svc, 'status', 'conditions').forEach((c, i) => {
    const status = strAt(c, 'status');
    if (!CONDITION_STATUSES.includes(status)) errs.push(fieldErrors.notSupported(`status.conditions[${i}].status`, status, CONDITION_STATUSES));
  });
  return errs;
}

function availableCell(svc: KubeObject): string {
  const c = objsAt(svc, 'status', 'conditions').find((x) => x.type === 'Available');
  if (!c) return 'Unknown';
  const status = strAt(c, 'status');
  if (status === 'True') return status;
  return strAt(c, 'reason') !== '' ? `${status} (${strAt(c, 'reason')})` : status;
}

/** PrepareForCreate: a new APIService's status, which for a local one says it is available (NewLocalAvailableAPIServiceCondition). */
function initialStatus(svc: KubeObject): unknown {
  if (objAt(objAt(svc, 'spec'), 'service')) return {};
  const available = { type: 'Available', status: 'True', lastTransitionTime: rfc3339(clockDate()), reason: 'Local', message: 'Local APIServices are always available' };
  return { conditions: [available] };
}

/** A status write keeps the stored labels, annotations, finalizers and owner references. */
function keepStoredMetadata(merged: KubeObject, old: KubeObject): void {
  const meta = (merged.metadata ??= {}) as Record<string, unknown>;
  const stored = (old.metadata ?? {}) as Record<string, unknown>;
  for (const key of ['labels', 'annotations', 'finalizers', 'ownerReferences']) {
    if (stored[key] === undefined) delete meta[key];
    else meta[key] = clone(stored[key]);
  }
}

export const apiServiceFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    defaults(svc) {
      const service = objAt(objAt(svc, 'spec'), 'service');
      if (service) setDefault(service, 'port', 443);
    },
    initialStatus,
    validate: validateAPIService,
    resetMetaForStatus: keepStoredMetadata,
    validateStatusUpdate: validateStatus,
  }),
  printerColumns: [
    column('Service', 'string', 'The reference to the service that hosts this API endpoint.', (o) => {
      const s = objAt(objAt(o, 'spec'), 'service');
      return s ? `${strAt(s, 'namespace')}/${strAt(s, 'name')}` : 'Local';
    }),
    column('Available', 'string', 'Whether this service is available.', availableCell),
    ageColumn,
  ],
  selectableFields: {},
});
