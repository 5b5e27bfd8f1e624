// The mandatory FlowSchemas and PriorityLevelConfigurations (exempt and catch-all): kube 1.31's validation holds
// their spec to the fixed value the apiserver bootstraps (pkg/apis/flowcontrol/validation, internalbootstrap), for
// every writer; the apiserver's own writes pass because they write that value. The exempt priority level alone may
// change its spec.exempt. The specs are compared as Go's Semantic.DeepEqual compares the internal structs, and the
// error shows the spec as Go's %#v prints it.

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goText } from '../../../apis/go-bad-values.ts';
import { OPAQUE_ADDRESS } from '../../apiextensions/go-crd-values.ts';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS } from '../../../server/flowcontrol/bootstrap.ts';
import type { KubeObject } from '../../types.ts';
import { isObj, type Obj } from '../object.ts';

/**
 * How nested values print. `compare`: every pointer shows its pointee and a nil slice prints as an empty one (the
 * text then differs exactly where Semantic.DeepEqual finds a difference); otherwise %#v, with the project's fixed
 * address for a pointer to a struct.
 */
type Mode = 'compare' | 'message';

const isSet = (v: unknown): boolean => v !== undefined && v !== null;
const int = (v: unknown): string => String(typeof v === 'number' ? v : 0);
const bool = (v: unknown): string => String(v === true);
const objOf = (v: unknown): Obj => (isObj(v) ? v : {});

function structPointer(mode: Mode, type: string, v: unknown, pointee: (o: Obj) => string): string {
  if (!isSet(v)) return `(*${type})(nil)`;
  return `(*${type})(${mode === 'compare' ? pointee(objOf(v)) : OPAQUE_ADDRESS})`;
}

const intPointer = (type: string, v: unknown): string => `(*${type})(${isSet(v) ? int(v) : 'nil'})`;

function slice(mode: Mode, type: string, v: unknown, item: (x: unknown) => string): string {
  if (!Array.isArray(v)) return mode === 'compare' ? `[]${type}{}` : `[]${type}(nil)`;
  return `[]${type}{${v.map(item).join(', ')}}`;
}

const strings = (mode: Mode, v: unknown): string => slice(mode, 'string', v, goText);

function subject(mode: Mode, v: unknown): string {
  const s = objOf(v);
  const named = (type: string, x: unknown) => structPointer(mode, `flowcontrol.${type}`, x, (o) => `flowcontrol.${type}{Name:${goText(o.name)}}`);
  const serviceAccount = structPointer(mode, 'flowcontrol.ServiceAccountSubject', s.serviceAccount, (o) => `flowcontrol.ServiceAccountSubject{Namespace:${goText(o.namespace)}, Name:${goText(o.name)}}`);
  return `flowcontrol.Subject{Kind:${goText(s.kind)}, User:${named('UserSubject', s.user)}, Group:${named('GroupSubject', s.group)}, ServiceAccount:${serviceAccount}}`;
}

function resourceRule(mode: Mode, v: unknown): string {
  const r = objOf(v);
  return (
    `flowcontrol.ResourcePolicyRule{Verbs:${strings(mode, r.verbs)}, APIGroups:${strings(mode, r.apiGroups)}, Resources:${strings(mode, r.resources)}, ` +
    `ClusterScope:${bool(r.clusterScope)}, Namespaces:${strings(mode, r.namespaces)}}`
  );
}

function nonResourceRule(mode: Mode, v: unknown): string {
  const r = objOf(v);
  return `flowcontrol.NonResourcePolicyRule{Verbs:${strings(mode, r.verbs)}, NonResourceURLs:${strings(mode, r.nonResourceURLs)}}`;
}

function policyRules(mode: Mode, v: unknown): string {
  const r = objOf(v);
  return (
    `flowcontrol.PolicyRulesWithSubjects{Subjects:${slice(mode, 'flowcontrol.Subject', r.subjects, (x) => subject(mode, x))}, ` +
    `ResourceRules:${slice(mode, 'flowcontrol.ResourcePolicyRule', r.resourceRules, (x) => resourceRule(mode, x))}, ` +
    `NonResourceRules:${slice(mode, 'flowcontrol.NonResourcePolicyRule', r.nonResourceRules, (x) => nonResourceRule(mode, x))}}`
  );
}

