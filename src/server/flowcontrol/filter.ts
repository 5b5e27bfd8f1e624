// The request filter in front of authorization: API Priority and Fairness (the PF response headers, a seat of the
// request's priority level or 429), or without it kube's max-in-flight limits (system:masters never limited).

import { SYSTEM_MASTERS, type UserInfo } from '../../auth/user.ts';
import type { RequestInfo } from '../../endpoints/request-info.ts';
import { send } from '../respond.ts';
import { whenClosed } from '../response-close.ts';
import type { HttpResponse } from '../types.ts';
import type { Admission, FlowControl } from './dispatcher.ts';

const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);

/** maxinflight.go's tooManyRequests: http.Error's plain text with Retry-After. */
export function tooManyRequests(res: HttpResponse): void {
  send(res, 429, 'text/plain; charset=utf-8', 'Too many requests, please try again later.\n', { 'Retry-After': '1', 'X-Content-Type-Options': 'nosniff' });
}

export type AdmissionFilter = (res: HttpResponse, user: UserInfo, info: RequestInfo, longRunning: boolean) => boolean | Promise<boolean>;

export function createAdmissionFilter(flowControl: FlowControl | undefined, maxInFlight: { readonly readOnly: number; readonly mutating: number } | undefined): AdmissionFilter {
  if (flowControl) {
    const settle = (res: HttpResponse, admission: Admission, closed: boolean): boolean => {
      if (!admission.admitted) {
        tooManyRequests(res);
        return false;
      }
      if (closed) admission.release();
      else whenClosed(res, admission.release);
      return true;
    };
    return (res, user, info, longRunning) => {
      const c = flowControl.classify(user, info);
      if (!c) return true;
      res.setHeader('X-Kubernetes-PF-FlowSchema-UID', c.flowSchemaUid);
      res.setHeader('X-Kubernetes-PF-PriorityLevel-UID', c.priorityLevelUid);
      // Long-running requests hold no seat (kube's APF seats a watch only while it initializes).
      if (c.exempt || longRunning) return true;
      const admission = flowControl.admit(c);
      if (!(admission instanceof Promise)) return settle(res, admission, false);
      // Queued: a client that leaves meanwhile gives its seat back as soon as it gets one.
      let closed = false;
      const onClose = (): void => {
        closed = true;
      };
      res.once('close', onClose);
      return admission.then((a) => {
        res.off('close', onClose);
        return settle(res, a, closed);
      });
    };
  }
  let readOnlyInFlight = 0;
  let mutatingInFlight = 0;
  return (res, user, info, longRunning) => {
    if (!maxInFlight || longRunning || user.groups.includes(SYSTEM_MASTERS)) return true;
    const readOnly = READ_ONLY_VERBS.has(info.verb);
    const limit = readOnly ? maxInFlight.readOnly : maxInFlight.mutating;
    if (limit <= 0) return true;
    if ((readOnly ? readOnlyInFlight : mutatingInFlight) >= limit) {
      tooManyRequests(res);
      return false;
    }
    if (readOnly) readOnlyInFlight++;
    else mutatingInFlight++;
    whenClosed(res, () => (readOnly ? readOnlyInFlight-- : mutatingInFlight--));
    return true;
  };
}
