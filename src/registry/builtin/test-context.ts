// A RequestContext for strategy tests, and the create/update paths the store runs around a strategy.

import { fieldErrorString } from '../../apis/errors.ts';
import type { KubeObject, RequestContext } from '../types.ts';
import type { TypeFacts } from './facts.ts';

export const testContext: RequestContext = {
  user: { name: 'admin', groups: ['system:masters'] },
  namespace: 'default',
  dryRun: false,
  warnings: [],
};

/** defaults, prepareForCreate and validate on obj (changed in place); the rendered field errors. */
export function createErrors(facts: TypeFacts, obj: KubeObject, ctx: RequestContext = testContext): string[] {
  facts.strategy.defaults?.(obj);
  facts.strategy.prepareForCreate?.(obj, ctx);
  return (facts.strategy.validate?.(obj, ctx) ?? []).map(fieldErrorString);
}

/** defaults, prepareForUpdate and validateUpdate of obj over old (resourceVersion filled as the store does). */
export function updateErrors(facts: TypeFacts, obj: KubeObject, old: KubeObject, ctx: RequestContext = testContext): string[] {
  obj.metadata = { ...obj.metadata, resourceVersion: obj.metadata?.resourceVersion ?? old.metadata?.resourceVersion ?? '1' };
  facts.strategy.defaults?.(obj);
  facts.strategy.prepareForUpdate?.(obj, old, ctx);
  return (facts.strategy.validateUpdate?.(obj, old, ctx) ?? []).map(fieldErrorString);
}

/** A status subresource write of obj over old: the merged object and its rendered field errors. */
export function statusUpdateErrors(facts: TypeFacts, obj: KubeObject, old: KubeObject, ctx: RequestContext = testContext, subresource = 'status'): { merged: KubeObject; errors: string[] } {
  obj.metadata = { ...obj.metadata, resourceVersion: obj.metadata?.resourceVersion ?? old.metadata?.resourceVersion ?? '1' };
  const sub = facts.strategy.subresources?.[subresource];
  if (!sub) throw new Error(`no ${subresource} subresource`);
  const merged = sub.prepareForUpdate(obj, old, ctx);
  return { merged, errors: (sub.validateUpdate?.(merged, old, ctx) ?? []).map(fieldErrorString) };
}
