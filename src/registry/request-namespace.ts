// rest.EnsureObjectNamespaceMatchesRequestNamespace: an object written through a namespaced URL takes the URL's
// namespace when it names none, a cluster-scoped object loses any namespace it names, and an object naming another
// namespace than the URL's is refused. The write handlers (before admission) and the store (for every caller) apply it.

import { badRequest } from '../apis/errors.ts';

/** expected: the request's namespace for a namespaced resource, '' for a cluster-scoped one. */
export function matchRequestNamespace(meta: { namespace?: string }, expected: string): void {
  const actual = meta.namespace ?? '';
  if (actual !== expected) {
    if (actual !== '' && expected !== '') throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    meta.namespace = expected;
  }
  if (meta.namespace === '') delete meta.namespace;
}