/** flowcontrol.FlowSchemaSpec. */
export function goFlowSchemaSpec(spec: unknown, mode: Mode): string {
  const s = objOf(spec);
  const level = objOf(s.priorityLevelConfiguration);
  const distinguisher = structPointer(mode, 'flowcontrol.FlowDistinguisherMethod', s.distinguisherMethod, (o) => `flowcontrol.FlowDistinguisherMethod{Type:${goText(o.type)}}`);
  return (
    `flowcontrol.FlowSchemaSpec{PriorityLevelConfiguration:flowcontrol.PriorityLevelConfigurationReference{Name:${goText(level.name)}}, ` +
    `MatchingPrecedence:${int(s.matchingPrecedence)}, DistinguisherMethod:${distinguisher}, ` +
    `Rules:${slice(mode, 'flowcontrol.PolicyRulesWithSubjects', s.rules, (x) => policyRules(mode, x))}}`
  );
}

function limited(mode: Mode, l: Obj): string {
  const response = objOf(l.limitResponse);
  const queuing = structPointer(mode, 'flowcontrol.QueuingConfiguration', response.queuing, (q) => `flowcontrol.QueuingConfiguration{Queues:${int(q.queues)}, HandSize:${int(q.handSize)}, QueueLengthLimit:${int(q.queueLengthLimit)}}`);
  return (
    `flowcontrol.LimitedPriorityLevelConfiguration{NominalConcurrencyShares:${int(l.nominalConcurrencyShares)}, ` +
    `LimitResponse:flowcontrol.LimitResponse{Type:${goText(response.type)}, Queuing:${queuing}}, ` +
    `LendablePercent:${intPointer('int32', l.lendablePercent)}, BorrowingLimitPercent:${intPointer('int32', l.borrowingLimitPercent)}}`
  );
}

const exempt = (e: Obj): string =>
  `flowcontrol.ExemptPriorityLevelConfiguration{NominalConcurrencyShares:${intPointer('int32', e.nominalConcurrencyShares)}, LendablePercent:${intPointer('int32', e.lendablePercent)}}`;

/** flowcontrol.PriorityLevelConfigurationSpec. */
export function goPriorityLevelSpec(spec: unknown, mode: Mode): string {
  const s = objOf(spec);
  return (
    `flowcontrol.PriorityLevelConfigurationSpec{Type:${goText(s.type)}, ` +
    `Limited:${structPointer(mode, 'flowcontrol.LimitedPriorityLevelConfiguration', s.limited, (l) => limited(mode, l))}, ` +
    `Exempt:${structPointer(mode, 'flowcontrol.ExemptPriorityLevelConfiguration', s.exempt, exempt)}}`
  );
}

/** The fixed-value check of ValidateFlowSchema (after the spec's own checks). */
export function mandatoryFlowSchemaErrors(fs: KubeObject): FieldError[] {
  const name = fs.metadata?.name ?? '';
  const fixed = Object.hasOwn(MANDATORY_FLOW_SCHEMAS, name) ? MANDATORY_FLOW_SCHEMAS[name] : undefined;
  if (!fixed || goFlowSchemaSpec(fs.spec, 'compare') === goFlowSchemaSpec(fixed, 'compare')) return [];
  return [fieldErrors.invalid('spec', renderedBadValue(goFlowSchemaSpec(fs.spec, 'message')), `spec of '${name}' must equal the fixed value`)];
}

/** Whether a priority level's spec is the mandatory one, its spec.exempt aside for the exempt level (which admins may tune). */
export function isFixedPriorityLevelSpec(name: string, spec: unknown): boolean {
  const fixed = Object.hasOwn(MANDATORY_PRIORITY_LEVELS, name) ? MANDATORY_PRIORITY_LEVELS[name] : undefined;
  if (!fixed) return true;
  const have = name === 'exempt' ? { ...objOf(spec), exempt: fixed.exempt } : spec;
  return goPriorityLevelSpec(have, 'compare') === goPriorityLevelSpec(fixed, 'compare');
}

/** ValidateIfMandatoryPriorityLevelConfigurationObject. */
export function mandatoryPriorityLevelErrors(pl: KubeObject): FieldError[] {
  const name = pl.metadata?.name ?? '';
  if (!Object.hasOwn(MANDATORY_PRIORITY_LEVELS, name) || isFixedPriorityLevelSpec(name, pl.spec)) return [];
  const detail = name === 'exempt' ? "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value" : `spec of '${name}' must equal the fixed value`;
  return [fieldErrors.invalid('spec', renderedBadValue(goPriorityLevelSpec(pl.spec, 'message')), detail)];
}
