// PriorityLevelConfigurations (flowcontrol v1 and v1beta3 defaults, with v1beta3's rule that a zero
// nominalConcurrencyShares means the default unless the round-trip annotation says it is a real zero;
// pkg/apis/flowcontrol/validation ValidatePriorityLevelConfiguration; printPriorityLevelConfiguration).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { mandatoryPriorityLevelErrors } from './mandatory.ts';
import { flowcontrolStatusErrors } from './status.ts';
import type { KubeObject } from '../../types.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { getPath, objAt, setDefault, strAt, type Obj } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

export const PRESERVE_ZERO_SHARES_ANNOTATION = 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares';
const DEFAULT_SHARES = 30;
const MAX_QUEUES = 10_000_000;
const MAX_HASH_BITS = 60;
const TYPES = ['Exempt', 'Limited'];
const LIMIT_RESPONSE_TYPES = ['Queue', 'Reject'];

const isV1beta3 = (pl: KubeObject) => pl.apiVersion === 'flowcontrol.apiserver.k8s.io/v1beta3';

function defaultPriorityLevel(pl: KubeObject): void {
  const limited = objAt(objAt(pl, 'spec'), 'limited');
  if (limited) {
    const shares = limited.nominalConcurrencyShares;
    if (isV1beta3(pl)) {
      if ((shares === undefined || shares === null || shares === 0) && pl.metadata?.annotations?.[PRESERVE_ZERO_SHARES_ANNOTATION] === undefined) limited.nominalConcurrencyShares = DEFAULT_SHARES;
    } else setDefault(limited, 'nominalConcurrencyShares', DEFAULT_SHARES);
    setDefault(limited, 'lendablePercent', 0);
    const queuing = objAt(objAt(limited, 'limitResponse'), 'queuing');
    if (queuing) {
      if (!queuing.handSize) queuing.handSize = 8;
      if (!queuing.queues) queuing.queues = 64;
      if (!queuing.queueLengthLimit) queuing.queueLengthLimit = 50;
    }
  }
  const exempt = objAt(objAt(pl, 'spec'), 'exempt');
  if (exempt) {
    setDefault(exempt, 'nominalConcurrencyShares', 0);
    setDefault(exempt, 'lendablePercent', 0);
  }
}

const num = (o: Obj | undefined, key: string) => (typeof o?.[key] === 'number' ? (o[key] as number) : 0);

function queuingErrors(q: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const limit = num(q, 'queueLengthLimit');
  const queues = num(q, 'queues');
  const hand = num(q, 'handSize');
  if (limit <= 0) errs.push(fieldErrors.invalid(`${path}.queueLengthLimit`, limit, 'must be positive'));
  if (queues <= 0) errs.push(fieldErrors.invalid(`${path}.queues`, queues, 'must be positive'));
  else if (queues > MAX_QUEUES) errs.push(fieldErrors.invalid(`${path}.queues`, queues, `must not be greater than ${MAX_QUEUES}`));
  if (hand <= 0) errs.push(fieldErrors.invalid(`${path}.handSize`, hand, 'must be positive'));
  else if (hand > queues) errs.push(fieldErrors.invalid(`${path}.handSize`, hand, `should not be greater than queues (${queues})`));
  else if (Math.ceil(Math.log2(queues) * hand) > MAX_HASH_BITS) {
    errs.push(fieldErrors.invalid(`${path}.handSize`, hand, `required entropy bits of deckSize ${queues} and handSize ${hand} should not be greater than ${MAX_HASH_BITS}`));
  }
  return errs;
}

