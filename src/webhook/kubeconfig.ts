// The kubeconfig file a token or authorization webhook is configured with (--authentication-token-webhook-config-file,
// --authorization-webhook-config-file): the current context's cluster (server, certificate authority) and user
// (client certificate and key, or a token), file paths relative to the kubeconfig.

import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import type { WebhookTarget } from './client.ts';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

async function dataOrFile(entry: Obj, dataKey: string, fileKey: string, base: string): Promise<string | undefined> {
  const data = str(entry[dataKey]);
  if (data) return Buffer.from(data, 'base64').toString('utf8');
  const file = str(entry[fileKey]);
  if (!file) return undefined;
  return readFile(isAbsolute(file) ? file : join(base, file), 'utf8');
}

/** The webhook target a kubeconfig file names; throws with a message naming the file on a bad one. */
export async function webhookTargetFromKubeconfig(path: string): Promise<WebhookTarget> {
  let doc: Obj;
  try {
    doc = obj(parse(await readFile(path, 'utf8')));
  } catch (e) {
    throw new Error(`invalid webhook kubeconfig ${JSON.stringify(path)}: ${(e as Error).message}`);
  }
  const base = dirname(path);
  const named = (list: unknown, name: string, key: string): Obj => {
    const items = Array.isArray(list) ? list.map(obj) : [];
    return obj((items.find((i) => str(i.name) === name) ?? items[0] ?? {})[key]);
  };
  const context = named(doc.contexts, str(doc['current-context']), 'context');
  const cluster = named(doc.clusters, str(context.cluster), 'cluster');
  const user = named(doc.users, str(context.user), 'user');
  const server = str(cluster.server);
  if (!server) throw new Error(`invalid webhook kubeconfig ${JSON.stringify(path)}: no cluster server`);
  const url = new URL(server);
  return {
    url,
    serverName: str(cluster['tls-server-name']) || url.hostname.replace(/^\[|\]$/g, ''),
    ca: await dataOrFile(cluster, 'certificate-authority-data', 'certificate-authority', base),
    clientCert: await dataOrFile(user, 'client-certificate-data', 'client-certificate', base),
    clientKey: await dataOrFile(user, 'client-key-data', 'client-key', base),
    bearerToken: str(user.token) || undefined,
  };
}
