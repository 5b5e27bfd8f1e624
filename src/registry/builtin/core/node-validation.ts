// The rules of kube 1.31's ValidateNode and ValidateNodeUpdate (pkg/apis/core/validation) beyond ObjectMeta: the
// node-specific annotations (serialized taints and preferAvoidPods), taints, capacity and allocatable, pod CIDRs,
// what an update may not change, and the deprecated dynamic kubelet configuration.

import { fieldErrors, HandlerPanic, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goText } from '../../../apis/go-bad-values.ts';
import { goTimeParseError } from '../../../encoding/go-decode.ts';
import { goQuote } from '../../../encoding/go-format.ts';
import { goDecodeError, goNamedString, GO_BOOL, GO_STRING, type GoType } from '../../../encoding/go-typed.ts';
import { parseJson } from '../../../encoding/json.ts';
import { jsonKind } from '../../../encoding/json-value.ts';
import type { KubeObject } from '../../types.ts';
import { validateQualifiedName } from '../../validation/meta.ts';
import { isConfigMapKey, isDNS1123Label, isDNS1123Subdomain, isValidLabelValue } from '../../validation/names.ts';
import { cidrFamily, INVALID_CIDR, ipBytes } from '../ip-validation.ts';
import { arrAt, getPath, isObj, objAt, objsAt, strAt, type Obj } from '../object.ts';
import { resourceQuantityValueErrors } from './quantity-values.ts';

export const TAINTS_ANNOTATION = 'scheduler.alpha.kubernetes.io/taints';
export const PREFER_AVOID_PODS_ANNOTATION = 'scheduler.alpha.kubernetes.io/preferAvoidPods';
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const objPath = (o: unknown, ...keys: string[]): Obj | undefined => {
  const v = getPath(o, ...keys);
  return isObj(v) ? v : undefined;
};
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * time.Time's GoString, which %#v calls for a *metav1.Time: the decoded time is in time.Local (UTC in kube-apiserver's
 * image). A nil *metav1.Time makes that call panic on a nil receiver, which fmt prints as <nil>.
 */
export function goTimeDate(rfc3339: unknown): string {
  if (typeof rfc3339 !== 'string' || rfc3339 === '') return '<nil>';
  const d = new Date(rfc3339);
  if (Number.isNaN(d.getTime())) return '<nil>';
  const nanos = Number((/:\d\d[.,](\d+)/.exec(rfc3339)?.[1] ?? '').slice(0, 9).padEnd(9, '0'));
  const parts = [d.getUTCFullYear(), `time.${MONTHS[d.getUTCMonth()]}`, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), nanos];
  return `time.Date(${parts.join(', ')}, time.Local)`;
}

/** %#v of a core.Taint. */
function goTaint(t: Obj): string {
  return `core.Taint{Key:${goText(t.key)}, Value:${goText(t.value)}, Effect:${goText(t.effect)}, TimeAdded:${goTimeDate(t.timeAdded)}}`;
}

/** validateNodeTaints: label-style keys and values, a known effect, unique by key and effect. */
export function nodeTaintErrors(taints: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  taints.forEach((t, i) => {
    const p = `${path}[${i}]`;
    const key = strAt(t, 'key');
    errs.push(...validateQualifiedName(key, `${p}.key`));
    const value = strAt(t, 'value');
    const valueErrs = isValidLabelValue(value);
    if (valueErrs.length) errs.push(fieldErrors.invalid(`${p}.value`, value, valueErrs.join(';')));
    const effect = strAt(t, 'effect');
    if (effect === '') errs.push(fieldErrors.required(`${p}.effect`));
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(fieldErrors.notSupported(`${p}.effect`, effect, TAINT_EFFECTS));
    const pair = `${effect}\u0000${key}`;
    if (seen.has(pair)) {
      errs.push({ ...fieldErrors.duplicate(p, renderedBadValue(goTaint(t))), detail: 'taints must be unique by key and effect pair' });
      return;
    }
    seen.add(pair);
  });
  return errs;
}

// ---- the node-specific annotations ----

