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
import { evaluatePolicy } from './evaluate.ts';

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

function rulesMatch(registry: Registry, rules: readonly NamedRule[], matchPolicy: string, a: AdmissionAttributes): boolean {
  const applicable = rules.some((r) => r.resourceNames?.length) ? rules.filter((r) => !r.resourceNames?.length || r.resourceNames.includes(a.name)) : rules;
  return applicable.length > 0 && matchInvocation(registry, applicable, matchPolicy, a) !== undefined;
}

/** A matchConstraints or matchResources stanza read once per object version. */
interface MatchSpec {
  readonly rules: readonly NamedRule[];
  readonly matchPolicy: string;
  readonly excluded: readonly NamedRule[];
  readonly namespaceSelector: Obj | undefined;
  readonly objectSelector: Obj | undefined;
}

const matchSpecs = new WeakMap<Obj, MatchSpec>();
const nonEmpty = (v: unknown): Obj | undefined => (Object.keys(asObj(v)).length > 0 ? asObj(v) : undefined);

function matchSpecOf(m: Obj): MatchSpec {
  let spec = matchSpecs.get(m);
  if (!spec) {
    spec = {
      rules: list(m.resourceRules) as NamedRule[],
      matchPolicy: typeof m.matchPolicy === 'string' ? m.matchPolicy : 'Equivalent',
      excluded: list(m.excludeResourceRules) as NamedRule[],
      namespaceSelector: nonEmpty(m.namespaceSelector),
      objectSelector: nonEmpty(m.objectSelector),
    };
    matchSpecs.set(m, spec);
  }
  return spec;
}

/** A policy's matchConstraints or a binding's matchResources against the request (a promise only when a namespace
 * selector needs the namespace read). */
function matchResources(m: Obj, a: AdmissionAttributes, deps: PolicyDeps, requireRules: boolean): boolean | Promise<boolean> {
  const spec = matchSpecOf(m);
  if ((requireRules || spec.rules.length > 0) && !rulesMatch(deps.registry, spec.rules, spec.matchPolicy, a)) return false;
  if (spec.excluded.length > 0 && rulesMatch(deps.registry, spec.excluded, 'Exact', a)) return false;
  const objectMatches = (): boolean => {
    const sel = spec.objectSelector;
    if (!sel) return true;
    const hit = (o: KubeObject | undefined) => !!o && selectorMatches(sel, o.metadata?.labels ?? {});
    return hit(a.object) || hit(a.oldObject);
  };
  const nsSel = spec.namespaceSelector;
  if (nsSel && !(a.resource.group === '' && a.resource.resource === 'namespaces') && a.namespace) {
    return deps.getNamespace(a.namespace).then((ns) => selectorMatches(nsSel, ns?.metadata.labels ?? {}) && objectMatches());
  }
  return objectMatches();
}

function paramDefinition(registry: Registry, pk: { apiVersion: string; kind: string }): ResourceDefinition | undefined {
  return registry.all().find((d) => (d.group ? `${d.group}/${d.version}` : d.version) === pk.apiVersion && d.kind === pk.kind);
}

/** The params to evaluate with, or a binding's configuration error (kube's CollectParams). */
type Params = { params: (KubeObject | null)[] } | { configError: string };

const NO_PARAMS: Params = { params: [null] };

/** A GroupVersionKind as Go prints it: `example.com/v1, Kind=Foo`, `/v1, Kind=ConfigMap`. */
const gvkText = (pk: { apiVersion: string; kind: string }): string => `${pk.apiVersion.includes('/') ? '' : '/'}${pk.apiVersion}, Kind=${pk.kind}`;

/** The policy's configuration error (kube's policy source, found before any binding is looked at). */
function policyConfigError(policy: CompiledPolicy, registry: Registry): string | undefined {
  const pk = policy.paramKind;
  return pk && !paramDefinition(registry, pk) ? `failed to find resource referenced by paramKind: '${gvkText(pk)}'` : undefined;
}

function paramsFor(policy: CompiledPolicy, binding: Obj, a: AdmissionAttributes, deps: PolicyDeps): Params | Promise<Params> {
  const ref = asObj(binding.spec).paramRef;
  // without paramKind any paramRef is ignored; with paramKind and no paramRef, params is null
  if (!policy.paramKind || !ref || typeof ref !== 'object') return NO_PARAMS;
  const def = paramDefinition(deps.registry, policy.paramKind);
  return def ? paramObjects(def, asObj(ref), a, deps) : NO_PARAMS;
}

