// The ValidatingAdmissionPolicy plugin: for each binding (by name) of each policy, whether policy and binding
// match the request, the params the binding names, the policy's evaluation, and its validationActions: Deny (the
// first denial refuses the request with kube's message and reason), Warn (a Warning header), Audit (an audit
// annotation). Policies and bindings are read through the registry on each request and compiled once per version.

import { StatusError, groupResourceString } from '../../apis/errors.ts';
import { loopbackContext } from '../../registry/registry.ts';
import { selectorMatches } from '../../registry/validation/label-selector.ts';
import type { KubeObject, Registry, ResourceDefinition } from '../../registry/types.ts';
import type { Authorizer } from '../../auth/authz/types.ts';
import { celAuthorizer, requestOf, toCel } from '../cel-context.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import { matchInvocation } from '../webhook/equivalent.ts';
import type { RuleWithOperations } from '../webhook/rules.ts';
import { compilePolicy, type CompiledPolicy } from './compile.ts';
import { builtList, createInformer, type BuiltList } from '../informer.ts';
import { evaluatePolicy, type PolicyDecision } from './evaluate.ts';

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(asObj) : []);

interface NamedRule extends RuleWithOperations {
  resourceNames?: string[];
}

export interface PolicyDeps {
  readonly registry: Registry;
  readonly authorizer?: Authorizer;
  readonly getNamespace: (name: string) => Promise<KubeObject | undefined>;
}

/** A resource of admissionregistration.k8s.io/v1 as an informer keeps it, each object built once per version. */
function cachedList<T>(registry: Registry, resource: string, build: (o: KubeObject) => T): BuiltList<T> {
  return builtList(createInformer(registry, 'admissionregistration.k8s.io', 'v1', resource), build);
}

function rulesMatch(registry: Registry, rules: NamedRule[], matchPolicy: unknown, a: AdmissionAttributes): boolean {
  const applicable = rules.filter((r) => !r.resourceNames?.length || r.resourceNames.includes(a.name));
  return applicable.length > 0 && matchInvocation(registry, applicable, typeof matchPolicy === 'string' ? matchPolicy : 'Equivalent', a) !== undefined;
}

/** A policy's matchConstraints or a binding's matchResources against the request. */
async function matchResources(m: Obj, a: AdmissionAttributes, deps: PolicyDeps, requireRules: boolean): Promise<boolean> {
  const rules = list(m.resourceRules) as NamedRule[];
  if ((requireRules || rules.length > 0) && !rulesMatch(deps.registry, rules, m.matchPolicy, a)) return false;
  const excluded = list(m.excludeResourceRules) as NamedRule[];
  if (excluded.length > 0 && rulesMatch(deps.registry, excluded, 'Exact', a)) return false;
  const nsSel = asObj(m.namespaceSelector);
  if (Object.keys(nsSel).length > 0 && !(a.resource.group === '' && a.resource.resource === 'namespaces') && a.namespace) {
    const ns = await deps.getNamespace(a.namespace);
    if (!selectorMatches(nsSel, ns?.metadata.labels ?? {})) return false;
  }
  const objSel = asObj(m.objectSelector);
  if (Object.keys(objSel).length > 0) {
    const hit = (o: KubeObject | undefined) => !!o && selectorMatches(objSel, o.metadata?.labels ?? {});
    if (!hit(a.object) && !hit(a.oldObject)) return false;
  }
  return true;
}

function paramDefinition(registry: Registry, pk: { apiVersion: string; kind: string }): ResourceDefinition | undefined {
  return registry.all().find((d) => (d.group ? `${d.group}/${d.version}` : d.version) === pk.apiVersion && d.kind === pk.kind);
}

type Params = { params: (KubeObject | null)[] } | { decision: PolicyDecision };

