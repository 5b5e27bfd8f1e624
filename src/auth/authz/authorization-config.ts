// --authorization-config: AuthorizationConfiguration (apiserver.config.k8s.io v1alpha1, v1beta1, v1), validated
// with kube's field errors (k8s.io/apiserver/pkg/apis/apiserver/validation), and the ordered authorizer chain it
// describes: Webhook entries (each with its own TTLs, timeout, failure policy, SubjectAccessReview version and CEL
// matchConditions) among the built-in modes, system:masters first as always.

import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { aggregateFieldErrors, fieldErrors, type FieldError } from '../../apis/errors.ts';
import type { CompiledExpression } from '../../cel/index.ts';
import { objectType, type DeclType } from '../../cel/decl.ts';
import { celTypeName } from '../../cel/overloads.ts';
import { cel } from '../../cel/lazy.ts';
import { parseGoDuration } from '../../cli/duration.ts';
import type { WebhookTarget } from '../../webhook/client.ts';
import { decodeConfigDocument } from '../config-file.ts';
import { SYSTEM_MASTERS } from '../user.ts';
import { privilegedGroupsAuthorizer } from './builtin.ts';
import type { AuthorizerFactory, AuthorizerFactoryContext } from './modes.ts';
import type { Authorizer } from './types.ts';
import { unionAuthorizer } from './union.ts';
import { webhookAuthorizer } from './webhook.ts';

export const MAX_MATCH_CONDITIONS = 64;
const KNOWN_TYPES = ['ABAC', 'AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC', 'Webhook'];
const MAX_TIMEOUT_MS = 30_000;

export interface WebhookEntry {
  readonly timeoutMs: number;
  readonly authorizedTtlMs: number;
  readonly unauthorizedTtlMs: number;
  readonly subjectAccessReviewVersion: string;
  readonly failurePolicy: 'NoOpinion' | 'Deny';
  readonly connectionInfo: { readonly type: 'KubeConfigFile'; readonly kubeConfigFile: string } | { readonly type: 'InClusterConfig' };
  readonly matchConditions: readonly CompiledExpression[];
}

export interface AuthorizerEntry {
  readonly type: string;
  readonly name: string;
  readonly webhook?: WebhookEntry;
}

