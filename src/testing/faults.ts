// Fault injection: rules scoped by verb, resource, namespace, name and user (and a count or a probability) that
// make matching requests fail with kube's Status for a code, wait, lose their watch, lose their response after the
// write was stored, or find their continue token expired. The filter chain asks plan() once per request, after
// authentication and authorization, so a fault reaches a request exactly where a real failure would.

import { conflict, internalError, resourceExpired, serviceUnavailable, StatusError, tooManyRequests } from '../apis/errors.ts';
import { requestTimeoutError } from '../server/handler.ts';
import type { UserInfo } from '../auth/user.ts';
import type { RequestInfo } from '../endpoints/request-info.ts';
import { CONTINUE_EXPIRED, LIST_TOO_OLD } from '../registry/store-errors.ts';
import { parseDuration } from './duration.ts';

export const FAULT_CODES = [409, 410, 429, 500, 503, 504] as const;
export type FaultCode = (typeof FAULT_CODES)[number];
export const RESOURCE_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] as const;

export type FaultAction =
  | { readonly type: 'error'; readonly code: FaultCode; readonly message?: string; readonly retryAfterSeconds?: number }
  | { readonly type: 'latency'; readonly delay: string | number }
  | { readonly type: 'close-watch'; readonly how: 'end' | 'error' | 'cut'; readonly after?: string | number }
  | { readonly type: 'drop-response' }
  | { readonly type: 'expire-continue' };

export interface FaultRule {
  /** One verb or several (get, list, watch, create, update, patch, delete, deletecollection); absent: any. */
  readonly verb?: string | readonly string[];
  /** API group ('' for core); absent: any. */
  readonly group?: string;
  /** "pods", or "pods/status" for a subresource; absent: any. */
  readonly resource?: string;
  readonly namespace?: string;
  readonly name?: string;
  /** The user name the request authenticated as. */
  readonly user?: string;
  /** Fire this many times, then stop matching (absent: unlimited). */
  readonly count?: number;
  /** Fire for this share of matching requests, 0 < p <= 1 (absent: 1). */
  readonly probability?: number;
  readonly action: FaultAction;
}

export interface FaultView {
  readonly id: string;
  readonly rule: FaultRule;
  readonly fired: number;
  /** True once count is used up. */
  readonly exhausted: boolean;
}

export interface FaultHandle {
  readonly id: string;
  readonly rule: FaultRule;
  /** How many times it fired so far. */
  fired(): number;
  remove(): boolean;
}

export interface FaultLogEntry {
  readonly time: string;
  readonly faultId: string;
  readonly action: FaultAction['type'];
  readonly code?: number;
  readonly verb: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly user: string;
  readonly path: string;
}

/** What the request path consults: the request and who made it. */
export interface FaultRequest {
  readonly info: RequestInfo;
  readonly user: UserInfo;
  /** The list carries a continue token. */
  readonly hasContinue: boolean;
}

/** The faults one request meets: a total delay, then at most one terminal action. */
export interface FaultPlan {
  readonly delayMs: number;
  readonly terminal?: { readonly id: string; readonly action: Exclude<FaultAction, { type: 'latency' }>; readonly status?: StatusError; readonly afterMs: number };
}

export interface Faults {
  /** Validates and adds a rule (throws FaultRuleError on bad input). */
  add(rule: FaultRule): FaultHandle;
  remove(id: string): boolean;
  clear(): void;
  list(): FaultView[];
  /** Every fault injected so far (oldest first, the newest 10,000). */
  log(): FaultLogEntry[];
  /** Called by the filter chain for each resource request; undefined when no rule fires. */
  plan(request: FaultRequest): FaultPlan | undefined;
}

/** A rule that cannot be added; the HTTP door answers it with 400. */
export class FaultRuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FaultRuleError';
  }
}

interface Entry {
  readonly id: string;
  readonly rule: FaultRule;
  readonly verbs: ReadonlySet<string> | undefined;
  readonly resource: string | undefined;
  readonly subresource: string | undefined;
  fired: number;
}

const MAX_LOG = 10_000;
const ACTIONS = ['error', 'latency', 'close-watch', 'drop-response', 'expire-continue'];
const RULE_FIELDS = new Set(['verb', 'group', 'resource', 'namespace', 'name', 'user', 'count', 'probability', 'action']);

function optionalString(rule: Record<string, unknown>, field: string): void {
  const v = rule[field];
  if (v !== undefined && typeof v !== 'string') throw new FaultRuleError(`fault rule: ${field} must be a string`);
}

