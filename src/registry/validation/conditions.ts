// metav1.Condition lists in a status (k8s.io/apimachinery/pkg/apis/meta/v1/validation ValidateConditions and
// ValidateCondition): unique types that are qualified names, a known status, a transition time, a reason in kube's
// reason format, and kube's length limits on reason and message.

import { fieldErrors, type FieldError } from '../../apis/errors.ts';
import { isQualifiedName, regexError } from './names.ts';

const CONDITION_STATUSES = ['False', 'True', 'Unknown'];
const MAX_REASON_BYTES = 1024;
const MAX_MESSAGE_BYTES = 32 * 1024;
const REASON_FMT = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const REASON_MSG =
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";
const ZERO_TIME = '0001-01-01T00:00:00Z';

type Obj = Record<string, unknown>;

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** metav1.Time.IsZero: absent, null, or Go's zero time. */
const isZeroTime = (v: unknown): boolean => v === undefined || v === null || v === ZERO_TIME;

function reasonErrors(reason: string, path: string): FieldError[] {
  if (reason === '') return [fieldErrors.required(path, 'must be set')];
  const errs: FieldError[] = [];
  if (!new RegExp(`^${REASON_FMT}$`).test(reason)) {
    errs.push(fieldErrors.invalid(path, reason, regexError(REASON_MSG, REASON_FMT, 'my_name', 'MY_NAME', 'MyName', 'ReasonA,ReasonB', 'ReasonA:ReasonB')));
  }
  if (Buffer.byteLength(reason) > MAX_REASON_BYTES) errs.push(fieldErrors.tooLong(path, MAX_REASON_BYTES));
  return errs;
}

/** ValidateCondition. */
export function validateCondition(condition: Obj, path: string): FieldError[] {
  const type = text(condition.type);
  const errs = isQualifiedName(type).map((m) => fieldErrors.invalid(`${path}.type`, type, m));
  const status = text(condition.status);
  if (!CONDITION_STATUSES.includes(status)) errs.push(fieldErrors.notSupported(`${path}.status`, status, CONDITION_STATUSES));
  const generation = condition.observedGeneration;
  if (typeof generation === 'number' && generation < 0) errs.push(fieldErrors.invalid(`${path}.observedGeneration`, generation, 'must be greater than or equal to zero'));
  if (isZeroTime(condition.lastTransitionTime)) errs.push(fieldErrors.required(`${path}.lastTransitionTime`, 'must be set'));
  errs.push(...reasonErrors(text(condition.reason), `${path}.reason`));
  if (Buffer.byteLength(text(condition.message)) > MAX_MESSAGE_BYTES) errs.push(fieldErrors.tooLong(`${path}.message`, MAX_MESSAGE_BYTES));
  return errs;
}

/** ValidateConditions: each condition, and a Duplicate for a type seen before. */
export function validateConditions(conditions: unknown, path: string): FieldError[] {
  if (!Array.isArray(conditions)) return [];
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  conditions.forEach((raw, i) => {
    const condition = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Obj) : {};
    const type = text(condition.type);
    if (seen.has(type)) errs.push(fieldErrors.duplicate(`${path}[${i}].type`, type));
    seen.add(type);
    errs.push(...validateCondition(condition, `${path}[${i}]`));
  });
  return errs;
}
