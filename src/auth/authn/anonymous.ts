// The anonymous authenticator: every request becomes system:anonymous in system:unauthenticated.
import { ALL_UNAUTHENTICATED, ANONYMOUS_USER } from '../user.ts';
import type { Authenticator } from './types.ts';
import { authenticated } from './types.ts';

export function anonymousAuthenticator(): Authenticator {
  const result = authenticated({ name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] });
  return { authenticate: () => result };
}