async function paramObjects(def: ResourceDefinition, ref: Obj, a: AdmissionAttributes, deps: PolicyDeps): Promise<Params> {
  let namespace = '';
  const refNamespace = typeof ref.namespace === 'string' ? ref.namespace : '';
  if (def.namespaced) {
    namespace = refNamespace || a.namespace;
    if (!namespace) return { configError: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
  } else if (refNamespace) {
    return { configError: 'paramRef.namespace must not be provided for a cluster-scoped `paramKind`' };
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
  if (found.length === 0 && ref.parameterNotFoundAction === 'Deny') return { configError: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
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

/** What a request reads of a binding, once per version. */
interface CompiledBinding {
  readonly name: string;
  readonly policyName: string;
  readonly actions: readonly string[];
  readonly matchResources: Obj | undefined;
}

function compileBinding(o: KubeObject): CompiledBinding {
  const spec = asObj(o.spec);
  return {
    name: o.metadata.name ?? '',
    policyName: typeof spec.policyName === 'string' ? spec.policyName : '',
    actions: Array.isArray(spec.validationActions) ? (spec.validationActions as string[]) : [],
    matchResources: spec.matchResources ? asObj(spec.matchResources) : undefined,
  };
}

type PolicyEntry = { object: KubeObject; built: CompiledPolicy };
const byNameMemo = new WeakMap<readonly PolicyEntry[], Map<string, PolicyEntry>>();

/** The policies by name, once per informer snapshot (the list is the same array until a policy changes). */
function policiesByName(all: readonly PolicyEntry[]): Map<string, PolicyEntry> {
  let m = byNameMemo.get(all);
  if (!m) byNameMemo.set(all, (m = new Map(all.map((p) => [p.object.metadata.name ?? '', p]))));
  return m;
}

export async function validatingAdmissionPolicyPlugin(deps: PolicyDeps): Promise<AdmissionPlugin> {
  const policies = cachedList(deps.registry, 'validatingadmissionpolicies', (o) => compilePolicy(o));
  const bindings = cachedList(deps.registry, 'validatingadmissionpolicybindings', compileBinding);
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
    const allBindings = bindings.now() ?? (await bindings.read());
    if (allBindings.length === 0) return;
    const byName = policiesByName(policies.now() ?? (await policies.read()));
    let namespaceObject: KubeObject | undefined | null = null;
    const baseVars = (): Record<string, unknown> => ({
      object: toCel(a.object ?? null),
      oldObject: toCel(a.oldObject ?? null),
      request: toCel(requestOf(a)),
      authorizer: celAuthorizer(deps.authorizer, a.userInfo),
    });
    let vars: Record<string, unknown> | undefined;
    // As kube's dispatcher: every binding is evaluated (its warnings and audit annotations kept), and the first
    // denial refuses the request at the end.
    let denial: StatusError | undefined;
    const deny = (policy: CompiledPolicy, bindingName: string | undefined, message: string, reason: string) => {
      const text = bindingName === undefined ? `ValidatingAdmissionPolicy '${policy.name}' denied request: ${message}` : `ValidatingAdmissionPolicy '${policy.name}' with binding '${bindingName}' denied request: ${message}`;
      denial ??= policyDenied(a, text, reason || 'Invalid');
    };
    // addConfigError: under failurePolicy Fail a denial, whatever the binding's validationActions
    const configError = (policy: CompiledPolicy, bindingName: string | undefined, error: string) => {
      if (policy.failurePolicy !== 'Ignore') deny(policy, bindingName, `${bindingName === undefined ? 'failed to configure policy' : 'failed to configure binding'}: ${error}`, 'Invalid');
    };
    const annotations = new Map<string, string[]>();
    for (const { object: binding, built } of allBindings) {
      const entry = byName.get(built.policyName);
      if (!entry) continue;
      const policy = entry.built;
      let matches = matchResources(policy.matchConstraints, a, deps, true);
      if (typeof matches !== 'boolean') matches = await matches;
      if (!matches) continue;
      const policyError = policyConfigError(policy, deps.registry);
      if (policyError) {
        configError(policy, undefined, policyError);
        continue;
      }
      if (built.matchResources) {
        matches = matchResources(built.matchResources, a, deps, false);
        if (typeof matches !== 'boolean') matches = await matches;
        if (!matches) continue;
      }
      const { actions, name: bindingName } = built;
      let params = paramsFor(policy, binding, a, deps);
      if (params instanceof Promise) params = await params;
      if ('configError' in params) {
        configError(policy, bindingName, params.configError);
        continue;
      }
      if (params.params.length === 0) continue;
      if (namespaceObject === null) namespaceObject = a.namespace ? await deps.getNamespace(a.namespace) : undefined;
      vars ??= { ...baseVars(), namespaceObject: toCel(namespaceObject ?? null) };
      for (const p of params.params) {
        // The shared activation, with this binding's param (null without paramKind).
        vars.params = toCel(p);
        const outcome = evaluatePolicy(policy, vars);
        outcome.decisions.forEach((d, expressionIndex) => {
          if (d.action !== 'deny') return;
          // a failure to evaluate under failurePolicy Ignore admits (kube's policyDecisionActionForError)
          if (d.error && policy.failurePolicy === 'Ignore') return;
          for (const action of actions) {
            if (action === 'Deny') deny(policy, bindingName, d.message, d.reason);
            else if (action === 'Warn') a.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${bindingName}': ${d.message}`);
            else if (action === 'Audit') {
              // admission annotations are never overwritten: the first failure a request records stays
              a.auditAnnotations['validation.policy.admission.k8s.io/validation_failure'] ??= JSON.stringify([{ message: d.message, policy: policy.name, binding: bindingName, expressionIndex, validationActions: actions }]);
            }
          }
        });
        for (const ann of outcome.auditAnnotations) {
          if ('error' in ann) deny(policy, bindingName, ann.error, 'Invalid');
          else {
            const values = annotations.get(ann.key) ?? [];
            if (!values.includes(ann.value)) annotations.set(ann.key, [...values, ann.value]);
          }
        }
      }
    }
    // kube's auditAnnotationCollector: the distinct values bindings gave a key, joined
    for (const [key, values] of annotations) a.auditAnnotations[key] ??= values.join(', ');
    if (denial) throw denial;
  }
}