const GO_TIME_RAW: GoType = { go: 'v1.Time', scalar: 'raw' };
const TAINT: GoType = {
  go: 'core.Taint',
  struct: 'Taint',
  fields: { key: GO_STRING, value: GO_STRING, effect: goNamedString('core.TaintEffect'), timeAdded: GO_TIME_RAW },
};
const OWNER_REFERENCE: GoType = {
  go: 'v1.OwnerReference',
  struct: 'OwnerReference',
  fields: { apiVersion: GO_STRING, kind: GO_STRING, name: GO_STRING, uid: goNamedString('types.UID'), controller: GO_BOOL, blockOwnerDeletion: GO_BOOL },
};
const AVOID_PODS: GoType = {
  go: 'v1.AvoidPods',
  struct: 'AvoidPods',
  fields: {
    preferAvoidPods: {
      go: '[]v1.PreferAvoidPodsEntry',
      elem: {
        go: 'v1.PreferAvoidPodsEntry',
        struct: 'PreferAvoidPodsEntry',
        fields: {
          podSignature: { go: 'v1.PodSignature', struct: 'PodSignature', fields: { podController: OWNER_REFERENCE } },
          evictionTime: GO_TIME_RAW,
          reason: GO_STRING,
          message: GO_STRING,
        },
      },
    },
  },
};

/**
 * metav1.Time's UnmarshalJSON error for a value (it decodes a string and parses it as RFC 3339). Its error ends the
 * decoding at once, so it wins over a mistyped field met before it.
 */
function timeUnmarshalError(v: unknown, struct: string, field: string): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'string') return `json: cannot unmarshal ${jsonKind(v)} into Go struct field ${struct}.${field} of type string`;
  return goTimeParseError(v);
}

/** json.Unmarshal of the annotation into `type`: the decoded value, or encoding/json's error. */
function decodeAnnotation(text: string, type: GoType, timeErrors: (value: unknown) => string | undefined): { value: unknown } | { error: string } {
  let value: unknown;
  try {
    value = parseJson(text).value;
  } catch (err) {
    return { error: (err as Error).message };
  }
  if (value === null) return { value };
  const wantArray = 'elem' in type && type.map !== true;
  if (wantArray ? !Array.isArray(value) : !isObj(value)) return { error: `json: cannot unmarshal ${jsonKind(value)} into Go value of type ${type.go}` };
  if (wantArray && 'elem' in type) {
    const notObject = (value as unknown[]).find((t) => t !== null && !isObj(t));
    if (notObject !== undefined) return { error: `json: cannot unmarshal ${jsonKind(notObject)} into Go value of type ${type.elem.go}` };
  }
  const error = timeErrors(value) ?? goDecodeError(value, type, '', []);
  return error === undefined ? { value } : { error };
}

function taintsAnnotationErrors(text: string, path: string): FieldError[] {
  const decoded = decodeAnnotation(text, { go: '[]core.Taint', elem: TAINT }, (v) => {
    for (const t of Array.isArray(v) ? v : []) {
      const error = isObj(t) ? timeUnmarshalError(t.timeAdded, 'Taint', 'timeAdded') : undefined;
      if (error) return error;
    }
    return undefined;
  });
  if ('error' in decoded) return [fieldErrors.invalid(path, TAINTS_ANNOTATION, decoded.error)];
  const taints = Array.isArray(decoded.value) ? decoded.value.map((t) => (isObj(t) ? t : {})) : [];
  return taints.length > 0 ? nodeTaintErrors(taints, `${path}.${TAINTS_ANNOTATION}`) : [];
}

/** validatePreferAvoidPodsEntry: a pod controller that is a controller (kube dereferences `controller` unchecked). */
function avoidPodsEntryErrors(entry: Obj, path: string): FieldError[] {
  const controller = getPath(entry, 'podSignature', 'podController');
  if (!isObj(controller)) return [fieldErrors.required(`${path}.PodSignature`)];
  if (typeof controller.controller !== 'boolean') throw new HandlerPanic('runtime error: invalid memory address or nil pointer dereference');
  return controller.controller ? [] : [fieldErrors.invalid(`${path}.PodSignature.PodController.Controller`, false, 'must point to a controller')];
}

function avoidPodsAnnotationErrors(text: string, path: string): FieldError[] {
  const decoded = decodeAnnotation(text, AVOID_PODS, (v) => {
    for (const e of objsAt(v, 'preferAvoidPods')) {
      const error = timeUnmarshalError(e.evictionTime, 'PreferAvoidPodsEntry', 'preferAvoidPods.evictionTime');
      if (error) return error;
    }
    return undefined;
  });
  if ('error' in decoded) return [fieldErrors.invalid(`${path}.AvoidPods`, PREFER_AVOID_PODS_ANNOTATION, decoded.error)];
  const entries = arrAt(decoded.value, 'preferAvoidPods');
  return entries.flatMap((e, i) => avoidPodsEntryErrors(isObj(e) ? e : {}, `${path}.${PREFER_AVOID_PODS_ANNOTATION}[${i}]`));
}

