// Authenticators and authorizers answer synchronously when they can (a certificate, a cached token, RBAC's
// indexes) and with a promise when they must wait (webhooks, JWKS). Their combinators keep a synchronous answer
// synchronous, so a request whose credential and rules are at hand allocates no promise on the way.

export type MaybePromise<T> = T | Promise<T>;

/** `then` that stays synchronous for a value that is not a promise. */
export function andThen<T, U>(value: MaybePromise<T>, next: (v: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * Asks each member in order until `decide` returns an answer; `last` answers when none did. Members are asked one
 * at a time, each after the previous answered, as an awaiting loop would.
 */
export function firstAnswer<M, R, A>(members: readonly M[], ask: (m: M) => MaybePromise<R>, decide: (r: R) => A | undefined, last: () => A): MaybePromise<A> {
  const from = (i: number): MaybePromise<A> => {
    for (; i < members.length; i++) {
      const r = ask(members[i]!);
      if (r instanceof Promise) {
        const next = i + 1;
        return r.then((v) => decide(v) ?? from(next));
      }
      const answer = decide(r);
      if (answer !== undefined) return answer;
    }
    return last();
  };
  return from(0);
}
