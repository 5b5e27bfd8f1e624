// The HTTP door to the test controls: JSON in and out under /capstan/v1/, for system:masters only, so a test in
// any language drives them with a plain HTTP client and the admin kubeconfig's credentials.
//
//   GET    /capstan/v1                              the controls this server offers
//   POST   /capstan/v1/snapshots                    take one             -> 201 {id, revision, objects, created}
//   GET    /capstan/v1/snapshots                    list them
//   POST   /capstan/v1/snapshots/<id>/restore       bring the store back  -> {restored: id}
//   DELETE /capstan/v1/snapshots/<id>
//   POST   /capstan/v1/reset                        back to the post-start state
//   POST   /capstan/v1/forks      {snapshot?}       a second server      -> 201 {id, url, kubeconfig}
//   GET    /capstan/v1/forks;  DELETE /capstan/v1/forks/<id>
//   POST   /capstan/v1/faults     <rule>            -> 201 {id, rule, fired, exhausted}
//   GET    /capstan/v1/faults;  DELETE /capstan/v1/faults (all);  DELETE /capstan/v1/faults/<id>
//   GET    /capstan/v1/faults/log                   every injected fault
//   GET    /capstan/v1/clock;  POST /capstan/v1/clock/freeze {at?} | advance {by} | set {to} | resume | reset
//   GET    /capstan/v1/kubelets;  POST /capstan/v1/kubelets/<node>/stop | start    (--simulate-workloads)
//   POST   /capstan/v1/usage      <rule>            -> 201 {id, rule}      (--simulate-workloads)
//   GET    /capstan/v1/usage;  DELETE /capstan/v1/usage (all);  DELETE /capstan/v1/usage/<id>
//   POST   /capstan/v1/containers <rule>           -> 201 {id, rule}      (--simulate-workloads)
//   GET    /capstan/v1/containers;  DELETE /capstan/v1/containers (all);  DELETE /capstan/v1/containers/<id>
//   GET    /capstan/v1/requests?verb=&resource=&namespace=&name=&user=&code=&group=&cluster=&after=
//   GET    /capstan/v1/requests/audit?...           the same as an audit.k8s.io/v1 EventList
//   DELETE /capstan/v1/requests;  PUT /capstan/v1/recording {enabled?, bodies?}
//   POST   /capstan/v1/clusters   {name}            -> 201 {name, url, kubeconfig}
//   GET    /capstan/v1/clusters;  DELETE /capstan/v1/clusters/<name>

import { badRequest, isStatusError, StatusError } from '../apis/errors.ts';
import { SYSTEM_MASTERS, type UserInfo } from '../auth/user.ts';
import { goQuote } from '../auth/authz/forbidden.ts';
import { readBody } from '../endpoints/body.ts';
import { writeJson, writeStatus } from '../server/respond.ts';
import type { HttpRequest, HttpResponse } from '../server/types.ts';
import type { ForkedServer, RuleControls, TestControls } from './controls.ts';
import type { FaultRule } from './faults.ts';
import { queryFromParams } from './recorder.ts';

export const CONTROL_PREFIX = '/capstan/v1';
const CONTROLS = ['snapshots', 'reset', 'forks', 'faults', 'clock', 'kubelets', 'usage', 'containers', 'requests', 'recording', 'clusters'];
const MAX_CONTROL_BODY = 1024 * 1024;

const forksOf = new WeakMap<TestControls, { seq: number; forks: Map<string, ForkedServer> }>();

function methodNotAllowed(method: string, path: string): StatusError {
  return new StatusError(405, 'MethodNotAllowed', `${method} is not supported on ${path}`);
}

function notFound(message: string): StatusError {
  return new StatusError(404, 'NotFound', message);
}

