// Bootstrap token authentication (plugin/pkg/auth/authenticator/token/bootstrap, --enable-bootstrap-token-auth): a
// bearer token "<id>.<secret>" whose Secret bootstrap-token-<id> in kube-system holds the same id and secret, is not
// expired or being deleted, and allows authentication; the user is system:bootstrap:<id> in system:bootstrappers and
// the Secret's extra groups. Anything else is no opinion (the bearer token union answers 401).

import { clockDate } from '../../apis/clock.ts';
import { isStatusError } from '../../apis/errors.ts';
import { loopbackContext } from '../../registry/registry.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import {
  BOOTSTRAP_NAMESPACE,
  BOOTSTRAP_TOKEN_SECRET_PREFIX,
  BOOTSTRAP_TOKEN_SECRET_TYPE,
  BOOTSTRAP_USER_PREFIX,
  bootstrapGroups,
  hasExpired,
  parseBootstrapToken,
  secretData,
  secretMatches,
} from '../bootstrap/tokens.ts';
import { requestBearerToken } from './token-key.ts';
import { NO_OPINION, authenticated, failed, type Authenticator } from './types.ts';

export function bootstrapTokenAuthenticator(registry: Registry, now: () => Date = clockDate): Authenticator {
  return {
    async authenticate(req) {
      const token = requestBearerToken(req);
      const parsed = token === undefined ? undefined : parseBootstrapToken(token);
      if (!parsed) return NO_OPINION;
      const def = registry.lookup('', 'v1', 'secrets');
      if (!def) return NO_OPINION;
      let secret: KubeObject;
      try {
        secret = await registry.store(def).get(loopbackContext(BOOTSTRAP_NAMESPACE), BOOTSTRAP_TOKEN_SECRET_PREFIX + parsed.id, { resourceVersion: '0' });
      } catch (e) {
        if (isStatusError(e) && e.code === 404) return NO_OPINION;
        throw e;
      }
      if (secret.metadata.deletionTimestamp || secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) return NO_OPINION;
      if (!secretMatches(secret, parsed.id, parsed.secret)) return NO_OPINION;
      if (hasExpired(secret, now())) return NO_OPINION;
      if (secretData(secret, 'usage-bootstrap-authentication') !== 'true') return NO_OPINION;
      const groups = bootstrapGroups(secret);
      if (typeof groups === 'string') return failed(groups);
      return authenticated({ name: BOOTSTRAP_USER_PREFIX + parsed.id, groups });
    },
  };
}
