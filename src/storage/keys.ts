// Storage keys in kube-apiserver's layout: /registry/<group>/<resource>/<namespace>/<name>, where the legacy core
// group ("") has no group segment (/registry/configmaps/default/foo) and cluster-scoped objects no namespace
// (/registry/namespaces/foo). The storage layer itself treats keys as opaque strings; only these helpers build them.

export const REGISTRY_ROOT = '/registry';

/** The prefix of every object of a group/resource, without a trailing '/': "/registry/example.com/widgets". */
export function resourcePrefix(group: string, resource: string): string {
  return group === '' ? `${REGISTRY_ROOT}/${resource}` : `${REGISTRY_ROOT}/${group}/${resource}`;
}

// kube-apiserver's etcd layout for built-in resources (DefaultStorageFactory.ResourcePrefix): the resource name
// alone, without its group, except for the historical names below (SpecialDefaultResourcePrefixes) and the groups
// served by the apiextensions and aggregator servers, whose keys carry the group. The one table of these names.
const HISTORICAL_PREFIXES: Readonly<Record<string, string>> = {
  '/replicationcontrollers': 'controllers',
  '/endpoints': 'services/endpoints',
  '/nodes': 'minions',
  '/services': 'services/specs',
  'extensions/ingresses': 'ingress',
  'networking.k8s.io/ingresses': 'ingress',
};

const GROUP_QUALIFIED = new Set(['apiextensions.k8s.io', 'apiregistration.k8s.io']);

/** Where kube-apiserver keeps a built-in group/resource: "/registry/deployments", "/registry/minions". */
export function builtinResourcePrefix(group: string, resource: string): string {
  const special = HISTORICAL_PREFIXES[`${group}/${resource}`];
  if (special !== undefined) return `${REGISTRY_ROOT}/${special}`;
  if (GROUP_QUALIFIED.has(group)) return resourcePrefix(group, resource);
  return `${REGISTRY_ROOT}/${resource}`;
}

/** Keys of Service allocation state, as kube's allocators keep them (one range object per key). */
export const SERVICE_IP_RANGE_KEY = `${REGISTRY_ROOT}/ranges/serviceips`;
export const NODE_PORT_RANGE_KEY = `${REGISTRY_ROOT}/ranges/servicenodeports`;

function trimSlash(prefix: string): string {
  return prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
}

/** The key of one object; namespace "" for cluster-scoped objects. */
export function objectKey(prefix: string, namespace: string, name: string): string {
  const base = trimSlash(prefix);
  return namespace === '' ? `${base}/${name}` : `${base}/${namespace}/${name}`;
}

/**
 * The range prefix (with a trailing '/') of the objects in one namespace; namespace "" gives the prefix of all
 * objects of the resource (every namespace, or a cluster-scoped resource).
 */
export function namespacePrefix(prefix: string, namespace: string): string {
  const base = trimSlash(prefix);
  return namespace === '' ? `${base}/` : `${base}/${namespace}/`;
}

/** Splits a key under prefix back into namespace and name; undefined when the key does not have that shape. */
export function parseObjectKey(prefix: string, key: string, namespaced: boolean): { namespace: string; name: string } | undefined {
  const base = namespacePrefix(prefix, '');
  if (!key.startsWith(base)) return undefined;
  const rest = key.slice(base.length);
  const parts = rest.split('/');
  if (namespaced) {
    if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
    return { namespace: parts[0], name: parts[1] };
  }
  if (parts.length !== 1 || parts[0] === '') return undefined;
  return { namespace: '', name: parts[0] };
}
