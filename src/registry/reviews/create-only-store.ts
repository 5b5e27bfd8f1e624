// A ResourceStore for the create-only kinds kube serves without storage (access reviews, token reviews):
// create() evaluates and returns the object, nothing is persisted. The other verbs are not routed to these
// definitions (their discovery verbs are just "create"); called anyway, they answer as kube's REST would.

import { apiVersionOf, inKubeOrder } from '../store-codec.ts';
import type { KubeObject, RequestContext, ResourceDefinition, ResourceStore } from '../types.ts';
import { unsupportedVerbs } from '../unsupported-verbs.ts';

export type EvaluateReview = (ctx: RequestContext, obj: KubeObject, def: ResourceDefinition) => KubeObject | Promise<KubeObject>;

export function createOnlyStore(def: ResourceDefinition, evaluate: EvaluateReview): ResourceStore {
  return {
    definition: def,
    ...unsupportedVerbs(def, ['get', 'list', 'update', 'delete', 'deleteCollection', 'watch']),
    create: async (ctx, obj) => {
      const result = await evaluate(ctx, obj, def);
      return inKubeOrder({ ...result, kind: def.kind, apiVersion: apiVersionOf(def) });
    },
  };
}

/** The metadata of a review kube echoes back: an unset creationTimestamp is written as null (Go's zero Time). */
export function echoedMetadata(obj: KubeObject): void {
  if (obj.metadata.creationTimestamp === undefined) obj.metadata.creationTimestamp = null;
}
