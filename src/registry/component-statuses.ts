// componentstatuses (v1, deprecated since 1.19), served without storage as kube-apiserver serves them: each get or
// list checks the control plane's components then and there. kube probes kube-controller-manager and kube-scheduler
// at https://127.0.0.1:<default port>/healthz and each etcd storage config; Capstan answers for the components it
// runs itself (its controllers, the simulated scheduler, its etcd client) and probes kube's ports for the others, as
// kube does, so that a real scheduler run beside it shows up.

import { StatusError } from '../apis/errors.ts';
import { httpProbe } from '../server/http-probe.ts';
import { buildPredicate } from './store-selection.ts';
import type { KubeObject, ListOptions, ResourceDefinition, ResourceStore, StoreFactory } from './types.ts';
import { unsupportedVerbs } from './unsupported-verbs.ts';

/** A Healthy condition's status ("True": Healthy, anything else Unhealthy), message and error. */
export interface ComponentCheck {
  readonly status: 'True' | 'False' | 'Unknown';
  readonly message: string;
  readonly error: string;
}

/** The components to report, by name, each checked when asked. */
export type ComponentServers = () => ReadonlyMap<string, () => Promise<ComponentCheck>>;

/** ports.KubeControllerManagerPort and kube-scheduler's DefaultKubeSchedulerPort. */
export const CONTROLLER_MANAGER_PORT = 10257;
export const SCHEDULER_PORT = 10259;
/** componentstatus' probeTimeOut. */
const PROBE_TIMEOUT_MS = 20_000;

export const runningInProcess = async (): Promise<ComponentCheck> => ({ status: 'True', message: 'ok', error: '' });

/**
 * kube's HTTP prober against https://127.0.0.1:<port>/healthz, certificate unchecked: a pass is Healthy with the body
 * as message, a pass with a warning (a redirect it does not follow) Unknown, a failure Unhealthy with its output.
 */
export function probeHealthz(port: number, timeoutMs = PROBE_TIMEOUT_MS): () => Promise<ComponentCheck> {
  const url = new URL(`https://127.0.0.1:${port}/healthz`);
  return async () => {
    const outcome = await httpProbe(url, { host: '127.0.0.1', port }, { 'User-Agent': 'kube-probe/1.31', Accept: '*/*' }, timeoutMs);
    return { status: outcome.warning ? 'Unknown' : outcome.ok ? 'True' : 'False', message: outcome.output, error: '' };
  };
}

/** An etcd storage config's check: "ok" when it answers; a failure carries the error, not a message. */
export function storageCheck(ready: () => Promise<boolean>, name: string): () => Promise<ComponentCheck> {
  return async () => {
    const ok = await ready().catch(() => false);
    return ok ? { status: 'True', message: 'ok', error: '' } : { status: 'False', message: '', error: `${name} did not answer its health check` };
  };
}

function componentStatus(name: string, check: ComponentCheck): KubeObject {
  const condition: Record<string, string> = { type: 'Healthy', status: check.status };
  if (check.message) condition.message = check.message;
  if (check.error) condition.error = check.error;
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name, creationTimestamp: null }, conditions: [condition] };
}

/** The store of componentstatuses: get and list check the components; kube's REST has no other verb. */
export function componentStatusStore(servers: ComponentServers): StoreFactory {
  return (def: ResourceDefinition): ResourceStore => ({
    definition: def,
    ...unsupportedVerbs(def, ['create', 'update', 'delete', 'deleteCollection', 'watch']),
    async get(_ctx, name) {
      const check = servers().get(name);
      // A plain error in kube's REST: a 500 without a reason.
      if (!check) throw new StatusError(500, '', `Component not found: ${name}`);
      return componentStatus(name, await check());
    },
    async list(_ctx, options?: ListOptions) {
      const selected = buildPredicate(def, options ?? {});
      const checked = await Promise.all([...servers()].map(async ([name, check]) => componentStatus(name, await check())));
      return { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items: checked.filter((c) => selected.matches(c)) };
    },
  });
}
