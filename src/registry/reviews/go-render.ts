// How Go prints the values kube's review validation puts in its field errors: the generated String() of
// metav1.ObjectMeta (and its managedFields entries) and %#v of the internal NonResourceAttributes struct.

import { goQuote, goTimeString } from '../../encoding/go-format.ts';
import type { ManagedFieldsEntry, ObjectMeta, OwnerReference } from '../types.ts';

/** Go's %v of a []byte: the decimal bytes. */
function byteList(text: string): string {
  return `[${[...Buffer.from(text, 'utf8')].join(' ')}]`;
}

/** The gogo-generated String() of a map[string]string: keys sorted, "k: v," each. */
function stringMap(m: Readonly<Record<string, string>> | undefined): string {
  const keys = Object.keys(m ?? {}).sort();
  return `map[string]string{${keys.map((k) => `${k}: ${m![k]},`).join('')}}`;
}

function ownerReferenceString(r: OwnerReference): string {
  const ptrBool = (b: boolean | undefined) => (b === undefined ? 'nil' : `*${String(b)}`);
  return (
    `OwnerReference{Kind:${r.kind},Name:${r.name},UID:${r.uid},APIVersion:${r.apiVersion},` +
    `Controller:${ptrBool(r.controller)},BlockOwnerDeletion:${ptrBool(r.blockOwnerDeletion)},}`
  );
}

function managedFieldsEntryString(e: ManagedFieldsEntry): string {
  const time = e.time ? goTimeString(e.time) : '<nil>';
  const fields = e.fieldsV1 === undefined ? 'nil' : `&FieldsV1{Raw:*${byteList(JSON.stringify(e.fieldsV1))},}`;
  return (
    `ManagedFieldsEntry{Manager:${e.manager ?? ''},Operation:${e.operation ?? ''},APIVersion:${e.apiVersion ?? ''},` +
    `Time:${time},FieldsType:${e.fieldsType ?? ''},FieldsV1:${fields},Subresource:${e.subresource ?? ''},}`
  );
}

/** (*metav1.ObjectMeta).String(), which field.Error uses for an ObjectMeta bad value. */
export function objectMetaString(m: ObjectMeta): string {
  const parts = [
    `Name:${m.name ?? ''}`,
    `GenerateName:${m.generateName ?? ''}`,
    `Namespace:${m.namespace ?? ''}`,
    `SelfLink:${m.selfLink ?? ''}`,
    `UID:${m.uid ?? ''}`,
    `ResourceVersion:${m.resourceVersion ?? ''}`,
    `Generation:${String(m.generation ?? 0)}`,
    `CreationTimestamp:${goTimeString(m.creationTimestamp)}`,
    `DeletionTimestamp:${m.deletionTimestamp ? goTimeString(m.deletionTimestamp) : '<nil>'}`,
    `DeletionGracePeriodSeconds:${m.deletionGracePeriodSeconds === undefined ? 'nil' : `*${String(m.deletionGracePeriodSeconds)}`}`,
    `Labels:${stringMap(m.labels)}`,
    `Annotations:${stringMap(m.annotations)}`,
    `OwnerReferences:[]OwnerReference{${(m.ownerReferences ?? []).map((r) => `${ownerReferenceString(r)},`).join('')}}`,
    `Finalizers:[${(m.finalizers ?? []).join(' ')}]`,
    `ManagedFields:[]ManagedFieldsEntry{${(m.managedFields ?? []).map((e) => `${managedFieldsEntryString(e)},`).join('')}}`,
  ];
  return `&ObjectMeta{${parts.map((p) => `${p},`).join('')}}`;
}

/** %#v of authorization.NonResourceAttributes (the internal type has no String method). */
export function nonResourceAttributesGoString(a: Readonly<Record<string, unknown>>): string {
  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  return `authorization.NonResourceAttributes{Path:${goQuote(s(a.path))}, Verb:${goQuote(s(a.verb))}}`;
}
