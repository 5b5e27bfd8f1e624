// --authorization-mode: validation with kube-apiserver's messages, and the authorizer built from the modes.

import { SYSTEM_MASTERS } from '../user.ts';
import type { Registry } from '../../registry/types.ts';
import { abacAuthorizer, type AbacPolicy } from './abac.ts';
import { nodeAuthorizer } from './node.ts';
import { webhookAuthorizer, type AuthorizationWebhookOptions } from './webhook.ts';
import { rbacAuthorizer } from './rbac/authorizer.ts';
import type { RbacPolicy } from './rbac/policy.ts';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, privilegedGroupsAuthorizer } from './builtin.ts';
import type { Authorizer } from './types.ts';
import { unionAuthorizer } from './union.ts';

/** Every mode kube-apiserver 1.31 knows. */
export const AUTHORIZATION_MODE_CHOICES: readonly string[] = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'];

export interface AuthorizerFactoryContext {
  /** The registry: authorizers read their policy (RBAC objects, ...) through its stores and watch caches. */
  readonly registry: Registry;
  /** The RBAC policy informers, shared with the escalation checks; started on first call. */
  readonly rbacPolicy: () => RbacPolicy;
  /** The Webhook mode's webhook (--authorization-webhook-config-file and its settings). */
  readonly webhook?: AuthorizationWebhookOptions;
  /** The ABAC mode's policies (--authorization-policy-file). */
  readonly abacPolicies?: readonly AbacPolicy[];
}

export type AuthorizerFactory = (ctx: AuthorizerFactoryContext) => Authorizer | Promise<Authorizer>;

/** The modes Capstan implements. Others add theirs by name. */
export const builtinAuthorizerFactories: Readonly<Record<string, AuthorizerFactory>> = {
  AlwaysAllow: () => alwaysAllowAuthorizer(),
  AlwaysDeny: () => alwaysDenyAuthorizer(),
  RBAC: (ctx) => rbacAuthorizer(ctx.rbacPolicy),
  Node: () => nodeAuthorizer(),
  ABAC: (ctx) => {
    if (!ctx.abacPolicies) throw new Error("authorization-mode ABAC's authorization policy file not passed");
    return abacAuthorizer(ctx.abacPolicies);
  },
  Webhook: (ctx) => {
    if (!ctx.webhook) throw new Error("authorization-mode Webhook's authorization config file not passed");
    return webhookAuthorizer(ctx.webhook);
  },
};

/** Go's %q of a []string: ["A" "B"]. */
function quotedList(modes: readonly string[]): string {
  return `[${modes.map((m) => JSON.stringify(m)).join(' ')}]`;
}

/** Error messages for the modes, [] when valid. `implemented`: the modes that have a factory. */
export function validateAuthorizationModes(modes: readonly string[], implemented: Iterable<string>): string[] {
  const errors: string[] = [];
  if (modes.length === 0) {
    errors.push('at least one authorization-mode must be passed');
    return errors;
  }
  const known = new Set(AUTHORIZATION_MODE_CHOICES);
  const available = new Set(implemented);
  for (const mode of modes) {
    if (!known.has(mode) && !available.has(mode)) errors.push(`authorization-mode ${JSON.stringify(mode)} is not a valid mode`);
    else if (!available.has(mode)) errors.push(`authorization-mode ${JSON.stringify(mode)} is not supported by Capstan yet`);
  }
  if (new Set(modes).size !== modes.length) errors.push(`authorization-mode ${quotedList(modes)} has mode specified more than once`);
  return errors;
}

/** system:masters first (always allowed, as in kube-apiserver), then each mode in order. */
export async function buildAuthorizer(
  modes: readonly string[],
  factories: Readonly<Record<string, AuthorizerFactory>>,
  ctx: AuthorizerFactoryContext,
): Promise<Authorizer> {
  const errors = validateAuthorizationModes(modes, Object.keys(factories));
  if (errors.length > 0) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  const authorizers: Authorizer[] = [privilegedGroupsAuthorizer([SYSTEM_MASTERS])];
  for (const mode of modes) authorizers.push(await factories[mode](ctx));
  return unionAuthorizer(authorizers);
}