async function jsonBody(req: HttpRequest): Promise<Record<string, unknown>> {
  const data = await readBody(req, MAX_CONTROL_BODY);
  if (data.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(data.toString('utf8'));
  } catch (e) {
    throw badRequest(`the request body is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('the request body must be a JSON object');
  return value as Record<string, unknown>;
}

function onlyFields(body: Record<string, unknown>, allowed: readonly string[], what: string): void {
  for (const k of Object.keys(body)) if (!allowed.includes(k)) throw badRequest(`${what}: unknown field "${k}"${allowed.length ? ` (known: ${allowed.join(', ')})` : ' (it takes no body)'}`);
}

/** Serves one control request; always answers (true). */
export async function serveControl(controls: TestControls, req: HttpRequest, res: HttpResponse, path: string, query: URLSearchParams, user: UserInfo): Promise<boolean> {
  const method = req.method ?? 'GET';
  try {
    if (!user.groups.includes(SYSTEM_MASTERS)) {
      // Worded as responsewriters.Forbidden words a non-resource denial.
      throw new StatusError(403, 'Forbidden', `forbidden: User ${goQuote(user.name)} cannot ${method.toLowerCase()} path ${goQuote(path)}: the test controls are for members of ${SYSTEM_MASTERS} only`, {});
    }
    const [code, body] = await dispatch(controls, req, method, path, query);
    writeJson(res, code, body, true);
  } catch (e) {
    writeStatus(res, isStatusError(e) ? e : badRequest(e instanceof Error ? e.message : String(e)));
  }
  return true;
}

async function dispatch(controls: TestControls, req: HttpRequest, method: string, path: string, query: URLSearchParams): Promise<[number, unknown]> {
  const parts = path.slice(CONTROL_PREFIX.length).split('/').filter((p) => p !== '');
  const [control, id, action] = parts;
  const is = (m: string) => method === m;
  if (control === undefined) {
    if (!is('GET')) throw methodNotAllowed(method, path);
    return [200, { kind: 'TestControls', apiVersion: 'capstan.io/v1', controls: CONTROLS }];
  }
  if (parts.length > 3) throw notFound(`unknown test control path ${JSON.stringify(path)}`);
  switch (control) {
    case 'snapshots':
      if (id === undefined) {
        if (is('POST')) {
          onlyFields(await jsonBody(req), [], 'snapshot');
          const sid = await controls.snapshot();
          return [201, controls.snapshots().find((s) => s.id === sid)];
        }
        if (is('GET')) return [200, { items: controls.snapshots() }];
        throw methodNotAllowed(method, path);
      }
      if (action === 'restore') {
        if (!is('POST')) throw methodNotAllowed(method, path);
        await controls.restore(id);
        return [200, { restored: id }];
      }
      if (action !== undefined) throw notFound(`unknown snapshot action ${JSON.stringify(action)} (known: restore)`);
      if (is('DELETE')) {
        if (!controls.deleteSnapshot(id)) throw notFound(`snapshot "${id}" not found`);
        return [200, { deleted: id }];
      }
      if (is('GET')) {
        const s = controls.snapshots().find((x) => x.id === id);
        if (!s) throw notFound(`snapshot "${id}" not found`);
        return [200, s];
      }
      throw methodNotAllowed(method, path);
    case 'reset':
      if (id !== undefined) throw notFound(`unknown test control path ${JSON.stringify(path)}`);
      if (!is('POST')) throw methodNotAllowed(method, path);
      onlyFields(await jsonBody(req), [], 'reset');
      await controls.reset();
      return [200, { reset: true }];
    case 'forks': {
      let state = forksOf.get(controls);
      if (!state) forksOf.set(controls, (state = { seq: 0, forks: new Map() }));
      if (id === undefined) {
        if (is('POST')) {
          const body = await jsonBody(req);
          onlyFields(body, ['snapshot'], 'fork');
          if (body.snapshot !== undefined && typeof body.snapshot !== 'string') throw badRequest('fork: snapshot must be a snapshot id');
          const fork = await controls.fork(body.snapshot as string | undefined);
          const fid = `fork-${++state.seq}`;
          state.forks.set(fid, fork);
          return [201, { id: fid, url: fork.url, kubeconfig: fork.kubeconfig }];
        }
        if (is('GET')) return [200, { items: [...state.forks].map(([fid, f]) => ({ id: fid, url: f.url })) }];
        throw methodNotAllowed(method, path);
      }
      if (!is('DELETE') || action !== undefined) throw methodNotAllowed(method, path);
      const fork = state.forks.get(id);
      if (!fork) throw notFound(`fork "${id}" not found`);
      state.forks.delete(id);
      await fork.close();
      return [200, { deleted: id }];
    }
    case 'faults':
      if (id === undefined) {
        if (is('POST')) {
          const h = controls.faults.add((await jsonBody(req)) as unknown as FaultRule);
          return [201, controls.faults.list().find((f) => f.id === h.id)];
        }
        if (is('GET')) return [200, { items: controls.faults.list() }];
        if (is('DELETE')) {
          controls.faults.clear();
          return [200, { cleared: true }];
        }
        throw methodNotAllowed(method, path);
      }
      if (id === 'log' && action === undefined) {
        if (!is('GET')) throw methodNotAllowed(method, path);
        return [200, { items: controls.faults.log() }];
      }
      if (action !== undefined) throw notFound(`unknown test control path ${JSON.stringify(path)}`);
      if (!is('DELETE')) throw methodNotAllowed(method, path);
      if (!controls.faults.remove(id)) throw notFound(`fault "${id}" not found`);
      return [200, { deleted: id }];
    case 'clock': {
      if (id === undefined) {
        if (!is('GET')) throw methodNotAllowed(method, path);
        return [200, controls.clock.state()];
      }
      if (action !== undefined) throw notFound(`unknown test control path ${JSON.stringify(path)}`);
      if (!is('POST')) throw methodNotAllowed(method, path);
      const body = await jsonBody(req);
      switch (id) {
        case 'freeze':
          onlyFields(body, ['at'], 'clock freeze');
          return [200, controls.clock.freeze(body.at as string | number | undefined)];
        case 'advance':
          onlyFields(body, ['by'], 'clock advance');
          if (body.by === undefined) throw badRequest('clock advance: "by" is required (a duration such as "10m")');
          return [200, controls.clock.advance(body.by as string | number)];
        case 'set':
          onlyFields(body, ['to'], 'clock set');
          if (body.to === undefined) throw badRequest('clock set: "to" is required (an RFC 3339 time)');
          return [200, controls.clock.set(body.to as string | number)];
        case 'resume':
          onlyFields(body, [], 'clock resume');
          return [200, controls.clock.resume()];
        case 'reset':
          onlyFields(body, [], 'clock reset');
          return [200, controls.clock.reset()];
        default:
          throw notFound(`unknown clock control ${JSON.stringify(id)} (known: freeze, advance, set, resume, reset)`);
      }
    }
    case 'kubelets': {
      if (id === undefined) {
        if (!is('GET')) throw methodNotAllowed(method, path);
        return [200, { items: controls.kubelets.list() }];
      }
      if (action !== 'stop' && action !== 'start') throw notFound(`unknown kubelet control ${JSON.stringify(action ?? '')} (known: stop, start)`);
      if (!is('POST')) throw methodNotAllowed(method, path);
      onlyFields(await jsonBody(req), [], `kubelet ${action}`);
      return [200, await (action === 'stop' ? controls.kubelets.stop(id) : controls.kubelets.start(id))];
    }
    case 'usage':
    case 'containers': {
      // The rule's fields are checked by the control itself.
      const rules = (control === 'usage' ? controls.usage : controls.containers) as RuleControls<unknown>;
      if (id === undefined) {
        if (is('POST')) return [201, rules.add(await jsonBody(req))];
        if (is('GET')) return [200, { items: rules.list() }];
        if (is('DELETE')) {
          rules.clear();
          return [200, { cleared: true }];
        }
        throw methodNotAllowed(method, path);
      }
      if (action !== undefined) throw notFound(`unknown test control path ${JSON.stringify(path)}`);
      if (!is('DELETE')) throw methodNotAllowed(method, path);
      if (!rules.remove(id)) throw notFound(`${control} rule "${id}" not found`);
      return [200, { deleted: id }];
    }
    case 'requests':
      if (id === undefined) {
        if (is('GET')) return [200, { items: controls.requests(queryFromParams(query)) }];
        if (is('DELETE')) {
          controls.recording.clear();
          return [200, { cleared: true }];
        }
        throw methodNotAllowed(method, path);
      }
      if (id === 'audit' && action === undefined) {
        if (!is('GET')) throw methodNotAllowed(method, path);
        return [200, controls.recording.auditEvents(queryFromParams(query))];
      }
      throw notFound(`unknown test control path ${JSON.stringify(path)}`);
    case 'recording': {
      if (id !== undefined) throw notFound(`unknown test control path ${JSON.stringify(path)}`);
      if (!is('PUT')) throw methodNotAllowed(method, path);
      const body = await jsonBody(req);
      onlyFields(body, ['enabled', 'bodies'], 'recording');
      for (const k of ['enabled', 'bodies']) if (body[k] !== undefined && typeof body[k] !== 'boolean') throw badRequest(`recording: ${k} must be true or false`);
      return [200, controls.recording.configure(body as { enabled?: boolean; bodies?: boolean })];
    }
    case 'clusters':
      if (id === undefined) {
        if (is('POST')) {
          const body = await jsonBody(req);
          onlyFields(body, ['name'], 'cluster');
          return [201, await controls.createCluster(body.name as string)];
        }
        if (is('GET')) return [200, { items: controls.clusters().map((c) => ({ name: c.name, url: c.url })) }];
        throw methodNotAllowed(method, path);
      }
      if (action !== undefined) throw notFound(`unknown test control path ${JSON.stringify(path)}`);
      if (is('GET')) {
        const c = controls.clusters().find((x) => x.name === id);
        if (!c) throw notFound(`cluster "${id}" not found`);
        return [200, c];
      }
      if (!is('DELETE')) throw methodNotAllowed(method, path);
      if (!(await controls.deleteCluster(id))) throw notFound(`cluster "${id}" not found`);
      return [200, { deleted: id }];
    default:
      throw notFound(`unknown test control ${JSON.stringify(control)} (known: ${CONTROLS.join(', ')})`);
  }
}
