// The request context of the server's own writers (start-up, controllers, subresources writing other objects on a
// request's behalf): the loopback user, who may do anything.

import { LOOPBACK_USER } from '../auth/user.ts';
import type { RequestContext } from './types.ts';

export function loopbackContext(namespace = ''): RequestContext {
  return { user: LOOPBACK_USER, namespace, dryRun: false, warnings: [] };
}
