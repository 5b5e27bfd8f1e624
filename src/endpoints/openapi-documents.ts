// The OpenAPI documents: the Swagger 2.0 document of /openapi/v2 and the OpenAPI 3.0 documents of
// /openapi/v3/<path> (one per group version, plus "api", "apis" and one per built-in group), built from the
// registry's definitions. Descriptions are left out: kube's are not ours to copy.

import type { ResourceDefinition } from '../registry/types.ts';
import { versionInfo } from '../server/version.ts';
import { definitionPaths, discoveryPaths, referencedSchemas, renderPaths, type PathSpec } from './openapi-paths.ts';
import { kindDefinitionName, schemaCatalog, schemaClosure, type Json } from './openapi-schemas.ts';

/** The version OpenAPI's info block carries: the gitVersion /version reports. */
export function serverGitVersion(): string {
  return versionInfo().gitVersion;
}

const securityDefinitions = { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header' } };
const security = [{ BearerToken: [] }];

function allPaths(defs: readonly ResourceDefinition[], catalog: ReturnType<typeof schemaCatalog>): PathSpec[] {
  const paths = discoveryPaths(defs);
  for (const def of defs) {
    try {
      paths.push(...definitionPaths(def, catalog));
    } catch {
      // A definition whose paths cannot be described is left out rather than failing the whole document.
    }
  }
  return paths;
}

/** /openapi/v2: every path and every definition they reach. */
export function openApiV2Document(defs: readonly ResourceDefinition[], gitVersion = serverGitVersion()): Json {
  const catalog = schemaCatalog(defs, 'v2');
  const paths = allPaths(defs, catalog);
  const roots = referencedSchemas(paths);
  for (const def of defs) roots.add(kindDefinitionName(def));
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: gitVersion },
    paths: renderPaths(paths, 'v2'),
    definitions: Object.fromEntries(schemaClosure(catalog, roots)),
    securityDefinitions,
    security,
  };
}

/**
 * /openapi/v3/<key> documents by key ("api", "api/v1", "apis", "apis/apps", "apis/apps/v1", ...), keys in
 * name order. Each document holds its own paths and the schemas they reach.
 */
export function openApiV3Documents(defs: readonly ResourceDefinition[], gitVersion = serverGitVersion()): Map<string, Json> {
  const catalog = schemaCatalog(defs, 'v3');
  const byDocument = new Map<string, PathSpec[]>();
  for (const p of allPaths(defs, catalog)) {
    let list = byDocument.get(p.document);
    if (!list) byDocument.set(p.document, (list = []));
    list.push(p);
  }
  const customDocuments = new Set(defs.filter((d) => d.custom).map((d) => `apis/${d.group}/${d.version}`));
  const docs = new Map<string, Json>();
  for (const key of [...byDocument.keys()].sort()) {
    const paths = byDocument.get(key)!;
    const roots = referencedSchemas(paths);
    for (const def of defs) if (`${def.group ? `apis/${def.group}` : 'api'}/${def.version}` === key) roots.add(kindDefinitionName(def));
    const custom = customDocuments.has(key);
    const doc: Json = {
      openapi: '3.0.0',
      // apiextensions builds its documents with its own title and version.
      info: custom ? { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' } : { title: 'Kubernetes', version: gitVersion },
      paths: renderPaths(paths, 'v3'),
      components: {
        schemas: Object.fromEntries(schemaClosure(catalog, roots)),
        ...(custom ? {} : { securitySchemes: securityDefinitions }),
      },
    };
    if (!custom) doc.security = security;
    docs.set(key, doc);
  }
  return docs;
}