/** Checks a rule from either door; returns it with the action's durations checked. */
export function validateFaultRule(input: unknown): FaultRule {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new FaultRuleError('fault rule: want a JSON object');
  const rule = input as Record<string, unknown>;
  for (const k of Object.keys(rule)) if (!RULE_FIELDS.has(k)) throw new FaultRuleError(`fault rule: unknown field "${k}" (known: ${[...RULE_FIELDS].join(', ')})`);
  for (const f of ['group', 'resource', 'namespace', 'name', 'user']) optionalString(rule, f);
  const verbs = rule.verb === undefined ? undefined : Array.isArray(rule.verb) ? rule.verb : [rule.verb];
  if (verbs) {
    if (verbs.length === 0) throw new FaultRuleError('fault rule: verb must name at least one verb');
    for (const v of verbs) {
      if (typeof v !== 'string' || !(RESOURCE_VERBS as readonly string[]).includes(v)) {
        throw new FaultRuleError(`fault rule: unknown verb ${JSON.stringify(v)} (known: ${RESOURCE_VERBS.join(', ')})`);
      }
    }
  }
  if (rule.count !== undefined && !(Number.isInteger(rule.count) && (rule.count as number) > 0)) throw new FaultRuleError('fault rule: count must be an integer > 0');
  if (rule.probability !== undefined && !(typeof rule.probability === 'number' && rule.probability > 0 && rule.probability <= 1)) {
    throw new FaultRuleError('fault rule: probability must be a number with 0 < probability <= 1');
  }
  const action = rule.action as Record<string, unknown> | undefined;
  if (typeof action !== 'object' || action === null) throw new FaultRuleError(`fault rule: action is required, an object whose type is one of ${ACTIONS.join(', ')}`);
  const only = (what: string, allowed: readonly string[]) => {
    if (verbs && verbs.some((v) => !allowed.includes(v as string))) throw new FaultRuleError(`fault rule: a ${what} fault applies to ${allowed.join(' or ')} requests only`);
  };
  switch (action.type) {
    case 'error': {
      if (!(FAULT_CODES as readonly unknown[]).includes(action.code)) throw new FaultRuleError(`fault rule: action.code must be one of ${FAULT_CODES.join(', ')}`);
      if (action.message !== undefined && typeof action.message !== 'string') throw new FaultRuleError('fault rule: action.message must be a string');
      const ra = action.retryAfterSeconds;
      if (ra !== undefined && !(Number.isInteger(ra) && (ra as number) >= 0)) throw new FaultRuleError('fault rule: action.retryAfterSeconds must be an integer >= 0');
      break;
    }
    case 'latency':
      try {
        parseDuration(action.delay, 'fault rule: action.delay');
      } catch (e) {
        throw new FaultRuleError((e as Error).message);
      }
      break;
    case 'close-watch':
      if (action.how !== 'end' && action.how !== 'error' && action.how !== 'cut') throw new FaultRuleError('fault rule: action.how must be "end", "error" or "cut"');
      if (action.after !== undefined) {
        try {
          parseDuration(action.after, 'fault rule: action.after');
        } catch (e) {
          throw new FaultRuleError((e as Error).message);
        }
      }
      only('close-watch', ['watch']);
      break;
    case 'drop-response':
      only('drop-response', ['create', 'update', 'patch', 'delete', 'deletecollection']);
      break;
    case 'expire-continue':
      only('expire-continue', ['list']);
      break;
    default:
      throw new FaultRuleError(`fault rule: unknown action type ${JSON.stringify(action.type)} (known: ${ACTIONS.join(', ')})`);
  }
  return rule as unknown as FaultRule;
}

/** kube's Status for an injected failure of this code on this request. */
export function faultStatus(action: Extract<FaultAction, { type: 'error' }>, info: RequestInfo): StatusError {
  const gr = { group: info.apiGroup, resource: info.resource };
  switch (action.code) {
    case 409:
      return action.message ? conflict(gr, info.name, action.message) : conflict(gr, info.name);
    case 410:
      // etcd3's interpretWatchError / interpretListError texts.
      return resourceExpired(action.message ?? (info.verb === 'list' ? LIST_TOO_OLD : 'The resourceVersion for the provided watch is too old.'));
    case 429:
      // The max-in-flight filter's words.
      return tooManyRequests(action.message ?? 'Too many requests, please try again later.', action.retryAfterSeconds ?? 1);
    case 500:
      return internalError(action.message ?? 'injected fault');
    case 503: {
      const message = action.message ?? 'the server is currently unable to handle the request';
      return action.retryAfterSeconds ? new StatusError(503, 'ServiceUnavailable', message, { retryAfterSeconds: action.retryAfterSeconds }) : serviceUnavailable(message);
    }
    case 504:
      // The timeout filter's: NewTimeoutError("request did not complete within requested timeout - " + ctx.Err()).
      // NewTimeoutError always carries details ({} without a retry time).
      return new StatusError(504, 'Timeout', `Timeout: ${action.message ?? 'request did not complete within requested timeout - context deadline exceeded'}`, action.retryAfterSeconds ? { retryAfterSeconds: action.retryAfterSeconds } : {});
  }
}

