// An aggregated group-version's resources for aggregated discovery: the backend's legacy APIResourceList turned
// into APIResourceDiscovery entries as kube's ConvertGroupVersionIntoToDiscovery does (subresources under their
// parent, a parent made up for a subresource that has none).

import type { APIResourceDiscovery, APISubresourceDiscovery } from '../endpoints/discovery-documents.ts';

interface LegacyResource {
  name?: unknown;
  singularName?: unknown;
  namespaced?: unknown;
  group?: unknown;
  version?: unknown;
  kind?: unknown;
  verbs?: unknown;
  shortNames?: unknown;
  categories?: unknown;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);

/** The resources of an APIResourceList body; [] when it is not one. */
export function resourcesFromList(body: Buffer | string): APIResourceDiscovery[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof body === 'string' ? body : body.toString('utf8'));
  } catch {
    return [];
  }
  const list = (parsed as { resources?: unknown } | null)?.resources;
  if (!Array.isArray(list)) return [];
  const resources = list.filter((r): r is LegacyResource => r !== null && typeof r === 'object');
  const out: APIResourceDiscovery[] = [];
  const parents = new Map<string, APIResourceDiscovery>();
  for (const r of resources) {
    const name = str(r.name);
    if (name === '' || name.includes('/')) continue;
    const entry: APIResourceDiscovery = {
      resource: name,
      responseKind: { group: str(r.group), version: str(r.version), kind: str(r.kind) },
      scope: r.namespaced === true ? 'Namespaced' : 'Cluster',
      singularResource: str(r.singularName),
      verbs: strings(r.verbs) ?? [],
      ...(strings(r.shortNames)?.length ? { shortNames: strings(r.shortNames) } : {}),
      ...(strings(r.categories)?.length ? { categories: strings(r.categories) } : {}),
    };
    out.push(entry);
    parents.set(name, entry);
  }
  for (const r of resources) {
    const name = str(r.name);
    const slash = name.indexOf('/');
    if (slash <= 0) continue;
    const parentName = name.slice(0, slash);
    const scope = r.namespaced === true ? 'Namespaced' : 'Cluster';
    let parent = parents.get(parentName);
    if (!parent) {
      parent = { resource: parentName, responseKind: { group: '', version: '', kind: '' }, scope, singularResource: '', verbs: [] };
      out.push(parent);
      parents.set(parentName, parent);
    }
    if (parent.scope !== scope) continue;
    const kind = str(r.kind);
    const sub: APISubresourceDiscovery = {
      subresource: name.slice(slash + 1),
      responseKind: kind ? { group: str(r.group), version: str(r.version), kind } : { group: '', version: '', kind: '' },
      verbs: strings(r.verbs) ?? [],
    };
    (parent.subresources ??= []).push(sub);
  }
  return out;
}