export interface AuthorizationConfiguration {
  readonly authorizers: readonly AuthorizerEntry[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Go's time.Duration.String() for the durations a configuration holds. */
export function goDurationString(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1000) return `${sign}${rest}ms`;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = `${Number((rest / 1000).toFixed(9))}s`;
  if (h > 0) return `${sign}${h}h${m}m${s}`;
  if (m > 0) return `${sign}${m}m${s}`;
  return `${sign}${s}`;
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Parses and validates a file's content; throws an Error with kube's aggregated field errors. */
export function parseAuthorizationConfiguration(text: string): AuthorizationConfiguration {
  const doc = decodeConfigDocument(text, 'AuthorizationConfiguration', ['v1alpha1', 'v1beta1', 'v1']);
  const errors: FieldError[] = [];
  const raw = arr(doc.authorizers);
  if (raw.length === 0) errors.push(fieldErrors.required('authorizers', 'at least one authorization mode must be defined'));
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  const authorizers: AuthorizerEntry[] = [];
  raw.forEach((r, i) => {
    const a = obj(r);
    const path = `authorizers[${i}]`;
    const type = str(a.type);
    if (!type) return void errors.push(fieldErrors.required(`${path}.type`));
    if (!KNOWN_TYPES.includes(type)) return void errors.push(fieldErrors.notSupported(`${path}.type`, type, KNOWN_TYPES));
    if (seenTypes.has(type) && type !== 'Webhook') return void errors.push(fieldErrors.duplicate(`${path}.type`, type));
    seenTypes.add(type);
    const name = str(a.name);
    if (!name) errors.push(fieldErrors.required(`${path}.name`));
    else if (seenNames.has(name)) errors.push(fieldErrors.duplicate(`${path}.name`, name));
    else if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
      errors.push(
        fieldErrors.invalid(
          `${path}.name`,
          name,
          name.length > 253
            ? 'authorizer name is invalid: must be no more than 253 characters'
            : "authorizer name is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
      );
    }
    seenNames.add(name);
    if (type === 'Webhook') {
      if (a.webhook === undefined || a.webhook === null) return void errors.push(fieldErrors.required(`${path}.webhook`, 'required when type=Webhook'));
      const webhook = webhookEntry(obj(a.webhook), `${path}.webhook`, errors);
      authorizers.push({ type, name, webhook });
    } else {
      if (a.webhook !== undefined && a.webhook !== null) errors.push(fieldErrors.invalid(`${path}.webhook`, 'non-null', 'may only be specified when type=Webhook'));
      authorizers.push({ type, name });
    }
  });
  if (errors.length > 0) throw new Error(aggregateFieldErrors(errors));
  return { authorizers };
}

function duration(w: Obj, key: string, defaultMs: number, path: string, errors: FieldError[]): number {
  const v = w[key];
  if (v === undefined || v === null || v === '') return defaultMs;
  try {
    return parseGoDuration(String(v));
  } catch (e) {
    errors.push(fieldErrors.invalid(`${path}.${key}`, v, (e as Error).message));
    return defaultMs;
  }
}

function webhookEntry(w: Obj, path: string, errors: FieldError[]): WebhookEntry {
  // v1beta1's defaults: timeout 3s, authorizedTTL 5m, unauthorizedTTL 30s.
  const timeoutMs = duration(w, 'timeout', 3000, path, errors);
  if (timeoutMs === 0) errors.push(fieldErrors.required(`${path}.timeout`));
  else if (timeoutMs > MAX_TIMEOUT_MS || timeoutMs < 0) errors.push(fieldErrors.invalid(`${path}.timeout`, goDurationString(timeoutMs), 'must be > 0s and <= 30s'));
  const authorizedTtlMs = duration(w, 'authorizedTTL', 300_000, path, errors);
  const unauthorizedTtlMs = duration(w, 'unauthorizedTTL', 30_000, path, errors);
  for (const [key, ms] of [['authorizedTTL', authorizedTtlMs], ['unauthorizedTTL', unauthorizedTtlMs]] as const) {
    if (ms === 0) errors.push(fieldErrors.required(`${path}.${key}`));
    else if (ms < 0) errors.push(fieldErrors.invalid(`${path}.${key}`, goDurationString(ms), 'must be > 0s'));
  }
  const version = str(w.subjectAccessReviewVersion);
  if (!version) errors.push(fieldErrors.required(`${path}.subjectAccessReviewVersion`));
  else if (version !== 'v1' && version !== 'v1beta1') errors.push(fieldErrors.notSupported(`${path}.subjectAccessReviewVersion`, version, ['v1', 'v1beta1']));
  const conditions = arr(w.matchConditions);
  const conditionVersion = str(w.matchConditionSubjectAccessReviewVersion);
  if (!conditionVersion) {
    if (conditions.length > 0) errors.push(fieldErrors.required(`${path}.matchConditionSubjectAccessReviewVersion`, 'required if match conditions are specified'));
  } else if (conditionVersion !== 'v1') errors.push(fieldErrors.notSupported(`${path}.matchConditionSubjectAccessReviewVersion`, conditionVersion, ['v1']));
  const failurePolicy = str(w.failurePolicy);
  if (!failurePolicy) errors.push(fieldErrors.required(`${path}.failurePolicy`));
  else if (failurePolicy !== 'NoOpinion' && failurePolicy !== 'Deny') errors.push(fieldErrors.notSupported(`${path}.failurePolicy`, failurePolicy, ['NoOpinion', 'Deny']));
  const info = obj(w.connectionInfo);
  const infoType = str(info.type);
  const kubeConfigFile = typeof info.kubeConfigFile === 'string' ? info.kubeConfigFile : undefined;
  let connectionInfo: WebhookEntry['connectionInfo'] = { type: 'InClusterConfig' };
  if (!infoType) errors.push(fieldErrors.required(`${path}.connectionInfo.type`));
  else if (infoType === 'InClusterConfig') {
    if (kubeConfigFile !== undefined) errors.push(fieldErrors.invalid(`${path}.connectionInfo.kubeConfigFile`, kubeConfigFile, 'can only be set when type=KubeConfigFile'));
  } else if (infoType === 'KubeConfigFile') {
    if (!kubeConfigFile) errors.push(fieldErrors.required(`${path}.connectionInfo.kubeConfigFile`));
    else if (!isAbsolute(kubeConfigFile)) errors.push(fieldErrors.invalid(`${path}.connectionInfo.kubeConfigFile`, kubeConfigFile, 'must be an absolute path'));
    else {
      try {
        if (!statSync(kubeConfigFile).isFile()) errors.push(fieldErrors.invalid(`${path}.connectionInfo.kubeConfigFile`, kubeConfigFile, 'must be a regular file'));
      } catch (e) {
        errors.push(fieldErrors.invalid(`${path}.connectionInfo.kubeConfigFile`, kubeConfigFile, `error loading file: stat ${kubeConfigFile}: no such file or directory`));
        void e;
      }
    }
    connectionInfo = { type: 'KubeConfigFile', kubeConfigFile: kubeConfigFile ?? '' };
  } else errors.push(fieldErrors.notSupported(`${path}.connectionInfo.type`, infoType, ['InClusterConfig', 'KubeConfigFile']));
  const matchConditions: CompiledExpression[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errors.push(fieldErrors.tooMany(`${path}.matchConditions`, conditions.length, MAX_MATCH_CONDITIONS));
  const seen = new Set<string>();
  conditions.forEach((c, j) => {
    const p = `${path}.matchConditions[${j}].expression`;
    const expression = str(obj(c).expression);
    if (!expression) return void errors.push(fieldErrors.required(p));
    if (seen.has(expression)) return void errors.push(fieldErrors.duplicate(p, expression));
    seen.add(expression);
    const r = cel().compileExpression(expression, { request: SUBJECT_ACCESS_REVIEW_SPEC });
    if (!r.ok) return void errors.push(fieldErrors.invalid(p, expression, `compilation failed: ${r.error}`));
    const resultType = r.expression.info.resultType;
    const named = celTypeName(resultType);
    if (named !== undefined && resultType.kind !== 'bool') return void errors.push(fieldErrors.invalid(p, expression, `expression must evaluate to bool but got ${named}`));
    matchConditions.push(r.expression);
  });
  return { timeoutMs, authorizedTtlMs, unauthorizedTtlMs, subjectAccessReviewVersion: version, failurePolicy: failurePolicy === 'Deny' ? 'Deny' : 'NoOpinion', connectionInfo, matchConditions };
}

const STRING: DeclType = { kind: 'string' };
const STRINGS: DeclType = { kind: 'list', elem: STRING };
/**
 * kube's `request` of authorization matchConditions: the SubjectAccessReview's spec, typed (1.31, AuthorizeWithSelectors
 * off: no field or label selectors in the resource attributes).
 */
const SUBJECT_ACCESS_REVIEW_SPEC: DeclType = objectType({
  resourceAttributes: objectType({ namespace: STRING, verb: STRING, group: STRING, version: STRING, resource: STRING, subresource: STRING, name: STRING }),
  nonResourceAttributes: objectType({ path: STRING, verb: STRING }),
  user: STRING,
  groups: STRINGS,
  extra: { kind: 'map', value: STRINGS },
  uid: STRING,
});

/** The authorizer types a configuration uses (what --authorization-mode would have listed). */
export function configuredModes(config: AuthorizationConfiguration): string[] {
  return [...new Set(config.authorizers.map((a) => a.type))];
}

/** The chain a configuration describes; Webhook targets come from their kubeconfig files. */
export async function buildConfiguredAuthorizer(
  config: AuthorizationConfiguration,
  factories: Readonly<Record<string, AuthorizerFactory>>,
  ctx: AuthorizerFactoryContext,
  loadTarget: (kubeconfigPath: string) => Promise<WebhookTarget>,
): Promise<Authorizer> {
  const authorizers: Authorizer[] = [privilegedGroupsAuthorizer([SYSTEM_MASTERS])];
  for (const entry of config.authorizers) {
    const w = entry.webhook;
    if (!w) {
      authorizers.push(await factories[entry.type](ctx));
      continue;
    }
    if (w.connectionInfo.type === 'InClusterConfig') {
      // rest.InClusterConfig's error outside a pod.
      throw new Error('unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
    }
    authorizers.push(
      webhookAuthorizer({
        target: await loadTarget(w.connectionInfo.kubeConfigFile),
        version: w.subjectAccessReviewVersion,
        authorizedTtlMs: w.authorizedTtlMs,
        unauthorizedTtlMs: w.unauthorizedTtlMs,
        timeoutMs: w.timeoutMs,
        decisionOnError: w.failurePolicy === 'Deny' ? 'deny' : 'noopinion',
        matchConditions: w.matchConditions,
      }),
    );
  }
  return unionAuthorizer(authorizers);
}
