// The bridge from one API request to the admission chain: the store's admit/validate hooks (RequestContext)
// built from what the endpoint knows (resource, subresource, served kind, user, options), with kube's operation
// for each call: admit(obj, undefined) is a CREATE, admit(obj, old) an UPDATE, validate(undefined, old) a DELETE.

import type { UserInfo } from '../auth/user.ts';
import type { KubeObject, ResourceDefinition } from '../registry/types.ts';
import type { AdmissionAttributes, AdmissionChain, GroupVersionKind, Operation } from './types.ts';

export interface AdmissionRequestInfo {
  readonly def: ResourceDefinition;
  readonly subresource: string;
  /** The kind served at the endpoint (autoscaling/v1 Scale for scale). */
  readonly kind: GroupVersionKind;
  readonly user: UserInfo;
  /** The request's namespace ('' for cluster-scoped resources). */
  readonly namespace: string;
  readonly dryRun: boolean;
  readonly fieldManager?: string;
  readonly warnings: string[];
  readonly signal?: AbortSignal;
  /** DeleteOptions of a delete (propagationPolicy, gracePeriodSeconds...). */
  readonly deleteOptions?: Record<string, unknown>;
  /** The request's audit annotations (what plugins and webhooks add lands in its audit events). */
  readonly auditAnnotations?: Record<string, string>;
  readonly auditedAtRequestLevel?: boolean;
}

export interface AdmissionHooks {
  admit(obj: KubeObject, old: KubeObject | undefined): Promise<KubeObject>;
  validate(obj: KubeObject | undefined, old: KubeObject | undefined): Promise<void>;
}

function optionsFor(operation: Operation, info: AdmissionRequestInfo): Record<string, unknown> {
  const kind = operation === 'CREATE' ? 'CreateOptions' : operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions';
  const out: Record<string, unknown> = { kind, apiVersion: 'meta.k8s.io/v1' };
  if (operation === 'DELETE') Object.assign(out, info.deleteOptions ?? {});
  if (info.dryRun) out.dryRun = ['All'];
  if (operation !== 'DELETE' && info.fieldManager) out.fieldManager = info.fieldManager;
  return out;
}

const isNamespaces = (def: ResourceDefinition): boolean => def.group === '' && def.resource === 'namespaces';

export function admissionAttributes(
  info: AdmissionRequestInfo,
  operation: Operation,
  name: string,
  object: KubeObject | undefined,
  oldObject: KubeObject | undefined,
): AdmissionAttributes {
  const def = info.def;
  return {
    kind: info.kind,
    resource: { group: def.group, version: def.version, resource: def.resource },
    subResource: info.subresource,
    name,
    // kube sets the namespace of a request for a namespace object to the namespace's own name.
    namespace: isNamespaces(def) && !info.subresource ? name : info.namespace,
    operation,
    userInfo: info.user,
    object,
    oldObject,
    dryRun: info.dryRun,
    options: optionsFor(operation, info),
    warnings: info.warnings,
    auditAnnotations: info.auditAnnotations ?? {},
    auditedAtRequestLevel: info.auditedAtRequestLevel,
    signal: info.signal,
  };
}

const nameOf = (obj: KubeObject | undefined): string => obj?.metadata?.name ?? '';

export function admissionHooks(chain: AdmissionChain, info: AdmissionRequestInfo): AdmissionHooks {
  return {
    async admit(obj, old) {
      const attrs = admissionAttributes(info, old ? 'UPDATE' : 'CREATE', nameOf(obj) || nameOf(old), obj, old);
      await chain.admit(attrs);
      return attrs.object ?? obj;
    },
    async validate(obj, old) {
      const operation: Operation = !obj ? 'DELETE' : old ? 'UPDATE' : 'CREATE';
      await chain.validate(admissionAttributes(info, operation, nameOf(obj) || nameOf(old), obj, old));
    },
  };
}

/** The mutating phase of a DELETE, run by the handler before the store (kube's delete handler: no objects). */
export async function admitDelete(chain: AdmissionChain, info: AdmissionRequestInfo, name: string): Promise<void> {
  await chain.admit(admissionAttributes(info, 'DELETE', name, undefined, undefined));
}
