// Bootstrap tokens (k8s.io/cluster-bootstrap): tokens "<id>.<secret>" kept as Secrets `bootstrap-token-<id>` of type
// bootstrap.kubernetes.io/token in kube-system, with their expiry, usages and extra groups.

import { timingSafeEqual } from 'node:crypto';
import type { KubeObject } from '../../registry/types.ts';

export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_NAMESPACE = 'kube-system';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAP_DEFAULT_GROUP = 'system:bootstrappers';
const TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const GROUP_PATTERN = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

export function parseBootstrapToken(token: string): { id: string; secret: string } | undefined {
  const m = TOKEN_PATTERN.exec(token);
  return m ? { id: m[1], secret: m[2] } : undefined;
}

/** A data value of the Secret (base64 in storage), '' when absent. */
export function secretData(secret: KubeObject, key: string): string {
  const data = secret.data as Record<string, string> | undefined;
  const v = data?.[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : '';
}

export function hasExpired(secret: KubeObject, now: Date): boolean {
  const expiration = secretData(secret, 'expiration');
  if (expiration === '') return false;
  const t = Date.parse(expiration);
  // An unparseable expiration counts as expired, as kube's HasExpired.
  return Number.isNaN(t) || now.getTime() >= t;
}

/** bootstrapsecretutil.GetGroups: system:bootstrappers and the valid extra groups, sorted; an invalid one is an error. */
export function bootstrapGroups(secret: KubeObject): string[] | string {
  const groups = new Set([BOOTSTRAP_DEFAULT_GROUP]);
  const extra = secretData(secret, 'auth-extra-groups');
  if (extra !== '') {
    for (const group of extra.split(',')) {
      if (!GROUP_PATTERN.test(group)) return `group name ${JSON.stringify(group)} does not match required pattern "${GROUP_PATTERN.source}"`;
      groups.add(group);
    }
  }
  return [...groups].sort();
}

export function secretMatches(secret: KubeObject, id: string, tokenSecret: string): boolean {
  const stored = Buffer.from(secretData(secret, 'token-secret'));
  const given = Buffer.from(tokenSecret);
  return stored.length === given.length && timingSafeEqual(stored, given) && secretData(secret, 'token-id') === id;
}
