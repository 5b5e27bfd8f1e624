// The verbs a store served without storage does not have, answering as kube's REST does for a verb its storage
// lacks (405 MethodNotAllowed). Discovery does not list them, so only a hand-made request reaches them.

import { methodNotSupported } from '../apis/errors.ts';
import type { ResourceDefinition, ResourceStore } from './types.ts';

type Verb = 'get' | 'list' | 'create' | 'update' | 'delete' | 'deleteCollection' | 'watch';

export function unsupportedVerbs<V extends Verb>(def: ResourceDefinition, verbs: readonly V[]): Pick<ResourceStore, V> {
  const gr = { group: def.group, resource: def.resource };
  return Object.fromEntries(verbs.map((v) => [v, () => Promise.reject(methodNotSupported(gr, v.toLowerCase()))])) as unknown as Pick<ResourceStore, V>;
}