/** ValidateNodeSpecificAnnotations (`path` is metadata.annotations). */
export function nodeAnnotationErrors(annotations: unknown, path: string): FieldError[] {
  const taints = getPath(annotations, TAINTS_ANNOTATION);
  const avoidPods = getPath(annotations, PREFER_AVOID_PODS_ANNOTATION);
  return [
    ...(typeof taints === 'string' && taints !== '' ? taintsAnnotationErrors(taints, path) : []),
    ...(typeof avoidPods === 'string' && avoidPods !== '' ? avoidPodsAnnotationErrors(avoidPods, path) : []),
  ];
}

// ---- resources and pod CIDRs ----

/** ValidateNodeResources: capacity and allocatable hold valid quantities. */
export function nodeResourceErrors(node: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  for (const list of ['capacity', 'allocatable']) {
    for (const [name, q] of Object.entries(objPath(node, 'status', list) ?? {})) errs.push(...resourceQuantityValueErrors(name, q, `status.${list}.${name}`));
  }
  return errs;
}

/** The family netutils gives a parsed CIDR: its masked address is IPv4 when To4() holds (IPv4-mapped IPv6 too). */
function dualStackFamily(cidr: string): 4 | 6 {
  const family = cidrFamily(cidr);
  if (family === 4) return 4;
  const [address, bits] = cidr.split('/');
  const b = ipBytes(address!);
  const mapped = Number(bits) >= 96 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  return mapped ? 4 : 6;
}

/** netutils.IsDualStackCIDRStrings' error for the first entry that is not a CIDR. */
function dualStackCheckError(cidrs: string[]): string | undefined {
  const bad = cidrs.find((c) => cidrFamily(c) === 0);
  return bad === undefined ? undefined : `failed to parse cidr value:${goQuote(bad)} with error:invalid CIDR address: ${bad}`;
}

/** ValidateNode's pod CIDRs: each a CIDR, at most one per family, no repeats. */
export function podCIDRErrors(node: KubeObject): FieldError[] {
  const cidrs = arrAt(node, 'spec', 'podCIDRs').map((c) => (typeof c === 'string' ? c : ''));
  const path = 'spec.podCIDRs';
  const errs: FieldError[] = [];
  cidrs.forEach((c, i) => cidrFamily(c) === 0 && errs.push(fieldErrors.invalid(`${path}[${i}]`, c, INVALID_CIDR)));
  if (cidrs.length < 2) return errs;
  const parseError = dualStackCheckError(cidrs);
  if (parseError) errs.push({ type: 'InternalError', field: path, detail: `invalid PodCIDRs. failed to check with dual stack with error:${parseError}` });
  const families = new Set(cidrs.map(dualStackFamily));
  if (parseError || families.size < 2 || cidrs.length > 2) {
    errs.push(fieldErrors.invalid(path, renderedBadValue(`[]string{${cidrs.map(goQuote).join(', ')}}`), 'may specify no more than one CIDR for each IP family'));
  }
  const seen = new Set<string>();
  cidrs.forEach((c, i) => {
    if (seen.has(c)) errs.push(fieldErrors.duplicate(`${path}[${i}]`, c));
    seen.add(c);
  });
  return errs;
}

// ---- the deprecated dynamic kubelet configuration ----

/** validateConfigMapNodeConfigSource: where the config map is and which key holds the kubelet configuration. */
function configMapSourceErrors(source: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const checks: [string, string, (v: string) => string[]][] = [
    ['namespace', 'namespace must be set', isDNS1123Label],
    ['name', 'name must be set', isDNS1123Subdomain],
    ['kubeletConfigKey', 'kubeletConfigKey must be set', isConfigMapKey],
  ];
  for (const [field, required, check] of checks) {
    const value = strAt(source, field);
    if (value === '') errs.push(fieldErrors.required(`${path}.${field}`, required));
    else for (const m of check(value)) errs.push(fieldErrors.invalid(`${path}.${field}`, value, m));
  }
  return errs;
}

const NO_REFERENCE = renderedBadValue('core.NodeConfigSource{ConfigMap:(*core.ConfigMapNodeConfigSource)(nil)}');
const EXACTLY_ONE = 'exactly one reference subfield must be non-nil';

