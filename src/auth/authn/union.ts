// Combinators over authenticators, as kube-apiserver assembles them (authenticator/union, group adder).

import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER } from '../user.ts';
import type { AuthnResult, Authenticator } from './types.ts';
import { NO_OPINION, failed } from './types.ts';
import { andThen, firstAnswer } from '../maybe-async.ts';

/**
 * Tries each authenticator in order; the first success wins. Errors are collected and returned only when no
 * authenticator succeeds. With failOnError, the first error ends the chain (used to keep a bad credential
 * from falling through to anonymous).
 */
export function unionAuthenticator(authenticators: readonly Authenticator[], options: { failOnError?: boolean } = {}): Authenticator {
  return {
    authenticate(req) {
      const errors: string[] = [];
      return firstAnswer(
        authenticators,
        (a) => a.authenticate(req),
        (r: AuthnResult) => {
          if (r.kind === 'authenticated') return r;
          if (r.kind === 'error') {
            if (options.failOnError) return r;
            errors.push(r.error);
          }
          return undefined;
        },
        () => (errors.length === 0 ? NO_OPINION : failed(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`)),
      );
    },
  };
}

/** Adds system:authenticated to every authenticated user that is not anonymous and not already in it. */
export function withAuthenticatedGroup(inner: Authenticator): Authenticator {
  // Answers are read-only: one an authenticator gives again (a connection's certificate, a cached token) gets the
  // same extended answer again.
  const extended = new WeakMap<AuthnResult, AuthnResult>();
  return {
    authenticate(req) {
      return andThen(inner.authenticate(req), (r) => {
        if (r.kind !== 'authenticated') return r;
        const u = r.user;
        if (u.name === ANONYMOUS_USER) return r;
        if (u.groups.includes(ALL_AUTHENTICATED) || u.groups.includes(ALL_UNAUTHENTICATED)) return r;
        let answer = extended.get(r);
        if (!answer) extended.set(r, (answer = { ...r, user: { ...u, groups: [...u.groups, ALL_AUTHENTICATED] } }));
        return answer;
      });
    },
  };
}
