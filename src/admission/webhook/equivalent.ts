// matchPolicy Equivalent: a request that no rule names in its own version still matches through another served
// version of the same stored resource (apps/v1beta1 deployments for apps/v1), and the webhook then receives the
// object converted to that version (kube's equivalent resource mapper and the webhook's versioned attributes).

import type { KubeObject, Registry, ResourceDefinition } from '../../registry/types.ts';
import type { AdmissionAttributes, GroupVersionKind, GroupVersionResource } from '../types.ts';
import { ruleMatches, type RuleWithOperations } from './rules.ts';

/** How a matched request is shown to one webhook: the resource and kind it matched as. */
export interface Invocation {
  readonly resource: GroupVersionResource;
  readonly kind: GroupVersionKind;
  /** Convert an object of the request to the invocation's version (identity when it is the request's). */
  readonly convert: (obj: KubeObject) => KubeObject;
  /** Convert back to the request's version (a mutating webhook's result). */
  readonly convertBack: (obj: KubeObject) => KubeObject;
}

const identity = (o: KubeObject): KubeObject => o;

function equivalentDefinitions(registry: Registry, a: AdmissionAttributes): ResourceDefinition[] {
  const own = registry.lookup(a.resource.group, a.resource.version, a.resource.resource);
  if (!own) return [];
  return registry.all().filter((d) => d !== own && d.storagePrefix === own.storagePrefix);
}

/** The invocation of a webhook with these rules, or undefined when none covers the request. */
export function matchInvocation(registry: Registry, rules: readonly RuleWithOperations[], matchPolicy: string | undefined, a: AdmissionAttributes): Invocation | undefined {
  if (rules.some((r) => ruleMatches(r, a))) return { resource: a.resource, kind: a.kind, convert: identity, convertBack: identity };
  if (matchPolicy === 'Exact') return undefined;
  // Subresources whose kind differs from the parent's (scale) only match as the request is.
  if (a.subResource && a.subResource !== 'status') return undefined;
  const own = registry.lookup(a.resource.group, a.resource.version, a.resource.resource);
  if (!own) return undefined;
  for (const d of equivalentDefinitions(registry, a)) {
    const gvr = { group: d.group, version: d.version, resource: d.resource };
    if (!rules.some((r) => ruleMatches(r, a, gvr))) continue;
    const apiVersion = d.group ? `${d.group}/${d.version}` : d.version;
    const ownVersion = own.group ? `${own.group}/${own.version}` : own.version;
    const convert = (obj: KubeObject): KubeObject => (d.convert ? d.convert(obj, apiVersion) : { ...obj, apiVersion });
    const convertBack = (obj: KubeObject): KubeObject => (own.convert ? own.convert(obj, ownVersion) : { ...obj, apiVersion: ownVersion });
    return { resource: gvr, kind: { group: d.group, version: d.version, kind: d.kind }, convert, convertBack };
  }
  return undefined;
}