/** validateNodeConfigSourceSpec (spec.configSource): uid and resourceVersion are the kubelet's to fill in. */
function configSourceSpecErrors(source: Obj, path: string): FieldError[] {
  const configMap = objAt(source, 'configMap');
  if (!configMap) return [fieldErrors.invalid(path, NO_REFERENCE, EXACTLY_ONE)];
  const p = `${path}.configMap`;
  const errs: FieldError[] = [];
  if (strAt(configMap, 'uid') !== '') errs.push(fieldErrors.forbidden(`${p}.uid`, 'uid must not be set in spec'));
  if (strAt(configMap, 'resourceVersion') !== '') errs.push(fieldErrors.forbidden(`${p}.resourceVersion`, 'resourceVersion must not be set in spec'));
  return [...errs, ...configMapSourceErrors(configMap, p)];
}

/** validateNodeConfigSourceStatus (status.config.assigned, active, lastKnownGood): uid and resourceVersion set. */
function configSourceStatusErrors(source: Obj, path: string): FieldError[] {
  const configMap = objAt(source, 'configMap');
  if (!configMap) return [fieldErrors.invalid(path, NO_REFERENCE, EXACTLY_ONE)];
  const p = `${path}.configMap`;
  const errs: FieldError[] = [];
  if (strAt(configMap, 'uid') === '') errs.push(fieldErrors.required(`${p}.uid`, 'uid must be set in status'));
  if (strAt(configMap, 'resourceVersion') === '') errs.push(fieldErrors.required(`${p}.resourceVersion`, 'resourceVersion must be set in status'));
  return [...errs, ...configMapSourceErrors(configMap, p)];
}

function nodeConfigErrors(node: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const source = objPath(node, 'spec', 'configSource');
  if (source) errs.push(...configSourceSpecErrors(source, 'spec.configSource'));
  const config = objPath(node, 'status', 'config');
  for (const which of ['assigned', 'active', 'lastKnownGood']) {
    const s = objAt(config, which);
    if (s) errs.push(...configSourceStatusErrors(s, `status.config.${which}`));
  }
  return errs;
}

// ---- ValidateNode and ValidateNodeUpdate ----

/** ValidateNode after ObjectMeta: annotations, taints (under metadata.taints, kube's path), resources, pod CIDRs. */
export function nodeErrors(node: KubeObject): FieldError[] {
  return [
    ...nodeAnnotationErrors(node.metadata?.annotations, 'metadata.annotations'),
    ...nodeTaintErrors(objsAt(node, 'spec', 'taints'), 'metadata.taints'),
    ...nodeResourceErrors(node),
    ...podCIDRErrors(node),
  ];
}

const NOT_CHANGED = (field: string) => `node updates may not change ${field} except from "" to valid`;

function duplicateAddressErrors(node: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  objsAt(node, 'status', 'addresses').forEach((a, i) => {
    const key = `${strAt(a, 'type')}\u0000${strAt(a, 'address')}`;
    if (seen.has(key)) errs.push(fieldErrors.duplicate(`status.addresses[${i}]`, renderedBadValue(`core.NodeAddress{Type:${goText(a.type)}, Address:${goText(a.address)}}`)));
    seen.add(key);
  });
  return errs;
}

/** ValidateNodeUpdate after ObjectMeta's update rules (the status subresource's check too). */
export function nodeUpdateErrors(node: KubeObject, old: KubeObject): FieldError[] {
  const errs = [...nodeAnnotationErrors(node.metadata?.annotations, 'metadata.annotations'), ...nodeResourceErrors(node), ...duplicateAddressErrors(node)];
  const oldCIDRs = arrAt(old, 'spec', 'podCIDRs');
  const newCIDRs = arrAt(node, 'spec', 'podCIDRs');
  if (oldCIDRs.length > 0) {
    if (oldCIDRs.length !== newCIDRs.length) errs.push(fieldErrors.forbidden('spec.podCIDRs', NOT_CHANGED('podCIDR')));
    else oldCIDRs.forEach((c, i) => c !== newCIDRs[i] && errs.push(fieldErrors.forbidden('spec.podCIDRs', NOT_CHANGED('podCIDR'))));
  }
  const oldProvider = strAt(old, 'spec', 'providerID');
  if (oldProvider !== '' && oldProvider !== strAt(node, 'spec', 'providerID')) errs.push(fieldErrors.forbidden('spec.providerID', NOT_CHANGED('providerID')));
  errs.push(...nodeConfigErrors(node));
  errs.push(...nodeTaintErrors(objsAt(node, 'spec', 'taints'), 'metadata.taints'));
  if (strAt(node, 'spec', 'externalID') !== strAt(old, 'spec', 'externalID')) errs.push(fieldErrors.forbidden('spec.externalID', 'may not be updated'));
  return errs;
}
