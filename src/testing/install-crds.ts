// capstan.installCRDs(...): what envtest's CRDInstallOptions does, in process. Reads CRDs from YAML files,
// directories of them (*.yaml, *.yml, *.json, not recursive) or objects, creates each (or replaces the spec of an
// existing one) through the CRD store like any client, and resolves once every one is Established.

import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { yaml } from '../encoding/yaml.ts';
import { isStatusError } from '../apis/errors.ts';
import { crdConditionTrue, type CustomResourceDefinition } from '../registry/apiextensions/crd-types.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry } from '../registry/types.ts';

export type CrdSource = string | KubeObject;

export interface InstallCrdsOptions {
  /** How long to wait for every CRD to be Established (default 10 s). */
  timeoutMs?: number;
}

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

async function filesOf(path: string): Promise<string[]> {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const names = (await readdir(path)).filter((n) => MANIFEST_EXTENSIONS.has(extname(n).toLowerCase())).sort();
  return names.map((n) => join(path, n));
}

async function objectsOf(source: CrdSource): Promise<KubeObject[]> {
  if (typeof source !== 'string') return [source];
  const out: KubeObject[] = [];
  for (const file of await filesOf(source)) {
    for (const doc of yaml().parseAllDocuments(await readFile(file, 'utf8'))) {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0].message}`);
      const value = doc.toJS() as KubeObject | null;
      if (value && typeof value === 'object' && value.kind === 'CustomResourceDefinition') out.push(value);
    }
  }
  return out;
}

export async function installCrds(registry: Registry, sources: CrdSource | readonly CrdSource[], options: InstallCrdsOptions = {}): Promise<CustomResourceDefinition[]> {
  const def = registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
  if (!def) throw new Error('apiextensions.k8s.io/v1 is not served');
  const store = registry.store(def);
  const ctx = loopbackContext();
  const list = Array.isArray(sources) ? sources : [sources as CrdSource];
  const crds = (await Promise.all(list.map(objectsOf))).flat();
  const names: string[] = [];
  for (const crd of crds) {
    const name = crd.metadata?.name ?? '';
    names.push(name);
    try {
      await store.create(ctx, { ...crd, apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' });
    } catch (e) {
      if (!(isStatusError(e) && e.reason === 'AlreadyExists')) throw e;
      await store.update(ctx, name, (cur) => ({ ...cur!, spec: crd.spec }));
    }
  }
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const installed: CustomResourceDefinition[] = [];
  for (const name of names) {
    for (;;) {
      const crd = (await store.get(ctx, name)) as CustomResourceDefinition;
      const servedVersion = crd.spec.versions?.find((v) => v.served)?.name;
      if (crdConditionTrue(crd, 'Established') && (!servedVersion || registry.lookup(crd.spec.group ?? '', servedVersion, crd.status?.acceptedNames?.plural ?? ''))) {
        installed.push(crd);
        break;
      }
      if (Date.now() > deadline) throw new Error(`CustomResourceDefinition ${name} was not established within ${options.timeoutMs ?? 10_000} ms`);
      await new Promise((r) => setTimeout(r, 2));
    }
  }
  return installed;
}
