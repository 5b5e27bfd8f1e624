// The structured configuration files (--authentication-config, --authorization-config): read as YAML or JSON,
// their kind and apiVersion checked, validation errors aggregated the way kube prints them, and reloaded when the
// file changes: a valid new content replaces the running configuration, an invalid one is logged and the old one
// kept (kube's automatic reload, with its success/failure counts).

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { unwatchFile, watchFile } from 'node:fs';
import { yaml } from '../encoding/yaml.ts';

/** The document of a configuration file of `kind` in group apiserver.config.k8s.io, one of `versions`. */
export function decodeConfigDocument(text: string, kind: string, versions: readonly string[]): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = yaml().parse(text);
  } catch (e) {
    throw new Error(`error decoding: ${(e as Error).message}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error("Object 'Kind' is missing in the configuration file");
  const o = doc as Record<string, unknown>;
  if (typeof o.kind !== 'string' || o.kind === '') throw new Error(`Object 'Kind' is missing in '${text.trim()}'`);
  const gv = String(o.apiVersion ?? '');
  if (o.kind !== kind || !versions.some((v) => gv === `apiserver.config.k8s.io/${v}`)) {
    throw new Error(`no kind "${o.kind}" is registered for version "${gv}" in scheme "pkg/apis/apiserver"`);
  }
  return o;
}

export type ReloadStatus = 'success' | 'failure';

export interface ConfigFileWatch<T> {
  /** The configuration in force. */
  current(): T;
  stop(): void;
}

export interface WatchOptions<T> {
  readonly path: string;
  /** Parses and validates a content; throws with the message to log. */
  readonly load: (text: string) => T | Promise<T>;
  readonly onReload: (status: ReloadStatus, error?: string) => void;
  /** How often the file is checked (stat polling); kube reacts to file events and re-reads every minute. */
  readonly intervalMs?: number;
}

/** Loads the file (an error here is a start-up error) and keeps watching it. */
export async function watchConfigFile<T>(options: WatchOptions<T>): Promise<ConfigFileWatch<T>> {
  const text = await readFile(options.path, 'utf8');
  let value = await options.load(text);
  let hash = createHash('sha256').update(text).digest('hex');
  let checking = false;
  const check = async (): Promise<void> => {
    if (checking) return;
    checking = true;
    try {
      let next: string;
      try {
        next = await readFile(options.path, 'utf8');
      } catch (e) {
        options.onReload('failure', (e as Error).message);
        return;
      }
      const nextHash = createHash('sha256').update(next).digest('hex');
      if (nextHash === hash) return;
      hash = nextHash;
      try {
        value = await options.load(next);
        options.onReload('success');
      } catch (e) {
        options.onReload('failure', (e as Error).message);
      }
    } finally {
      checking = false;
    }
  };
  const listener = () => void check();
  watchFile(options.path, { interval: options.intervalMs ?? 1000, persistent: false }, listener);
  const periodic = setInterval(listener, 60_000);
  periodic.unref();
  return {
    current: () => value,
    stop() {
      unwatchFile(options.path, listener);
      clearInterval(periodic);
    },
  };
}
