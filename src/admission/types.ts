// The admission contract (k8s.io/apiserver/pkg/admission): the attributes of one request, the plugin interface
// with its mutating (admit) and validating phases, and the chain the endpoints hand the store.

import type { UserInfo } from '../auth/user.ts';
import type { KubeObject } from '../registry/types.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** admission.Attributes: what a plugin, policy or webhook sees of one request. */
export interface AdmissionAttributes {
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly subResource: string;
  /** The name of the object ('' for a create with generateName). */
  readonly name: string;
  /** The request's namespace; for the namespaces resource itself, the namespace's name (as kube sets it). */
  readonly namespace: string;
  readonly operation: Operation;
  readonly userInfo: UserInfo;
  /** The new object (CREATE, UPDATE); mutating plugins change it in place or replace it. */
  object: KubeObject | undefined;
  /** The existing object (UPDATE, DELETE). */
  readonly oldObject: KubeObject | undefined;
  readonly dryRun: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions of the request (meta.k8s.io/v1). */
  readonly options: Record<string, unknown>;
  /** Warnings for the response's Warning headers. */
  readonly warnings: string[];
  /** Audit annotations plugins and webhooks add ("<prefix>/<key>" -> value). */
  readonly auditAnnotations: Record<string, string>;
  /** The request is audited at level Request or above (annotations kube adds only there, such as a webhook's patch). */
  readonly auditedAtRequestLevel?: boolean;
  readonly signal?: AbortSignal;
}

/** One admission plugin (admission.Interface + MutationInterface + ValidationInterface). */
export interface AdmissionPlugin {
  readonly name: string;
  /** Does the plugin want this operation at all (Handles)? Default: every operation. */
  handles?(operation: Operation): boolean;
  /** Mutating phase: may change attrs.object; throw a StatusError to refuse. */
  admit?(attrs: AdmissionAttributes): void | Promise<void>;
  /** Validating phase: may only refuse (throw a StatusError) or warn. */
  validate?(attrs: AdmissionAttributes): void | Promise<void>;
  /** Stops what the plugin runs in the background (informers). */
  close?(): void;
}

/** The ordered chain of enabled plugins (kube's chainAdmissionHandler). */
export interface AdmissionChain {
  readonly plugins: readonly AdmissionPlugin[];
  /** Synchronous (undefined) when no plugin has to wait. */
  admit(attrs: AdmissionAttributes): void | Promise<void>;
  validate(attrs: AdmissionAttributes): void | Promise<void>;
  close(): void;
}