function limitedErrors(limited: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const shares = num(limited, 'nominalConcurrencyShares');
  if (shares < 0) errs.push(fieldErrors.invalid(`${path}.nominalConcurrencyShares`, shares, 'must be a non-negative integer'));
  const response = objAt(limited, 'limitResponse') ?? {};
  const type = strAt(response, 'type');
  const queuing = objAt(response, 'queuing');
  if (type === 'Reject') {
    if (queuing) errs.push(fieldErrors.forbidden(`${path}.limitResponse.queuing`, 'must be nil if limited.limitResponse.type is not Limited'));
  } else if (type === 'Queue') {
    if (!queuing) errs.push(fieldErrors.required(`${path}.limitResponse.queuing`, 'must not be empty if limited.limitResponse.type is Limited'));
    else errs.push(...queuingErrors(queuing, `${path}.limitResponse.queuing`));
  } else errs.push(fieldErrors.notSupported(`${path}.limitResponse.type`, type, LIMIT_RESPONSE_TYPES));
  const lendable = limited.lendablePercent;
  if (typeof lendable === 'number' && (lendable < 0 || lendable > 100)) errs.push(fieldErrors.invalid(`${path}.lendablePercent`, lendable, 'must be between 0 and 100, inclusive'));
  const borrowing = limited.borrowingLimitPercent;
  if (typeof borrowing === 'number' && borrowing < 0) errs.push(fieldErrors.invalid(`${path}.borrowingLimitPercent`, borrowing, 'if specified, must be a non-negative integer'));
  return errs;
}

/** ValidatePriorityLevelConfiguration (beyond ObjectMeta). */
function validatePriorityLevel(pl: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  // The round-trip annotation belongs to v1beta3 objects only (their conversion drops it).
  if (!isV1beta3(pl) && pl.metadata?.annotations?.[PRESERVE_ZERO_SHARES_ANNOTATION] !== undefined) {
    errs.push(fieldErrors.forbidden('metadata.annotations', `annotation '${PRESERVE_ZERO_SHARES_ANNOTATION}' is forbidden`));
  }
  const spec = objAt(pl, 'spec') ?? {};
  const type = strAt(spec, 'type');
  if ((pl.metadata?.name === 'exempt') !== (type === 'Exempt')) errs.push(fieldErrors.invalid('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  const limited = objAt(spec, 'limited');
  const exempt = objAt(spec, 'exempt');
  if (type === 'Exempt') {
    if (limited) errs.push(fieldErrors.forbidden('spec.limited', 'must be nil if the type is not Limited'));
    if (exempt) {
      const shares = exempt.nominalConcurrencyShares;
      if (typeof shares === 'number' && shares < 0) errs.push(fieldErrors.invalid('spec.exempt.nominalConcurrencyShares', shares, 'must be a non-negative integer'));
      const lendable = exempt.lendablePercent;
      if (typeof lendable === 'number' && (lendable < 0 || lendable > 100)) errs.push(fieldErrors.invalid('spec.exempt.lendablePercent', lendable, 'must be between 0 and 100, inclusive'));
    }
  } else if (type === 'Limited') {
    if (exempt) errs.push(fieldErrors.forbidden('spec.exempt', 'must be nil if the type is Limited'));
    if (!limited) errs.push(fieldErrors.required('spec.limited', 'must not be empty when type is Limited'));
    else errs.push(...limitedErrors(limited, 'spec.limited'));
  } else errs.push(fieldErrors.notSupported('spec.type', type, TYPES));
  errs.push(...mandatoryPriorityLevelErrors(pl));
  return errs;
}

export const priorityLevelConfigurationFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, { defaults: defaultPriorityLevel, validate: validatePriorityLevel, validateStatusUpdate: (pl) => flowcontrolStatusErrors(pl) }),
  printerColumns: [
    column('Type', 'string', 'Limited or Exempt.', (o) => strAt(o, 'spec', 'type')),
    column('NominalConcurrencyShares', 'string', 'Concurrency shares.', (o) => getPath(o, 'spec', 'limited', 'nominalConcurrencyShares') ?? '<none>'),
    column('Queues', 'string', 'Queues.', (o) => getPath(o, 'spec', 'limited', 'limitResponse', 'queuing', 'queues') ?? '<none>'),
    column('HandSize', 'string', 'Hand size.', (o) => getPath(o, 'spec', 'limited', 'limitResponse', 'queuing', 'handSize') ?? '<none>'),
    column('QueueLengthLimit', 'string', 'Queue length limit.', (o) => getPath(o, 'spec', 'limited', 'limitResponse', 'queuing', 'queueLengthLimit') ?? '<none>'),
    ageColumn,
  ],
  selectableFields: {},
});
