// Which built-in resources share storage across differently shaped versions, where they are stored, and how
// their objects convert (kube's storage versions and cohabitating resources for the cases clients meet).

import type { KubeObject } from '../../types.ts';
import { builtinResourcePrefix } from '../../../storage/keys.ts';
import { CORE_EVENT_VERSION, convertEvent } from './events.ts';
import { convertHorizontalPodAutoscaler, HPA_V2 } from './hpa.ts';

export interface ConversionFacts {
  /** Where objects live when not under the resource's own prefix (events.k8s.io events: core events' place). */
  readonly storagePrefix?: string;
  /** The apiVersion objects are stored in. */
  readonly storageVersion: string;
  convert(obj: KubeObject, apiVersion: string): KubeObject;
}

const EVENTS: ConversionFacts = { storageVersion: CORE_EVENT_VERSION, convert: convertEvent };

const FACTS: Readonly<Record<string, ConversionFacts>> = {
  '/events': EVENTS,
  // kube's cohabitating resources: events.k8s.io events are core events, stored as core/v1.
  'events.k8s.io/events': { ...EVENTS, storagePrefix: builtinResourcePrefix('', 'events') },
  'autoscaling/horizontalpodautoscalers': { storageVersion: HPA_V2, convert: convertHorizontalPodAutoscaler },
};

/** The conversion facts of a built-in group/resource, if its versions differ in shape. */
export function conversionFacts(group: string, resource: string): ConversionFacts | undefined {
  return FACTS[`${group}/${resource}`];
}
