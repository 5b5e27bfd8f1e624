// Test helper: protobuf bytes assembled by hand from the field numbers of the k8s 1.31 .proto files, independent of
// messages.ts, for the tests of what storage writes and reads (unit tests and the etcd e2e test).

export function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
}

const VARINT = 0;
const LEN = 2;
const key = (field: number, wire: number) => varint(field * 8 + wire);
export const num = (field: number, n: number): number[] => [...key(field, VARINT), ...varint(n)];
export const bytes = (field: number, body: number[]): number[] => [...key(field, LEN), ...varint(body.length), ...body];
export const str = (field: number, s: string): number[] => bytes(field, [...Buffer.from(s, 'utf8')]);
/** One map entry (key 1, value 2) of a map<string, string> field. */
export const entry = (field: number, k: string, v: string): number[] => bytes(field, [...str(1, k), ...str(2, v)]);

/** The k8s\0 magic and runtime.Unknown{typeMeta 1 {apiVersion 1, kind 2}, raw 2, contentEncoding 3, contentType 4}. */
export function envelope(apiVersion: string, kind: string, raw: number[]): Buffer {
  return Buffer.from([0x6b, 0x38, 0x73, 0x00, ...bytes(1, [...str(1, apiVersion), ...str(2, kind)]), ...bytes(2, raw), ...str(3, ''), ...str(4, '')]);
}

export interface ConfigMapFacts {
  name: string;
  namespace: string;
  uid: string;
  /** RFC 3339, whole seconds. */
  creationTimestamp: string;
  labels?: Record<string, string>;
  data?: Record<string, string>;
  immutable?: boolean;
}

const sortedEntries = (field: number, map: Record<string, string> = {}): number[] =>
  Object.keys(map)
    .sort()
    .flatMap((k) => entry(field, k, map[k]));

/**
 * What kube-apiserver 1.31 writes to etcd for a ConfigMap (gogo-protobuf: fields in number order, plain strings and
 * ints written even when empty, nil pointers left out, map keys sorted).
 */
export function kubeConfigMapBytes(cm: ConfigMapFacts): Buffer {
  const objectMeta = [
    ...str(1, cm.name),
    ...str(2, ''), // generateName
    ...str(3, cm.namespace),
    ...str(4, ''), // selfLink
    ...str(5, cm.uid),
    ...str(6, ''), // resourceVersion: cleared for storage
    ...num(7, 0), // generation
    ...bytes(8, [...num(1, Date.parse(cm.creationTimestamp) / 1000), ...num(2, 0)]), // creationTimestamp {seconds, nanos}
    // 9 deletionTimestamp and 10 deletionGracePeriodSeconds: nil pointers, absent
    ...sortedEntries(11, cm.labels),
  ];
  const raw = [...bytes(1, objectMeta), ...sortedEntries(2, cm.data), ...(cm.immutable === undefined ? [] : num(4, cm.immutable ? 1 : 0))];
  return envelope('v1', 'ConfigMap', raw);
}
