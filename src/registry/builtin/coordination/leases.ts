// Leases (pkg/apis/coordination/validation ValidateLease/ValidateLeaseUpdate, printLease).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { isQualifiedName } from '../../validation/names.ts';
import type { KubeObject } from '../../types.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { getPath, objAt, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

// The strategies kube knows without a domain prefix (coordination.OldestEmulationVersion).
const LEASE_STRATEGIES = ['OldestEmulationVersion'];

/** ValidateCoordinatedLeaseStrategy: a kube-defined name, or a qualified name with a domain. */
function strategyErrors(strategy: string, path: string): FieldError[] {
  if (!strategy.includes('/')) return LEASE_STRATEGIES.includes(strategy) ? [] : [fieldErrors.notSupported(path, strategy, LEASE_STRATEGIES)];
  return isQualifiedName(strategy).map((m) => fieldErrors.invalid(path, strategy, m));
}

/** ValidateLeaseSpec (create and update alike). */
export function validateLeaseSpec(obj: KubeObject): FieldError[] {
  const spec = objAt(obj, 'spec') ?? {};
  const errs: FieldError[] = [];
  const duration = spec.leaseDurationSeconds;
  if (typeof duration === 'number' && duration <= 0) errs.push(fieldErrors.invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  const transitions = spec.leaseTransitions;
  if (typeof transitions === 'number' && transitions < 0) errs.push(fieldErrors.invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  const strategy = spec.strategy;
  // kube nests the strategy's path once more (fldPath.Child("strategy") twice).
  if (typeof strategy === 'string') errs.push(...strategyErrors(strategy, 'spec.strategy.strategy'));
  const preferred = getPath(spec, 'preferredHolder');
  if (typeof preferred === 'string' && preferred !== '' && (typeof strategy !== 'string' || strategy === '')) {
    errs.push(fieldErrors.forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  }
  return errs;
}

const GATED_FIELDS = ['strategy', 'preferredHolder'];

/** Without the CoordinatedLeaderElection gate, strategy and preferredHolder go unless the stored lease has them. */
function dropLeaderElectionFields(lease: KubeObject, old: KubeObject | undefined): void {
  const spec = objAt(lease, 'spec');
  if (!spec) return;
  for (const key of GATED_FIELDS) {
    if (getPath(old, 'spec', key) === undefined) delete spec[key];
  }
}

export const leaseFacts: FactsMaker = (rules) => {
  const gated = rules.featureGates.CoordinatedLeaderElection !== true;
  return {
    strategy: buildStrategy(rules, {
      prepareForCreate: (lease) => gated && dropLeaderElectionFields(lease, undefined),
      prepareForUpdate: (lease, old) => gated && dropLeaderElectionFields(lease, old),
      validate: validateLeaseSpec,
    }),
    printerColumns: [column('Holder', 'string', 'The current holder of the lease.', (o) => strAt(o, 'spec', 'holderIdentity')), ageColumn],
    selectableFields: {},
  };
};
