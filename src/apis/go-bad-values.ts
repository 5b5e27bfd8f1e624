// Go's %#v of the values kube puts in field errors: field.Error prints a map, slice or struct that way, e.g.
// `map[string]string{"app":"web"}` or `v1.LabelSelector{MatchLabels:..., MatchExpressions:...}`. A non-nil pointer
// shows its value in place of the address Go would print (this project's convention: an address means nothing to a
// client and changes with every request).

import { goQuote } from '../encoding/go-format.ts';
import { goStringsText, renderedBadValue } from './errors.ts';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isSet = (v: unknown): boolean => v !== undefined && v !== null;

/** A string field: Go's zero value when absent. */
export const goText = (v: unknown): string => goQuote(typeof v === 'string' ? v : '');

/** An int field: Go's zero value when absent. */
export const goInt = (v: unknown): string => String(typeof v === 'number' ? v : 0);

/** A pointer field: `(*T)(nil)`, or the pointee rendered in place of the address. */
export const goPointer = (type: string, v: unknown, pointee: (x: unknown) => string): string => `(*${type})(${isSet(v) ? pointee(v) : 'nil'})`;

/** A slice: `[]T{a, b}`, or `[]T(nil)` when absent. */
export function goSlice(type: string, v: unknown, item: (x: unknown) => string): string {
  return Array.isArray(v) ? `[]${type}{${v.map(item).join(', ')}}` : `[]${type}(nil)`;
}

/** A slice of a named string type, e.g. `[]storage.VolumeLifecycleMode{"Persistent"}`. */
export const goNamedStrings = (type: string, v: unknown): unknown => renderedBadValue(goSlice(type, v, goText));

/** A []string. */
export const goStrings = (v: unknown): unknown => renderedBadValue(goStringsText(Array.isArray(v) ? v : null));

/** map[string]string, keys sorted as fmt prints them. */
export function goStringMapText(v: unknown): string {
  if (!isObj(v)) return 'map[string]string(nil)';
  const keys = Object.keys(v).sort();
  return `map[string]string{${keys.map((k) => `${goQuote(k)}:${goText(v[k])}`).join(', ')}}`;
}

export const goStringMap = (v: unknown): unknown => renderedBadValue(goStringMapText(v));

function goSelectorRequirement(r: unknown): string {
  const o = isObj(r) ? r : {};
  return `v1.LabelSelectorRequirement{Key:${goText(o.key)}, Operator:${goText(o.operator)}, Values:${goStringsText(Array.isArray(o.values) ? o.values : null)}}`;
}

/** metav1.LabelSelector (a *LabelSelector prints the same: field.Error dereferences pointers). */
export function goLabelSelector(v: unknown): unknown {
  if (!isSet(v)) return null;
  const s = isObj(v) ? v : {};
  return renderedBadValue(`v1.LabelSelector{MatchLabels:${goStringMapText(s.matchLabels)}, MatchExpressions:${goSlice('v1.LabelSelectorRequirement', s.matchExpressions, goSelectorRequirement)}}`);
}

function goOwnerReferenceText(r: unknown): string {
  const o = isObj(r) ? r : {};
  const bool = (b: unknown) => String(b === true);
  return (
    `v1.OwnerReference{APIVersion:${goText(o.apiVersion)}, Kind:${goText(o.kind)}, Name:${goText(o.name)}, UID:${goText(o.uid)}, ` +
    `Controller:${goPointer('bool', o.controller, bool)}, BlockOwnerDeletion:${goPointer('bool', o.blockOwnerDeletion, bool)}}`
  );
}

/** metav1.OwnerReference. */
export const goOwnerReference = (v: unknown): unknown => renderedBadValue(goOwnerReferenceText(v));

/** []metav1.OwnerReference. */
export const goOwnerReferences = (v: unknown): unknown => renderedBadValue(goSlice('v1.OwnerReference', v, goOwnerReferenceText));

/** intstr.IntOrString (Type 0 holds IntVal, Type 1 StrVal). */
export function goIntOrString(v: unknown): string {
  return typeof v === 'string' ? `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(v)}}` : `intstr.IntOrString{Type:0, IntVal:${goInt(v)}, StrVal:""}`;
}

/** An intstr.IntOrString bad value: field.Error prints the struct (its String() has a pointer receiver). */
export const goIntOrStringValue = (v: unknown): unknown => renderedBadValue(goIntOrString(v));