async function paramsFor(policy: CompiledPolicy, binding: Obj, a: AdmissionAttributes, deps: PolicyDeps): Promise<Params> {
  if (!policy.paramKind) return { params: [null] };
  const def = paramDefinition(deps.registry, policy.paramKind);
  const fail = (message: string): Params => ({ decision: { action: 'deny', error: true, reason: 'Invalid', message } });
  if (!def) return fail(`failed to configure policy: failed to find resource referenced by paramKind: '${policy.paramKind.apiVersion}, Kind=${policy.paramKind.kind}'`);
  const ref = asObj(asObj(binding.spec).paramRef);
  if (Object.keys(ref).length === 0) return fail('failed to configure binding: no paramRef');
  let namespace = '';
  if (def.namespaced) {
    namespace = typeof ref.namespace === 'string' && ref.namespace ? ref.namespace : a.namespace;
    if (!namespace) return fail('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  }
  const store = deps.registry.store(def);
  let found: KubeObject[] = [];
  if (typeof ref.name === 'string' && ref.name) {
    try {
      found = [await store.get(loopbackContext(namespace), ref.name)];
    } catch {
      found = [];
    }
  } else {
    const items = (await store.list(loopbackContext(namespace), {})).items;
    found = items.filter((o) => selectorMatches(asObj(ref.selector), o.metadata.labels ?? {}));
  }
  if (found.length === 0) {
    if (ref.parameterNotFoundAction === 'Deny') return { decision: { action: 'deny', error: false, reason: 'Invalid', message: 'no params found for policy binding with `Deny` parameterNotFoundAction' } };
    return { params: [] };
  }
  return { params: found };
}

const REASON_CODES: Record<string, number> = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };

/** admission.NewForbidden with the validation's reason and code (kube's policy denial). */
function policyDenied(a: AdmissionAttributes, message: string, reason: string): StatusError {
  const m = a.object?.metadata;
  const name = m?.name || m?.generateName || a.name || '';
  const gr = { group: a.resource.group, resource: a.resource.resource };
  const subject = name ? `${groupResourceString(gr)} ${JSON.stringify(name)}` : groupResourceString(gr);
  const details: Record<string, unknown> = {};
  if (name) details.name = name;
  if (gr.group) details.group = gr.group;
  details.kind = gr.resource;
  details.causes = [{ message }];
  return new StatusError(REASON_CODES[reason] ?? 422, reason, `${subject} is forbidden: ${message}`, details);
}

export async function validatingAdmissionPolicyPlugin(deps: PolicyDeps): Promise<AdmissionPlugin> {
  const policies = cachedList(deps.registry, 'validatingadmissionpolicies', (o) => compilePolicy(o));
  const bindings = cachedList(deps.registry, 'validatingadmissionpolicybindings', (o) => o);
  // The informers are up before the server serves.
  await Promise.all([policies.read(), bindings.read()]);
  return {
    name: 'ValidatingAdmissionPolicy',
    close() {
      policies.stop();
      bindings.stop();
    },
    validate(a) {
      return bindings.now()?.length === 0 ? undefined : checkBindings(a);
    },
  };

  async function checkBindings(a: AdmissionAttributes): Promise<void> {
    const allBindings = await bindings.read();
    if (allBindings.length === 0) return;
    const byName = new Map((await policies.read()).map((p) => [p.object.metadata.name ?? '', p]));
    let namespaceObject: KubeObject | undefined | null = null;
    const baseVars = (): Record<string, unknown> => ({
      object: toCel(a.object ?? null),
      oldObject: toCel(a.oldObject ?? null),
      request: toCel(requestOf(a)),
      authorizer: celAuthorizer(deps.authorizer, a.userInfo),
    });
    let vars: Record<string, unknown> | undefined;
    for (const { object: binding } of allBindings) {
      const spec = asObj(binding.spec);
      const entry = byName.get(typeof spec.policyName === 'string' ? spec.policyName : '');
      if (!entry) continue;
      const policy = entry.built;
      if (!(await matchResources(policy.matchConstraints, a, deps, true))) continue;
      if (spec.matchResources && !(await matchResources(asObj(spec.matchResources), a, deps, false))) continue;
      const actions = Array.isArray(spec.validationActions) ? (spec.validationActions as string[]) : [];
      const bindingName = binding.metadata.name ?? '';
      const params = await paramsFor(policy, binding, a, deps);
      const decisions: PolicyDecision[] = [];
      if ('decision' in params) decisions.push(params.decision);
      else {
        if (namespaceObject === null) namespaceObject = a.namespace ? await deps.getNamespace(a.namespace) : undefined;
        vars ??= { ...baseVars(), namespaceObject: toCel(namespaceObject ?? null) };
        for (const p of params.params) {
          // The shared activation, with this binding's param (null without paramKind).
          vars.params = toCel(p);
          const outcome = evaluatePolicy(policy, vars);
          Object.assign(a.auditAnnotations, outcome.auditAnnotations);
          decisions.push(...outcome.decisions);
        }
      }
      for (const d of decisions) {
        if (d.action !== 'deny') continue;
        if (d.error && policy.failurePolicy === 'Ignore') continue;
        const text = `ValidatingAdmissionPolicy '${policy.name}' with binding '${bindingName}' denied request: ${d.message}`;
        if (actions.includes('Warn')) a.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${bindingName}': ${d.message}`);
        if (actions.includes('Audit')) {
          a.auditAnnotations['validation.policy.admission.k8s.io/validation_failure'] = JSON.stringify([{ message: d.message, policy: policy.name, binding: bindingName, expressionIndex: 0, validationActions: actions }]);
        }
        if (actions.includes('Deny')) throw policyDenied(a, text, d.reason);
      }
    }
  }
}
