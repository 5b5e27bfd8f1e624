// An Indexed Job's successPolicy as kube 1.31's validateSuccessPolicy checks it: 1 to 20 rules, each naming
// succeededIndexes (an interval list of indexes below completions, at most 64 KiB) or a succeededCount (not negative,
// at most completions and at most the number of indexes the rule names), or both.

import { fieldErrors, HandlerPanic, type FieldError } from '../../../apis/errors.ts';
import { validateNonnegative } from '../../validation/meta.ts';
import { objsAt, type Obj } from '../object.ts';
import { indexesFormat } from './job-index-intervals.ts';

const MAX_RULES = 20;
const MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024;

const isSet = (v: unknown): boolean => v !== undefined && v !== null;

function ruleErrors(rule: Obj, completionsOf: () => number, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const indexes = rule.succeededIndexes;
  const count = rule.succeededCount;
  if (!isSet(count) && !isSet(indexes)) return [fieldErrors.required(path, 'at least one of succeededCount or succeededIndexes must be specified')];
  const completions = completionsOf();
  let total = 0;
  if (typeof indexes === 'string') {
    if (Buffer.byteLength(indexes, 'utf8') > MAX_SUCCEEDED_INDEXES_LENGTH) errs.push(fieldErrors.tooLong(`${path}.succeededIndexes`, MAX_SUCCEEDED_INDEXES_LENGTH));
    const parsed = indexesFormat(indexes, completions);
    if ('error' in parsed) errs.push(fieldErrors.invalid(`${path}.succeededIndexes`, indexes, `error parsing succeededIndexes: ${parsed.error}`));
    else total = parsed.total;
  }
  if (typeof count === 'number') {
    const countPath = `${path}.succeededCount`;
    errs.push(...validateNonnegative(count, countPath));
    if (count > completions) errs.push(fieldErrors.invalid(countPath, count, `must be less than or equal to ${completions} (the number of specified completions)`));
    if (typeof indexes === 'string' && count > total) {
      errs.push(fieldErrors.invalid(countPath, count, `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`));
    }
  }
  return errs;
}

/** validateSuccessPolicy of an Indexed Job's spec whose successPolicy is set. */
export function successPolicyErrors(spec: Obj, path: string): FieldError[] {
  const rules = objsAt(spec.successPolicy, 'rules');
  const errs: FieldError[] = [];
  if (rules.length === 0) errs.push(fieldErrors.required(`${path}.rules`, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > MAX_RULES) errs.push(fieldErrors.tooMany(`${path}.rules`, rules.length, MAX_RULES));
  // kube reads spec.completions unchecked for a rule's indexes or count: without completions it panics.
  const completionsOf = (): number => {
    if (typeof spec.completions !== 'number') throw new HandlerPanic('runtime error: invalid memory address or nil pointer dereference');
    return spec.completions;
  };
  rules.forEach((rule, i) => errs.push(...ruleErrors(rule, completionsOf, `${path}.rules[${i}]`)));
  return errs;
}