/** The Status a dropped response is answered with: the client cannot know whether its write happened. */
export function droppedResponseStatus(): StatusError {
  return requestTimeoutError();
}

export function continueExpiredStatus(): StatusError {
  return resourceExpired(CONTINUE_EXPIRED);
}

function applies(entry: Entry, request: FaultRequest): boolean {
  const { info, user } = request;
  const r = entry.rule;
  if (!info.isResourceRequest) return false;
  if (entry.verbs && !entry.verbs.has(info.verb)) return false;
  if (r.group !== undefined && r.group !== info.apiGroup) return false;
  if (entry.resource !== undefined && entry.resource !== info.resource) return false;
  if (entry.subresource !== undefined && entry.subresource !== info.subresource) return false;
  if (r.namespace !== undefined && r.namespace !== info.namespace) return false;
  if (r.name !== undefined && r.name !== info.name) return false;
  if (r.user !== undefined && r.user !== user.name) return false;
  if (r.count !== undefined && entry.fired >= r.count) return false;
  switch (r.action.type) {
    case 'close-watch':
      return info.verb === 'watch';
    case 'expire-continue':
      return info.verb === 'list' && request.hasContinue;
    case 'drop-response':
      return ['create', 'update', 'patch', 'delete', 'deletecollection'].includes(info.verb);
    default:
      return true;
  }
}

export function createFaults(onInjected: (entry: FaultLogEntry) => void = () => {}, random: () => number = Math.random): Faults {
  const entries = new Map<string, Entry>();
  let seq = 0;
  let journal: FaultLogEntry[] = [];

  function record(entry: Entry, request: FaultRequest): void {
    const { info, user } = request;
    const a = entry.rule.action;
    const e: FaultLogEntry = {
      time: new Date().toISOString(),
      faultId: entry.id,
      action: a.type,
      ...(a.type === 'error' ? { code: a.code } : {}),
      verb: info.verb,
      resource: info.subresource ? `${info.resource}/${info.subresource}` : info.resource,
      namespace: info.namespace,
      name: info.name,
      user: user.name,
      path: info.path,
    };
    journal.push(e);
    if (journal.length > MAX_LOG) journal = journal.slice(-MAX_LOG);
    onInjected(e);
  }

  const view = (e: Entry): FaultView => ({ id: e.id, rule: e.rule, fired: e.fired, exhausted: e.rule.count !== undefined && e.fired >= e.rule.count });

  return {
    add(input) {
      const rule = validateFaultRule(input);
      const id = `fault-${++seq}`;
      const verbs = rule.verb === undefined ? undefined : new Set(typeof rule.verb === 'string' ? [rule.verb] : rule.verb);
      const [resource, subresource] = rule.resource === undefined ? [undefined, undefined] : (rule.resource.split('/', 2) as [string, string | undefined]);
      const entry: Entry = { id, rule, verbs, resource, subresource: rule.resource === undefined ? undefined : (subresource ?? ''), fired: 0 };
      entries.set(id, entry);
      return { id, rule, fired: () => entry.fired, remove: () => entries.delete(id) };
    },
    remove: (id) => entries.delete(id),
    clear() {
      entries.clear();
    },
    list: () => [...entries.values()].map(view),
    log: () => [...journal],
    plan(request) {
      if (entries.size === 0) return undefined;
      let delayMs = 0;
      let terminal: FaultPlan['terminal'];
      for (const entry of entries.values()) {
        if (!applies(entry, request)) continue;
        const a = entry.rule.action;
        if (a.type !== 'latency' && terminal) continue;
        if (entry.rule.probability !== undefined && random() >= entry.rule.probability) continue;
        entry.fired++;
        record(entry, request);
        if (a.type === 'latency') {
          delayMs += parseDuration(a.delay, 'delay');
          continue;
        }
        terminal = {
          id: entry.id,
          action: a,
          status: a.type === 'error' ? faultStatus(a, request.info) : undefined,
          afterMs: a.type === 'close-watch' && a.after !== undefined ? parseDuration(a.after, 'after') : 0,
        };
      }
      return delayMs > 0 || terminal ? { delayMs, terminal } : undefined;
    },
  };
}
