// TokenRequest, the serviceaccounts/token subresource (pkg/registry/core/serviceaccount/storage/token.go): a token
// for an existing service account, for the requested audiences (default --api-audiences) and lifetime (default one
// hour, at least ten minutes), optionally bound to a Pod, Secret or Node of the service account's namespace.

import { clockDate } from '../../apis/clock.ts';
import { badRequest, conflict, fieldErrors, invalid, isStatusError, type FieldError } from '../../apis/errors.ts';
import type { KubeObject, RequestContext, ResourceStore, Registry } from '../../registry/types.ts';
import type { KubernetesClaim, ObjectRef, TokenIssuer } from './tokens.ts';

const GROUP_KIND = { group: 'authentication.k8s.io', kind: 'TokenRequest' };
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Go's GroupVersionKind.String(): "group/version, Kind=Kind". */
function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const group = slash >= 0 ? apiVersion.slice(0, slash) : '';
  const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
  return `${group}/${version}, Kind=${kind}`;
}

export interface TokenRequestOptions {
  readonly issuer: TokenIssuer;
  readonly registry: Registry;
  /** --service-account-max-token-expiration in seconds (0: none). */
  readonly maxExpirationSeconds?: number;
}

async function getObject(registry: Registry, resource: string, ctx: RequestContext, namespace: string, name: string): Promise<KubeObject> {
  const def = registry.lookup('', 'v1', resource)!;
  return registry.store(def).get({ ...ctx, namespace }, name);
}

async function createToken(options: TokenRequestOptions, store: ResourceStore, ctx: RequestContext, name: string, req: KubeObject): Promise<KubeObject> {
  const namespace = ctx.namespace;
  if (req.metadata.name && req.metadata.name !== name) {
    throw invalid(GROUP_KIND, name, [fieldErrors.invalid('metadata.name', req.metadata.name, 'must match the service account name if specified')]);
  }
  if (req.metadata.namespace && req.metadata.namespace !== namespace) {
    throw invalid(GROUP_KIND, name, [fieldErrors.invalid('metadata.namespace', req.metadata.namespace, 'must match the service account namespace if specified')]);
  }
  const sa = await store.get(ctx, name);
  const spec: Obj = isObj(req.spec) ? { ...req.spec } : {};
  const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.filter((a): a is string => typeof a === 'string') : [...options.issuer.apiAudiences];
  spec.audiences = audiences;
  let expirationSeconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : DEFAULT_EXPIRATION_SECONDS;
  spec.expirationSeconds = expirationSeconds;
  const now = clockDate();
  const errs: FieldError[] = [];
  if (expirationSeconds < MIN_EXPIRATION_SECONDS) errs.push(fieldErrors.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes'));
  if (expirationSeconds > MAX_EXPIRATION_SECONDS) errs.push(fieldErrors.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
  if (errs.length > 0) throw invalid(GROUP_KIND, '', errs);

  const claim: { -readonly [K in keyof KubernetesClaim]: KubernetesClaim[K] } = { namespace, serviceaccount: { name: sa.metadata.name!, uid: sa.metadata.uid! } };
  const ref = isObj(spec.boundObjectRef) ? spec.boundObjectRef : undefined;
  if (ref) {
    const kind = typeof ref.kind === 'string' ? ref.kind : '';
    const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
    const refName = typeof ref.name === 'string' ? ref.name : '';
    const core = apiVersion === 'v1' || apiVersion === '';
    let bound: KubeObject;
    if (core && kind === 'Pod') {
      bound = await getObject(options.registry, 'pods', ctx, namespace, refName);
      const podServiceAccount = isObj(bound.spec) && typeof bound.spec.serviceAccountName === 'string' ? bound.spec.serviceAccountName : '';
      if (podServiceAccount !== name) throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to pod running with different serviceaccount name.`);
      claim.pod = { name: refName, uid: bound.metadata.uid! };
      const nodeName = isObj(bound.spec) && typeof bound.spec.nodeName === 'string' ? bound.spec.nodeName : '';
      if (nodeName) {
        try {
          const node = await getObject(options.registry, 'nodes', ctx, '', nodeName);
          claim.node = { name: nodeName, uid: node.metadata.uid! };
        } catch (e) {
          if (!(isStatusError(e) && e.code === 404)) throw e;
        }
      }
    } else if (core && kind === 'Secret') {
      bound = await getObject(options.registry, 'secrets', ctx, namespace, refName);
      claim.secret = { name: refName, uid: bound.metadata.uid! };
    } else if (core && kind === 'Node') {
      bound = await getObject(options.registry, 'nodes', ctx, '', refName);
      claim.node = { name: refName, uid: bound.metadata.uid! } satisfies ObjectRef;
    } else {
      throw badRequest(`cannot bind token to object of type ${gvkString(apiVersion, kind)}`);
    }
    const wantUid = typeof ref.uid === 'string' ? ref.uid : '';
    if (wantUid !== '' && wantUid !== bound.metadata.uid) {
      throw conflict(
        { group: '', resource: kind },
        refName,
        `the UID in the bound object reference (${wantUid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
  }
  const max = options.maxExpirationSeconds ?? 0;
  if (max > 0 && expirationSeconds > max) {
    ctx.warnings.push(`requested expiration of ${expirationSeconds} seconds shortened to ${max} seconds`);
    expirationSeconds = max;
    spec.expirationSeconds = max;
  }
  const { token } = await options.issuer.issue(claim, audiences, expirationSeconds, now);
  return {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    metadata: { ...req.metadata, name: sa.metadata.name, namespace, creationTimestamp: rfc3339(now) },
    spec,
    status: { token, expirationTimestamp: rfc3339(new Date(now.getTime() + expirationSeconds * 1000)) },
  };
}

/** The serviceaccounts store with the token subresource (a registry store wrapper). */
export function tokenRequestWrapper(options: () => TokenRequestOptions): (store: ResourceStore) => ResourceStore {
  return (store) => ({
    ...store,
    async createSubresource(ctx, name, subresource, obj) {
      if (subresource !== 'token') throw badRequest(`subresource ${JSON.stringify(subresource)} cannot be created`);
      return createToken(options(), store, ctx, name, obj);
    },
  });
}
