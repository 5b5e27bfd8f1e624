// Asks authorizers in order: the first allow or deny decides; otherwise no opinion, with every reason given.

import type { Authorizer } from './types.ts';

export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer {
  return {
    async authorize(attrs) {
      const reasons: string[] = [];
      const errors: string[] = [];
      for (const a of authorizers) {
        const r = await a.authorize(attrs);
        if (r.error) errors.push(r.error);
        if (r.reason) reasons.push(r.reason);
        if (r.decision !== 'noopinion') return r;
      }
      const result = { decision: 'noopinion' as const, reason: reasons.join('\n') };
      if (errors.length === 0) return result;
      return { ...result, error: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` };
    },
  };
}
